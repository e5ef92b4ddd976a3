"""Nutrition lookups for a batch, cached per (label, grams, serving).

A 100,000-row file usually names a few dozen foods in a handful of portions, so the cache
turns 100,000 database queries into a few hundred. It is bounded (least recently used
out) so a file where every row has its own gram weight still runs in flat memory.
Failures (an unknown food, an invalid portion) are cached too: the answer will not change.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from app.batch.errors import RowError
from db.nutrition import DEFAULT_EXCHANGE_UNIT_G
from models.errors import FoodtagError

Lookup = Callable[..., dict]


class NutritionCache:
    def __init__(self, lookup: Lookup, *, exchange_unit_g: float = DEFAULT_EXCHANGE_UNIT_G, max_entries: int = 4096):
        self._lookup = lookup
        self._exchange_unit_g = exchange_unit_g
        self._max_entries = max_entries
        self._cards: OrderedDict[tuple, dict | str] = OrderedDict()  # str: the error message
        self.hits = 0
        self.misses = 0

    def card(self, label: str, grams: float | None, serving: str | None) -> dict:
        """The nutrition card of `db.service.lookup`; raises RowError when there is none."""
        key = (label, grams, serving)
        found = self._cards.get(key)
        if found is None:
            self.misses += 1
            found = self._fetch(label, grams, serving)
            self._cards[key] = found
            if len(self._cards) > self._max_entries:
                self._cards.popitem(last=False)
        else:
            self.hits += 1
            self._cards.move_to_end(key)
        if isinstance(found, str):
            raise RowError(found)
        return found

    def _fetch(self, label: str, grams: float | None, serving: str | None) -> dict | str:
        from db.errors import UnknownFood

        try:
            return self._lookup(label, grams=grams, serving=serving, exchange_unit_g=self._exchange_unit_g)
        except UnknownFood:
            return f"no nutrition data for the predicted food {label!r}"
        except FoodtagError as exc:  # InvalidPortion: bad grams or an unknown serving name
            return str(exc)
