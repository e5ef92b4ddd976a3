"""Errors the database layer raises. Each message is one line that names the bad value."""

from models.errors import FoodtagError


class UnknownFood(FoodtagError):
    """No food has this model label, name or alias."""


class InvalidValue(FoodtagError):
    """An argument is out of range, of the wrong type, or not one of the allowed values."""


class InvalidPortion(InvalidValue):
    """A portion cannot be used: grams <= 0 or absurdly large, or an unknown serving name."""


class NoDefaultServing(InvalidPortion):
    """The food has no default serving (a CoFID or Swiss row without a cited portion): only
    grams the person gives make a portion of it."""


class UnknownUser(FoodtagError):
    """No user has this name."""


class UserExists(FoodtagError):
    """A user with this name (compared case-insensitively) already exists."""


class NotFound(FoodtagError):
    """A meal entry does not exist, or belongs to another user (the two are not told apart)."""


class SeedError(FoodtagError):
    """A seed CSV is missing or invalid; the message starts with ``file:line:``."""
