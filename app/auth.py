"""Who is asking: the signed-in user of a Gradio event or an HTTP request.

The user always comes from the server's own session record (Gradio's sign-in cookie, or
HTTP Basic credentials checked against the database), never from a name the client sends,
so one person cannot read or change another person's log by editing a request.
"""

from __future__ import annotations

import base64
import binascii
import getpass
import sys
from typing import TYPE_CHECKING, Callable, TextIO

from app.config import LOCAL_USER
from db import service
from models.errors import FoodtagError

if TYPE_CHECKING:
    import fastapi
    import gradio as gr

# Short passwords fall to guessing even behind argon2; 8 is the NIST SP 800-63B minimum.
MIN_PASSWORD_LENGTH = 8


class NotSignedIn(FoodtagError):
    """A request that needs a user came without valid credentials."""


class Identity:
    """Maps requests to user names. Without accounts every request is the one local user."""

    def __init__(self, accounts: bool) -> None:
        self.accounts = accounts
        # Set once Gradio is mounted: cookie token -> user name, from Gradio's sign-in.
        self._token_user: Callable[[fastapi.Request], str | None] | None = None

    def attach_gradio(self, token_user: Callable[[fastapi.Request], str | None]) -> None:
        self._token_user = token_user

    def check_password(self, username: str, password: str) -> bool:
        """Gradio's sign-in callback."""
        if not self.accounts or not username or not password:
            return False
        return service.verify_password(username.strip(), password)

    def ui_user(self, request: gr.Request | None) -> str:
        """The user behind a Gradio event."""
        if not self.accounts:
            return LOCAL_USER
        name = getattr(request, "username", None)
        if not name:
            # Gradio refuses events from signed-out sessions before they reach a handler;
            # this guards handlers called some other way.
            raise NotSignedIn("sign in first")
        return name

    def api_user(self, request: fastapi.Request) -> str:
        """The user behind a plain HTTP request: the Gradio sign-in cookie or HTTP Basic."""
        if not self.accounts:
            return LOCAL_USER
        if self._token_user is not None:
            name = self._token_user(request)
            if name:
                return name
        header = request.headers.get("authorization", "")
        scheme, _, encoded = header.partition(" ")
        if scheme.lower() == "basic" and encoded:
            try:
                username, _, password = base64.b64decode(encoded, validate=True).decode("utf-8").partition(":")
            except (binascii.Error, UnicodeDecodeError):
                raise NotSignedIn("malformed Basic credentials") from None
            if self.check_password(username, password):
                return username.strip()
            raise NotSignedIn("wrong user name or password")
        raise NotSignedIn("sign in first: send HTTP Basic credentials or the app's sign-in cookie")


def read_new_password(password_stdin: bool, stdin: TextIO = sys.stdin) -> str:
    """A new password: one line from stdin (scripts), or typed twice at a prompt."""
    if password_stdin:
        password = stdin.readline().rstrip("\r\n")
    else:
        password = getpass.getpass("Password: ")
        if getpass.getpass("Repeat password: ") != password:
            raise FoodtagError("the two passwords differ; nothing was changed")
    if len(password) < MIN_PASSWORD_LENGTH:
        raise FoodtagError(f"password too short: use at least {MIN_PASSWORD_LENGTH} characters")
    return password

