"""Personal dishes in the app: photos embedded by the engine, vectors kept by db.dishes,
recognition by models.dishes. The UI, the CLI and the batch tool all go through here.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from PIL import Image

from db import dishes as stored
from db.dishes import PhotoVectors, recognition_owners
from models.dishes import DishRecognizer, leave_one_out_hits, support_views
from models.engine import Engine
from models.errors import FoodtagError


class DishError(FoodtagError):
    """Personal dishes cannot be used with this model (no embedding output)."""


def embedding_space(engine: Engine) -> str:
    """Which model's vectors are comparable with this engine's: an int8 or fp16 variant keeps its
    source's version (models.quantize), other files their own."""
    return engine.metadata.get("source_version") or engine.version


def _require_embedding(engine: Engine) -> None:
    if not engine.has_embedding:
        raise DishError(f"the model {engine.model_name} has no embedding output, so it cannot learn your dishes; "
                        "use the default model, or re-export this one with `python -m models export`")


def as_photo_vectors(vectors: np.ndarray) -> PhotoVectors:
    vectors = np.ascontiguousarray(np.atleast_2d(vectors), dtype=np.float32)
    return PhotoVectors(views=vectors.shape[0], dim=vectors.shape[1], data=vectors.tobytes())


def as_array(photo: PhotoVectors) -> np.ndarray:
    return np.frombuffer(photo.data, dtype=np.float32).reshape(photo.views, photo.dim)


def photo_vectors(engine: Engine, image: Image.Image) -> PhotoVectors:
    """One photo's vectors for learning a dish: the embeddings of its augmented views."""
    _require_embedding(engine)
    return as_photo_vectors(engine.embed(support_views(image)))


def add_dish(engine: Engine, user: str, name: str, food: str, images: Sequence[Image.Image]) -> dict:
    """Teach ``user`` the dish ``name`` (the food or own recipe ``food``) from 1-10 photos."""
    if not 1 <= len(images) <= stored.MAX_PHOTOS_PER_ADD:
        raise DishError(f"add a dish with 1 to {stored.MAX_PHOTOS_PER_ADD} photos, got {len(images)}")
    _require_embedding(engine)
    # All views of all photos in one batch: one model call, the cheapest way to 40 embeddings.
    views = [support_views(image) for image in images]
    vectors = engine.embed([view for group in views for view in group])
    photos, start = [], 0
    for group in views:
        photos.append(as_photo_vectors(vectors[start:start + len(group)]))
        start += len(group)
    return stored.add_dish(user, name, food, photos, space=embedding_space(engine))


def dish_summaries(user: str, engine: Engine | None = None) -> list[dict]:
    """The user's dishes with photo counts and, given the engine, how often each dish's photos are
    recognised from the other photos (leave-one-out among the dishes): ``held_out_recognised`` of
    ``held_out_tried`` photos and their share ``held_out_accuracy`` (None where nothing could be
    tried: a dish of one photo, or only one dish)."""
    dishes = stored.list_dishes(user)
    if engine is None or not engine.has_embedding or not dishes:
        return dishes
    learned = stored.dish_vectors([user], space=embedding_space(engine))
    hits = leave_one_out_hits([d["dish"] for d in learned], [[as_array(p) for p in d["photos"]] for d in learned]) or []
    by_dish = {d["dish"]: hit for d, hit in zip(learned, hits)}
    summaries = []
    for dish in dishes:
        recognised, tried = by_dish.get(dish["dish"], (0, 0))
        summaries.append({**dish, "held_out_recognised": recognised, "held_out_tried": tried,
                          "held_out_accuracy": recognised / tried if tried else None})
    return summaries


def held_out_text(dish: dict) -> str:
    """One dish's held-out recognition from dish_summaries: "4 of 5", or a dash where none was tried."""
    tried = dish.get("held_out_tried", 0)
    return f"{dish['held_out_recognised']} of {tried}" if tried else "-"


def overall_held_out(summaries: list[dict]) -> tuple[int, int]:
    """(photos recognised, photos tried) over all the dishes of dish_summaries."""
    return (sum(d.get("held_out_recognised", 0) for d in summaries),
            sum(d.get("held_out_tried", 0) for d in summaries))


@dataclass(frozen=True)
class PersonalModel:
    """The dishes that recognise one user's photos, ready to score embeddings."""

    recognizer: DishRecognizer
    foods: list[str]  # the food each dish is, in the recogniser's order


class PersonalDishes:
    """Per-process cache of the recent users' recognisers, each rebuilt when their dishes change
    (a cheap query per analysis tells): a dish added on another app process is used on the next
    photo. A recogniser holds one prototype per dish; the least recently used ones go first."""

    def __init__(self, max_users: int = 256) -> None:
        self._cache: OrderedDict[tuple[str, tuple[str, ...], str], tuple[tuple[int, int], PersonalModel | None]] = OrderedDict()
        self._max_users = max_users
        self._lock = threading.Lock()

    def photo_count(self, user: str) -> int:
        """How many dish photos recognise ``user``'s photos, in any model space."""
        return stored.dishes_stamp(recognition_owners(user))[0]

    def for_user(self, user: str, space: str) -> tuple[PersonalModel | None, int]:
        """(the recogniser for ``user``'s photos in ``space``, or None; how many dish photos
        the owners have in any space)."""
        owners = tuple(recognition_owners(user))
        stamp = stored.dishes_stamp(owners)
        key = (user, owners, space)  # per user: another member's private recipes are left out
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
        if cached is not None and cached[0] == stamp:
            return cached[1], stamp[0]
        model = None
        if stamp[0]:
            learned = stored.dish_vectors(owners, space=space, viewer=user)
            if learned:
                model = PersonalModel(
                    DishRecognizer([d["dish"] for d in learned], [[as_array(p) for p in d["photos"]] for d in learned]),
                    [d["food"] for d in learned])
        with self._lock:
            self._cache[key] = (stamp, model)
            self._cache.move_to_end(key)
            while len(self._cache) > self._max_users:
                self._cache.popitem(last=False)
        return model, stamp[0]


@dataclass(frozen=True)
class Ranked:
    """One entry of a merged top-k: a dish (``food`` is the food it is) or a model class."""

    label: str
    probability: float
    dish_food: str | None  # set for a personal dish


def ranked_with_dishes(engine: Engine, personal: PersonalModel | None, batch: np.ndarray,
                       top_k: int) -> tuple[list[list[Ranked]], np.ndarray | None]:
    """One model call over a preprocessed ``batch``: each photo's top ``top_k`` among the model's
    classes and, with ``personal``, the person's dishes (how the page, the API and batch rank),
    and the photos' embeddings (None for a model file without them)."""
    logits, embeddings = engine.run_with_embedding(batch)
    probabilities = engine.probabilities(logits)
    rows = [None] * len(probabilities) if embeddings is None else embeddings
    return [merged_top(personal, embedding, row, engine.labels, top_k)
            for embedding, row in zip(rows, probabilities)], embeddings


def merged_top(personal: PersonalModel | None, embedding: np.ndarray | None, global_probabilities: np.ndarray,
               labels: Sequence[str], top_k: int) -> list[Ranked]:
    """The top ``top_k`` of the user's dishes and the model's classes, as one distribution."""
    if personal is None or embedding is None:
        dish_p, global_p = np.zeros(0), np.asarray(global_probabilities, dtype=np.float64)
    else:
        dish_p, global_p = personal.recognizer.merged(embedding, global_probabilities)
    entries = [Ranked(label, float(p), food) for label, p, food in
               zip(personal.recognizer.labels, dish_p, personal.foods)] if len(dish_p) else []
    entries += [Ranked(label, float(p), None) for label, p in zip(labels, global_p)]
    return sorted(entries, key=lambda r: -r.probability)[:max(1, top_k)]
