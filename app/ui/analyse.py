"""The Analyse tab: a meal photo (or a food picked by name) to its nutrition card, and Log.

The portion lives in one gr.State: {"food", "serving", "grams", "external_id", ...}. The card,
the Log button and the stored entry all read it; replies never write the grams box the person
types in (only a new food empties it), so no reply can overwrite typing.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace

import gradio as gr

from app import meals, views
from app.errors import shown_errors
from app.meals import find_foods, nutrition_card, photo_digest
from app.ui.common import QUIET, AppContext, Downloads, parse_when
from db import personal, photos, search, service, validate
from db.cards import hit_text
from db.errors import NoDefaultServing
from models.errors import FoodtagError
from models.images import keepable_jpeg

ALL_GROUPS = "All food groups"
# Client-side, as grams are typed: the headline (still the card's old portion) fades, and a
# line beside Log says what Enter and Log will do with what was typed. Its own line: the log
# message is never written by these events, so none can wipe the answer to a Log.
PENDING_GRAMS_JS = """(typed) => {
  document.getElementById('carb-headline')?.classList.add('pending');
  const grams = (typed || '').trim().replace(/[^0-9.,]/g, '');
  if (!(typed || '').trim()) return 'Grams emptied: press Enter to use the serving.';
  if (!grams) return 'Type the grams as a number, e.g. 150.';
  return grams + ' g typed, not yet on the card: press Enter to see it there. Log logs ' + grams + ' g.';
}"""
# Enter, leaving the box, a new photo or food: nothing is pending any more.
CONFIRMED_GRAMS_JS = """() => { document.getElementById('carb-headline')?.classList.remove('pending'); return ''; }"""
# Log clicked from the grams box (pressing it kept the focus there: app.ui.assets): Log logs the
# typed grams, and leaving the box now redraws the card for them.
LOGGED_FROM_BOX_JS = """() => {
  const box = document.activeElement;
  if (box?.closest('#portion-grams')) box.blur();
  return '';
}"""


def _portion_state(analysis: dict | None, photo_sha256: str | None, food: str | None,
                   photo_jpeg: bytes | None = None, learn: tuple | None = None) -> dict:
    """The one source of truth for the tab's portion: a food (None: none picked yet), a serving
    or grams (None and None: the food's default serving), and the id that makes logging this
    card twice one entry. ``photo_jpeg``: the analysed photo as it is kept when the person
    consents (db.photos); None without consent. ``learn``: the photo's (vectors, model space),
    which a correction adds to the person's dish of the food they log."""
    return {"analysis": analysis, "photo_sha256": photo_sha256, "food": food, "serving": None,
            "grams": None, "external_id": uuid.uuid4().hex if food else None, "photo_jpeg": photo_jpeg,
            "learn": learn}


# A search hit's value is its food's name; where its label may show another serving than the
# default (the one the query's measure names, "tablespoon of peanut butter": 1 tablespoon; or a
# hypo treatment's, db.hypo, which search does not rank: no score), the serving follows after
# this separator, so the card opens with it and Log logs what the list showed; where the query
# asked for an amount ("two slices of toast": 2 × 1 slice), its grams follow as a third part.
HIT_SERVING_SEPARATOR = "\t"


def _hit_value(hit: dict, measured: bool) -> str:
    portion = hit["portion"]
    if hit["food_id"] is None or not (measured or hit["score"] is None):
        return hit["food"]
    if portion.get("amount") and portion["grams"] is not None:
        return HIT_SERVING_SEPARATOR.join((hit["food"], "", f"{portion['grams']:g}"))
    if not portion["serving"]:
        return hit["food"]
    return f"{hit['food']}{HIT_SERVING_SEPARATOR}{portion['serving']}"


def _with_portion(state: dict, serving: str | None, grams: float | None) -> dict:
    """The state for a new portion of its food. The entry id follows from the previous one and
    the portion, so the card redrawn for typed grams and a Log clicked meanwhile (which logs
    them itself) name one entry."""
    step = f"{state['external_id']}|{serving}|{grams}".encode()
    return {**state, "serving": serving, "grams": grams, "external_id": hashlib.sha256(step).hexdigest()[:32]}


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


def _log_button(state: dict):
    """Log is enabled only while a food is chosen and its card drawn (not while its grams are
    awaited)."""
    return gr.update(interactive=bool(state.get("food")) and not state.get("needs_grams"))


def _chosen_food(state: dict | None) -> str:
    food = (state or {}).get("food")
    if not food:
        raise FoodtagError("Analyse a photo or pick a food first.")
    return food


class AnalyseTab:
    """One method per event; ``downloads`` holds the analysed photos shown back. ``c`` holds the
    components, made by build()."""

    def __init__(self, ctx: AppContext, downloads: Downloads) -> None:
        self.ctx = ctx
        self.downloads = downloads
        self.c = SimpleNamespace()

    def analyze(self, upload: str | None, webcam: str | None, request: gr.Request):
        """Photo -> the state, preview, headline, suggestions, card and the pickers and portion
        boxes to go with it.

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
            try:
                data = self.ctx.uploads.read(path, self.ctx.max_upload_bytes, name)
            finally:  # the originals, EXIF and all, go at once: the page keeps only what is made of them
                self.ctx.uploads.discard(*filter(None, (upload, webcam)))
            photo, analysis, settings = self.ctx.analyzer.analyse_upload(user, data, name)
            food = analysis.chosen
            kept = keepable_jpeg(data, name, short_side=photos.MAX_SIDE) if settings["keep_photos"] else None
            state, drawn = self._card_for(_portion_state(analysis.to_dict(), photo_digest(data), food, kept,
                                                         (analysis.vectors, analysis.space)), settings, user=user)
        except FoodtagError as exc:
            return self._analysis_failed(str(exc))
        c = self.c
        return {c.state: state, c.preview: self._preview(photo.image, user),
                c.headline: views.analysis_markdown(analysis),
                c.suggestions: gr.update(choices=views.suggestion_choices(analysis), value=food),
                c.search_hits: gr.update(value=None), c.recent: gr.update(value=None),
                c.grams: gr.update(value=""), **drawn, c.log_btn: _log_button(state)}

    def _preview(self, image, user: str) -> str:
        """The analysed photo as a file only ``user`` may fetch (app.security.OwnedFiles); a
        PIL image would be cached under a name any signed-in user with the link could load."""
        path = self.downloads.path("photo", ".webp", user)
        image.save(path, format="WEBP")
        return str(path)

    def _analysis_failed(self, message: str):
        c, state = self.c, _portion_state(None, None, None)
        return {c.state: state, c.preview: None, c.headline: f"❌ **{message}**",
                c.suggestions: gr.update(choices=[], value=None), c.search_hits: gr.update(value=None),
                c.recent: gr.update(value=None), c.serving: gr.update(choices=[], value=None),
                c.grams: gr.update(value=""), c.carb_head: "", c.card: "", c.log_btn: _log_button(state)}

    def _card_for(self, state: dict, settings: dict, *, user: str) -> tuple[dict, dict]:
        """The state, its serving now the one the card shows (the food's default when none), and
        the headline, card and servings dropdown for its food and portion."""
        c, state = self.c, dict(state)
        if not state["food"]:
            return state, {c.carb_head: "", c.card: "", c.serving: gr.update(choices=[], value=None)}
        try:
            card = nutrition_card(state["food"], grams=state["grams"], serving=state["serving"],
                                  exchange_unit_g=settings["exchange_unit_g"], user=user)
        except NoDefaultServing:
            # Picked, but its table gives no portion: the person types the grams (never 100 g
            # of a biscuit or a drink by default); the food stays chosen for them.
            state["serving"], state["needs_grams"] = None, True
            return state, {c.carb_head: f"⚖️ **{state['food']}** has no default serving in its table: type the grams you ate.",
                           c.card: "", c.serving: gr.update(choices=[], value=None)}
        state["serving"], state["needs_grams"] = card["portion"].get("serving"), False
        choices = [(f"{s['name']} ({views.fmt(s['grams'], 'g')})", s["name"]) for s in card["servings"]]
        return state, {c.carb_head: views.card_headline(card), c.card: views.card_markdown(card),
                       c.serving: gr.update(choices=choices, value=state["serving"])}

    def _choose(self, state: dict, food: str | None, request: gr.Request, source: gr.components.Component):
        """A food was picked from `source` (suggestions, search hits, recent): its card at its
        default serving, the other pickers cleared and the headline naming the pick. Logged
        from a photo, it is stored as that photo's correction when it is not the model's top
        answer."""
        c, state = self.c, state or _portion_state(None, None, None)
        if not food:  # a picker emptied: the card (and Log) stay as they are
            return {c.log_btn: _log_button(state)}
        food, serving, grams = (*food.split(HIT_SERVING_SEPARATOR, 2), "", "")[:3]
        with shown_errors():
            grams = validate.optional_grams(grams)  # a client's value: checked like typed grams
            user = self.ctx.user(request)
            entry = service.pack_entry(food, user=user)
            if entry is not None:  # glucose tablets: the pack's figure, never a guess (db.hypo)
                state = _portion_state(state.get("analysis"), state.get("photo_sha256"), None,
                                       state.get("photo_jpeg"), state.get("learn"))
                return {c.state: state, c.headline: views.pack_entry_markdown(entry),
                        c.serving: gr.update(choices=[], value=None), c.grams: gr.update(value=""),
                        c.carb_head: "", c.card: "", c.log_btn: _log_button(state)}
            settings = service.get_settings(user)
            picked = _portion_state(state.get("analysis"), state.get("photo_sha256"), food,
                                    state.get("photo_jpeg"), state.get("learn"))
            portion = (_with_portion(picked, None, grams) if grams is not None
                       else _with_portion(picked, serving, None) if serving else picked)
            state, drawn = self._card_for(portion, settings, user=user)
        others = {picker: gr.update(value=None) for picker in (c.suggestions, c.search_hits, c.recent)
                  if picker is not source}
        # The amount the query asked for shows as typed grams: a blur of the box keeps it.
        return {c.state: state, c.headline: views.picked_markdown(state["analysis"], food), **others,
                c.grams: gr.update(value="" if grams is None else f"{grams:g}"), **drawn,
                c.log_btn: _log_button(state)}

    def choose_suggestion(self, state: dict, food: str | None, request: gr.Request):
        return self._choose(state, food, request, self.c.suggestions)

    def choose_food(self, state: dict, food: str | None, request: gr.Request):
        """A search result was picked (also the API's way to pick any food by name)."""
        return self._choose(state, food, request, self.c.search_hits)

    def choose_recent(self, state: dict, food: str | None, request: gr.Request):
        return self._choose(state, food, request, self.c.recent)

    def search_foods(self, text: str, group: str | None, request: gr.Request):
        """Food names matching what was typed, for when the model is wrong or unsure: the same
        search as GET /api/foods and `python -m db search`, with this user's foods first."""
        c, text = self.c, (text or "").strip()
        if not text:
            return {c.search_hits: gr.update(choices=[], value=None), c.search_status: ""}
        with shown_errors():
            user = self.ctx.user(request)
            hits = find_foods(user, text, limit=15,
                              group=None if group in (None, "", ALL_GROUPS) else group)
            unit_g = service.get_settings(user)["exchange_unit_g"]
        if not hits:
            return {c.search_hits: gr.update(choices=[], value=None),
                    c.search_status: f"No food matches {validate.echo(text)}."}
        found = "1 food matches" if len(hits) == 1 else f"{len(hits)} foods match"
        # The label shows the default serving's carbohydrate (45 g cooked, 126 g dry) on the
        # basis the card's headline counts in the person's unit.
        measured = bool(search.query_measure(text))
        choices = [(f"{h['food']} - {hit_text(h, unit_g)}", _hit_value(h, measured)) for h in hits]
        return {c.search_hits: gr.update(choices=choices, value=None),
                c.search_status: f"{found} {validate.echo(text)}: pick one."}

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
        return {self.c.log_status: message, self.c.recent: self.recent_foods(request)}

    def food_groups(self):
        with shown_errors():
            groups = service.food_groups()
        return gr.update(choices=[ALL_GROUPS, *groups], value=ALL_GROUPS)

    def default_meal(self) -> str:
        return views.meal_for_time(datetime.now())

    def set_serving(self, state: dict, serving: str | None, request: gr.Request):
        """A serving was picked: it replaces grams typed before (and empties their box). The
        dropdown closing on the serving the card already shows changes nothing."""
        state = state or _portion_state(None, None, None)
        if not state["food"] or not serving or (serving == state["serving"] and state["grams"] is None):
            return {self.c.log_btn: _log_button(state)}
        return self._portion(state, request, serving=serving, grams=None, empty_grams_box=True)

    def set_grams(self, state: dict, grams: str | None, request: gr.Request):
        """Grams were typed: they win over the serving (emptied: back to the food's default
        serving). The reply never writes the grams box: what was typed stays as typed."""
        state = state or _portion_state(None, None, None)
        with shown_errors():
            typed = validate.optional_grams(grams)
        if not state["food"] or typed == state["grams"]:
            # An untouched or unchanged box (or no food yet): nothing to redraw, nothing to say.
            return {self.c.log_btn: _log_button(state)}
        return self._portion(state, request, serving=None, grams=typed, empty_grams_box=False)

    def _portion(self, state: dict, request: gr.Request, *, serving, grams, empty_grams_box: bool):
        c = self.c
        with shown_errors():
            user = self.ctx.user(request)
            state, drawn = self._card_for(_with_portion(state, serving, grams), service.get_settings(user), user=user)
        emptied = {c.grams: gr.update(value="")} if empty_grams_box else {}
        return {c.state: state, **drawn, **emptied, c.log_btn: _log_button(state)}

    def refresh_card(self, state: dict, request: gr.Request):
        """Redraw the headline and card from the state with the user's current settings (a new
        unit)."""
        state = state or _portion_state(None, None, None)
        if not state["food"]:
            return gr.skip()
        with shown_errors():
            user = self.ctx.user(request)
            _state, drawn = self._card_for(state, service.get_settings(user), user=user)
        return {self.c.carb_head: drawn[self.c.carb_head], self.c.card: drawn[self.c.card]}

    def log_meal(self, state: dict, serving: str | None, grams: str | None, meal_type: str | None,
                 eaten_at: str | None, note: str | None, request: gr.Request) -> str:
        """Log the portion in the boxes, for the signed-in user. Grams typed but not yet on the
        card (Log clicked straight from the box) are the portion: the box's blur redraws the
        card for them meanwhile, with the same entry id (_with_portion), so card, log and a
        second click agree."""
        state = state or _portion_state(None, None, None)
        with shown_errors():
            food = _chosen_food(state)
            typed = validate.optional_grams(grams)
            serving = None if typed is not None else (serving or state["serving"])
            if (typed, serving) != (state["grams"], None if state["grams"] is not None else state["serving"]):
                state = _with_portion(state, serving, typed)
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
        taught = f" Your dish {entry['dish_learned']!r} learned this photo." if entry["dish_learned"] else ""
        return (f"✅ Logged: {entry['food']}, {views.portion_text(entry['grams'], entry.get('serving'))}, "
                f"{views.logged_carbs(entry, unit_g)} (entry #{entry['id']}, {when}).{taught}")

    def build(self, page: gr.Blocks) -> None:
        """The tab's layout and its own events; the page wires Log (it redraws the Today tab)."""
        c = self.c
        with gr.Tab("Analyse", id="analyse"):
            c.state = gr.State(_portion_state(None, None, None))
            c.nothing = gr.State(None)  # stands in for the photo source an event does not use
            with gr.Row(equal_height=False):
                with gr.Column(scale=1, min_width=300):
                    c.upload = gr.File(label="Meal photo", file_types=["image"], type="filepath",
                                       elem_id="photo-upload", height=120)
                    with gr.Row():
                        c.analyze_btn = gr.Button("Analyse", variant="primary", min_width=100)
                        with gr.Column(scale=2, min_width=180):
                            with gr.Accordion("Use the webcam", open=False):
                                # image_mode None: the snapshot reaches analyze as uploaded (and is
                                # deleted there), not as a converted copy beside the original.
                                c.webcam = gr.Image(sources=["webcam"], type="filepath", label="Webcam",
                                                    image_mode=None)
                    c.preview = gr.Image(label="Analysed photo", interactive=False, height=160,
                                         elem_id="analysed-photo")
                with gr.Column(scale=2, min_width=300):
                    c.headline = gr.Markdown(elem_id="analysis-headline")
                    c.suggestions = gr.Radio(label="Top suggestions (pick the right one)", choices=[],
                                             elem_id="suggestions")
                    c.carb_head = gr.Markdown(elem_id="carb-headline")
                    with gr.Row():
                        c.serving = gr.Dropdown(label="Serving", choices=[], interactive=True,
                                                elem_id="portion-serving", min_width=200)
                        # A textbox, not gr.Number: empty must mean "use the serving", and a
                        # Number shows 0 when empty (the page script asks phones for a number pad).
                        c.grams = gr.Textbox(label="or grams", placeholder="e.g. 150", elem_id="portion-grams",
                                             min_width=120)
                    with gr.Row():
                        c.meal_type = gr.Dropdown(label="Meal", choices=list(views.MEAL_TYPES), min_width=110)
                        c.eaten_at = gr.DateTime(label="Eaten at", value="now", include_time=True, type="string",
                                                 min_width=180, scale=2, elem_id="eaten-at")
                    with gr.Row():
                        c.log_btn = gr.Button("Log this meal", variant="primary", elem_id="log-meal",
                                              interactive=False)
                        c.favourite_btn = gr.Button("☆ Favourite / unfavourite this food", scale=0, min_width=160)
                    c.pending = gr.Markdown(elem_id="portion-pending")
                    c.log_status = gr.Markdown(elem_id="log-status")
                    c.note = gr.Textbox(label="Note (optional, saved with the meal)")
                    with gr.Row():
                        c.search_text = gr.Textbox(label="Wrong? Search foods by name", scale=3,
                                                   elem_id="food-search", min_width=160)
                        c.search_group = gr.Dropdown(label="Food group", choices=[ALL_GROUPS],
                                                     value=ALL_GROUPS, scale=2, min_width=160)
                        c.search_btn = gr.Button("Search", scale=1, min_width=80)
                    c.search_hits = gr.Dropdown(label="Search results", choices=[], interactive=True,
                                                elem_id="search-hits")
                    c.search_status = gr.Markdown()
                    c.recent = gr.Radio(label="Your favourite and recent foods (one click)", choices=[],
                                        elem_id="recent-foods")
                    c.card = gr.Markdown(elem_id="nutrition-card")
        self._wire(page)

    def _wire(self, page: gr.Blocks) -> None:
        c = self.c
        # Client-side only, before anything reaches the server: Log waits while the card is
        # being redrawn for a new photo or food (the reply enables it again), and the last log
        # message goes, as it spoke of the card being replaced. Replies never write the
        # message: one that did could wipe the answer to a Log clicked meanwhile.
        hold_log = {"fn": None, "outputs": [c.log_btn, c.log_status, c.pending], "queue": False,
                    "api_visibility": "private",
                    "js": "() => { document.getElementById('carb-headline')?.classList.remove('pending');"
                          " return [{__type__: 'update', interactive: false}, '', '']; }"}
        card_outputs = [c.carb_head, c.card, c.log_btn, c.log_status]
        analysis_outputs = [c.state, c.preview, c.headline, c.suggestions, c.search_hits, c.recent, c.serving,
                            c.grams, *card_outputs]
        # Then the upload and webcam boxes are emptied in the browser: analyze deleted their files.
        empty_sources = {"fn": None, "outputs": [c.upload, c.webcam], "queue": False, "api_visibility": "private",
                         "js": "() => [null, null]"}
        analyze = self.ctx.in_turn(self.analyze)  # the user's turn at the model, shared with the API
        c.analyze_btn.click(**hold_log)
        c.analyze_btn.click(inputs=[c.upload, c.webcam], outputs=analysis_outputs, api_name="analyze",
                            **analyze).then(**empty_sources)
        # A new upload or snapshot is analysed at once, by itself.
        c.upload.upload(**hold_log)
        c.upload.upload(inputs=[c.upload, c.nothing], outputs=analysis_outputs, api_name="analyze_upload",
                        **analyze, **QUIET).then(**empty_sources)
        c.webcam.input(**hold_log)
        c.webcam.input(inputs=[c.nothing, c.webcam], outputs=analysis_outputs, api_name="analyze_webcam",
                       **analyze, **QUIET).then(**empty_sources)
        pick_outputs = [c.state, c.headline, c.suggestions, c.search_hits, c.recent, c.serving, c.grams,
                        *card_outputs]
        for picker, handler, name in ((c.suggestions, self.choose_suggestion, "choose_suggestion"),
                                      (c.search_hits, self.choose_food, "choose_food"),
                                      (c.recent, self.choose_recent, "choose_recent")):
            picker.input(**hold_log)
            picker.input(handler, [c.state, picker], pick_outputs, api_name=name, trigger_mode="always_last")
        c.favourite_btn.click(self.toggle_favourite, [c.state], [c.log_status, c.recent], api_name="toggle_favourite")
        search_inputs, search_outputs = [c.search_text, c.search_group], [c.search_hits, c.search_status]
        c.search_btn.click(self.search_foods, search_inputs, search_outputs, api_name="search_foods")
        c.search_text.submit(self.search_foods, search_inputs, search_outputs, api_name="search_foods_submit",
                             **QUIET)
        portion_outputs = [c.state, c.serving, c.grams, *card_outputs]
        # A new portion leaves Log on: Log logs the portion in the boxes (log_meal). The last
        # log message goes, as it spoke of another portion.
        c.serving.select(None, None, [c.log_status], js="() => ''", queue=False, api_visibility="private")
        # .select, not .input: the dropdown also fires input when it closes on the serving shown,
        # and that reply could land after grams typed meanwhile.
        c.serving.select(self.set_serving, [c.state, c.serving], portion_outputs, api_name="set_serving",
                         trigger_mode="always_last")
        # Typed grams are pending until Enter or leaving the box puts them on the card: the
        # headline fades and the message says so (and that Log would log them as typed).
        c.grams.input(None, [c.grams], [c.pending], js=PENDING_GRAMS_JS, queue=False, api_visibility="private")
        for confirmed in (c.grams.submit, c.grams.blur):
            confirmed(None, None, [c.pending], js=CONFIRMED_GRAMS_JS, queue=False, api_visibility="private")
        c.log_btn.click(None, None, [c.pending], js=LOGGED_FROM_BOX_JS, queue=False, api_visibility="private")
        c.grams.submit(self.set_grams, [c.state, c.grams], portion_outputs, api_name="set_grams",
                       trigger_mode="always_last")
        c.grams.blur(self.set_grams, [c.state, c.grams], portion_outputs, api_name="set_grams_blur",
                     trigger_mode="always_last", **QUIET)
        page.load(self.default_meal, None, [c.meal_type], api_name="default_meal", **QUIET)
        page.load(self.recent_foods, None, [c.recent], api_name="recent_foods")
        page.load(self.food_groups, None, [c.search_group], api_name="food_groups", **QUIET)
