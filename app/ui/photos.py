"""The person's photos in the UI: the consent to keep meal photos and the household that shares
them (a section of the Settings tab), and the dishes learned from a few photos (My dishes, a
section of the Models tab). Thin handlers over db.photos, db.households and app.dishes; the user
comes from the sign-in, never from the page.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import gradio as gr
import pandas as pd

from app.dishes import held_out_text, overall_held_out
from app.errors import shown_errors
from app.ui.common import AppContext
from db import households, photos, service, validate
from db.dishes import MAX_PHOTOS_PER_ADD
from db.dishes import remove_dish as remove_stored_dish
from models.errors import FoodtagError


class PhotoSections:
    """One method per event, over ``ctx`` (the signed-in user, the analyser that reads the
    photos and learns the dishes, the upload limit, and Gradio's uploads, deleted once
    learned). ``c`` holds the components, made by build_sharing() and build_dishes()."""

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self.c = SimpleNamespace()

    # ---- Kept photos and the household (Settings tab) --------------------------------------

    def load_photo_settings(self, request: gr.Request):
        """The keep-photos checkbox and the household status."""
        with shown_errors():
            user = self.ctx.user(request)
            keep = service.get_settings(user)["keep_photos"]
        return {self.c.keep_photos: keep, self.c.household_status: self.household_view(request)}

    def set_keep_photos(self, keep: bool, request: gr.Request) -> str:
        """Consent to keep meal photos, applied at once; withdrawn, the kept ones are deleted."""
        with shown_errors():
            user = self.ctx.user(request)
            before = 0 if keep else len(photos.kept_photos(user))
            service.update_settings(user, keep_photos=keep)  # only true or false: None is refused
        if keep:
            return "The photos of the meals you log from now on are kept, for you and your household only."
        return f"No photo is kept from now on; {before} kept photo{'s' * (before != 1)} deleted."

    def household_view(self, request: gr.Request) -> str:
        with shown_errors():
            group = households.household(self.ctx.user(request))
        if group is None:
            return "You are in no household: your kept photos are yours alone."
        return f"Household **{validate.echo(group['name'])}**: {', '.join(group['members'])}."

    def _household_changed(self, status: str) -> dict:
        """The new household status, and the box emptied of the name or code just used."""
        return {self.c.household_status: status, self.c.household_text: ""}

    def create_household(self, name: str | None, request: gr.Request):
        with shown_errors():
            households.create_household(self.ctx.user(request), name or "")
        return self._household_changed(self.household_view(request))

    def join_household(self, code: str | None, request: gr.Request):
        with shown_errors():
            households.join_household(self.ctx.user(request), code or "")
        return self._household_changed(self.household_view(request))

    def invite_to_household(self, request: gr.Request):
        with shown_errors():
            code = households.create_invite(self.ctx.user(request))
        return self._household_changed(f"{self.household_view(request)}\n\nInvite code, for one person, valid "
                                       f"{households.INVITE_TTL.days} days: `{code}`")

    def leave_household(self, request: gr.Request):
        with shown_errors():
            households.leave_household(self.ctx.user(request))
        return self._household_changed(self.household_view(request))

    def build_sharing(self, page: gr.Blocks, status: gr.Markdown) -> None:
        """The keep-photos checkbox (which answers in ``status``) and the household controls; call
        inside the Settings tab."""
        c = self.c
        c.keep_photos = gr.Checkbox(
            label="Keep my meal photos to learn my dishes", elem_id="keep-photos",
            info="Applies at once. On: the photo of each meal you log is kept (512 px, no location "
                 "data), for you and your household only. Off: none is kept, and those kept are deleted.")
        with gr.Accordion("Household: share kept photos with the people you live with", open=False):
            c.household_status = gr.Markdown(elem_id="household-status")
            c.household_text = gr.Textbox(label="A new household's name, or an invite code from a member")
            with gr.Row():
                c.create_household_btn = gr.Button("Create household")
                c.join_household_btn = gr.Button("Join with invite code")
                c.invite_btn = gr.Button("Make an invite code")
                c.leave_household_btn = gr.Button("Leave household", variant="stop")

        c.keep_photos.input(self.set_keep_photos, [c.keep_photos], [status], api_name="set_keep_photos")
        household = [c.household_status, c.household_text]
        c.create_household_btn.click(self.create_household, [c.household_text], household, api_name="create_household")
        c.join_household_btn.click(self.join_household, [c.household_text], household, api_name="join_household")
        c.invite_btn.click(self.invite_to_household, None, household, api_name="invite_to_household")
        c.leave_household_btn.click(self.leave_household, None, household, api_name="leave_household")
        page.load(self.load_photo_settings, None, [c.keep_photos, c.household_status], api_name="load_photo_settings")

    # ---- My dishes (Models tab) ----------------------------------------------------------

    def my_dishes(self, request: gr.Request):
        """The user's dishes table, the remove picker and the held-out accuracy line."""
        with shown_errors():
            user = self.ctx.user(request)
            found = self.ctx.analyzer.dish_summaries(user, service.user_model(user))
        table = pd.DataFrame([[d["dish"], d["food"], d["photos"], held_out_text(d)] for d in found],
                             columns=["dish", "food", "photos", "recognised from your other photos"])
        recognised, tried = overall_held_out(found)
        line = ("" if not tried else
                f"Recognising each of your dish photos from your other photos: {recognised} of {tried} right "
                f"({recognised / tried:.0%}, held out).")
        return {self.c.dishes_table: table, self.c.dish_pick: gr.update(choices=[d["dish"] for d in found], value=None),
                self.c.dishes_accuracy: line}

    def add_dish(self, name: str | None, food: str | None, files, request: gr.Request):
        """Teach the user a dish from 1-10 photos; it is recognised from the next photo on."""
        with shown_errors():
            user = self.ctx.user(request)
            paths = [Path(f if isinstance(f, str) else f.name) for f in (files or [])]
            if not 1 <= len(paths) <= MAX_PHOTOS_PER_ADD:  # counted before any photo is read
                raise FoodtagError(f"Add 1 to {MAX_PHOTOS_PER_ADD} photos of the dish.")
            model = service.user_model(user)
            ctx = self.ctx
            images = [ctx.analyzer.read(ctx.uploads.read(path, ctx.max_upload_bytes, path.name), path.name,
                                        model).image for path in paths]
            added = ctx.analyzer.add_dish(user, (name or "").strip(), (food or "").strip(), images, model)
        # Kept after a refusal, so that the person may correct the name and press Add again.
        self.ctx.uploads.discard(*paths)
        return {self.c.dishes_status: f"Saved **{added['dish']}** ({added['food']}), {added['photos']} photos: "
                                      "recognised from your next photo on.",
                **self.my_dishes(request)}

    def remove_dish(self, name: str | None, request: gr.Request):
        with shown_errors():
            user = self.ctx.user(request)
            if not name:
                raise FoodtagError("Pick a dish first.")
            removed = remove_stored_dish(user, name)
        return {self.c.dishes_status: f"Removed {name} with the vectors of {removed} photos.",
                **self.my_dishes(request)}

    def build_dishes(self, page: gr.Blocks) -> None:
        """The My dishes section; call inside the Models tab."""
        c = self.c
        with gr.Accordion("My dishes: recognised from a few of your photos", open=False):
            c.dishes_table = gr.Dataframe(interactive=False)
            c.dishes_accuracy = gr.Markdown()
            with gr.Row():
                c.dish_name = gr.Textbox(label="Dish name", placeholder="Grandma's lasagne", max_length=200)
                c.dish_food = gr.Textbox(label="The food or your own recipe it is", max_length=200)
            c.dish_photos = gr.File(label="1 to 10 photos of it", file_count="multiple", file_types=["image"])
            with gr.Row():
                c.add_dish_btn = gr.Button("Add the dish", variant="primary")
                c.dish_pick = gr.Dropdown(label="Dish", choices=[], interactive=True)
                c.remove_dish_btn = gr.Button("Remove the dish")
            c.dishes_status = gr.Markdown()

        page.load(self.my_dishes, None, [c.dishes_table, c.dish_pick, c.dishes_accuracy], api_name="my_dishes")
        changed = [c.dishes_status, c.dishes_table, c.dish_pick, c.dishes_accuracy]
        # Once learned, the photos' box is emptied in the browser: add_dish deleted their files.
        c.add_dish_btn.click(inputs=[c.dish_name, c.dish_food, c.dish_photos], outputs=changed, api_name="add_dish",
                             **self.ctx.in_turn(self.add_dish)).success(
            None, None, [c.dish_photos], js="() => null", queue=False, api_visibility="private")
        c.remove_dish_btn.click(self.remove_dish, [c.dish_pick], changed, api_name="remove_dish")
