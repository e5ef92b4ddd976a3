"""Accounts mode: sign-in, and user B can never read or change user A's log."""

from __future__ import annotations

import base64
import csv
import re
from datetime import date
from types import SimpleNamespace

import gradio as gr
import httpx
import pytest
from app_support import jpeg_bytes, seeded_server
from gradio_client import Client, handle_file
from gradio_client.exceptions import AuthenticationError

from app.ui import build_page
from db import dishes, personal, service

PASSWORDS = {"alice": "alice-pass-123", "bob": "bob-pass-456"}
SECRET = "alice-private-note-7f3a"


def _today() -> str:
    """Read when used: a run that crosses midnight logs and lists on the same day."""
    return date.today().isoformat()


# Every endpoint a client can call (public or undocumented) -> the handler behind it. A new
# one fails test_every_endpoint_is_reviewed on purpose: check that it derives the user from
# the request (never from its inputs) and add its handler to the isolation tests below.
REVIEWED_ENDPOINTS = {
    "analyze": "analyze", "analyze_upload": "analyze", "analyze_webcam": "analyze",
    "choose_suggestion": "choose_suggestion", "choose_food": "choose_food",
    "search_foods": "search_foods", "search_foods_submit": "search_foods",
    "set_serving": "set_serving", "set_grams": "set_grams", "set_grams_blur": "set_grams",
    "log_meal": "log_meal", "load_entry": "load_entry", "edit_entry": "edit_entry", "delete_entry": "delete_entry",
    "ask_delete": "ask_delete", "load_row": "load_entry",
    # The picked entry's glucose curve: db.glucose.service.meal_of_entry for the request's user.
    "entry_glucose": "entry_response", "entry_glucose_row": "entry_response",
    "entry_glucose_after_edit": "entry_response", "entry_glucose_after_delete": "entry_response",
    # The Glucose tab (app.ui.glucose): every handler names the user by GlucoseTab.user_of(request).
    "glucose_import": "import_file", "glucose_save_zone": "save_zone", "glucose_report": "report",
    "glucose_export_readings": "export_readings", "glucose_meals": "meals", "glucose_foods": "foods",
    "glucose_meal_curve": "meal_curve", "glucose_zone": "load", "glucose_keep_meal": "keep_meal",
    "pick_row": "pick_row",  # the clicked row's own "#" cell, checked by load_entry afterwards
    "card_after_settings": "refresh_card",
    "day_view": "day_view", "day_view_after_log": "day_view", "day_view_after_edit": "day_view",
    "day_view_after_delete": "day_view", "day_view_after_settings": "day_view", "day_view_on_load": "day_view",
    "export_csv": "export_csv", "save_settings": "save_settings", "load_settings": "load_settings",
    "activate_model": "activate_model", "use_model": "use_model", "list_models": "list_models", "whoami": "whoami",
    "default_meal": "default_meal",
    "choose_recent": "choose_recent", "recent_foods": "recent_foods", "recent_after_log": "recent_foods",
    "food_groups": "food_groups",  # public food groups only: no user data
    "unit_for_region": "unit_for_region",  # a region's unit: reads no user data
    # A region's glucose unit named in the Settings choice: reads no user data.
    "glucose_unit_for_region": "glucose_units_for_region", "glucose_unit_on_load": "glucose_units_for_region",
    "toggle_favourite": "toggle_favourite",
    # A glucose-tablet search entry picked: the label form filled in; reads whether the request's
    # user already has that own food (db.service.pack_entry), nothing else.
    "open_pack_form": "open_pack_form",
    # My foods tab: db.personal scoped by the request's user (test_own_foods_... below,
    # tests/test_app_myfoods.py).
    "my_foods": "my_foods", "add_own_food": "add_own_food", "add_recipe": "add_recipe_api",
    "delete_own_food": "delete_own_food",
    "batch_run": "run",  # app.ui.batch: analyses an uploaded CSV; reads and writes no meal log
    # Settings: consent to keep meal photos and the household, by the request's user (below and
    # tests/test_app_photos.py); joining takes an invite code a member made (tests/test_db_photos.py).
    "set_keep_photos": "set_keep_photos", "load_photo_settings": "load_photo_settings",
    # Models tab, My dishes: db.dishes scoped by the request's user (below and tests/test_dishes.py).
    "my_dishes": "my_dishes", "add_dish": "add_dish", "remove_dish": "remove_dish",
    "create_household": "create_household", "join_household": "join_household",
    "invite_to_household": "invite_to_household", "leave_household": "leave_household",
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
    alice.predict("120", api_name="/set_grams")
    status = alice.predict(None, "120", "breakfast", "now", SECRET, api_name="/log_meal")
    assert "Logged: Espresso" in status
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

    entries, totals, picker, meals, daily, heading = bob.predict(_today(), api_name="/day_view")
    assert entries["data"] == [] and SECRET not in str((entries, totals, picker, meals, daily, heading))
    with pytest.raises(Exception, match=refused):
        bob.predict(entry_id, _today(), api_name="/load_entry")
    with pytest.raises(Exception, match=refused):
        bob.predict(entry_id, 999, "dinner", "now", "bob was here", api_name="/edit_entry")
    with pytest.raises(Exception, match=refused):
        bob.predict(entry_id, _today(), api_name="/ask_delete")
    with pytest.raises(Exception, match=refused):
        bob.predict(entry_id, api_name="/delete_entry")
    try:
        plot, text = bob.predict(entry_id, api_name="/entry_glucose")
    except Exception as exc:  # Gradio's own check of the picker's choices
        assert re.search(refused, str(exc))
    else:
        assert plot is None and text.startswith(f"⚠️ no meal entry {entry_id}")
    exported = bob.predict(api_name="/export_csv")
    with open(exported, newline="", encoding="utf-8") as handle:
        assert list(csv.DictReader(handle)) == []
    dishes.add_dish("alice", "Pie", "banana", [dishes.PhotoVectors(1, 4, bytes(16))], space="v1")
    table, _picker, _accuracy = bob.predict(api_name="/my_dishes")
    assert "Pie" not in str(table)
    with pytest.raises(Exception, match="no dish|not in the list of choices"):
        bob.predict("Pie", api_name="/remove_dish")
    assert [d["dish"] for d in dishes.list_dishes("alice")] == ["Pie"]
    bob.predict(2500, 300, "12", 0.3, "DE", "mmol/L", api_name="/save_settings")
    assert "are kept" in bob.predict(True, api_name="/set_keep_photos")
    bob.predict("Bob's flat", api_name="/create_household")

    # Alice's entry and settings are untouched.
    [after] = service.day_summary("alice", date.today())["entries"]
    assert after == alice_entry
    assert service.get_settings("alice")["exchange_unit_g"] == 15.0
    assert service.get_settings("alice")["glucose_unit"] is None
    assert service.user_region("alice") == "US" and service.user_region("bob") == "DE"
    assert not service.get_settings("alice")["keep_photos"] and service.get_settings("bob")["keep_photos"]
    assert service.household_members("alice") == ["alice"]


def test_each_user_sees_only_their_own_log(server, alice_entry, photo):
    alice = Client(server.url, auth=("alice", PASSWORDS["alice"]), verbose=False)
    entries, *_ = alice.predict(_today(), api_name="/day_view")
    assert [row[-1] for row in entries["data"]] == [alice_entry["id"]]
    bob = Client(server.url, auth=("bob", PASSWORDS["bob"]), verbose=False)
    bob.predict(handle_file(str(photo)), None, api_name="/analyze")
    bob.predict("30", api_name="/set_grams")
    bob.predict(None, "30", "snack", "now", "bob's", api_name="/log_meal")
    entries, *_ = alice.predict(_today(), api_name="/day_view")
    assert [row[-1] for row in entries["data"]] == [alice_entry["id"]]


def test_own_foods_and_recent_foods_stay_private(server, alice_entry):
    personal.create_own_food("alice", "Alice secret cake", {"kcal": 400, "carbohydrate_g": 50,
                                                            "protein_g": 5, "fat_g": 20})
    page = build_page(server.app.ctx)
    handlers, my_foods = page.analyse, page.my_foods
    c = handlers.c
    as_alice, as_bob = SimpleNamespace(username="alice"), SimpleNamespace(username="bob")
    hits = handlers.search_foods("secret cake", None, as_alice)[c.search_hits]
    assert "Alice secret cake" in str(hits)
    hits = handlers.search_foods("secret cake", None, as_bob)[c.search_hits]
    assert "Alice secret cake" not in str(hits)
    assert "Espresso" in str(handlers.recent_foods(as_alice))
    shown = handlers.toggle_favourite({"food": "Alice secret cake"}, as_alice)
    message, recent = shown[c.log_status], shown[c.recent]
    assert "is a favourite" in message and "★ Alice secret cake" in str(recent)
    assert "Alice secret cake" not in str(handlers.recent_foods(as_bob))
    with pytest.raises(gr.Error, match="unknown food"):
        handlers.toggle_favourite({"food": "Alice secret cake"}, as_bob)
    with pytest.raises(gr.Error, match="unknown food"):
        handlers.choose_food({}, "Alice secret cake", as_bob)
    # The My foods tab: bob's list lacks it, and he can neither delete it nor cook with it.
    assert "Alice secret cake" in str(my_foods.my_foods(as_alice))
    assert "Alice secret cake" not in str(my_foods.my_foods(as_bob))
    with pytest.raises(gr.Error, match="no own food"):
        my_foods.delete_own_food("Alice secret cake", as_bob)
    with pytest.raises(gr.Error, match="unknown food"):
        my_foods.add_recipe("Copy", 1, [["Alice secret cake", 50]], None, as_bob)
    as_json = httpx.get(f"{server.url}/api/foods", params={"q": "secret cake"},
                        headers=basic("bob", PASSWORDS["bob"])).json()
    assert all(hit["food"] != "Alice secret cake" for hit in as_json["results"])
    as_json = httpx.get(f"{server.url}/api/foods", params={"q": "secret cake"},
                        headers=basic("alice", PASSWORDS["alice"])).json()
    assert as_json["results"][0]["food"] == "Alice secret cake" and as_json["results"][0]["own"]
    assert httpx.get(f"{server.url}/api/foods", params={"q": "cake"}).status_code == 401


def test_user_b_cannot_reach_user_a_through_the_ui_functions(server, alice_entry):
    handlers = build_page(server.app.ctx).today
    as_bob = SimpleNamespace(username="bob")
    entry_id = alice_entry["id"]
    with pytest.raises(gr.Error, match="no meal entry"):
        handlers.load_entry(entry_id, _today(), as_bob)
    with pytest.raises(gr.Error, match="no meal entry"):
        handlers.edit_entry(entry_id, 10, "lunch", "now", "x", as_bob)
    with pytest.raises(gr.Error, match="no meal entry"):
        handlers.delete_entry(entry_id, as_bob)
    assert SECRET not in str(handlers.day_view(_today(), as_bob))
    # No user at all (a handler reached without sign-in) is refused, not treated as local.
    with pytest.raises(gr.Error, match="sign in"):
        handlers.day_view(_today(), SimpleNamespace(username=None))
    assert service.day_summary("alice", date.today())["entries"] == [alice_entry]


def test_own_foods_and_recipes_through_the_api(server):
    as_alice, as_bob = basic("alice", PASSWORDS["alice"]), basic("bob", PASSWORDS["bob"])
    made = httpx.post(f"{server.url}/api/my/foods", headers=as_alice, json={
        "name": "Oat bar", "nutrients": {"kcal": 120, "carbohydrate_g": 20, "fiber_g": 3,
                                         "protein_g": 2, "fat_g": 4},
        "serving_grams": 30, "serving_name": "1 bar", "per_serving": True})
    assert made.status_code == 201 and made.json()["food"] == "Oat bar"
    recipe = httpx.post(f"{server.url}/api/my/recipes", headers=as_alice, json={
        "name": "Bars and espresso", "servings": 2,
        "ingredients": [{"food": "Oat bar", "grams": 60}, {"food": "espresso", "grams": 30}]})
    assert recipe.status_code == 201
    # Hand sum per serving: (240 kcal from 60 g of the bar + 2.7 kcal from 30 g espresso) / 2.
    assert recipe.json()["per_serving"]["kcal"] == pytest.approx((240 + 2.7) / 2)
    cooked = httpx.post(f"{server.url}/api/my/recipes", headers=as_alice, json={
        "name": "Bar porridge", "servings": 2, "cooked_grams": 300,
        "ingredients": [{"food": "Oat bar", "grams": 60}]})
    assert cooked.status_code == 201 and cooked.json()["dish_grams"] == 300.0
    assert service.lookup("bar porridge", user="alice")["portion"]["grams"] == 150.0
    assert httpx.post(f"{server.url}/api/my/recipes", headers=as_alice, json={
        "name": "Bar dust", "servings": 1, "cooked_grams": -1,
        "ingredients": [{"food": "Oat bar", "grams": 60}]}).status_code == 422
    mine = {f["food"]: f for f in httpx.get(f"{server.url}/api/my/foods",
                                            headers=as_alice).json()["foods"]}
    assert {"Bars and espresso", "Oat bar"} <= set(mine)
    assert mine["Bars and espresso"]["ingredients"][0] == {"food": "Oat bar", "food_id": made.json()["food_id"],
                                         "grams": 60.0}
    assert httpx.get(f"{server.url}/api/my/foods", headers=as_bob).json()["foods"] == []
    # Bob cannot build on Alice's food, and bad bodies get a clear 4xx.
    stolen = httpx.post(f"{server.url}/api/my/recipes", headers=as_bob, json={
        "name": "Copy", "servings": 1, "ingredients": [{"food": "Oat bar", "grams": 10}]})
    assert stolen.status_code == 404
    bad = httpx.post(f"{server.url}/api/my/foods", headers=as_alice, json={"name": "X"})
    assert bad.status_code == 422 and "nutrients must be a mapping" in bad.json()["error"]
    bad = httpx.post(f"{server.url}/api/my/foods", headers=as_alice, content=b"[1, 2")
    assert bad.status_code == 400
    huge = httpx.post(f"{server.url}/api/my/foods", headers=as_alice,
                      content=b'{"name": "' + b"x" * 100_000 + b'"}')
    assert huge.status_code == 413
    assert httpx.post(f"{server.url}/api/my/foods", json={"name": "x"}).status_code == 401
    # Ingredient grams follow db.validate (1 g to 5 kg), and errors repeat only a short prefix.
    tiny = httpx.post(f"{server.url}/api/my/recipes", headers=as_alice, json={
        "name": "Crumb", "servings": 1, "ingredients": [{"food": "espresso", "grams": 0.5}]})
    assert tiny.status_code == 422 and "grams must be from 1 to 5000" in tiny.json()["error"]
    long = httpx.post(f"{server.url}/api/my/foods", headers=as_alice, json={
        "name": "Bar", "nutrients": {"kcal": 1, "carbohydrate_g": 1, "protein_g": 1, "fat_g": 1},
        "serving_grams": "9" * 20_000})
    assert long.status_code == 422 and len(long.json()["error"]) < 200
    long = httpx.get(f"{server.url}/api/foods", headers=as_alice, params={"q": "tea", "limit": "x" * 2000})
    assert long.status_code == 422 and len(long.json()["error"]) < 200
