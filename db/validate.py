"""The one home of the input rules every front end shares: portions, names and calendar bounds.

The web UI, the JSON API, the batch tool and both CLIs parse grams and dates through these
functions, so a value one of them refuses is refused by all, with the same message. Error
messages quote at most a short prefix of what was typed (see `echo`).
"""

from __future__ import annotations

import math
import re
import unicodedata
from datetime import date, datetime, time, timedelta

from db.errors import InvalidPortion, InvalidValue
from db.keys import name_key

# A logged portion below 1 g is a typing error or a trick (5e-324 g shows as 0 g and makes
# rescaling it later divide by almost zero); above 5 kg it is not one meal.
MIN_PORTION_G = 1.0
MAX_PORTION_G = 5000.0
# Meal dates outside these years are typos; the bounds also keep day arithmetic (a day
# before, a day after) away from datetime's year-1 and year-9999 edges.
MIN_YEAR = 1900
MAX_YEAR = 2100
# A meal more than a day ahead is a typo (a wrong year or month), not a plan.
MAX_FUTURE = timedelta(days=1)
# How much of a bad value an error message repeats.
ECHO_CHARS = 40
# Grams as people write them: ASCII digits with an optional decimal dot. float() would also
# take "1_000", "1e3", "inf" and other scripts' digits.
_PLAIN_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
# Characters a name may not contain: control (Cc), format (Cf: zero-width spaces and joiners,
# bidi overrides), unassigned (Cn), surrogates (Cs), private use (Co) and line and paragraph
# separators (Zl, Zp). They make names that look empty or look like another one.
_NAME_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cn", "Cs", "Co", "Zl", "Zp"})


def echo(value: object) -> str:
    """`value` as quoted in an error message: its repr, cut to ECHO_CHARS characters."""
    text = repr(value)
    return text if len(text) <= ECHO_CHARS else text[: ECHO_CHARS - 3] + "..."


def grams(value: object) -> float:
    """A portion in grams from a number or text ("150", " 12.5 "): finite, 1 to 5000."""
    if isinstance(value, str):
        text = value.strip()
        if not _PLAIN_DECIMAL.fullmatch(text):
            raise InvalidPortion(f"grams must be a number (use a dot for decimals), got {echo(value)}")
        number = float(text)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    else:
        raise InvalidPortion(f"grams must be a number, got {echo(value)}")
    if not math.isfinite(number) or not MIN_PORTION_G <= number <= MAX_PORTION_G:
        raise InvalidPortion(
            f"grams must be from {MIN_PORTION_G:g} to {MAX_PORTION_G:g}, got {echo(value)}"
        )
    return number


def name(field: str, value: object, max_len: int) -> str:
    """A name people type (a user, an own food, a recipe): NFC-normalised, outer whitespace
    removed, 1 to `max_len` characters, none of them invisible or unassigned. Compare names
    through db.keys.name_key, which sees NFC and NFD spellings as the same."""
    if not isinstance(value, str):
        raise InvalidValue(f"{field} must be text, got {echo(value)}")
    text = unicodedata.normalize("NFC", value).strip()
    if not name_key(text):
        raise InvalidValue(f"{field} is empty")
    if len(text) > max_len:
        raise InvalidValue(f"{field} is longer than {max_len} characters")
    refused = next((ch for ch in text if unicodedata.category(ch) in _NAME_REFUSED_CATEGORIES), None)
    if refused is not None:
        raise InvalidValue(f"{field} {echo(text)} contains an invisible, control or unassigned "
                           f"character (U+{ord(refused):04X})")
    return text


def optional_grams(value: object) -> float | None:
    """grams(), where None or blank text means "no grams given"."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return grams(value)


def portion(grams: object, serving: object) -> tuple[float | None, str | None]:
    """(grams, serving name) of a portion given as grams (a number or text) or a serving name,
    not both; blank means not given, and (None, None) asks for the food's default serving."""
    grams = optional_grams(grams)
    if isinstance(serving, str):
        serving = serving.strip() or None
    if grams is not None and serving is not None:
        raise InvalidPortion("give a portion in grams or a serving, not both")
    if serving is not None and not isinstance(serving, str):
        raise InvalidPortion(f"serving must be text, got {echo(serving)}")
    return grams, serving


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


def meal_moment(field: str, value: datetime) -> datetime:
    """A meal's time as it is stored: local wall-clock (an aware time is converted), within
    the years, at most MAX_FUTURE ahead."""
    value = moment(field, value)
    if value.tzinfo is not None:  # after the year check, which keeps the conversion from overflowing
        value = value.astimezone().replace(tzinfo=None)
    if value - datetime.now() > MAX_FUTURE:
        raise InvalidValue(f"{field} {value:%Y-%m-%d %H:%M} is more than a day in the future")
    return value


def meal_time(text: str | None, *, field: str = "time", today: date | None = None) -> datetime | None:
    """A meal's time as typed in the page or a batch CSV: blank -> None (now), "now", "HH:MM"
    (on ``today``), or an ISO date or date-time ("2024-05-01", "2024-05-01 12:30",
    "2024-05-01T12:30:00+02:00"); checked by meal_moment."""
    text = (text or "").strip()
    if not text:
        return None
    if text == "now":
        return datetime.now().replace(microsecond=0)
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        try:
            when = datetime.combine(today or date.today(), time.fromisoformat(text))
        except ValueError:
            raise InvalidValue(f"{field} {echo(text)} not understood: use HH:MM, YYYY-MM-DD or "
                               "YYYY-MM-DD HH:MM") from None
    return meal_moment(field, when)


def _check_year(year: int, shown: str) -> None:
    if not MIN_YEAR <= year <= MAX_YEAR:
        raise InvalidValue(f"date {shown} is outside the years {MIN_YEAR}-{MAX_YEAR}")
