"""The one home of the input rules every front end shares: portion grams and calendar bounds.

The web UI, the JSON API, the batch tool and both CLIs parse grams and dates through these
functions, so a value one of them refuses is refused by all, with the same message. Error
messages quote at most a short prefix of what was typed (see `echo`).
"""

from __future__ import annotations

import math
from datetime import date, datetime

from db.errors import InvalidPortion, InvalidValue

# A logged portion below 1 g is a typing error or a trick (5e-324 g shows as 0 g and makes
# rescaling it later divide by almost zero); above 5 kg it is not one meal.
MIN_PORTION_G = 1.0
MAX_PORTION_G = 5000.0
# Meal dates outside these years are typos; the bounds also keep day arithmetic (a day
# before, a day after) away from datetime's year-1 and year-9999 edges.
MIN_YEAR = 1900
MAX_YEAR = 2100
# How much of a bad value an error message repeats.
ECHO_CHARS = 40


def echo(value: object) -> str:
    """`value` as quoted in an error message: its repr, cut to ECHO_CHARS characters."""
    text = repr(value)
    return text if len(text) <= ECHO_CHARS else text[: ECHO_CHARS - 3] + "..."


def grams(value: object) -> float:
    """A portion in grams from a number or text ("150", " 12.5 "): finite, 1 to 5000."""
    if isinstance(value, str):
        text = value.strip()
        try:
            number = float(text)
        except ValueError:
            raise InvalidPortion(f"grams must be a number (use a dot for decimals), got {echo(value)}") from None
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    else:
        raise InvalidPortion(f"grams must be a number, got {echo(value)}")
    if not math.isfinite(number) or not MIN_PORTION_G <= number <= MAX_PORTION_G:
        raise InvalidPortion(
            f"grams must be from {MIN_PORTION_G:g} to {MAX_PORTION_G:g}, got {echo(value)}"
        )
    return number


def optional_grams(value: object) -> float | None:
    """grams(), where None or blank text means "no grams given"."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return grams(value)


def day(value: date) -> date:
    """A calendar day (a datetime gives its date) within MIN_YEAR..MAX_YEAR."""
    if isinstance(value, datetime):
        value = value.date()
    if not isinstance(value, date):
        raise InvalidValue(f"day must be a date, got {echo(value)}")
    _check_year(value.year, value.isoformat())
    return value


def moment(field: str, value: datetime) -> datetime:
    """A date-time within MIN_YEAR..MAX_YEAR."""
    if not isinstance(value, datetime):
        raise InvalidValue(f"{field} must be a datetime, got {echo(value)}")
    _check_year(value.year, value.isoformat(sep=" "))
    return value


def _check_year(year: int, shown: str) -> None:
    if not MIN_YEAR <= year <= MAX_YEAR:
        raise InvalidValue(f"date {shown} is outside the years {MIN_YEAR}-{MAX_YEAR}")
