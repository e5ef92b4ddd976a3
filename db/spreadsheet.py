"""Text cells made safe for spreadsheets (OWASP "CSV Injection"): one rule for every CSV the
project writes (the meal-log export, the batch results)."""

# A spreadsheet runs a cell starting with = + - @ as a formula; a leading tab or carriage
# return can hide such a start from a naive check, so OWASP lists them too.
FORMULA_PREFIXES: tuple[str, ...] = ("=", "+", "-", "@", "\t", "\r")


def neutralise(cell: str) -> str:
    """``cell`` with a leading ' when it starts with one of FORMULA_PREFIXES, so a spreadsheet
    shows it as text instead of running it; any other cell unchanged."""
    return "'" + cell if cell.startswith(FORMULA_PREFIXES) else cell
