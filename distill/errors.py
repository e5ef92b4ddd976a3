"""The one error type of the trainer: a bad input the user can fix, reported on one line."""

from models.errors import FoodtagError


class DistillError(FoodtagError):
    """Bad data, config, teacher or checkpoint. `python -m distill` prints it and exits 2."""
