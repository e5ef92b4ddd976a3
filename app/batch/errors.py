"""The two ways a batch can go wrong: the whole input is unusable, or one row is."""

from models.errors import FoodtagError


class BatchInputError(FoodtagError):
    """The input CSV, an option or the output to resume cannot be used; nothing was processed.

    The command line prints the message as one line and exits with status 2.
    """


class RowError(Exception):
    """One row cannot be processed; its message becomes that row's ``error`` cell."""
