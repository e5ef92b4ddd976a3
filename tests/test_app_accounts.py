"""Accounts mode: sign-in, and user B can never read or change user A's log."""

from __future__ import annotations

import base64
import csv
from datetime import date
from types import SimpleNamespace

import gradio as gr
import httpx
import pytest
from app_support import jpeg_bytes, seeded_server
from gradio_client import Client, handle_file
from gradio_client.exceptions import AuthenticationError

from app.ui import Handlers
from db import service

PASSWORDS = {"alice": "alice-pass-123", "bob": "bob-pass-456"}
SECRET = "alice-private-note-7f3a"
TODAY = date.today().isoformat()

# Every endpoint a client can call (public or undocumented) -> the handler behind it. A new
# one fails test_every_endpoint_is_reviewed on purpose: check that it derives the user from
# the request (never from its inputs) and add its handler to the isolation tests below.
REVIEWED_ENDPOINTS = {
    "analyze": "analyze", "analyze_upload": "analyze", "analyze_webcam": "analyze",
    "choose_suggestion": "choose_food", "choose_food": "choose_food",
    "search_foods": "search_foods", "search_foods_submit": "search_foods",
    "set_serving": "set_serving", "set_grams": "set_grams", "set_grams_blur": "set_grams",
    "log_meal": "log_meal", "load_entry": "load_entry", "edit_entry": "edit_entry", "delete_entry": "delete_entry",
    "day_view": "day_view", "day_view_after_log": "day_view", "day_view_after_edit": "day_view",
    "day_view_after_delete": "day_view", "day_view_after_settings": "day_view", "day_view_on_load": "day_view",
    "export_csv": "export_csv", "save_settings": "save_settings", "load_settings": "load_settings",
    "activate_model": "activate_model", "use_model": "use_model", "list_models": "list_models", "whoami": "whoami",
    "default_meal": "default_meal",
    "batch_run": "run",  # app.batch.ui: analyses an uploaded CSV; reads and writes no meal log
}


@pytest.fixture(scope="module")
def server(tmp_path_factory, default_model_path):
    # "nopass" has no password: it must not be able to sign in.
    users = {**PASSWORDS, "nopass": None}
    with seeded_server(tmp_path_factory.mktemp("app-accounts"), users, accounts=True) as live:
        yield live


@pytest.fixture(scope="module")
def photo(coffee_image, tmp_path_factory):
    path = tmp_path_factory.mktemp("photos") / "espresso.jpg"
    path.write_bytes(jpeg_bytes(coffee_image))
    return path


@pytest.fixture(scope="module")
def alice_entry(server, photo):
    alice = Client(server.url, auth=("alice", PASSWORDS["alice"]), verbose=False)
    alice.predict(handle_file(str(photo)), None, api_name="/analyze")
    status = alice.predict(None, "120", "breakfast", "now", SECRET, api_name="/log_meal")
    assert "Logged Espresso" in status
    [entry] = service.day_summary("alice", date.today())["entries"]
    return entry


@pytest.fixture(scope="module")
def bob(server):
    return Client(server.url, auth=("bob", PASSWORDS["bob"]), verbose=False)


def basic(name: str, password: str) -> dict:
    return {"Authorization": "Basic " + base64.b64encode(f"{name}:{password}".encode()).decode()}


def test_signed_out_requests_are_refused(server, coffee_image):
    assert httpx.get(f"{server.url}/healthz").status_code == 200  # refusals below are not a dead server
    with pytest.raises(AuthenticationError, match="credentials were not provided"):
        Client(server.url, verbose=False)
    for name, password in (("alice", "wrong-password"), ("nopass", "any-password")):
        with pytest.raises(ValueError, match="Could not login"):
            Client(server.url, auth=(name, password), verbose=False)
        response = httpx.post(f"{server.url}/login", data={"username": name, "password": password})
        assert response.status_code == 400 and "Incorrect credentials" in response.text
    assert httpx.get(f"{server.url}/gradio_api/info").status_code == 401
    files = {"file": ("cup.jpg", jpeg_bytes(coffee_image))}
    response = httpx.post(f"{server.url}/api/analyze", files=files)
    assert response.status_code == 401 and "sign in" in response.json()["error"]
    response = httpx.post(f"{server.url}/api/analyze", files=files, headers=basic("alice", "nope-nope"))
    assert response.status_code == 401
    response = httpx.post(f"{server.url}/api/analyze", files=files, headers=basic("alice", PASSWORDS["alice"]))
    assert response.status_code == 200 and response.json()["food"] == "Espresso"


def test_api_analyze_uses_the_callers_settings(server, coffee_image):
    service.update_settings("bob", exchange_unit_g=10.0)
    files = {"file": ("cup.jpg", jpeg_bytes(coffee_image))}
    as_bob = httpx.post(f"{server.url}/api/analyze", files=files, headers=basic("bob", PASSWORDS["bob"])).json()
    as_alice = httpx.post(f"{server.url}/api/analyze", files=files, headers=basic("alice", PASSWORDS["alice"])).json()
    assert as_bob["card"]["exchanges"]["unit_g"] == 10.0 and as_alice["card"]["exchanges"]["unit_g"] == 15.0


def test_every_endpoint_is_reviewed(server, bob):
    callable_endpoints = {
        fn.api_name: fn.name for fn in server.app.blocks.fns.values() if fn.api_visibility != "private"
    }
    assert callable_endpoints == REVIEWED_ENDPOINTS
    documented = bob.view_api(return_format="dict", print_info=False)["named_endpoints"]
    assert {name.lstrip("/") for name in documented} <= set(REVIEWED_ENDPOINTS)


def test_user_b_cannot_read_or_change_user_a_through_the_api(bob, alice_entry):
    entry_id = alice_entry["id"]
    assert "Signed in as **bob**" in bob.predict(api_name="/whoami")
    # Refused by Gradio (the id is not among bob's entry choices) or by the handler.
    refused = "no meal entry|not in the list of choices"

    entries, totals, picker, meals, daily = bob.predict(TODAY, api_name="/day_view")
    assert entries["data"] == [] and SECRET not in str((entries, totals, picker, meals, daily))
    with pytest.raises(Exception, match=refused):
        bob.predict(entry_id, TODAY, api_name="/load_entry")
    with pytest.raises(Exception, match=refused):
        bob.predict(entry_id, 999, "dinner", "now", "bob was here", api_name="/edit_entry")
    with pytest.raises(Exception, match=refused):
        bob.predict(entry_id, api_name="/delete_entry")
    exported = bob.predict(api_name="/export_csv")
    with open(exported, newline="", encoding="utf-8") as handle:
        assert list(csv.DictReader(handle)) == []
    bob.predict(2500, 300, "12", 0.3, api_name="/save_settings")

    # Alice's entry and settings are untouched.
    [after] = service.day_summary("alice", date.today())["entries"]
    assert after == alice_entry
    assert service.get_settings("alice")["exchange_unit_g"] == 15.0


def test_each_user_sees_only_their_own_log(server, alice_entry, photo):
    alice = Client(server.url, auth=("alice", PASSWORDS["alice"]), verbose=False)
    entries, *_ = alice.predict(TODAY, api_name="/day_view")
    assert [row[0] for row in entries["data"]] == [alice_entry["id"]]
    bob = Client(server.url, auth=("bob", PASSWORDS["bob"]), verbose=False)
    bob.predict(handle_file(str(photo)), None, api_name="/analyze")
    bob.predict(None, "30", "snack", "now", "bob's", api_name="/log_meal")
    entries, *_ = alice.predict(TODAY, api_name="/day_view")
    assert [row[0] for row in entries["data"]] == [alice_entry["id"]]


def test_user_b_cannot_reach_user_a_through_the_ui_functions(server, alice_entry):
    handlers = Handlers(server.app.ctx)
    as_bob = SimpleNamespace(username="bob")
    entry_id = alice_entry["id"]
    with pytest.raises(gr.Error, match="no meal entry"):
        handlers.load_entry(entry_id, TODAY, as_bob)
    with pytest.raises(gr.Error, match="no meal entry"):
        handlers.edit_entry(entry_id, 10, "lunch", "now", "x", as_bob)
    with pytest.raises(gr.Error, match="no meal entry"):
        handlers.delete_entry(entry_id, as_bob)
    assert SECRET not in str(handlers.day_view(TODAY, as_bob))
    # No user at all (a handler reached without sign-in) is refused, not treated as local.
    with pytest.raises(gr.Error, match="sign in"):
        handlers.day_view(TODAY, SimpleNamespace(username=None))
    assert service.day_summary("alice", date.today())["entries"] == [alice_entry]
