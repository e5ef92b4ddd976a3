"""What the pages show: pure functions from the database's dicts to Markdown and tables.

Kept apart from the Gradio wiring so they are tested without a server.
"""

from __future__ import annotations

import html
from datetime import date, datetime, timedelta

import pandas as pd

from app.meals import DISCLAIMER, Analysis
from db.cards import GI_UNKNOWN, source_text
from db.nutrition import (NUTRIENT_LABELS, NUTRIENTS, carb_unit, carbs_counted, exchanges,
                          exchanges_as_taught)

# (key in NUTRIENTS, label, unit) in the order a dietitian reads a label.
CARD_ROWS = tuple((key, *NUTRIENT_LABELS[key]) for key in NUTRIENTS)
# The day's totals: the card's rows, then the glycemic load of the foods that have a GI.
TOTAL_ROWS = (*CARD_ROWS, ("glycemic_load", "Glycemic load (foods with a GI)", ""))
# The settings each total is compared with.
TARGET_SETTINGS = {"kcal": "daily_kcal_target", "carbohydrate_g": "daily_carb_target_g"}

MEAL_TYPES = ("breakfast", "lunch", "dinner", "snack")

# Narrow enough for a phone: what a person checks first (time, food, grams, carbohydrate)
# comes first; the entry number names the row for editing.
ENTRY_COLUMNS = ["time", "food", "grams", "carbs (g)", "meal", "kcal", "#"]
# How a unit is counted in a headline ("2.8 choices", "3.5 BE"), by db.nutrition.CarbUnit.key.
UNIT_COUNT_NAMES = {"us_choice": "choices", "be": "BE", "ke": "KE / CP", "uk_cp": "CP"}


def fmt(value: float | None, unit: str = "", digits: int = 1) -> str:
    if value is None:
        return "n/a"
    text = f"{value:,.{digits}f}".rstrip("0").rstrip(".") if digits else f"{value:,.0f}"
    return f"{text} {unit}".strip()


def portion_text(grams: float, serving: str | None) -> str:
    return f"{serving} ({fmt(grams, 'g')})" if serving else fmt(grams, "g")


def _details(summary: str, body: str) -> str:
    """Text behind a click: the card stays short, the provenance is one click away."""
    return f"<details><summary>{html.escape(summary)}</summary>\n\n{html.escape(body)}\n\n</details>"


def exchanges_text(exchanges: dict) -> str:
    """"2 x US carbohydrate choice (exact 1.8; 1 = 15 g; counted from total carbohydrate, ...)":
    US choices to the nearest half as taught, the exact value beside them."""
    unit = exchanges.get("unit") or "exchanges"
    basis = exchanges.get("basis") or "available carbohydrate"
    value, taught = exchanges["value"], exchanges.get("as_taught")
    shown, exact = (value, "") if taught is None or taught == value else (
        taught, f"exact {fmt(value)}; ")
    return (f"{fmt(shown)} x {unit} "
            f"({exact}1 = {fmt(exchanges['unit_g'], 'g')}; counted from {basis})")


def exchange_count(exchanges: float | None, unit_g: float) -> str:
    """"2.8 choices", "1 choice", "3.5 BE": a portion's exchanges in the user's unit."""
    shown, name = fmt(exchanges), UNIT_COUNT_NAMES[carb_unit(unit_g).key]
    return f"{shown} {'choice' if name == 'choices' and shown == '1' else name}"


def carbs_headline(carbohydrate_g: float | None, exchanges: float | None, unit_g: float,
                   as_taught: float | None = None, noun: str = "carbs") -> str:
    """"42 g carbs, 2.8 choices": the figure a person acts on, in words a screen reader says.
    With ``as_taught`` (US choices to the nearest half), the count is that, the exact one beside
    it, as on the card: "2 choices (exact 2.2)"."""
    count = ""
    if exchanges is not None:
        shown = exchanges if as_taught is None else as_taught
        exact = f" (exact {fmt(exchanges)})" if fmt(shown) != fmt(exchanges) else ""
        count = f", {exchange_count(shown, unit_g)}{exact}"
    return f"{fmt(carbohydrate_g, 'g')} {noun}{count}"


def logged_carbs(entry: dict, unit_g: float) -> str:
    """"3 g carbohydrate, 0 choices (exact 0.2)": what a stored entry holds, on the headline's
    basis and rounding (carbs_counted, as taught), so the confirmation reads as the card did."""
    count = exchanges(entry["carbohydrate_g"], entry["fiber_g"], unit_g)
    counted = None if count is None else round(count, 1)
    taught = None if count is None else exchanges_as_taught(count, unit_g)
    return carbs_headline(carbs_counted(entry, unit_g), counted, unit_g, taught, noun="carbohydrate")


def card_headline(card: dict) -> str:
    """Above the portion boxes: the carbohydrate of the portion, large (a heading, so screen
    readers announce it as one), then the food and portion it is for."""
    portion, exchanges = card["portion"], card["exchanges"]
    unit_g, exact, taught = exchanges["unit_g"], exchanges["value"], exchanges.get("as_taught")
    shown = exact if taught is None else taught
    # The exact count on the second line: the heading stays one line on a phone.
    beside = (f" · exact {exchange_count(exact, unit_g)}"
              if shown is not None and fmt(shown) != fmt(exact) else "")
    return (f"## {carbs_headline(carbs_counted(portion, unit_g), shown, unit_g)}\n\n"
            f"**{card['food']}**, {portion_text(portion['grams'], portion.get('serving'))}{beside}")


def card_markdown(card: dict) -> str:
    """The nutrition card: nutrients for the portion, exchanges with their basis, a short GI
    citation and the source; the long provenance texts sit behind a click."""
    portion = card["portion"]
    lines = [
        f"### {card['food']}",
        f"**Portion:** {portion_text(portion['grams'], portion.get('serving'))}",
        "",
        f"**Carbohydrate exchanges:** {exchanges_text(card['exchanges'])}",
        "",
        "| Nutrient | This portion | per 100 g |",
        "|---|---:|---:|",
    ]
    for key, label, unit in CARD_ROWS:
        digits = 0 if unit in ("kcal", "mg") else 1
        lines.append(f"| {label} | {fmt(portion.get(key), unit, digits)} | {fmt(card['per_100g'].get(key), unit, digits)} |")
    gi, gl = card.get("glycemic_index"), card.get("glycemic_load")
    lines.append("")
    if gi:
        citation = gi.get("citation") or gi["source"]
        load = f"; **glycemic load** {fmt(gl['value'])} ({gl['band']})" if gl else ""
        lines.append(f"**GI {gi['value']}**, {citation}{load}")
        lines.append(_details("How this GI was chosen", gi["source"]))
    else:
        lines.append(f"**Glycemic index:** {GI_UNKNOWN}")
    source = card["source"]
    lines += ["", f"**Source:** {source_text(source)}",
              _details("Source description", source["description"])]
    if source.get("proxy_note"):
        lines.append("*Stand-in entry: USDA has no exact match; a close one is used.*")
        lines.append(_details("What stands in, and what it leaves out", source["proxy_note"]))
    return "\n".join(lines)


def analysis_markdown(analysis: Analysis) -> str:
    """The headline above the suggestions: best guess, or a plain "not sure"."""
    lines = [f"⚠️ {n}" for n in analysis.notes]
    if analysis.confident:
        top = analysis.top
        lines.append(f"**Best guess: {top.name}** ({top.probability:.0%}, model {analysis.model['name']}).")
    else:
        lines.append(f"**{analysis.unsure_message}**")
    if analysis.top.food is None:
        lines.append(f"No nutrition data for {analysis.top.name}: pick another suggestion or search by name.")
    return "\n\n".join(lines)


def picked_markdown(analysis: dict | None, food: str) -> str:
    """The headline once the person picked a food: theirs, with the model's guess beside it."""
    if not analysis:
        return f"**You picked {food}.**"
    top = analysis["predictions"][0]
    if top["food"] == food:
        return f"**You picked {food}**, the model's best guess ({top['probability']:.0%})."
    return f"**You picked {food}** (the model guessed {top['name']}, {top['probability']:.0%})."


def pack_entry_markdown(entry: dict[str, str]) -> str:
    """A hypo treatment no food table lists was picked (service.pack_entry): never a guessed
    figure, but where to enter the pack's."""
    return (f"**{entry['food']}: no food table lists them**, and brands differ. In **My foods > Add a "
            f"food from its label** (filled in for you), enter {entry['asks']}, then Save food; "
            f"search for it here again to log it.")


def suggestion_choices(analysis: Analysis) -> list[tuple[str, str]]:
    """Radio choices (shown text, food name); labels without nutrition data are left out."""
    choices = []
    for s in analysis.suggestions:
        if s.food and all(value != s.food for _, value in choices):
            shown = s.food if s.food.lower() == s.name.lower() else f"{s.food} ({s.name})"
            choices.append((f"{shown}: {s.probability:.0%}", s.food))
    return choices


def entries_table(entries: list[dict]) -> pd.DataFrame:
    rows = [
        [
            datetime.fromisoformat(e["eaten_at"]).strftime("%H:%M"),
            e["food"],
            fmt(e["grams"]),
            round(e["carbohydrate_g"] or 0.0, 1),
            e["meal_type"] or "",
            round(e["kcal"] or 0.0),
            e["id"],
        ]
        for e in entries
    ]
    return pd.DataFrame(rows, columns=ENTRY_COLUMNS)


def entry_label(entry: dict) -> str:
    """One entry, told apart from every other: its number, time, food, grams and carbohydrate."""
    return (f"#{entry['id']} {datetime.fromisoformat(entry['eaten_at']):%H:%M} "
            f"{entry['meal_type'] or 'meal'}: {entry['food']}, {fmt(entry['grams'], 'g')}, "
            f"{fmt(entry['carbohydrate_g'], 'g')} carbohydrate")


def entry_choices(entries: list[dict]) -> list[tuple[str, int]]:
    return [(entry_label(e), e["id"]) for e in entries]


def totals_table(summary: dict) -> pd.DataFrame:
    """The day's totals against the user's daily targets."""
    totals, targets = summary["totals"], summary["targets"]
    rows = []
    for key, label, unit in TOTAL_ROWS:
        if key not in totals:
            continue
        eaten = totals[key] or 0.0
        target = targets.get(TARGET_SETTINGS[key]) if key in TARGET_SETTINGS else None
        share = f"{eaten / target:.0%}" if target else ""
        rows.append([label, fmt(eaten, unit, 1 if unit in ("g", "") else 0), fmt(target, unit, 0) if target else "", share])
    if "exchanges" in totals:
        rows.append([f"Carbohydrate exchanges ({fmt(targets.get('exchange_unit_g'), 'g')})", fmt(totals["exchanges"]), "", ""])
    return pd.DataFrame(rows, columns=["", "eaten", "daily target", "of target"])


def meal_carbs_frame(entries: list[dict], start: date, end: date) -> pd.DataFrame:
    """Carbohydrate per meal, one row per entry, for a bar chart stacked by meal type per day."""
    rows = [
        {
            "day": datetime.fromisoformat(e["eaten_at"]).date().isoformat(),
            "meal": e["meal_type"] or "other",
            "carbohydrate (g)": round(e["carbohydrate_g"] or 0.0, 1),
            "food": e["food"],
        }
        for e in entries
    ]
    frame = pd.DataFrame(rows, columns=["day", "meal", "carbohydrate (g)", "food"])
    # Days without meals still get a zero bar, so gaps in logging are visible. It is of a meal
    # already in the legend, so that the legend lists meals only ("nothing logged" is its tooltip).
    logged = set(frame["day"])
    legend_meal = rows[0]["meal"] if rows else MEAL_TYPES[0]
    empty = [
        {"day": d.isoformat(), "meal": legend_meal, "carbohydrate (g)": 0.0, "food": "nothing logged"}
        for d in (start + timedelta(days=i) for i in range((end - start).days + 1))
        if d.isoformat() not in logged
    ]
    if empty:
        frame = pd.concat([frame, pd.DataFrame(empty)], ignore_index=True) if rows else pd.DataFrame(empty)
    return frame.sort_values("day", kind="stable").reset_index(drop=True)


def safety_note() -> str:
    return f"<small>{DISCLAIMER}</small>"


def meal_for_time(when: datetime) -> str:
    """The meal people usually eat at this hour, as the log form's default."""
    hour = when.hour + when.minute / 60
    if 4 <= hour < 10.5:
        return "breakfast"
    if 11 <= hour < 14.5:
        return "lunch"
    if 17.5 <= hour < 22:
        return "dinner"
    return "snack"


OWN_FOOD_COLUMNS = ["food", "kind", "servings", "ingredients"]


def own_foods_table(foods: list[dict]) -> pd.DataFrame:
    """The user's own foods and recipes (db.personal.own_foods), recipes with their ingredients."""
    rows = [
        [f["food"], "recipe" if f["kind"] == "Recipe" else "own food",
         "" if f["servings"] is None else fmt(f["servings"]),
         "; ".join(f"{fmt(i['grams'], 'g')} {i['food']}" for i in f["ingredients"])]
        for f in foods
    ]
    return pd.DataFrame(rows, columns=OWN_FOOD_COLUMNS)


def recipe_markdown(recipe: dict, servings: float) -> str:
    """A new recipe's nutrients for one serving (``recipe``: db.personal.create_recipe's result)."""
    total, dish = recipe["total_grams"], recipe["dish_grams"]
    weighed = "" if dish == total else f" cooked (from {fmt(total, 'g')} of ingredients)"
    lines = [f"Saved recipe **{recipe['food']}**: {fmt(dish, 'g')}{weighed} in all, {fmt(servings)} "
             f"servings of {fmt(dish / servings, 'g')}.", "",
             "| Nutrient | One serving |", "|---|---:|"]
    for key, label, unit in CARD_ROWS:
        value = recipe["per_serving"].get(key)
        lines.append(f"| {label} | {fmt(value, unit, 0 if unit in ('kcal', 'mg') else 1)} |")
    return "\n".join(lines)
