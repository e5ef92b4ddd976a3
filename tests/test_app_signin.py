"""The sign-in page (app.signin) on its own: what a person sees after a wrong password."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.server import SIGN_IN_MESSAGE
from app.signin import add_routes


class FakeIdentity:
    """Accepts one password; no database, no argon2."""

    sessions = SimpleNamespace(max_age_s=3600)

    async def sign_in(self, username: str, password: str, client: str) -> str | None:
        return "token" if password == "right-password" else None

    def sign_out(self, token: str | None) -> None:
        pass


@pytest.fixture
def browser() -> TestClient:
    api = FastAPI()
    add_routes(api, FakeIdentity(), message="Sign in with the name and password you were given.")
    return TestClient(api, headers={"accept": "text/html"})


def field(page: str, name: str) -> str:
    [tag] = re.findall(rf'<input name="{name}"[^>]*>', page)
    return tag


def test_a_wrong_password_keeps_the_user_name_and_moves_to_the_password(browser):
    first = browser.get("/login").text
    assert "value=" not in field(first, "username") and "autofocus" in field(first, "username")
    refused = browser.post("/login", data={"username": 'al"ice<', "password": "wrong"})
    assert refused.status_code == 400 and "Incorrect credentials." in refused.text
    assert 'value="al&quot;ice&lt;"' in field(refused.text, "username")  # kept, and escaped
    assert "autofocus" in field(refused.text, "password") and "autofocus" not in field(refused.text, "username")
    assert 'value=' not in field(refused.text, "password")  # a password is never sent back


def test_the_sign_in_page_shows_plain_text(browser):
    page = browser.get("/login").text
    assert "<p>Sign in with the name and password you were given.</p>" in page


def test_the_apps_sign_in_message_is_plain_text():
    """The page shows the message as it is: backticks would appear literally."""
    assert "`" not in SIGN_IN_MESSAGE and "*" not in SIGN_IN_MESSAGE
    assert "python -m app users add NAME" in SIGN_IN_MESSAGE
