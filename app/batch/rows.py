"""One row of a batch: what it asks for (portion, time, user) and the cells it gets back."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from app.batch.csvfile import InputSpec
from app.batch.errors import RowError
from app.meals import is_confident, unsure_message
from db import validate
from db.errors import InvalidValue
from db.nutrition import NUTRIENTS
from models.engine import Prediction

# Columns added after the input's own, in this order ("exchanges" is named with its unit in
# the file: see result_columns).
RESULT_COLUMNS = (
    "predicted_label", "probability", "low_confidence", "top_k", "predicted_food", "portion_g", "portion_serving",
    *NUTRIENTS, "glycemic_index", "glycemic_load", "exchanges", "fdc_id", "model_version",
    "log_entry_id", "status", "error",
)


@dataclass(frozen=True)
class RowRequest:
    food: str | None  # the food the person named; None: the model's confident guess
    grams: float | None
    serving: str | None
    eaten_at: datetime | None
    user: str
    meal: str
    note: str


def parse_eaten_at(text: str) -> datetime | None:
    """The row's eaten_at cell (db.validate.meal_time: ISO date or date-time); None when blank."""
    try:
        return validate.meal_time(text, field="eaten_at")
    except InvalidValue as exc:
        raise RowError(str(exc)) from None


def parse_request(spec: InputSpec, cells: list[str]) -> RowRequest:
    try:
        grams, serving = validate.portion(spec.value(cells, "grams"), spec.value(cells, "serving"))
    except InvalidValue as exc:
        raise RowError(str(exc)) from None
    return RowRequest(
        food=spec.value(cells, "food") or None,
        grams=grams,
        serving=serving,
        eaten_at=parse_eaten_at(spec.value(cells, "eaten_at")),
        user=spec.value(cells, "user"),
        meal=spec.value(cells, "meal"),
        note=spec.value(cells, "note"),
    )


def number(value: float | int | None, digits: int = 1) -> str:
    if value is None:
        return ""
    # + 0.0 turns -0.0 into 0.0, so no cell starts with "-" (it would be neutralised).
    return f"{round(float(value), digits) + 0.0:.{digits}f}"


def exchange_column(unit_g: float) -> str:
    """The exchanges column named with its unit: "exchanges_15g", "exchanges_12g"..."""
    return f"exchanges_{unit_g:g}g"


def result_columns(unit_g: float) -> tuple[str, ...]:
    """RESULT_COLUMNS as the output file names them, for exchanges of ``unit_g`` grams."""
    return tuple(exchange_column(unit_g) if name == "exchanges" else name for name in RESULT_COLUMNS)


def prediction_cells(predictions: list[Prediction], threshold: float) -> dict[str, str]:
    """The best guess, its probability, whether it is under the user's confidence threshold
    (the app would say "not sure" and ask for a pick) and the alternatives."""
    best = predictions[0]
    return {
        "predicted_label": best.label,
        "probability": number(best.probability, 4),
        "low_confidence": "false" if is_confident(best.probability, threshold) else "true",
        "top_k": "; ".join(f"{p.label}:{p.probability:.4f}" for p in predictions),
    }


def chosen_food(request: RowRequest, best: Prediction, threshold: float) -> str:
    """The food a row's card is for: the one its `food` cell names, else the model's guess when
    it is confident (the app's rule); an unsure photo without one is an error row, not a guess."""
    if request.food:
        return request.food
    if not is_confident(best.probability, threshold):
        raise RowError(f"{unsure_message(best.label, best.probability, threshold)} "
                       "Name the food in a 'food' column (or lower --confidence-threshold)")
    return best.food or best.label


def nutrition_cells(card: dict) -> dict[str, str]:
    """The nutrition card of `db.service.lookup` as result cells."""
    portion = card["portion"]
    gi = card.get("glycemic_index")
    gl = card.get("glycemic_load")
    exchanges = card.get("exchanges")
    cells = {
        "predicted_food": card["food"],
        "portion_g": number(portion["grams"]),
        "portion_serving": portion.get("serving") or "",
        "glycemic_index": "" if gi is None else str(gi["value"]),
        "glycemic_load": "" if gl is None else number(gl["value"]),
        "exchanges": "" if exchanges is None else number(exchanges.get("value"), 2),
        "fdc_id": str(card["source"]["fdc_id"]),
    }
    cells.update({name: number(portion.get(name)) for name in NUTRIENTS})
    return cells


def result_row(values: dict[str, str]) -> list[str]:
    """The added cells in RESULT_COLUMNS order; missing ones empty."""
    return [values.get(name, "") for name in RESULT_COLUMNS]
