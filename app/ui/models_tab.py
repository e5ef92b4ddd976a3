"""The Models tab: the installed models, the one each person uses and the server's default
(admins change it); below them My dishes (app.ui.photos). Named models_tab, not models, so it
is not mistaken for the top-level models package."""

from __future__ import annotations

from types import SimpleNamespace

import gradio as gr
import pandas as pd

from app.errors import shown_errors
from app.ui.common import AppContext
from app.ui.photos import PhotoSections
from db import service
from models.errors import FoodtagError

SERVER_DEFAULT_CHOICE = "(the server's default)"


class ModelsTab:
    """One method per event; ``c`` holds the components, made by build()."""

    def __init__(self, ctx: AppContext, photos: PhotoSections) -> None:
        self.ctx = ctx
        self.photos = photos
        self.c = SimpleNamespace()

    def list_models(self, request: gr.Request):
        """The models table (file paths for admins only), the picker, and a status line."""
        with shown_errors():
            user = self.ctx.user(request)
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
        c = self.c
        return {c.models_table: pd.DataFrame(rows, columns=columns),
                c.model_pick: gr.update(choices=choices, value=mine or ""), c.models_status: "\n".join(lines)}

    def _listed_after(self, done: str, request: gr.Request) -> dict:
        """The models listed again, the status line saying first what was done."""
        listed = self.list_models(request)
        return {**listed, self.c.models_status: f"{done} {listed[self.c.models_status]}".strip()}

    def use_model(self, name: str | None, request: gr.Request):
        """Pick a model for the signed-in user only ("" : back to the server's default)."""
        with shown_errors():
            user = self.ctx.user(request)
            if name:
                self.ctx.catalog.find(name)  # only installed models
            service.set_user_model(user, name or None)
        return self._listed_after(f"Your model: {name}." if name else "You use the server's default model.",
                                  request)

    def activate_model(self, name: str | None, request: gr.Request):
        """Change the server's default model: admins only; recorded."""
        with shown_errors():
            user = self.ctx.user(request)
            if not self.ctx.identity.is_admin(user):
                raise FoodtagError("Only an admin can change the server's default model.")
            if not name:
                raise FoodtagError("Pick a model first.")
            before = self.ctx.catalog.active_info
            info = self.ctx.catalog.load(name)  # a broken file is refused before it is stored
            # Stored first: every app process follows the stored default (DefaultFollower).
            service.set_default_model(user, info.name, replaces=before.name if before else None)
            self.ctx.catalog.activate(info.name)
        return self._listed_after(f"Server default model: {info.name} ({info.classes} classes).", request)

    def build(self, page: gr.Blocks) -> None:
        """The tab's layout and wiring; call inside gr.Tabs."""
        c = self.c
        with gr.Tab("Models", id="models"):
            c.models_table = gr.Dataframe(interactive=False)
            with gr.Row():
                c.model_pick = gr.Dropdown(label="Model", choices=[], interactive=True)
                c.use_btn = gr.Button("Use this model for me")
                c.activate_btn = gr.Button("Make it the server default (admins)")
            c.models_status = gr.Markdown()
            self.photos.build_dishes(page)

        listed = [c.models_table, c.model_pick, c.models_status]
        c.use_btn.click(self.use_model, [c.model_pick], listed, api_name="use_model")
        c.activate_btn.click(self.activate_model, [c.model_pick], listed, api_name="activate_model")
        page.load(self.list_models, None, listed, api_name="list_models")
