"""How food names, aliases, labels and user names are compared.

Everything people type is matched through one normal form, so "Hot dog", "hot_dog",
" HOT  DOG " and "crème brûlée" / "creme brulee" meet. The form is stored next to each
name in an indexed column, because SQLite's lower() only folds ASCII.
"""

import unicodedata


def name_key(text: str) -> str:
    """Case-folded, accent-free, underscores and control characters (NUL included, which
    PostgreSQL cannot store) as spaces, runs of whitespace collapsed."""
    if text.isascii() and text.isprintable():  # most names: nothing to decompose or drop
        return " ".join(text.replace("_", " ").casefold().split())
    decomposed = unicodedata.normalize("NFKD", text.replace("_", " "))
    plain = "".join(" " if unicodedata.category(ch) == "Cc" else ch
                    for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(plain.casefold().split())
