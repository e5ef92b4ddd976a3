"""Expected errors in the front ends: a person's mistake is shown on the page (and logged as one
line); on the JSON API each domain error answers with the one status HTTP_STATUS gives it."""

from __future__ import annotations

import logging
from contextlib import contextmanager

import gradio as gr
from fastapi.responses import JSONResponse

from db.errors import NotFound, UnknownFood, UnknownUser, UserExists
from models.errors import FoodtagError, ImageError, ModelError

log = logging.getLogger("foodtag.ui")


class UploadTooLarge(FoodtagError):
    """An upload over the server's size limit, refused before it is decoded."""


class Busy(FoodtagError):
    """A user's requests already fill their turns at something scarce and the line behind them
    (app.security.FairSlots): refused at once, to be sent again later."""


# Domain error -> HTTP status for every /api route; the first match wins.
HTTP_STATUS: tuple[tuple[type[FoodtagError] | tuple[type[FoodtagError], ...], int], ...] = (
    (UploadTooLarge, 413),
    (Busy, 429),
    (ImageError, 400),  # the file is not a photo the app can read
    ((UnknownFood, UnknownUser, NotFound), 404),
    (UserExists, 409),
    (ModelError, 503),  # the model cannot run: the server's problem, not the request's
    (FoodtagError, 422),  # any other value the domain refused
)


def http_status(exc: FoodtagError) -> int:
    return next(status for kind, status in HTTP_STATUS if isinstance(exc, kind))


def error(status: int, message: str, **headers: str) -> JSONResponse:
    """A JSON error body, {"error": message}."""
    return JSONResponse({"error": message}, status_code=status, headers=headers or None)


def error_response(exc: FoodtagError) -> JSONResponse:
    """The API's answer to a refused request: the message, under HTTP_STATUS's status."""
    return error(http_status(exc), str(exc))


def check_upload_size(size: int, limit: int, name: str) -> None:
    """The one upload limit of the page, the API and the dish forms: UploadTooLarge above it."""
    if size > limit:
        raise UploadTooLarge(f"{name}: file is {size / 2**20:.1f} MB; the limit is {limit / 2**20:g} MB")


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
