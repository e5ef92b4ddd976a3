"""Adding batch rows to a user's meal log once, however often the same file is run.

Each logged row carries an external_id; `db.service.log_meal` is idempotent per user and
external_id, so a re-run (or a --resume that repeats a few rows) finds the entry instead of
adding a second one.

external_id = "batch:" + sha256 of JSON [CSV identity, row key, occurrence]:
- CSV identity: the CSV's absolute real path. Re-running, resuming, appending rows or
  fixing a typo in one row keeps every other row's id; the same rows in a different file
  are different meals.
- row key: the row's image, eaten_at, user and meal cells (stripped) - what makes it this
  meal rather than its position, so inserting or sorting rows does not re-log them.
  grams, serving and note are left out: correcting a portion does not add a second meal
  (the first entry stays; edit it in the app).
- occurrence: how many earlier rows of this file had the same key, so two identical rows
  (the same photo, no time) stay two meals.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

from app.batch.csvfile import InputSpec
from app.batch.errors import RowError
from app.batch.rows import RowRequest
from app.meals import Draft
from models.engine import Prediction
from models.errors import FoodtagError

KEY_COLUMNS = ("image", "eaten_at", "user", "meal")


def _name_key(name: str) -> str:
    from db.keys import name_key  # the db's own comparison of user names

    return name_key(name)


class MealLog:
    def __init__(self, user: str, spec: InputSpec, log: Callable[[str, Draft], dict]):
        self.user = user
        self._user_key = _name_key(user)
        self._spec = spec
        self._identity = str(spec.path.resolve())
        self._log = log
        self._seen: dict[bytes, int] = {}  # 16-byte digest per distinct key: ~100 B a row

    def external_id(self, cells: list[str]) -> str:
        """This row's id. Call it for every input row, in file order (occurrences count)."""
        key = [self._spec.value(cells, column) for column in KEY_COLUMNS]
        digest = hashlib.sha256(json.dumps(key).encode()).digest()[:16]
        occurrence = self._seen.get(digest, 0)
        self._seen[digest] = occurrence + 1
        payload = json.dumps([self._identity, key, occurrence]).encode()
        return "batch:" + hashlib.sha256(payload).hexdigest()[:40]

    def belongs(self, request: RowRequest) -> bool:
        """Rows naming another user in their `user` cell stay out of this user's log."""
        return not request.user or _name_key(request.user) == self._user_key

    def add(self, request: RowRequest, food: str, best: Prediction, model_version: str, external_id: str) -> str:
        """Log ``food`` for the row (app.meals.log, as the app logs); a food the row names in
        place of the model's answer is a correction."""
        try:
            entry = self._log(self.user, Draft(
                food, grams=request.grams, serving=request.serving, eaten_at=request.eaten_at,
                meal_type=request.meal, note=request.note, external_id=external_id,
                predicted_label=best.label, predicted_food=best.food or best.label,
                confidence=best.probability, model_version=model_version,
            ))
        except FoodtagError as exc:
            raise RowError(f"not added to the meal log: {exc}") from None
        return str(entry["id"])
