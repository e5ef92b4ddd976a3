"""The top of the page, above the tabs: the title, who is signed in with the Sign out button
(accounts mode only), and the safety note."""

from __future__ import annotations

from types import SimpleNamespace

import gradio as gr

from app import views
from app.errors import shown_errors
from app.ui.common import AppContext


class PageHeader:
    """``c`` holds the components, made by build()."""

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self.c = SimpleNamespace()

    def whoami(self, request: gr.Request):
        """Who is signed in, and the sign-out button (accounts mode only)."""
        c = self.c
        if not self.ctx.identity.accounts:
            return {c.who: "Single-user local mode (no sign-in).", c.sign_out_btn: gr.update(visible=False)}
        with shown_errors():
            return {c.who: f"Signed in as **{self.ctx.user(request)}**", c.sign_out_btn: gr.update(visible=True)}

    def build(self, page: gr.Blocks) -> None:
        c = self.c
        with gr.Row(equal_height=True):
            gr.Markdown("# foodtag · meal photo to carbohydrates", elem_id="page-title", min_width=300, scale=3)
            c.who = gr.Markdown(elem_id="signed-in-as", min_width=160)
            c.sign_out_btn = gr.Button("Sign out", visible=False, scale=0, min_width=100, elem_id="sign-out")
        gr.Markdown(views.safety_note(), elem_id="safety-note")

        page.load(self.whoami, None, [c.who, c.sign_out_btn], api_name="whoami")
        # Same tab, and the page leaves the history: Back cannot bring the meal log back.
        c.sign_out_btn.click(None, js="() => { fetch(new URL('logout', document.baseURI), {method: 'POST', credentials: 'same-origin'})"
                                   ".finally(() => window.location.replace(new URL('login', document.baseURI))); }",
                             api_visibility="private")
