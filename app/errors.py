"""Expected errors in the web UI: a person's mistake is shown on the page and logged as one line."""

from __future__ import annotations

import logging
from contextlib import contextmanager

import gradio as gr

from models.errors import FoodtagError

log = logging.getLogger("foodtag.ui")


def user_error(message: str) -> gr.Error:
    """The gr.Error to raise for a mistake the person can fix: the page shows `message`, and
    the log gets one line instead of the traceback Gradio prints for every gr.Error."""
    log.warning("refused: %s", message)
    return gr.Error(message, print_exception=False)


@contextmanager
def shown_errors():
    """FoodtagError -> gr.Error: the page shows its one-line message, the log one line."""
    try:
        yield
    except FoodtagError as exc:
        raise user_error(str(exc)) from None
