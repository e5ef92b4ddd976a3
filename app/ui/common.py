"""What the tabs share: the app context (with the signed-in user and the turns at the model),
downloads only their owner may fetch, the meal-time parser, the number fields that refuse what
their box cannot send, and the API visibility of events that repeat another."""

from __future__ import annotations

import functools
import inspect
import math
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

import gradio as gr
from starlette.concurrency import run_in_threadpool

from app.auth import Identity
from app.errors import Busy, shown_errors, user_error
from app.meals import Analyzer
from app.model_catalog import ModelCatalog
from app.security import FairSlots, OwnedFiles, Uploads, private_dir
from db import validate
from models.paths import data_home

# Exported logs are health data: our copies live a few minutes, Gradio's an hour at most.
EXPORT_MAX_AGE_S = 300
# Events that repeat another one (same handler, other trigger) are callable but left out of the
# API page, which lists each operation once.
QUIET = {"api_visibility": "undocumented"}


@dataclass
class AppContext:
    """What every handler shares: the model catalogue, the analyser and the identity rules."""

    catalog: ModelCatalog
    analyzer: Analyzer
    identity: Identity
    max_upload_bytes: int
    files: OwnedFiles  # downloads only their owner may fetch
    uploads: Uploads = field(default_factory=Uploads)  # Gradio's, deleted once used
    # Turns at the model, for the page's analyses and dish photos and the API's alike: two a
    # user, four in all, and six more of a user's may wait (a page's waiting event holds one of
    # Gradio's 40 event workers; eight at once is what a script sending a few photos needs).
    model_slots: FairSlots = field(default_factory=lambda: FairSlots(
        per_user=2, total=4, max_waiting=6, what="analyses or dish uploads"))
    # Batch runs last minutes: their own turns (one a user, two in all, one more of a user's
    # waiting), so that they never hold every turn at the model and stall everyone's single photos.
    batch_slots: FairSlots = field(default_factory=lambda: FairSlots(
        per_user=1, total=2, max_waiting=1, what="batch runs"))

    def user(self, request: gr.Request | None) -> str:
        """The signed-in user of a page request; no handler accepts a user name from the page."""
        return self.identity.ui_user(request)

    def in_turn(self, handler: Callable, slots: FairSlots | None = None) -> dict:
        """The event options (fn and concurrency) of a page handler that runs the model: it
        waits for its user's turn in ``slots`` (model_slots unless given), as a coroutine that
        holds no thread, then runs in a worker thread; refused at once when too many of the
        user's wait already. Gradio's own limit is lifted for it: a limit per event would queue
        everyone behind one user's burst again."""
        slots = slots or self.model_slots
        request_at = list(inspect.signature(handler).parameters).index("request")

        @functools.wraps(handler)  # Gradio reads the handler's parameters and name through it
        async def event(*args):
            with shown_errors():
                user = self.user(args[request_at])
            try:
                async with slots.turn(user):
                    return await run_in_threadpool(handler, *args)
            except Busy as exc:  # too many of theirs wait already: refused at once, holding nothing
                raise user_error(str(exc)) from None

        return {"fn": event, "concurrency_limit": None}


class Downloads:
    """New file paths that only their user may download (app.security.OwnedFiles). Gradio
    copies a returned file into its cache (purged by delete_cache) after the handler returns,
    so our copy cannot be removed then; earlier ones are removed as the next is made."""

    def __init__(self, files: OwnedFiles) -> None:
        self.files = files
        self.root = Path(tempfile.mkdtemp(prefix="exports-", dir=private_dir(data_home() / "tmp")))

    def path(self, stem: str, suffix: str, user: str) -> Path:
        self._sweep()
        folder = Path(tempfile.mkdtemp(prefix="export-", dir=self.root))
        return folder / self.files.name(stem, suffix, user)

    def _sweep(self) -> None:
        cutoff = datetime.now().timestamp() - EXPORT_MAX_AGE_S
        for folder in self.root.glob("export-*"):
            if folder.stat().st_mtime < cutoff:
                shutil.rmtree(folder, ignore_errors=True)


def parse_when(text: str | None, *, today: date | None = None) -> datetime:
    """The time box: "now" (or blank), "HH:MM", "YYYY-MM-DD HH:MM" (db.validate.meal_time)."""
    return validate.meal_time(text, today=today) or datetime.now().replace(microsecond=0)


def checked_number(label: str | None, value: object, low: float | None, high: float | None, *,
                   required: bool = False) -> float | None:
    """A number field's value as a handler may use it: None (an empty box) unless ``required``,
    else a finite int or float within [low, high]. A raw API call (``/gradio_api/call``, the
    queue) can send what the page's box cannot: text, NaN, an infinity, a number out of bounds;
    each is refused with a message (user_error: one log line), never a server exception."""
    name = (label or "The value").split(":")[0]
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise user_error(f"{name} must be a number, got {validate.echo(value)}")
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = (f"from {low:g} to {high:g}" if low is not None and high is not None
                  else f"at least {low:g}" if low is not None else f"at most {high:g}")
        raise user_error(f"{name} must be {bounds}, got {value:g}")
    return value


class NumberField(gr.Number):
    """gr.Number (drawn as Gradio's own: is_template) whose server side checks its value with
    checked_number; Gradio's own check lets NaN through and answers text with an exception."""

    is_template = True

    def preprocess(self, payload: object) -> float | None:
        value = checked_number(self.label, payload, self.minimum, self.maximum)
        return None if value is None else self.round_to_precision(value, self.precision)


class SliderField(gr.Slider):
    """gr.Slider (drawn as Gradio's own) whose value is checked as NumberField's, and required:
    Gradio's own check fails with an exception on an empty one."""

    is_template = True

    def preprocess(self, payload: object) -> float:
        value = checked_number(self.label, payload, self.minimum, self.maximum, required=True)
        return gr.Number.round_to_precision(value, self.precision)
