"""The web UI: thin Gradio handlers over app.analysis and db.service, then the layout.

Every handler that touches a meal log takes `request: gr.Request` and asks `Identity` for
the user; no handler accepts a user name from the page. Every event has an api_name, so the
same functions are the app's named API (and the Gradio sign-in guards them all).
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from pathlib import Path

import gradio as gr
import pandas as pd

from app import views
from app.analysis import Analyzer, find_foods, nutrition_card, photo_digest
from app.auth import Identity
from app.catalog import ModelCatalog
from app.errors import user_error
from app.security import OwnedFiles, private_dir
from db import personal, service, validate
from db.cards import hit_portion_text
from db.nutrition import EXCHANGE_UNITS_G, REGIONS, region_unit
from models.errors import FoodtagError, ImageError
from models.paths import data_home

HISTORY_DAYS = 28
ALL_GROUPS = "All food groups"
EXCHANGE_UNITS = tuple(EXCHANGE_UNITS_G)  # 15 US choice, 12 BE, 10 KE / UK CP (db.nutrition)
# Logging ahead of a planned meal is normal; a date further out than this is a typo.
MAX_FUTURE = timedelta(days=1)
# Exported logs are health data: our copies live a few minutes, Gradio's an hour at most.
EXPORT_MAX_AGE_S = 300
GRADIO_CACHE_S = 3600
SERVER_DEFAULT_CHOICE = "(the server's default)"
PER_100G, PER_SERVING = "per 100 g", "per serving"


@dataclass
class AppContext:
    """What every handler shares: the model catalogue, the analyser and the identity rules."""

    catalog: ModelCatalog
    analyzer: Analyzer
    identity: Identity
    max_upload_bytes: int
    files: OwnedFiles  # downloads only their owner may fetch


def parse_when(text: str | None, *, today: date | None = None) -> datetime:
    """"now", "HH:MM", "YYYY-MM-DD HH:MM[:SS]" -> a local datetime; clear error otherwise."""
    now = datetime.now().replace(microsecond=0)
    text = (text or "").strip()
    if text in ("", "now"):
        return now
    for pattern in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M"):
        try:
            when = datetime.strptime(text, pattern)
            break
        except ValueError:
            continue
    else:
        try:
            when = datetime.combine(today or now.date(), time.fromisoformat(text))
        except ValueError:
            raise FoodtagError(f"time {validate.echo(text)} not understood: use HH:MM or YYYY-MM-DD HH:MM") from None
    if when - now > MAX_FUTURE:
        raise FoodtagError(f"time {validate.echo(text)} is more than a day in the future")
    return validate.moment("time", when)


def parse_day(text: str | None) -> date:
    text = (text or "").strip()
    if text in ("", "now"):
        return date.today()
    try:
        day = date.fromisoformat(text[:10])
    except ValueError:
        raise FoodtagError(f"date {validate.echo(text)} not understood: use YYYY-MM-DD") from None
    return validate.day(day)


def _day_bounds(day: date) -> tuple[datetime, datetime]:
    start = datetime.combine(day, time.min)
    return start, start + timedelta(days=1)


@contextmanager
def shown_errors():
    """FoodtagError -> gr.Error: the page shows its one-line message, the log one line (app.errors)."""
    try:
        yield
    except FoodtagError as exc:
        raise user_error(str(exc)) from None


def _entry_id(value: int | float | None) -> int:
    if value is None:
        raise FoodtagError("Pick an entry first.")
    return int(value)


def _chosen_food(state: dict | None) -> str:
    food = (state or {}).get("food")
    if not food:
        raise FoodtagError("Analyse a photo or pick a food first.")
    return food


def _ingredient_rows(rows) -> list[tuple[str, object]]:
    """The recipe table's rows -> (food, grams) pairs; blank rows are skipped, half-filled ones
    refused (grams are checked by db.validate in db.personal)."""
    values = rows.values.tolist() if isinstance(rows, pd.DataFrame) else list(rows or [])
    pairs = []
    for number, row in enumerate(values, 1):
        food, grams = (list(row) + ["", ""])[:2]
        food = "" if food is None else str(food).strip()
        grams = "" if grams is None or (isinstance(grams, float) and grams != grams) else grams
        if not food and str(grams).strip() == "":
            continue
        if not food:
            raise FoodtagError(f"Ingredient row {number} has grams but no food name.")
        pairs.append((food, grams))
    if not pairs:
        raise FoodtagError("Add at least one ingredient: a food name and its grams.")
    return pairs


class Handlers:
    """One method per event. Each is a thin adapter: parse the widgets, call the domain code,
    shape the result for the widgets."""

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self._exports = Path(tempfile.mkdtemp(prefix="exports-", dir=private_dir(data_home() / "tmp")))

    def _user(self, request: gr.Request | None) -> str:
        return self.ctx.identity.ui_user(request)

    # ---- Analyse -----------------------------------------------------------------------

    def analyze(self, upload: str | None, webcam: str | None, request: gr.Request):
        """Photo -> (state, preview, headline, suggestions, servings, grams, card).

        A bad photo is not an exception here: the headline says what is wrong and the
        previous photo's card is cleared, so it cannot be mistaken for this one's."""
        with shown_errors():
            user = self._user(request)
        if not (upload or webcam):
            return self._analysis_failed("Upload a photo or take one with the webcam first.")
        path = Path(upload or webcam)
        name = path.name if upload else "webcam photo"
        try:
            size = path.stat().st_size
            if size > self.ctx.max_upload_bytes:
                raise ImageError(f"{name}: file is {size / 2**20:.1f} MB; the limit is "
                                 f"{self.ctx.max_upload_bytes / 2**20:.0f} MB")
            data = path.read_bytes()
            model = service.user_model(user)
            photo = self.ctx.analyzer.read(data, name, model)
            settings = service.get_settings(user)
            analysis = self.ctx.analyzer.analyze(photo, settings["confidence_threshold"], model)
            state = {"analysis": analysis.to_dict(), "photo_sha256": photo_digest(data)}
            card, servings, state = self._card_for(state, settings, analysis.top.food, serving=None,
                                                   grams=None, user=user)
        except FoodtagError as exc:
            return self._analysis_failed(str(exc))
        return (
            state,
            self._preview(photo.image, user),
            views.analysis_markdown(analysis),
            gr.update(choices=views.suggestion_choices(analysis), value=analysis.top.food),
            servings,
            gr.update(value=None),
            card,
        )

    def _preview(self, image, user: str) -> str:
        """The analysed photo as a file only ``user`` may fetch (app.security.OwnedFiles); a
        PIL image would be cached under a name any signed-in user with the link could load."""
        path = self._owned_path("photo", ".webp", user)
        image.save(path, format="WEBP")
        return str(path)

    def _analysis_failed(self, message: str):
        return (
            {"analysis": None, "food": None, "external_id": None},
            None,
            f"❌ **{message}**",
            gr.update(choices=[], value=None),
            gr.update(choices=[], value=None),
            gr.update(value=None),
            "",
        )

    def _card_for(self, state: dict, settings: dict, food: str | None, *, serving, grams, user: str):
        """(card markdown, servings dropdown update, new state) for a food and portion."""
        state = dict(state or {})
        state["food"] = food
        # A new card is a new meal to log; logging the same card twice stays one entry.
        state["external_id"] = uuid.uuid4().hex if food else None
        if not food:
            return "", gr.update(choices=[], value=None), state
        card = nutrition_card(food, grams=grams, serving=serving, exchange_unit_g=settings["exchange_unit_g"],
                              user=user)
        choices = [(f"{s['name']} ({views.fmt(s['grams'], 'g')})", s["name"]) for s in card["servings"]]
        return views.card_markdown(card), gr.update(choices=choices, value=card["portion"].get("serving")), state

    def choose_food(self, state: dict, food: str | None, request: gr.Request):
        """A suggestion, a search hit or a recent food was picked: its card at its default
        serving. Logged from a photo, it is stored as that photo's correction when it is not
        the model's top answer."""
        with shown_errors():
            user = self._user(request)
            settings = service.get_settings(user)
            card, servings, state = self._card_for(state, settings, food, serving=None, grams=None,
                                                   user=user)
        return state, servings, gr.update(value=None), card

    def search_foods(self, text: str, group: str | None, request: gr.Request):
        """Food names matching what was typed, for when the model is wrong or unsure: the same
        search as GET /api/foods and `python -m db search`, with this user's foods first."""
        text = (text or "").strip()
        if not text:
            return gr.update(choices=[], value=None), ""
        with shown_errors():
            hits = find_foods(self._user(request), text, limit=15,
                              group=None if group in (None, "", ALL_GROUPS) else group)
        if not hits:
            return gr.update(choices=[], value=None), f"No food matches {validate.echo(text)}."
        found = "1 food matches" if len(hits) == 1 else f"{len(hits)} foods match"
        # The label shows the default serving's carbohydrate (45 g cooked, 126 g dry).
        choices = [(f"{h['food']} - {hit_portion_text(h['portion'])}", h["food"]) for h in hits]
        return gr.update(choices=choices, value=None), f"{found} {validate.echo(text)}: pick one."

    def recent_foods(self, request: gr.Request):
        """The user's favourite and recently logged foods, one click away."""
        with shown_errors():
            foods = find_foods(self._user(request), "", limit=8)
        choices = [("★ " + f["food"] if f["favourite"] else f["food"], f["food"]) for f in foods]
        return gr.update(choices=choices, value=None)

    def toggle_favourite(self, state: dict, request: gr.Request):
        """Star or unstar the food on the card; the recent list shows favourites first."""
        with shown_errors():
            user = self._user(request)
            food = _chosen_food(state)
            starred = personal.set_favourite(user, food, not personal.is_favourite(user, food))
        message = f"★ {food} is a favourite." if starred else f"{food} is no longer a favourite."
        return message, self.recent_foods(request)

    def food_groups(self):
        with shown_errors():
            groups = service.food_groups()
        return gr.update(choices=[ALL_GROUPS, *groups], value=ALL_GROUPS)

    def set_serving(self, state: dict, serving: str | None, request: gr.Request):
        """A serving was picked: it replaces any grams typed before."""
        return (*self._portion(state, request, serving=serving, grams=None), gr.update(value=None))

    def set_grams(self, state: dict, serving: str | None, grams: str | None, request: gr.Request):
        """Grams were typed: they win over the serving (emptied: back to the serving)."""
        return self._portion(state, request, serving=serving if grams is None else None, grams=grams)

    def _portion(self, state: dict, request: gr.Request, *, serving, grams):
        with shown_errors():
            settings = service.get_settings(self._user(request))
            card, servings, state = self._card_for(state, settings, _chosen_food(state), serving=serving,
                                                   grams=validate.optional_grams(grams), user=self._user(request))
        return state, servings, card

    def log_meal(self, state: dict, serving: str | None, grams: str | None, meal_type: str | None,
                 eaten_at: str | None, note: str | None, request: gr.Request) -> str:
        """Log the card on screen for the signed-in user."""
        analysis = (state or {}).get("analysis")
        top = analysis["predictions"][0] if analysis else None
        # The person chose another food than the model's answer: a correction to learn from.
        corrected = None if top is None else _chosen_food(state) != top["food"]
        with shown_errors():
            grams = validate.optional_grams(grams)
            entry = service.log_meal(
                self._user(request),
                _chosen_food(state),
                grams=grams,
                serving=None if grams is not None else serving,
                eaten_at=parse_when(eaten_at),
                meal_type=meal_type or "",
                note=(note or "").strip(),
                predicted_label=top["label"] if top else None,
                confidence=top["probability"] if top else None,
                model_version=analysis["model"]["version"] if analysis else None,
                external_id=state.get("external_id"),
                photo_sha256=state.get("photo_sha256") if analysis else None,
                is_correction=corrected,
            )
        when = entry["eaten_at"][:16].replace("T", " ")
        if not entry["created"]:
            return f"Already logged: {entry['food']} at {when} (entry {entry['id']})."
        return (
            f"✅ Logged {entry['food']}, {views.portion_text(entry['grams'], entry.get('serving'))}: "
            f"{views.fmt(entry['carbohydrate_g'], 'g')} carbohydrate, at {when}."
        )

    # ---- Today and history ---------------------------------------------------------------

    def day_view(self, day_text: str | None, request: gr.Request):
        """(entries table, totals vs targets, entry picker, meals chart, daily chart)."""
        with shown_errors():
            user = self._user(request)
            day = parse_day(day_text)
            summary = service.day_summary(user, day)
            start = day - timedelta(days=HISTORY_DAYS - 1)
            history = service.list_meals(user, datetime.combine(start, time.min), _day_bounds(day)[1])
            daily = service.daily_totals(user, days=HISTORY_DAYS, until=day)
        target = summary["targets"].get("daily_carb_target_g")
        daily_rows = [{"day": d["date"], "series": "eaten", "carbohydrate (g)": d["carbohydrate_g"]} for d in daily]
        if target:
            daily_rows += [{"day": d["date"], "series": "daily target", "carbohydrate (g)": target} for d in daily]
        return (
            views.entries_table(summary["entries"]),
            views.totals_table(summary),
            gr.update(choices=views.entry_choices(summary["entries"]), value=None),
            views.meal_carbs_frame(history, start, day),
            pd.DataFrame(daily_rows, columns=["day", "series", "carbohydrate (g)"]),
        )

    def load_entry(self, entry_id: int | None, day_text: str | None, request: gr.Request):
        """Fill the edit form from one of the user's own entries on the day shown."""
        with shown_errors():
            entry_id, day = _entry_id(entry_id), parse_day(day_text)
            # day_summary is scoped to the user, so another user's id is simply not there.
            entries = service.day_summary(self._user(request), day)["entries"]
            entry = next((e for e in entries if e["id"] == entry_id), None)
            if entry is None:
                raise FoodtagError(f"no meal entry {entry_id} on {day.isoformat()}")
        return entry["grams"], entry["meal_type"] or None, entry["eaten_at"][:16].replace("T", " "), entry["note"]

    def edit_entry(self, entry_id: int | None, grams: float | None, meal_type: str | None,
                   eaten_at: str | None, note: str | None, request: gr.Request) -> str:
        with shown_errors():
            changes = {"meal_type": meal_type or "", "note": (note or "").strip(), "eaten_at": parse_when(eaten_at)}
            if grams is not None:
                changes["grams"] = validate.grams(grams)
            entry = service.update_meal(self._user(request), _entry_id(entry_id), **changes)
        return f"Saved entry {entry['id']}: {entry['food']}, {views.portion_text(entry['grams'], entry.get('serving'))}."

    def delete_entry(self, entry_id: int | None, request: gr.Request) -> str:
        with shown_errors():
            entry_id = _entry_id(entry_id)
            service.delete_meal(self._user(request), entry_id)
        return f"Deleted entry {entry_id}."

    def export_csv(self, request: gr.Request) -> str:
        """The user's whole log as CSV, for a dietitian."""
        with shown_errors():
            user = self._user(request)
        path = self._owned_path(f"foodtag-log-{date.today().isoformat()}", ".csv", user)
        with path.open("w", encoding="utf-8", newline="") as out:
            service.export_log_csv(user, out)
        return str(path)

    def _owned_path(self, stem: str, suffix: str, user: str) -> Path:
        """A new file path that only ``user`` may download (app.security.OwnedFiles).
        Gradio copies a returned file into its cache (purged by delete_cache) after the
        handler returns, so our copy cannot be removed then; earlier ones are removed here."""
        self._sweep_exports()
        folder = Path(tempfile.mkdtemp(prefix="export-", dir=self._exports))
        return folder / self.ctx.files.name(stem, suffix, user)

    def _sweep_exports(self) -> None:
        cutoff = datetime.now().timestamp() - EXPORT_MAX_AGE_S
        for folder in self._exports.glob("export-*"):
            if folder.stat().st_mtime < cutoff:
                shutil.rmtree(folder, ignore_errors=True)

    # ---- My foods -----------------------------------------------------------------------

    def my_foods(self, request: gr.Request):
        """The user's own foods and recipes, and the delete picker."""
        with shown_errors():
            foods = personal.own_foods(self._user(request))
        return views.own_foods_table(foods), gr.update(choices=[f["food"] for f in foods], value=None)

    def add_own_food(self, name: str | None, basis: str | None, serving_name: str | None,
                     serving_grams: float | None, kcal: float | None, carbohydrate: float | None,
                     fiber: float | None, sugars: float | None, protein: float | None,
                     fat: float | None, request: gr.Request):
        """A food from its label: values per 100 g, or per serving of ``serving_grams``."""
        values = {"kcal": kcal, "carbohydrate_g": carbohydrate, "fiber_g": fiber,
                  "sugars_g": sugars, "protein_g": protein, "fat_g": fat}
        with shown_errors():
            user = self._user(request)
            made = personal.create_own_food(
                user, name or "", {k: v for k, v in values.items() if v is not None},
                serving_grams=serving_grams, serving_name=(serving_name or "").strip() or "1 serving",
                per_serving=basis == PER_SERVING)
        return (f"Saved **{made['food']}**: search for it in the Analyse tab to log it.",
                *self.my_foods(request))

    def add_recipe(self, name: str | None, servings: float | None, rows, cooked_grams: float | None,
                   request: gr.Request):
        """A recipe from (food, grams) rows, weighed after cooking or not; shows one serving's
        nutrients."""
        with shown_errors():
            user = self._user(request)
            ingredients = _ingredient_rows(rows)
            if servings is None:
                raise FoodtagError("Enter the number of servings the recipe makes.")
            made = personal.create_recipe(user, name or "", ingredients, servings,
                                          cooked_grams=cooked_grams or None)
        return (views.recipe_markdown(made, float(servings)), *self.my_foods(request))

    def delete_own_food(self, food: str | None, request: gr.Request):
        with shown_errors():
            if not food:
                raise FoodtagError("Pick one of your foods first.")
            personal.delete_own_food(self._user(request), food)
        return (f"Deleted {food}.", *self.my_foods(request))

    # ---- Settings -----------------------------------------------------------------------

    def load_settings(self, request: gr.Request):
        with shown_errors():
            s = service.get_settings(self._user(request))
        return (s["daily_kcal_target"], s["daily_carb_target_g"], f"{s['exchange_unit_g']:g}",
                s["confidence_threshold"], s["region"])

    def save_settings(self, kcal: float | None, carbs: float | None, unit: str | None, threshold: float | None,
                      region: str | None, request: gr.Request) -> str:
        values = {"daily_kcal_target": kcal, "daily_carb_target_g": carbs,
                  "exchange_unit_g": float(unit) if unit else None, "confidence_threshold": threshold,
                  "region": region}
        with shown_errors():
            # db.service checks every range; empty fields stay as they were.
            service.update_settings(self._user(request), **{k: v for k, v in values.items() if v is not None})
        return "Settings saved."

    @staticmethod
    def unit_for_region(region: str | None, unit: str | None) -> str | None:
        """The unit taught in the newly picked region (the current one if taught there too)."""
        if region not in REGIONS:
            return unit
        return f"{region_unit(region, float(unit) if unit else None):g}"

    # ---- Models -------------------------------------------------------------------------

    def list_models(self, request: gr.Request):
        """The models table (file paths for admins only), the picker, and a status line."""
        with shown_errors():
            user = self._user(request)
            mine, admin = service.user_model(user), self.ctx.identity.is_admin(user)
            infos, problems = self.ctx.catalog.list()
        default = self.ctx.catalog.active_info
        rows = [
            [
                "●" if default and info.path == default.path else "",
                "●" if info.name == mine else "",
                info.name,
                info.model_name,
                info.classes,
                "" if info.accuracy is None else f"{info.accuracy:.1%}",
                "built-in" if info.default else "deployed",
                *([str(info.path)] if admin else []),
            ]
            for info in infos
        ]
        columns = ["server default", "yours", "name", "architecture", "classes", "top-1 accuracy", "kind",
                   *(["file"] if admin else [])]
        choices = [(SERVER_DEFAULT_CHOICE, ""), *((i.name, i.name) for i in infos)]
        lines = [f"⚠️ skipped {p}" if admin else "⚠️ a model file could not be read" for p in problems]
        if not admin:
            lines.append("Only an admin can change the server's default model; you can pick a model for yourself.")
        return pd.DataFrame(rows, columns=columns), gr.update(choices=choices, value=mine or ""), "\n".join(lines)

    def use_model(self, name: str | None, request: gr.Request):
        """Pick a model for the signed-in user only ("" : back to the server's default)."""
        with shown_errors():
            user = self._user(request)
            if name:
                self.ctx.catalog.find(name)  # only installed models
            service.set_user_model(user, name or None)
        table, choices, note = self.list_models(request)
        chosen = f"Your model: {name}." if name else "You use the server's default model."
        return table, choices, f"{chosen} {note}".strip()

    def activate_model(self, name: str | None, request: gr.Request):
        """Change the server's default model: admins only; recorded."""
        with shown_errors():
            user = self._user(request)
            if not self.ctx.identity.is_admin(user):
                raise FoodtagError("Only an admin can change the server's default model.")
            if not name:
                raise FoodtagError("Pick a model first.")
            before = self.ctx.catalog.active_info
            info = self.ctx.catalog.load(name)  # a broken file is refused before it is stored
            # Stored first: every app process follows the stored default (DefaultFollower).
            service.set_default_model(user, info.name, replaces=before.name if before else None)
            self.ctx.catalog.activate(info.name)
        table, choices, note = self.list_models(request)
        return table, choices, f"Server default model: {info.name} ({info.classes} classes). {note}".strip()

    # ---- Page ---------------------------------------------------------------------------

    def default_meal(self) -> str:
        return views.meal_for_time(datetime.now())

    def whoami(self, request: gr.Request) -> str:
        if not self.ctx.identity.accounts:
            return "Single-user local mode (no sign-in)."
        with shown_errors():
            return f"Signed in as **{self._user(request)}** · [Sign out](/logout)"


def build_ui(ctx: AppContext) -> gr.Blocks:
    h = Handlers(ctx)
    with gr.Blocks(title="foodtag", delete_cache=(GRADIO_CACHE_S // 2, GRADIO_CACHE_S)) as demo:
        gr.Markdown("# foodtag: meal photo to carbohydrates")
        who = gr.Markdown()
        gr.Markdown(views.safety_note(), elem_id="safety-note")
        state = gr.State({"analysis": None, "food": None, "external_id": None})
        nothing = gr.State(None)  # stands in for the photo source an event does not use

        with gr.Tab("Analyse", id="analyse"):
            with gr.Row():
                with gr.Column(scale=1):
                    upload = gr.File(label="Meal photo", file_types=["image"], type="filepath", elem_id="photo-upload")
                    with gr.Accordion("Use the webcam", open=False):
                        webcam = gr.Image(sources=["webcam"], type="filepath", label="Webcam")
                    analyze_btn = gr.Button("Analyse", variant="primary")
                    preview = gr.Image(label="Analysed photo", interactive=False, height=240)
                with gr.Column(scale=2):
                    headline = gr.Markdown(elem_id="analysis-headline")
                    suggestions = gr.Radio(label="Top suggestions (pick the right one)", choices=[])
                    recent = gr.Radio(label="Your favourite and recent foods (one click)", choices=[],
                                      elem_id="recent-foods")
                    with gr.Row():
                        search_text = gr.Textbox(label="Wrong? Search foods by name", scale=3,
                                                 elem_id="food-search")
                        search_group = gr.Dropdown(label="Food group", choices=[ALL_GROUPS],
                                                   value=ALL_GROUPS, scale=2)
                        search_btn = gr.Button("Search", scale=1)
                    search_hits = gr.Dropdown(label="Search results", choices=[], interactive=True)
                    search_status = gr.Markdown()
                    with gr.Row():
                        serving = gr.Dropdown(label="Serving", choices=[], interactive=True)
                        # A textbox, not gr.Number: empty must mean "use the serving", and a
                        # Number shows 0 when empty.
                        grams = gr.Textbox(label="or grams", placeholder="e.g. 150")
                    card = gr.Markdown(elem_id="nutrition-card")
                    with gr.Row():
                        meal_type = gr.Dropdown(label="Meal", choices=list(views.MEAL_TYPES))
                        eaten_at = gr.DateTime(label="Eaten at", value="now", include_time=True, type="string")
                    note = gr.Textbox(label="Note (optional)")
                    with gr.Row():
                        log_btn = gr.Button("Log this meal", variant="primary", elem_id="log-meal")
                        favourite_btn = gr.Button("☆ Favourite / unfavourite this food", scale=0)
                    log_status = gr.Markdown(elem_id="log-status")

        with gr.Tab("Today & history", id="today"):
            with gr.Row():
                day = gr.DateTime(label="Day", value="now", include_time=False, type="string")
                refresh_btn = gr.Button("Show")
            totals = gr.Dataframe(label="Totals vs your daily targets", interactive=False, elem_id="day-totals")
            entries = gr.Dataframe(label="Meals", interactive=False)
            with gr.Row():
                meals_plot = gr.BarPlot(x="day", y="carbohydrate (g)", color="meal", title=f"Carbohydrate per meal, last {HISTORY_DAYS} days", elem_id="meals-plot",
                                        x_label_angle=-45, tooltip=["day", "meal", "food", "carbohydrate (g)"])
                daily_plot = gr.LinePlot(x="day", y="carbohydrate (g)", color="series", title="Carbohydrate per day vs target", elem_id="daily-plot",
                                         x_label_angle=-45)
            with gr.Accordion("Edit or delete an entry", open=False):
                entry_pick = gr.Dropdown(label="Entry", choices=[], interactive=True)
                with gr.Row():
                    edit_grams = gr.Number(label="Grams", minimum=validate.MIN_PORTION_G, maximum=validate.MAX_PORTION_G)
                    edit_meal = gr.Dropdown(label="Meal", choices=list(views.MEAL_TYPES))
                    edit_when = gr.Textbox(label="Eaten at (YYYY-MM-DD HH:MM)")
                    edit_note = gr.Textbox(label="Note")
                with gr.Row():
                    save_entry_btn = gr.Button("Save changes")
                    delete_btn = gr.Button("Delete entry", variant="stop")
                entry_status = gr.Markdown()
            with gr.Row():
                export_btn = gr.Button("Export my log as CSV (for your dietitian)")
                export_file = gr.File(label="CSV", interactive=False)

        with gr.Tab("My foods", id="my-foods"):
            with gr.Accordion("Add a food from its label", open=True):
                with gr.Row():
                    own_name = gr.Textbox(label="Name", scale=2)
                    own_basis = gr.Radio(label="The label's values are", choices=[PER_100G, PER_SERVING],
                                         value=PER_100G, scale=2)
                    own_serving_name = gr.Textbox(label="Serving name", placeholder="1 bar")
                    own_serving_grams = gr.Number(label="Serving grams", minimum=validate.MIN_PORTION_G,
                                                  maximum=validate.MAX_PORTION_G)
                with gr.Row():
                    own_values = [gr.Number(label=label, minimum=0) for label in (
                        "Energy (kcal)", "Carbohydrate (g)", "Fiber (g)", "Sugars (g)", "Protein (g)", "Fat (g)")]
                add_food_btn = gr.Button("Save food", variant="primary")
            with gr.Accordion("Build a recipe", open=True):
                with gr.Row():
                    recipe_name = gr.Textbox(label="Recipe name", scale=2)
                    recipe_servings = gr.Number(label="Servings it makes", value=1, minimum=0)
                recipe_cooked = gr.Number(label="Weight after cooking (g), if weighed: portions "
                                                "weighed off the plate then count right", minimum=0)
                recipe_rows = gr.Dataframe(label="Ingredients: a food's name (as found by search) and grams",
                                           headers=["food", "grams"], datatype=["str", "number"],
                                           column_count=(2, "fixed"), row_count=(3, "dynamic"),
                                           type="array", interactive=True)
                add_recipe_btn = gr.Button("Save recipe", variant="primary")
            my_status = gr.Markdown(elem_id="my-foods-status")
            my_table = gr.Dataframe(label="Your foods and recipes", interactive=False)
            with gr.Row():
                my_pick = gr.Dropdown(label="Food or recipe", choices=[], interactive=True)
                delete_food_btn = gr.Button("Delete it", variant="stop")

        with gr.Tab("Settings", id="settings"):
            region = gr.Dropdown(label="Region: sets your carbohydrate unit and the food names search prefers",
                                 choices=[(f"{r.name} ({code})", code) for code, r in REGIONS.items()])
            kcal_target = gr.Number(label="Daily energy target (kcal)", minimum=1)
            carb_target = gr.Number(label="Daily carbohydrate target (g)", minimum=1)
            unit = gr.Radio(label="Carbohydrate unit: 15 g US choice (total carbohydrate, minus half "
                                  "the fiber over 5 g), 12 g BE, 10 g KE / UK CP (available carbohydrate)",
                            choices=[f"{u:g}" for u in EXCHANGE_UNITS])
            threshold = gr.Slider(label="Confidence threshold: below it the app says the model is unsure",
                                  minimum=0.05, maximum=0.95, step=0.05)
            save_settings_btn = gr.Button("Save settings", variant="primary")
            settings_status = gr.Markdown()

        with gr.Tab("Models", id="models"):
            models_table = gr.Dataframe(interactive=False)
            with gr.Row():
                model_pick = gr.Dropdown(label="Model", choices=[], interactive=True)
                use_btn = gr.Button("Use this model for me")
                activate_btn = gr.Button("Make it the server default (admins)")
            models_status = gr.Markdown()

        _batch_tab(ctx)

        # ---- wiring ----
        # Events that repeat another one (same handler, other trigger) are callable but
        # left out of the API page, which lists each operation once.
        quiet = {"api_visibility": "undocumented"}
        analysis_outputs = [state, preview, headline, suggestions, serving, grams, card]
        analyze_btn.click(h.analyze, [upload, webcam], analysis_outputs, api_name="analyze")
        # A new upload or snapshot is analysed at once, by itself.
        upload.upload(h.analyze, [upload, nothing], analysis_outputs, api_name="analyze_upload", **quiet)
        webcam.input(h.analyze, [nothing, webcam], analysis_outputs, api_name="analyze_webcam", **quiet)
        pick_outputs = [state, serving, grams, card]
        suggestions.input(h.choose_food, [state, suggestions], pick_outputs, api_name="choose_suggestion")
        search_hits.input(h.choose_food, [state, search_hits], pick_outputs, api_name="choose_food")
        recent.input(h.choose_food, [state, recent], pick_outputs, api_name="choose_recent")
        favourite_btn.click(h.toggle_favourite, [state], [log_status, recent], api_name="toggle_favourite")
        search_inputs = [search_text, search_group]
        search_btn.click(h.search_foods, search_inputs, [search_hits, search_status], api_name="search_foods")
        search_text.submit(h.search_foods, search_inputs, [search_hits, search_status], api_name="search_foods_submit", **quiet)
        serving.input(h.set_serving, [state, serving], [state, serving, card, grams], api_name="set_serving")
        grams.submit(h.set_grams, [state, serving, grams], [state, serving, card], api_name="set_grams")
        grams.blur(h.set_grams, [state, serving, grams], [state, serving, card], api_name="set_grams_blur", **quiet)

        day_outputs = [entries, totals, entry_pick, meals_plot, daily_plot]
        log_btn.click(
            h.log_meal, [state, serving, grams, meal_type, eaten_at, note], [log_status], api_name="log_meal"
        ).success(h.day_view, [day], day_outputs, api_name="day_view_after_log", **quiet).success(
            h.recent_foods, None, [recent], api_name="recent_after_log", **quiet)
        refresh_btn.click(h.day_view, [day], day_outputs, api_name="day_view")
        entry_pick.input(h.load_entry, [entry_pick, day], [edit_grams, edit_meal, edit_when, edit_note], api_name="load_entry")
        save_entry_btn.click(
            h.edit_entry, [entry_pick, edit_grams, edit_meal, edit_when, edit_note], [entry_status], api_name="edit_entry"
        ).success(h.day_view, [day], day_outputs, api_name="day_view_after_edit", **quiet)
        delete_btn.click(h.delete_entry, [entry_pick], [entry_status], api_name="delete_entry").success(
            h.day_view, [day], day_outputs, api_name="day_view_after_delete", **quiet
        )
        export_btn.click(h.export_csv, None, [export_file], api_name="export_csv")

        my_outputs = [my_status, my_table, my_pick]
        add_food_btn.click(h.add_own_food, [own_name, own_basis, own_serving_name, own_serving_grams, *own_values],
                           my_outputs, api_name="add_own_food")
        add_recipe_btn.click(h.add_recipe, [recipe_name, recipe_servings, recipe_rows, recipe_cooked], my_outputs,
                             api_name="add_recipe")
        delete_food_btn.click(h.delete_own_food, [my_pick], my_outputs, api_name="delete_own_food")

        settings_fields = [kcal_target, carb_target, unit, threshold, region]
        region.input(h.unit_for_region, [region, unit], [unit], api_name="unit_for_region", **quiet)
        save_settings_btn.click(h.save_settings, settings_fields, [settings_status], api_name="save_settings").success(
            h.day_view, [day], day_outputs, api_name="day_view_after_settings", **quiet
        )

        use_btn.click(h.use_model, [model_pick], [models_table, model_pick, models_status], api_name="use_model")
        activate_btn.click(h.activate_model, [model_pick], [models_table, model_pick, models_status], api_name="activate_model")

        demo.load(h.whoami, None, [who], api_name="whoami")
        demo.load(h.default_meal, None, [meal_type], api_name="default_meal", **quiet)
        demo.load(h.recent_foods, None, [recent], api_name="recent_foods")
        demo.load(h.food_groups, None, [search_group], api_name="food_groups", **quiet)
        demo.load(h.load_settings, None, settings_fields, api_name="load_settings")
        demo.load(h.my_foods, None, [my_table, my_pick], api_name="my_foods")
        demo.load(h.day_view, [day], day_outputs, api_name="day_view_on_load", **quiet)
        demo.load(h.list_models, None, [models_table, model_pick, models_status], api_name="list_models")
    return demo


def _batch_tab(ctx: AppContext) -> None:
    """The batch CSV tab (app.batch.ui), run with the server's default model; its result
    files can be downloaded only by the user who ran it."""
    from app.batch.ui import build_batch_tab

    def owned_stem(stem: str, request: gr.Request) -> str:
        return ctx.files.name(stem, "", ctx.identity.ui_user(request))

    with gr.Tab("Batch", id="batch"):
        build_batch_tab(lambda: ctx.catalog.active()[0], private_dir(data_home() / "tmp"), owned_stem)
