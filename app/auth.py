"""Who is asking: the signed-in user of a Gradio event or an HTTP request.

The user always comes from the server's own session record (the sign-in cookie's session in
the database, or HTTP Basic credentials checked against the database), never from a name the
client sends, so one person cannot read or change another person's log by editing a request.
"""

from __future__ import annotations

import getpass
import sys
from typing import TYPE_CHECKING, TextIO

from starlette.concurrency import run_in_threadpool

from app.config import LOCAL_USER
from app.security import PasswordChecker, Sessions, password_workers, signed_in_user
from db import service
from models.errors import FoodtagError

if TYPE_CHECKING:
    import fastapi
    import gradio as gr
    from fastapi.security import HTTPBasicCredentials

# Short passwords fall to guessing even behind argon2; 8 is the NIST SP 800-63B minimum.
MIN_PASSWORD_LENGTH = 8


class NotSignedIn(FoodtagError):
    """A request that needs a user came without valid credentials."""


class Identity:
    """Maps requests to user names. Without accounts every request is the one local user."""

    def __init__(self, accounts: bool, *, passwords: PasswordChecker | None = None,
                 sessions: Sessions | None = None) -> None:
        self.accounts = accounts
        self.passwords = passwords or PasswordChecker(service.verify_password, workers=password_workers())
        self.sessions = sessions or Sessions(idle_s=30 * 60, max_age_s=12 * 3600)

    async def sign_in(self, username: str, password: str, client: str) -> str | None:
        """Check the password (async: the slow check runs in PasswordChecker's threads, never
        on the event loop) and start a session; returns its token, or None when refused."""
        if not self.accounts or not await self.passwords.check(username, password, client):
            return None
        return await run_in_threadpool(self.sessions.start, username.strip())

    def sign_out(self, token: str | None) -> None:
        if token:
            self.sessions.end(token)

    def gradio_user(self, request: fastapi.Request) -> str | None:
        """Gradio's auth_dependency: the user Guard found for this request, None when signed out."""
        return signed_in_user(request)

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

    async def api_user(self, request: fastapi.Request, basic: HTTPBasicCredentials | None) -> str:
        """The user behind a plain HTTP request: a live sign-in cookie, else HTTP Basic
        (checked like a sign-in: bounded, throttled, logged)."""
        if not self.accounts:
            return LOCAL_USER
        user = signed_in_user(request)
        if user:
            return user
        if basic is not None:
            client = request.client.host if request.client else "unknown"
            if await self.passwords.check(basic.username, basic.password, client):
                return basic.username.strip()
            raise NotSignedIn("wrong user name or password")
        raise NotSignedIn("sign in first: send HTTP Basic credentials or the app's sign-in cookie")

    def is_admin(self, user: str) -> bool:
        """Admins change the server's default model. In single-user mode the one local user
        runs the server and is its admin."""
        return not self.accounts or service.is_admin(user)


def read_new_password(password_stdin: bool, stdin: TextIO | None = None) -> str:
    """A new password: one line from stdin (scripts; sys.stdin as it is at the call), or typed twice
    at a prompt."""
    if password_stdin:
        password = (stdin or sys.stdin).readline().rstrip("\r\n")
    else:
        password = getpass.getpass("Password: ")
        if getpass.getpass("Repeat password: ") != password:
            raise FoodtagError("the two passwords differ; nothing was changed")
    if len(password) < MIN_PASSWORD_LENGTH:
        raise FoodtagError(f"password too short: use at least {MIN_PASSWORD_LENGTH} characters")
    return password

