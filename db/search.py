"""Fuzzy food search: rank foods by how well any of their names matches what was typed.

Pure functions over (food id, names) pairs; the food table is small (hundreds of rows), so
ranking in Python with difflib beats teaching each database a fuzzy operator.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from db.keys import name_key

# Below this a match is noise ("tea" ~ "steak").
MIN_SCORE = 0.6


@dataclass(frozen=True)
class Candidate:
    food_id: int
    food: str
    category: str
    keys: tuple[str, ...]  # name_key() of its name, aliases and labels


def score(query_key: str, key: str) -> float:
    """1.0 exact; 0.8-0.95 the name starts with the query; 0.7-0.85 the query starts a later
    word; 0.6-0.75 the query is inside a word; below that, difflib similarity x 0.8 (whole
    name, or the best single word), so typos rank after real substring matches."""
    if not query_key or not key:
        return 0.0
    if key == query_key:
        return 1.0
    coverage = len(query_key) / len(key)
    if key.startswith(query_key):
        return 0.8 + 0.15 * coverage
    if f" {query_key}" in f" {key}":
        return 0.7 + 0.15 * coverage
    if query_key in key:
        return 0.6 + 0.15 * coverage
    whole = SequenceMatcher(None, query_key, key).ratio()
    best_word = max(SequenceMatcher(None, query_key, word).ratio() for word in key.split())
    return 0.8 * max(whole, 0.95 * best_word)


def rank(query: str, candidates: Iterable[Candidate], limit: int) -> list[tuple[Candidate, float]]:
    """Best ``limit`` candidates scoring at least MIN_SCORE, best first (ties by name)."""
    query_key = name_key(query)
    scored = []
    for candidate in candidates:
        best = max((score(query_key, key) for key in candidate.keys), default=0.0)
        if best >= MIN_SCORE:
            scored.append((candidate, best))
    scored.sort(key=lambda pair: (-pair[1], pair[0].food))
    return scored[:limit]


def keys_for(name: str, aliases: Sequence[str], labels: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(name_key(text) for text in (name, *aliases, *labels)))
