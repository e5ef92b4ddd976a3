"""The trainer's errors: a bad input the user can fix, and a lost peer process. Each is one line."""

from models.errors import FoodtagError


class DistillError(FoodtagError):
    """Bad data, config, teacher or checkpoint. `python -m distill` prints it and exits 2."""


class LostPeerError(Exception):
    """Another training process or node stopped (or hung past --dist-timeout, or the network
    failed), so a collective failed. `python -m distill` prints it and exits 1; torchrun's
    --max-restarts then restarts the group, which continues from last.pt."""
