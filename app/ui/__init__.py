"""The web UI: thin Gradio handlers over app.meals and db.service, then the layout.

Every handler that touches a meal log takes `request: gr.Request` and asks `Identity` for
the user; no handler accepts a user name from the page. Every event has an api_name, so the
same functions are the app's named API (and the Gradio sign-in guards them all).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import gradio as gr

from app import meals, views
from app.meals import find_foods, nutrition_card, photo_digest
from app.errors import check_upload_size, shown_errors
from app.ui.assets import PAGE_ASSETS
from app.ui.batch import BatchTab
from app.ui.glucose import GlucoseTab
from app.ui.common import QUIET, AppContext, Downloads, parse_when
from app.ui.models_tab import ModelsTab
from app.ui.my_foods import MyFoodsTab
from app.ui.photos import PhotoSections
from app.ui.settings import SettingsTab
from app.ui.today import TodayTab
from db import personal, photos, service, validate
from db.cards import hit_text
from db.nutrition import exchanges
from models.errors import FoodtagError
from models.images import keepable_jpeg

__all__ = ["PAGE_ASSETS", "AppContext", "build_ui"]

ALL_GROUPS = "All food groups"
# Gradio's copies of the files it serves live an hour at most: they are health data.
GRADIO_CACHE_S = 3600


def _from_photo(state: dict) -> dict:
    """The Draft fields that say what the model made of the analysed photo (none without one)."""
    analysis = state.get("analysis")
    if not analysis:
        return {}
    top = analysis["predictions"][0]
    vectors, space = state.get("learn") or (None, None)
    return dict(predicted_label=top["label"], predicted_food=top["food"], confidence=top["probability"],
                model_version=analysis["model"]["version"], photo_sha256=state.get("photo_sha256"),
                photo_jpeg=state.get("photo_jpeg"), vectors=vectors, space=space)


def _portion_state(analysis: dict | None, photo_sha256: str | None, food: str | None,
                   photo_jpeg: bytes | None = None, learn: tuple | None = None) -> dict:
    """The one source of truth for the Analyse tab's portion: a food (None: none picked yet),
    a serving or grams (None and None: the food's default serving), and the id that makes
    logging this card twice one entry. ``photo_jpeg``: the analysed photo as it is kept when
    the person consents (db.photos); None without consent. ``learn``: the photo's (vectors,
    model space), which a correction adds to the person's dish of the food they log."""
    return {"analysis": analysis, "photo_sha256": photo_sha256, "food": food, "serving": None,
            "grams": None, "external_id": uuid.uuid4().hex if food else None, "photo_jpeg": photo_jpeg,
            "learn": learn}


def _log_button(state: dict):
    """Log is enabled only while a food is chosen and its card drawn."""
    return gr.update(interactive=bool(state.get("food")))


def _chosen_food(state: dict | None) -> str:
    food = (state or {}).get("food")
    if not food:
        raise FoodtagError("Analyse a photo or pick a food first.")
    return food


class Handlers:
    """One method per event. Each is a thin adapter: parse the widgets, call the domain code,
    shape the result for the widgets."""

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self.downloads = Downloads(ctx.files)

    # ---- Analyse -----------------------------------------------------------------------
    # The portion lives in one gr.State: {"food", "serving", "grams", "external_id", ...}.
    # The card, the Log button and the stored entry all read it; replies never write the grams
    # box the person types in (only a new food empties it), so no reply can overwrite typing.

    def analyze(self, upload: str | None, webcam: str | None, request: gr.Request):
        """Photo -> (state, preview, headline, suggestions, search hits, recent, serving, grams,
        card, Log button, log status).

        Below the user's confidence threshold no food is chosen: the person picks one before
        Log is enabled. A bad photo is not an exception here: the headline says what is wrong
        and the previous photo's card is cleared, so it cannot be mistaken for this one's."""
        with shown_errors():
            user = self.ctx.user(request)
        if not (upload or webcam):
            return self._analysis_failed("Upload a photo or take one with the webcam first.")
        path = Path(upload or webcam)
        name = path.name if upload else "webcam photo"
        try:
            check_upload_size(path.stat().st_size, self.ctx.max_upload_bytes, name)
            data = path.read_bytes()
            photo, analysis, settings = self.ctx.analyzer.analyse_upload(user, data, name)
            food = analysis.chosen
            kept = keepable_jpeg(data, name, short_side=photos.MAX_SIDE) if settings["keep_photos"] else None
            state = _portion_state(analysis.to_dict(), photo_digest(data), food, kept,
                                   (analysis.vectors, analysis.space))
            (head, card), servings, state = self._card_for(state, settings, user=user)
        except FoodtagError as exc:
            return self._analysis_failed(str(exc))
        return (
            state,
            self._preview(photo.image, user),
            views.analysis_markdown(analysis),
            gr.update(choices=views.suggestion_choices(analysis), value=food),
            gr.update(value=None),
            gr.update(value=None),
            servings,
            gr.update(value=""),
            head,
            card,
            _log_button(state),
            gr.skip(),
        )

    def _preview(self, image, user: str) -> str:
        """The analysed photo as a file only ``user`` may fetch (app.security.OwnedFiles); a
        PIL image would be cached under a name any signed-in user with the link could load."""
        path = self.downloads.path("photo", ".webp", user)
        image.save(path, format="WEBP")
        return str(path)

    def _analysis_failed(self, message: str):
        state = _portion_state(None, None, None)
        return (
            state,
            None,
            f"❌ **{message}**",
            gr.update(choices=[], value=None),
            gr.update(value=None),
            gr.update(value=None),
            gr.update(choices=[], value=None),
            gr.update(value=""),
            "",
            "",
            _log_button(state),
            gr.skip(),
        )

    def _card_for(self, state: dict, settings: dict, *, user: str):
        """((headline, card) markdown, servings dropdown update, state) for the state's food and
        portion; the state's serving becomes the one the card shows (the food's default when
        none)."""
        state = dict(state)
        if not state["food"]:
            return ("", ""), gr.update(choices=[], value=None), state
        card = nutrition_card(state["food"], grams=state["grams"], serving=state["serving"],
                              exchange_unit_g=settings["exchange_unit_g"], user=user)
        state["serving"] = card["portion"].get("serving")
        choices = [(f"{s['name']} ({views.fmt(s['grams'], 'g')})", s["name"]) for s in card["servings"]]
        return ((views.card_headline(card), views.card_markdown(card)),
                gr.update(choices=choices, value=state["serving"]), state)

    def _choose(self, state: dict, food: str | None, request: gr.Request, source: str):
        """A food was picked from `source` (suggestions, search hits, recent): its card at its
        default serving, the other pickers cleared and the headline naming the pick. Logged
        from a photo, it is stored as that photo's correction when it is not the model's top
        answer."""
        state = state or _portion_state(None, None, None)
        if not food:  # a picker emptied: the card (and Log) stay as they are
            return (gr.skip(),) * 9 + (_log_button(state), gr.skip())
        with shown_errors():
            user = self.ctx.user(request)
            entry = service.pack_entry(food, user=user)
            if entry is not None:  # glucose tablets: the pack's figure, never a guess (db.hypo)
                state = _portion_state(state.get("analysis"), state.get("photo_sha256"), None,
                                       state.get("photo_jpeg"), state.get("learn"))
                return (state, views.pack_entry_markdown(entry), gr.skip(), gr.skip(), gr.skip(),
                        gr.update(choices=[], value=None), gr.update(value=""), "", "",
                        _log_button(state), gr.skip())
            settings = service.get_settings(user)
            (head, card), servings, state = self._card_for(
                _portion_state(state.get("analysis"), state.get("photo_sha256"), food, state.get("photo_jpeg"),
                               state.get("learn")),
                settings, user=user)
        pickers = {name: gr.skip() if name == source else gr.update(value=None)
                   for name in ("suggestions", "search", "recent")}
        return (state, views.picked_markdown(state["analysis"], food), pickers["suggestions"],
                pickers["search"], pickers["recent"], servings, gr.update(value=""), head, card,
                _log_button(state), gr.skip())

    def choose_suggestion(self, state: dict, food: str | None, request: gr.Request):
        return self._choose(state, food, request, "suggestions")

    def choose_food(self, state: dict, food: str | None, request: gr.Request):
        """A search result was picked (also the API's way to pick any food by name)."""
        return self._choose(state, food, request, "search")

    def choose_recent(self, state: dict, food: str | None, request: gr.Request):
        return self._choose(state, food, request, "recent")

    def search_foods(self, text: str, group: str | None, request: gr.Request):
        """Food names matching what was typed, for when the model is wrong or unsure: the same
        search as GET /api/foods and `python -m db search`, with this user's foods first."""
        text = (text or "").strip()
        if not text:
            return gr.update(choices=[], value=None), ""
        with shown_errors():
            hits = find_foods(self.ctx.user(request), text, limit=15,
                              group=None if group in (None, "", ALL_GROUPS) else group)
        if not hits:
            return gr.update(choices=[], value=None), f"No food matches {validate.echo(text)}."
        found = "1 food matches" if len(hits) == 1 else f"{len(hits)} foods match"
        # The label shows the default serving's carbohydrate (45 g cooked, 126 g dry).
        choices = [(f"{h['food']} - {hit_text(h)}", h["food"]) for h in hits]
        return gr.update(choices=choices, value=None), f"{found} {validate.echo(text)}: pick one."

    def recent_foods(self, request: gr.Request):
        """The user's favourite and recently logged foods, one click away."""
        with shown_errors():
            foods = find_foods(self.ctx.user(request), "", limit=8)
        choices = [("★ " + f["food"] if f["favourite"] else f["food"], f["food"]) for f in foods]
        return gr.update(choices=choices, value=None)

    def toggle_favourite(self, state: dict, request: gr.Request):
        """Star or unstar the food on the card; the recent list shows favourites first."""
        with shown_errors():
            user = self.ctx.user(request)
            food = _chosen_food(state)
            starred = personal.set_favourite(user, food, not personal.is_favourite(user, food))
        message = f"★ {food} is a favourite." if starred else f"{food} is no longer a favourite."
        return message, self.recent_foods(request)

    def food_groups(self):
        with shown_errors():
            groups = service.food_groups()
        return gr.update(choices=[ALL_GROUPS, *groups], value=ALL_GROUPS)

    def set_serving(self, state: dict, serving: str | None, request: gr.Request):
        """A serving was picked: it replaces grams typed before (and empties their box). The
        dropdown closing on the serving the card already shows changes nothing.

        Returns (state, serving dropdown, grams box, headline, card, Log button, log status)."""
        state = state or _portion_state(None, None, None)
        if not state["food"] or not serving or (serving == state["serving"] and state["grams"] is None):
            return (gr.skip(),) * 5 + (_log_button(state), gr.skip())
        return self._portion(state, request, serving=serving, grams=None, empty_grams_box=True)

    def set_grams(self, state: dict, grams: str | None, request: gr.Request):
        """Grams were typed: they win over the serving (emptied: back to the food's default
        serving). The reply never writes the grams box: what was typed stays as typed.

        Returns (state, serving dropdown, grams box, headline, card, Log button, log status)."""
        state = state or _portion_state(None, None, None)
        with shown_errors():
            typed = validate.optional_grams(grams)
        if not state["food"] or typed == state["grams"]:
            # An untouched or unchanged box (or no food yet): nothing to redraw, nothing to say.
            return (gr.skip(),) * 5 + (_log_button(state), gr.skip())
        return self._portion(state, request, serving=None, grams=typed, empty_grams_box=False)

    def _portion(self, state: dict, request: gr.Request, *, serving, grams, empty_grams_box: bool):
        with shown_errors():
            user = self.ctx.user(request)
            settings = service.get_settings(user)
            (head, card), servings, state = self._card_for(
                {**state, "serving": serving, "grams": grams, "external_id": uuid.uuid4().hex},
                settings, user=user)
        return (state, servings, gr.update(value="") if empty_grams_box else gr.skip(), head, card,
                _log_button(state), gr.skip())

    def refresh_card(self, state: dict, request: gr.Request):
        """Redraw the card from the state with the user's current settings (a new unit)."""
        state = state or _portion_state(None, None, None)
        if not state["food"]:
            return gr.skip(), gr.skip()
        with shown_errors():
            user = self.ctx.user(request)
            cards, _servings, _state = self._card_for(state, service.get_settings(user), user=user)
        return cards

    def log_meal(self, state: dict, serving: str | None, grams: str | None, meal_type: str | None,
                 eaten_at: str | None, note: str | None, request: gr.Request) -> str:
        """Log the portion on the card (the state), for the signed-in user. The serving and
        grams boxes are only compared with it: when they differ the card is not yet redrawn
        for what was typed, and nothing is logged."""
        state = state or _portion_state(None, None, None)
        with shown_errors():
            food = _chosen_food(state)
            if validate.optional_grams(grams) != state["grams"] or (
                    state["grams"] is None and serving and serving != state["serving"]):
                return ("⚠️ Not logged: the card was not yet showing the portion you typed. "
                        "Check the card, then press Log again.")
            user = self.ctx.user(request)
            entry = meals.log(user, meals.Draft(
                food, grams=state["grams"], serving=state["serving"], eaten_at=parse_when(eaten_at),
                meal_type=meal_type or "", note=(note or "").strip(), external_id=state.get("external_id"),
                **_from_photo(state),
            ))
            unit_g = service.get_settings(user)["exchange_unit_g"]
        when = entry["eaten_at"][:16].replace("T", " ")
        if not entry["created"]:
            return f"Already logged: {entry['food']} at {when} (entry #{entry['id']})."
        # The confirmation reads what was stored, so it can only show the figure that was logged.
        count = exchanges(entry["carbohydrate_g"], entry["fiber_g"], unit_g)
        taught = f" Your dish {entry['dish_learned']!r} learned this photo." if entry["dish_learned"] else ""
        return (f"✅ Logged: {entry['food']}, {views.portion_text(entry['grams'], entry.get('serving'))}, "
                f"{views.fmt(entry['carbohydrate_g'], 'g')} carbohydrate, "
                f"{views.exchange_count(None if count is None else round(count, 1), unit_g)} "
                f"(entry #{entry['id']}, {when}).{taught}")

    # ---- Page ---------------------------------------------------------------------------

    def default_meal(self) -> str:
        return views.meal_for_time(datetime.now())

    def whoami(self, request: gr.Request):
        """Who is signed in, and the sign-out button (accounts mode only)."""
        if not self.ctx.identity.accounts:
            return "Single-user local mode (no sign-in).", gr.update(visible=False)
        with shown_errors():
            return f"Signed in as **{self.ctx.user(request)}**", gr.update(visible=True)


@dataclass
class Page:
    """The built page and its tabs (whose handlers the tests call)."""

    blocks: gr.Blocks
    handlers: Handlers
    today: TodayTab
    my_foods: MyFoodsTab
    settings: SettingsTab
    models: ModelsTab
    photos: PhotoSections
    glucose: GlucoseTab


def build_ui(ctx: AppContext) -> gr.Blocks:
    return build_page(ctx).blocks


def build_page(ctx: AppContext) -> Page:
    h = Handlers(ctx)
    gh = GlucoseTab(ctx.user, h.downloads.path)
    td = TodayTab(ctx, h.downloads, gh)
    ph = PhotoSections(ctx.user, ctx.analyzer, ctx.max_upload_bytes)
    mf, st, mt = MyFoodsTab(ctx), SettingsTab(ctx, ph), ModelsTab(ctx, ph)
    with gr.Blocks(title="foodtag", delete_cache=(GRADIO_CACHE_S // 2, GRADIO_CACHE_S)) as demo:
        with gr.Row(equal_height=True):
            gr.Markdown("# foodtag · meal photo to carbohydrates", elem_id="page-title", min_width=300, scale=3)
            who = gr.Markdown(elem_id="signed-in-as", min_width=160)
            sign_out_btn = gr.Button("Sign out", visible=False, scale=0, min_width=100, elem_id="sign-out")
        gr.Markdown(views.safety_note(), elem_id="safety-note")
        state = gr.State(_portion_state(None, None, None))
        nothing = gr.State(None)  # stands in for the photo source an event does not use

        # On a phone the tabs wrap onto a second row instead of hiding behind a "..." menu.
        with gr.Tabs(overflow_behavior="wrap") as tabs:
            with gr.Tab("Analyse", id="analyse"):
                with gr.Row(equal_height=False):
                    with gr.Column(scale=1, min_width=300):
                        upload = gr.File(label="Meal photo", file_types=["image"], type="filepath",
                                         elem_id="photo-upload", height=80)
                        with gr.Row():
                            analyze_btn = gr.Button("Analyse", variant="primary", min_width=100)
                            with gr.Column(scale=2, min_width=180):
                                with gr.Accordion("Use the webcam", open=False):
                                    webcam = gr.Image(sources=["webcam"], type="filepath", label="Webcam")
                        preview = gr.Image(label="Analysed photo", interactive=False, height=160)
                    with gr.Column(scale=2, min_width=300):
                        headline = gr.Markdown(elem_id="analysis-headline")
                        suggestions = gr.Radio(label="Top suggestions (pick the right one)", choices=[],
                                               elem_id="suggestions")
                        carb_head = gr.Markdown(elem_id="carb-headline")
                        with gr.Row():
                            serving = gr.Dropdown(label="Serving", choices=[], interactive=True, elem_id="portion-serving",
                                                  min_width=200)
                            # A textbox, not gr.Number: empty must mean "use the serving", and a
                            # Number shows 0 when empty (the page script asks phones for a number pad).
                            grams = gr.Textbox(label="or grams", placeholder="e.g. 150", elem_id="portion-grams",
                                               min_width=120)
                        with gr.Row():
                            meal_type = gr.Dropdown(label="Meal", choices=list(views.MEAL_TYPES), min_width=110)
                            eaten_at = gr.DateTime(label="Eaten at", value="now", include_time=True, type="string",
                                                   min_width=180, scale=2)
                        with gr.Row():
                            log_btn = gr.Button("Log this meal", variant="primary", elem_id="log-meal", interactive=False)
                            favourite_btn = gr.Button("☆ Favourite / unfavourite this food", scale=0, min_width=160)
                        log_status = gr.Markdown(elem_id="log-status")
                        note = gr.Textbox(label="Note (optional, saved with the meal)")
                        with gr.Row():
                            search_text = gr.Textbox(label="Wrong? Search foods by name", scale=3,
                                                     elem_id="food-search", min_width=160)
                            search_group = gr.Dropdown(label="Food group", choices=[ALL_GROUPS],
                                                       value=ALL_GROUPS, scale=2, min_width=160)
                            search_btn = gr.Button("Search", scale=1, min_width=80)
                        search_hits = gr.Dropdown(label="Search results", choices=[], interactive=True,
                                                  elem_id="search-hits")
                        search_status = gr.Markdown()
                        recent = gr.Radio(label="Your favourite and recent foods (one click)", choices=[],
                                          elem_id="recent-foods")
                        card = gr.Markdown(elem_id="nutrition-card")

            td.build(demo)
            mf.build(demo, tabs)
            st.build(demo)
            mt.build(demo)

            gh.build()
            BatchTab.for_app(ctx).build()

        # ---- wiring ----
        # Client-side only, before anything reaches the server: Log waits while the card is
        # being redrawn for a new photo or portion (the reply enables it again), and the last
        # log message goes, as it spoke of the card being replaced. Replies never write the
        # message: one that did could wipe a "Not logged" answer to a Log clicked meanwhile.
        hold_log = {"fn": None, "outputs": [log_btn, log_status], "queue": False, "api_visibility": "private",
                    "js": "() => [{__type__: 'update', interactive: false}, '']"}
        card_outputs = [carb_head, card, log_btn, log_status]
        analysis_outputs = [state, preview, headline, suggestions, search_hits, recent, serving, grams,
                            *card_outputs]
        analyze_btn.click(**hold_log)
        analyze_btn.click(h.analyze, [upload, webcam], analysis_outputs, api_name="analyze")
        # A new upload or snapshot is analysed at once, by itself.
        upload.upload(**hold_log)
        upload.upload(h.analyze, [upload, nothing], analysis_outputs, api_name="analyze_upload", **QUIET)
        webcam.input(**hold_log)
        webcam.input(h.analyze, [nothing, webcam], analysis_outputs, api_name="analyze_webcam", **QUIET)
        pick_outputs = [state, headline, suggestions, search_hits, recent, serving, grams, *card_outputs]
        for picker, handler, name in ((suggestions, h.choose_suggestion, "choose_suggestion"),
                                      (search_hits, h.choose_food, "choose_food"),
                                      (recent, h.choose_recent, "choose_recent")):
            picker.input(**hold_log)
            picker.input(handler, [state, picker], pick_outputs, api_name=name, trigger_mode="always_last")
        search_hits.input(mf.open_pack_form, [search_hits],
                          [tabs, mf.c.own_name, mf.c.own_basis, mf.c.own_serving_name, mf.c.my_status],
                          api_name="open_pack_form", **QUIET)
        favourite_btn.click(h.toggle_favourite, [state], [log_status, recent], api_name="toggle_favourite")
        search_inputs = [search_text, search_group]
        search_btn.click(h.search_foods, search_inputs, [search_hits, search_status], api_name="search_foods")
        search_text.submit(h.search_foods, search_inputs, [search_hits, search_status], api_name="search_foods_submit", **QUIET)
        portion_outputs = [state, serving, grams, *card_outputs]
        # .select, not .input: the dropdown also fires input when it closes on the serving shown,
        # and that reply (re-enabling Log) could land after grams typed meanwhile.
        serving.select(**hold_log)
        serving.select(h.set_serving, [state, serving], portion_outputs, api_name="set_serving",
                       trigger_mode="always_last")
        # Typing holds Log until the typed grams are on the card (Enter or leaving the box).
        grams.input(**hold_log)
        grams.submit(h.set_grams, [state, grams], portion_outputs, api_name="set_grams", trigger_mode="always_last")
        grams.blur(h.set_grams, [state, grams], portion_outputs, api_name="set_grams_blur",
                   trigger_mode="always_last", **QUIET)

        log_btn.click(
            h.log_meal, [state, serving, grams, meal_type, eaten_at, note], [log_status], api_name="log_meal"
        ).success(td.day_view, [td.c.day], td.day_outputs, api_name="day_view_after_log", **QUIET).success(
            h.recent_foods, None, [recent], api_name="recent_after_log", **QUIET)

        st.c.save_settings_btn.click(st.save_settings, st.fields, [st.c.settings_status], api_name="save_settings").success(
            td.day_view, [td.c.day], td.day_outputs, api_name="day_view_after_settings", **QUIET
        ).success(h.refresh_card, [state], [carb_head, card], api_name="card_after_settings", **QUIET)

        demo.load(h.whoami, None, [who, sign_out_btn], api_name="whoami")
        # Same tab, and the page leaves the history: Back cannot bring the meal log back.
        sign_out_btn.click(None, js="() => { window.location.replace(new URL('logout', document.baseURI)); }",
                           api_visibility="private")
        demo.load(h.default_meal, None, [meal_type], api_name="default_meal", **QUIET)
        demo.load(h.recent_foods, None, [recent], api_name="recent_foods")
        demo.load(h.food_groups, None, [search_group], api_name="food_groups", **QUIET)
    return Page(demo, h, td, mf, st, mt, ph, gh)
