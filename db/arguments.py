"""Argument checks for the service layer: every bad value becomes a one-line InvalidValue
before any database work starts, so a rejected call writes nothing.
"""

import math
from datetime import date, datetime
from typing import Any

from db import validate
from db.errors import InvalidValue
from db.glucose.units import check_unit
from db.nutrition import check_exchange_unit, check_region

USER_NAME_MAX = 64

# Setting name -> (low, high) for numeric settings, read by the app's fields too; the exchange
# unit has its own check.
SETTING_RANGES: dict[str, tuple[float, float]] = {
    "daily_kcal_target": (100.0, 10000.0),
    "daily_carb_target_g": (1.0, 1000.0),
    "confidence_threshold": (0.0, 1.0),
}
SETTINGS: tuple[str, ...] = (
    "daily_kcal_target", "daily_carb_target_g", "exchange_unit_g", "confidence_threshold",
    "region", "keep_photos", "glucose_unit",
)


def user_name(name: object) -> str:
    """A display name: validate.name's rules, at most 64 characters."""
    return validate.name("user name", name, USER_NAME_MAX)


def password(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise InvalidValue("password must be non-empty text (or None for a local user)")
    if len(value) > 1024:
        raise InvalidValue("password is longer than 1024 characters")
    return value


def text(field: str, value: object, max_len: int) -> str:
    if not isinstance(value, str):
        raise InvalidValue(f"{field} must be text, got {validate.echo(value)}")
    value = value.strip()
    if len(value) > max_len:
        raise InvalidValue(f"{field} is longer than {max_len} characters")
    if "\x00" in value:  # no text column of PostgreSQL can hold it
        raise InvalidValue(f"{field} contains a NUL character")
    return value


def optional_text(field: str, value: object, max_len: int) -> str | None:
    if value is None:
        return None
    return text(field, value, max_len) or None


def sha256_hex(field: str, value: object) -> str | None:
    """None, or 64 hexadecimal digits (lower-cased)."""
    if value is None:
        return None
    if not isinstance(value, str) or len(value) != 64 or not all(
            ch in "0123456789abcdefABCDEF" for ch in value):
        raise InvalidValue(f"{field} must be 64 hexadecimal digits (a SHA-256), got {validate.echo(value)}")
    return value.lower()


def optional_flag(field: str, value: object) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise InvalidValue(f"{field} must be true, false or empty, got {validate.echo(value)}")


def number(field: str, value: object, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidValue(f"{field} must be a number, got {validate.echo(value)}")
    value = float(value)
    if not math.isfinite(value) or not low <= value <= high:
        raise InvalidValue(f"{field} must be between {low:g} and {high:g}, got {validate.echo(value)}")
    return value


def confidence(value: object) -> float | None:
    return None if value is None else number("confidence", value, 0.0, 1.0)


def local_datetime(field: str, value: object) -> datetime:
    """A naive local wall-clock time within validate's years; aware datetimes are converted
    to local time first (after the year check, which keeps the conversion from overflowing)."""
    value = validate.moment(field, value)
    if value.tzinfo is not None:
        value = value.astimezone().replace(tzinfo=None)
    return value


def day(value: object) -> date:
    return validate.day(value)


def flag(field: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    raise InvalidValue(f"{field} must be true or false, got {validate.echo(value)}")


def settings(values: dict[str, Any]) -> dict[str, float | str | bool | None]:
    unknown = sorted(set(values) - set(SETTINGS))
    if unknown:
        raise InvalidValue(f"unknown settings {unknown}; settings are {list(SETTINGS)}")
    checked: dict[str, float | str | bool | None] = {}
    for field, value in values.items():
        if field == "exchange_unit_g":
            checked[field] = check_exchange_unit(value)
        elif field == "region":
            checked[field] = check_region(value)
        elif field == "keep_photos":
            checked[field] = flag(field, value)
        elif field == "glucose_unit":  # None: the region's unit
            checked[field] = None if value is None else check_unit(value)
        else:
            checked[field] = number(field, value, *SETTING_RANGES[field])
    return checked
