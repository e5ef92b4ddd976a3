"""Personal dishes recognised from a few photos, without training a network.

Each photo of a dish is embedded (models.embedding) in two views, itself and its mirror image
(centre crops added nothing on food10, and each view costs a forward pass). Every view is L2-normalised, and a dish is the normalised mean
of its views (a nearest-class-mean classifier, as in SimpleShot, Wang et al. 2019). A photo
scores each dish by cosine similarity; open-set rejection adds one more class, "none of my
dishes", whose score is a fixed similarity: a photo far from every dish leaves its probability
mass there. That mass is then shared out among the model's own classes by their softmax, so
dishes and global classes form one distribution and one top-5.

The temperature and the background similarity were tuned on food10's train split (support
photos and queries both from it, none from val) for the default model's embeddings, keeping
photos of dishes never added from being claimed above a 50% threshold while ranking the added
dishes first as often as possible; benchmarks/bench_dishes.py measures both.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PIL import Image, ImageOps

# Softmax temperature over cosine similarities, and the similarity of the "none of my dishes"
# class: a photo must be closer than this to a dish for the dish to win.
TEMPERATURE = 15.0
BACKGROUND_SIMILARITY = 0.6


def support_views(image: Image.Image) -> list[Image.Image]:
    """The views a dish photo is learned from: itself and its mirror image."""
    return [image, ImageOps.mirror(image)]


def normalised(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (a zero row stays zero)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def dish_prototype(photos: Sequence[np.ndarray]) -> np.ndarray:
    """The unit vector standing for a dish: the normalised mean of its photos' normalised views
    (each photo an array views x dim)."""
    return normalised(np.concatenate([normalised(p) for p in photos]).mean(axis=0))


class DishRecognizer:
    """Nearest-class-mean recognition of some dishes, with a "none of them" class."""

    def __init__(self, labels: Sequence[str], photos: Sequence[Sequence[np.ndarray]], *,
                 temperature: float = TEMPERATURE, background: float = BACKGROUND_SIMILARITY):
        if len(labels) != len(photos) or not labels:
            raise ValueError("one list of photos per dish, and at least one dish")
        self.labels = list(labels)
        self.prototypes = np.stack([dish_prototype(p) for p in photos])
        self.temperature = float(temperature)
        self.background = float(background)

    def probabilities(self, embeddings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N x dishes probabilities, N "none of my dishes" probabilities) for N embeddings."""
        similarity = normalised(np.atleast_2d(embeddings)) @ self.prototypes.T
        scores = self.temperature * np.concatenate([similarity, np.full((len(similarity), 1), self.background)], axis=1)
        scores = scores - scores.max(axis=1, keepdims=True)
        weights = np.exp(scores.astype(np.float64))
        weights /= weights.sum(axis=1, keepdims=True)
        return weights[:, :-1], weights[:, -1]

    def merged(self, embedding: np.ndarray, global_probabilities: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For one photo: (dish probabilities, global class probabilities) summing to 1 together.

        The model's classes share the "none of my dishes" mass in proportion to its softmax."""
        dishes, none = self.probabilities(embedding)
        return dishes[0], none[0] * np.asarray(global_probabilities, dtype=np.float64)


def leave_one_out_hits(labels: Sequence[str], photos: Sequence[Sequence[np.ndarray]]) -> list[tuple[int, int]] | None:
    """Per dish, (photos recognised, photos tried) when each photo (its first view, as analysed)
    is recognised among the dishes from all the other photos; None with fewer than two dishes. A
    dish of one photo has nothing to learn from without it: (0, 0).

    A dish's prototype is the normalised sum of its normalised views, so leaving a photo out is
    subtracting its views' sum: one pass over the photos, not a recogniser per photo.
    """
    if len(labels) < 2 or len(labels) != len(photos):
        return None
    view_sums = [[normalised(p).sum(axis=0) for p in dish_photos] for dish_photos in photos]
    totals = np.stack([np.sum(sums, axis=0) for sums in view_sums])
    prototypes = normalised(totals)
    hits = []
    for dish, dish_photos in enumerate(photos):
        if len(dish_photos) < 2:
            hits.append((0, 0))
            continue
        correct = 0
        for held_out, photo in enumerate(dish_photos):
            query = normalised(photo[:1])[0]
            similarity = prototypes @ query
            similarity[dish] = normalised(totals[dish] - view_sums[dish][held_out]) @ query
            correct += int(similarity.argmax() == dish)
        hits.append((correct, len(dish_photos)))
    return hits

