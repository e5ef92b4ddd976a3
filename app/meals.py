"""Photo -> food suggestions -> nutrition card: the domain code behind the UI and the HTTP API.

Both front ends call `Analyzer`, so the web page and POST /api/analyze cannot disagree about
what a photo is, which food gets the card or which portions are allowed.
"""

from __future__ import annotations

import hashlib
import sys
import threading
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from PIL import Image

from app.model_catalog import ModelCatalog
from app.dishes import PersonalDishes, add_dish, as_photo_vectors, dish_summaries, embedding_space, ranked_with_dishes
from db import personal, service, validate
from db.cards import Card
from db.dishes import PhotoVectors
from db.errors import UnknownFood
from db.nutrition import DEFAULT_EXCHANGE_UNIT_G
from models.engine import Engine
from models.errors import ModelError
from models.images import load_image
from models.labels import human_name

TOP_K = 5

DISCLAIMER = (
    "Carbohydrate information only, not medical advice: this app never suggests an insulin "
    "dose. Photo estimates can be wrong; check portions and ask your diabetes team."
)

def is_confident(probability: float, threshold: float) -> bool:
    """The one confidence rule: under the user's threshold the app chooses no food (the page,
    POST /api/analyze and batch rows alike) and the person names it."""
    return probability >= threshold


def unsure_message(name: str, probability: float, threshold: float) -> str:
    return (f"The model is not sure: its best guess, {name}, has only {probability:.0%} confidence "
            f"(your threshold is {threshold:.0%}).")


@dataclass(frozen=True)
class Photo:
    image: Image.Image
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Suggestion:
    label: str  # the model's label, e.g. "hot_dog"
    name: str  # how people read it, e.g. "hot dog"
    probability: float
    food: str | None  # the database food this label maps to; None when there is no data
    dish: bool = False  # one of the person's own dishes (label and name are the dish's name)


@dataclass
class Analysis:
    model: dict  # {"name", "version"}: never a server path
    suggestions: list[Suggestion]
    threshold: float
    notes: list[str] = field(default_factory=list)
    # The photo's embedding and the model space it is in: a correction adds it to a dish.
    # Kept out of to_dict: clients never see vectors.
    vectors: PhotoVectors | None = None
    space: str | None = None

    @property
    def top(self) -> Suggestion:
        return self.suggestions[0]

    @property
    def confident(self) -> bool:
        return is_confident(self.top.probability, self.threshold)

    @property
    def chosen(self) -> str | None:
        """The food the card is for until the person picks one: the top guess's food when the
        model is confident, else None (the one confidence rule for every front end)."""
        return self.top.food if self.confident else None

    @property
    def unsure_message(self) -> str | None:
        if self.confident:
            return None
        return (unsure_message(self.top.name, self.top.probability, self.threshold)
                + " Pick the right food from the suggestions or search by name.")

    def to_dict(self) -> dict:
        return {
            "model": self.model,
            "predictions": [asdict(s) for s in self.suggestions],
            "threshold": self.threshold,
            "confident": self.confident,
            "message": self.unsure_message,
            "notes": list(self.notes),
        }


class Analyzed(NamedTuple):
    """One upload analysed for a user: the decoded photo, what the model saw in it, and the
    user's settings read once for the whole request."""
    photo: Photo
    analysis: Analysis
    settings: dict


def read_photo(data: bytes, name: str = "photo", min_side: int | None = None) -> Photo:
    """Bytes from an upload -> an RGB photo (decoded just large enough for a shorter side of
    `min_side`), or ImageError with a message a person can act on."""
    # The file name is the client's: error messages repeat only its start.
    name = name if len(name) <= 80 else name[:77] + "..."
    image = load_image(data, name, min_side=min_side)
    # Decision: an animated GIF/WebP/PNG is analysed by its first frame (load_image decodes
    # frame 0), and the user is told, rather than refusing a file that usually shows the dish.
    notes = (f"{name} is animated: only its first frame was analysed.",) if image.info.get("animated") else ()
    return Photo(image, notes)


class Analyzer:
    """Runs the active model and looks foods up; shared by every request."""

    def __init__(self, catalog) -> None:
        self.catalog = catalog  # app.model_catalog.ModelCatalog: the active engine, created once
        # One inference at a time: each ONNX Runtime run already uses every core, so parallel
        # runs only oversubscribe the CPU and raise every request's latency.
        self._inference = threading.Lock()
        self.dishes = PersonalDishes()

    def analyse_upload(self, user: str, data: bytes, name: str) -> Analyzed:
        """An upload -> the user's model's suggestions (their dishes among them) under their
        confidence threshold: what the page, POST /api/analyze and batch rows all start from."""
        model = service.user_model(user)
        settings = service.get_settings(user)
        photo = self.read(data, name, model)
        analysis = self.analyze(photo, settings["confidence_threshold"], model, user=user)
        return Analyzed(photo, analysis, settings)

    def engine_for(self, user: str | None):
        """(engine, info, note) of the model that analyses ``user``'s photos: their own pick,
        else the server's default; the note says when their pick is no longer installed."""
        return self._model(None if user is None else service.user_model(user))

    def read(self, data: bytes, name: str, model: str | None = None) -> Photo:
        """An upload decoded only as large as the model's preprocessing needs."""
        engine, _, _ = self._model(model)
        return read_photo(data, name, min_side=engine.preprocess.decode_side)

    def analyze(self, photo: Photo, threshold: float, model: str | None = None, user: str | None = None) -> Analysis:
        """Top-k foods by `model` (a user's own pick; None: the server's default), with
        ``user``'s personal dishes among them when the model gives embeddings."""
        engine, info, note = self._model(model)
        notes = [*photo.notes, *([note] if note else [])]
        personal = None if user is None else self._personal(engine, user, notes)
        with self._inference:
            [ranked], embeddings = ranked_with_dishes(engine, personal, engine.preprocess_image(photo.image)[None], TOP_K)
        space, vectors = None, None
        if user is not None and embeddings is not None:
            space, vectors = embedding_space(engine), as_photo_vectors(embeddings[0])
        suggestions = [
            Suggestion(r.label, r.label, r.probability, r.dish_food, dish=True) if r.dish_food is not None
            else Suggestion(r.label, human_name(r.label), r.probability, food_for_label(r.label))
            for r in ranked
        ]
        model = {"name": info.name, "version": engine.version}
        return Analysis(model, suggestions, float(threshold), notes, vectors=vectors, space=space)

    def _personal(self, engine, user: str, notes: list[str]):
        """The user's dish recogniser, or None; a note says why their dishes were not used when
        they have some."""
        if not engine.has_embedding:
            photos = self.dishes.photo_count(user)
            if photos:
                notes.append(f"Your dishes were not used: the model {engine.model_name} has no embedding output "
                             "(use the default model, or re-export this one).")
            return None
        personal, photos = self.dishes.for_user(user, embedding_space(engine))
        if personal is None and photos:
            notes.append("Your dishes were learned with another model: add their photos again to use them with this one.")
        return personal

    def add_dish(self, user: str, name: str, food: str, images: list[Image.Image], model: str | None = None) -> dict:
        """Teach ``user`` a dish from 1-10 photos, embedded by their model (app.dishes.add_dish)."""
        engine, _, _ = self._model(model)
        with self._inference:
            return add_dish(engine, user, name, food, images)

    def dish_summaries(self, user: str, model: str | None = None) -> list[dict]:
        """The user's dishes, photo counts and held-out accuracy under their model."""
        return dish_summaries(user, self._model(model)[0])

    def _model(self, name: str | None):
        """(engine, info, note): a user's model, or the default when theirs was removed."""
        if name is None:
            return (*self.catalog.active(), None)
        try:
            return (*self.catalog.named(name), None)
        except ModelError:
            engine, info = self.catalog.active()
            return engine, info, f"Your model {validate.echo(name)} is no longer installed; the server's default {info.name} was used."


def command_line_engine(model: Path | None, user: str | None):
    """The engine a command (batch, dishes) uses: the --model file when one is given, else the
    model the server would use for ``user`` (their own pick, else the stored server default,
    else the built-in one), so vectors and predictions belong to the model that serves them."""
    if model is not None:
        return Engine(model)
    catalog = ModelCatalog()
    catalog.start(service.default_model())
    engine, _, note = Analyzer(catalog).engine_for(user)
    if note:
        print(note, file=sys.stderr)
    return engine


def food_for_label(label: str) -> str | None:
    """The database food a model label maps to, or None when the database has no data."""
    try:
        return service.lookup(label)["food"]
    except UnknownFood:
        return None


def nutrition_card(food: str, *, grams: float | str | None = None, serving: str | None = None,
                   exchange_unit_g: float = DEFAULT_EXCHANGE_UNIT_G, user: str | None = None) -> Card:
    """The database's nutrition card (db.cards.Card) for a portion (default serving when none is given);
    with ``user``, their own foods and recipes are found too."""
    grams, serving = validate.portion(grams, serving)
    return service.lookup(food, grams=grams, serving=serving,
                          exchange_unit_g=exchange_unit_g, user=user)


@dataclass(frozen=True)
class Draft:
    """A meal about to be logged: the food and portion on the card and, from a photo, what the
    model said about it."""
    food: str
    grams: float | None = None
    serving: str | None = None  # only without grams
    eaten_at: datetime | None = None  # None: now
    meal_type: str = ""
    note: str = ""
    external_id: str | None = None  # the same id logs once (a double click, a rerun batch)
    # From a photo (all None without one):
    predicted_label: str | None = None  # the model's top answer
    predicted_food: str | None = None  # the food that answer maps to
    confidence: float | None = None
    model_version: str | None = None
    photo_sha256: str | None = None
    photo_jpeg: bytes | None = None  # kept only when the user's keep_photos setting is on
    vectors: PhotoVectors | None = None  # the photo's embedding, and its model space
    space: str | None = None

    @property
    def is_correction(self) -> bool | None:
        """The person chose another food than the model's answer (None: no photo)."""
        if self.predicted_label is None:
            return None
        return self.predicted_food is None or self.food.casefold() != self.predicted_food.casefold()


def log(user: str, draft: Draft) -> dict:
    """Store the meal; a correction of an analysed photo also teaches the person's dish of that
    food the photo, in the same transaction (db.service.log_meal: both or neither)."""
    return service.log_meal(
        user, draft.food, grams=draft.grams, serving=None if draft.grams is not None else draft.serving,
        eaten_at=draft.eaten_at, meal_type=draft.meal_type, note=draft.note,
        predicted_label=draft.predicted_label, confidence=draft.confidence, model_version=draft.model_version,
        external_id=draft.external_id, photo_sha256=draft.photo_sha256, photo=draft.photo_jpeg,
        is_correction=draft.is_correction, photo_vectors=draft.vectors, vector_space=draft.space,
    )


def find_foods(user: str, text: str, *, limit: int = 10, group: str | None = None) -> list[dict]:
    """What a food search box shows: db.service.search for the user (their own, favourite and
    recent foods first); an empty query gives their favourite and recent foods."""
    if not (text or "").strip():
        return personal.recent_foods(user, limit=limit)
    return service.search(text, limit=limit, user=user, group=group or None)


def photo_digest(data: bytes) -> str:
    """The photo's SHA-256: names it in the meal log, so a correction can be traced to it."""
    return hashlib.sha256(data).hexdigest()
