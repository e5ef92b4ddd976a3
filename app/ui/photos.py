"""The person's photos in the UI: the consent to keep meal photos and the household that shares
them (Settings tab), and the dishes learned from a few photos (My dishes, Models tab). Thin
handlers over db.photos, db.households and app.dishes; the user comes from the sign-in, never
from the page.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import gradio as gr
import pandas as pd

from app.meals import Analyzer
from app.dishes import held_out_text, overall_held_out
from app.errors import check_upload_size, shown_errors
from db import households, photos, service, validate
from db.dishes import MAX_PHOTOS_PER_ADD
from db.dishes import remove_dish as remove_stored_dish
from models.errors import FoodtagError


class PhotoHandlers:
    """One method per event; ``user_of(request)`` names the signed-in user, ``analyzer`` reads
    the photos and learns the dishes, ``max_upload_bytes`` is the most one photo may weigh."""

    def __init__(self, user_of: Callable[[gr.Request], str], analyzer: Analyzer, max_upload_bytes: int) -> None:
        self.user_of = user_of
        self.analyzer = analyzer
        self.max_upload_bytes = max_upload_bytes

    # ---- Kept photos and the household (Settings tab) --------------------------------------

    def load_photo_settings(self, request: gr.Request):
        """(keep-photos checkbox, household status)."""
        with shown_errors():
            user = self.user_of(request)
            keep = service.get_settings(user)["keep_photos"]
        return keep, self.household_view(request)

    def set_keep_photos(self, keep: bool, request: gr.Request) -> str:
        """Consent to keep meal photos, applied at once; withdrawn, the kept ones are deleted."""
        with shown_errors():
            user = self.user_of(request)
            before = 0 if keep else len(photos.kept_photos(user))
            service.update_settings(user, keep_photos=keep)  # only true or false: None is refused
        if keep:
            return "The photos of the meals you log from now on are kept, for you and your household only."
        return f"No photo is kept from now on; {before} kept photo{'s' * (before != 1)} deleted."

    def household_view(self, request: gr.Request) -> str:
        with shown_errors():
            group = households.household(self.user_of(request))
        if group is None:
            return "You are in no household: your kept photos are yours alone."
        return f"Household **{validate.echo(group['name'])}**: {', '.join(group['members'])}."

    def create_household(self, name: str | None, request: gr.Request):
        with shown_errors():
            households.create_household(self.user_of(request), name or "")
        return self.household_view(request), ""

    def join_household(self, code: str | None, request: gr.Request):
        with shown_errors():
            households.join_household(self.user_of(request), code or "")
        return self.household_view(request), ""

    def invite_to_household(self, request: gr.Request):
        with shown_errors():
            code = households.create_invite(self.user_of(request))
        return (f"{self.household_view(request)}\n\nInvite code, for one person, valid "
                f"{households.INVITE_TTL.days} days: `{code}`"), ""

    def leave_household(self, request: gr.Request):
        with shown_errors():
            households.leave_household(self.user_of(request))
        return self.household_view(request), ""

    # ---- My dishes (Models tab) ----------------------------------------------------------

    def my_dishes(self, request: gr.Request):
        """(the user's dishes table, the remove picker, held-out accuracy line)."""
        with shown_errors():
            user = self.user_of(request)
            found = self.analyzer.dish_summaries(user, service.user_model(user))
        table = pd.DataFrame([[d["dish"], d["food"], d["photos"], held_out_text(d)] for d in found],
                             columns=["dish", "food", "photos", "recognised from your other photos"])
        recognised, tried = overall_held_out(found)
        line = ("" if not tried else
                f"Recognising each of your dish photos from your other photos: {recognised} of {tried} right "
                f"({recognised / tried:.0%}, held out).")
        return table, gr.update(choices=[d["dish"] for d in found], value=None), line

    def add_dish(self, name: str | None, food: str | None, files, request: gr.Request):
        """Teach the user a dish from 1-10 photos; it is recognised from the next photo on."""
        with shown_errors():
            user = self.user_of(request)
            paths = [Path(f if isinstance(f, str) else f.name) for f in (files or [])]
            if not 1 <= len(paths) <= MAX_PHOTOS_PER_ADD:  # counted before any photo is read
                raise FoodtagError(f"Add 1 to {MAX_PHOTOS_PER_ADD} photos of the dish.")
            for path in paths:
                check_upload_size(path.stat().st_size, self.max_upload_bytes, path.name)
            model = service.user_model(user)
            images = [self.analyzer.read(path.read_bytes(), path.name, model).image for path in paths]
            added = self.analyzer.add_dish(user, (name or "").strip(), (food or "").strip(), images, model)
        table, picker, line = self.my_dishes(request)
        return (f"Saved **{added['dish']}** ({added['food']}), {added['photos']} photos: "
                "recognised from your next photo on.", table, picker, line)

    def remove_dish(self, name: str | None, request: gr.Request):
        with shown_errors():
            user = self.user_of(request)
            if not name:
                raise FoodtagError("Pick a dish first.")
            removed = remove_stored_dish(user, name)
        return (f"Removed {name} with the vectors of {removed} photos.", *self.my_dishes(request))

