"""The live app in single-user local mode: gradio_client and HTTP against a real server."""

from __future__ import annotations

import csv
import json
from datetime import date
from pathlib import Path
from types import SimpleNamespace

import gradio as gr
import httpx
import numpy as np
import pytest
from app_support import animated_gif, bad_inputs, fresh_database, jpeg_bytes, seeded_server
from gradio_client import Client, handle_file
from PIL import Image

from app.config import LOCAL_USER
from app.ui import build_page
from app.ui.my_foods import PER_100G
from db import personal, service
from db.arguments import SETTING_RANGES

MAX_UPLOAD_MB = 2


@pytest.fixture(scope="module")
def server(tmp_path_factory, default_model_path):
    with seeded_server(tmp_path_factory.mktemp("app-local"), max_upload_mb=MAX_UPLOAD_MB) as live:
        yield live


@pytest.fixture(autouse=True)
def own_database(server, tmp_path):
    """Each test gets its own fresh database behind the shared server, so no test depends on
    what another one logged or changed."""
    fresh_database(tmp_path)


@pytest.fixture(scope="module")
def coffee_jpeg(coffee_image, tmp_path_factory):
    path = tmp_path_factory.mktemp("photos") / "espresso.jpg"
    path.write_bytes(jpeg_bytes(coffee_image))
    return path


@pytest.fixture(scope="module")
def client(server):
    return Client(server.url, verbose=False)


def post_photo(server, name: str, data: bytes, **fields) -> httpx.Response:
    return httpx.post(f"{server.url}/api/analyze", files={"file": (name, data)}, data=fields, timeout=60)


def table_rows(value) -> list[list]:
    """A Dataframe output as gradio_client returns it."""
    return value["data"] if isinstance(value, dict) else value


def test_healthz(server):
    body = httpx.get(f"{server.url}/healthz").json()
    assert body["status"] == "ok"
    assert body["model"]["ok"] and body["model"]["name"] == "food101" and body["model"]["classes"] == 132
    assert body["database"] == {"ok": True, "backend": "sqlite"}


def test_client_analyses_logs_and_reads_totals(client, coffee_jpeg):
    # The state and the Log button are no API outputs.
    preview, headline, suggestions, _hits, _recent, serving, grams, head, card, _status = client.predict(
        handle_file(str(coffee_jpeg)), None, api_name="/analyze"
    )
    assert "espresso" in headline.lower()
    assert "### Espresso" in card and "FDC ID 171891" in card and "exchanges" in card.lower()
    assert head.startswith("## 0.5 g carbs, 0 choices") and serving["value"] == "1 shot (1 fl oz)"

    # Log logs the grams typed, also before the card shows them (a click straight from the box).
    status = client.predict(None, "200", "breakfast", "now", "double espresso", api_name="/log_meal")
    assert status.startswith("✅ Logged: Espresso, 200 g, 3.3 g carbohydrate, 0 choices (exact 0.2)")
    # The card then redrawn for those grams (the box's blur) is that entry: Log again (a
    # double click) stays one entry.
    client.predict("200", api_name="/set_grams")
    again = client.predict(None, "200", "breakfast", "now", "double espresso", api_name="/log_meal")
    assert again.startswith("Already logged")

    entries, totals, *_ = client.predict(date.today().isoformat(), api_name="/day_view")
    rows = [r for r in table_rows(entries) if r[1] == "Espresso" and r[2] == "200"]
    assert len(rows) == 1
    carbs = {r[0]: r for r in table_rows(totals)}["Carbohydrate"]
    # 200 g at 1.67 g/100 g = 3.34 g, shown as 3.3 g; the target is a new user's 275 g.
    assert carbs[1:] == ["3.3 g", "275 g", "1%"]


def test_api_analyze_photo_and_portions(server, coffee_image):
    photo = jpeg_bytes(coffee_image)
    body = post_photo(server, "cup.jpg", photo).json()
    assert [p["label"] for p in body["predictions"]][0] == "espresso" and len(body["predictions"]) == 5
    # Exactly what the engine says about the same photo, decoded the way the app decodes it.
    engine, _info = server.app.ctx.catalog.active()
    expected = engine.predict([server.app.ctx.analyzer.read(photo, "cup.jpg").image], top_k=5)[0]
    assert [(p["label"], p["probability"]) for p in body["predictions"]] == [
        (e.label, pytest.approx(e.probability, abs=1e-6)) for e in expected]
    assert body["food"] == "Espresso" and body["card"]["portion"]["serving"] == "1 shot (1 fl oz)"
    assert body["card"]["source"]["fdc_id"] == 171891 and "insulin" in body["disclaimer"]
    assert body["model"]["name"] == "food101"

    assert post_photo(server, "cup.jpg", photo, grams="60").json()["card"]["portion"]["grams"] == 60
    banana = post_photo(server, "cup.jpg", photo, food="banana", serving="1 cup sliced").json()
    assert banana["food"] == "Banana" and banana["card"]["portion"]["grams"] == 150


def test_api_unsure_photo_chooses_no_food(server, coffee_image):
    """The page's confidence rule on the API too: below the threshold no food and no card,
    until the client names the food."""
    service.update_settings(LOCAL_USER, confidence_threshold=1.0)
    photo = jpeg_bytes(coffee_image)
    body = post_photo(server, "cup.jpg", photo).json()
    assert body["confident"] is False and "not sure" in body["message"]
    assert body["food"] is None and body["card"] is None
    assert body["predictions"][0]["label"] == "espresso"  # the guesses are still there to pick from
    named = post_photo(server, "cup.jpg", photo, food="espresso").json()
    assert named["food"] == "Espresso" and named["card"]["source"]["fdc_id"] == 171891


@pytest.mark.parametrize("fields, status, words", [
    # The list, refused as the UI, the batch tool and the CLI refuse them (db.validate).
    *(({"grams": bad}, 422, "grams must be") for bad in ("5e-324", "-1", "nan", "inf", "1e308", "abc")),
    # Plain decimals only: float() would read these as 1000, 100 and 12.
    *(({"grams": bad}, 422, "grams must be a number") for bad in ("1_000", "1e2", "\u0661\u0662")),
    ({"grams": "0"}, 422, "grams must be from 1 to 5000"),
    ({"grams": "a handful"}, 422, "number"),
    ({"grams": "50", "serving": "1 shot (1 fl oz)"}, 422, "not both"),
    ({"serving": "a bucket"}, 422, "no serving"),
    ({"food": "unicorn steak"}, 404, "unicorn"),
])
def test_api_refuses_bad_portions(server, coffee_image, fields, status, words):
    response = post_photo(server, "cup.jpg", jpeg_bytes(coffee_image), **fields)
    assert response.status_code == status
    assert words in response.json()["error"]


@pytest.mark.parametrize("case", ["not_an_image", "truncated_jpeg", "empty", "huge_dimensions", "broken_heic",
                                  "unsupported_format"])
def test_api_bad_photos_are_4xx_json(server, coffee_image, case):
    name, data, words = bad_inputs(coffee_image)[case]
    response = post_photo(server, name, data)
    assert response.status_code == 400
    error = response.json()["error"]
    assert words.lower() in error.lower() and name in error
    assert "Traceback" not in response.text


def test_api_upload_limits_and_malformed_requests(server, coffee_image):
    too_big = b"\xff\xd8" + b"\0" * (MAX_UPLOAD_MB * 2**20 + 10)
    response = post_photo(server, "big.jpg", too_big)
    assert response.status_code == 413 and "limit" in response.json()["error"]
    response = httpx.post(f"{server.url}/api/analyze", data={"grams": "10"})
    assert response.status_code == 400 and "'file'" in response.json()["error"]
    response = httpx.post(f"{server.url}/api/analyze", content=b"{}", headers={"content-type": "application/json"})
    assert response.status_code == 400
    # Still serving after every bad request above.
    assert httpx.get(f"{server.url}/healthz").status_code == 200
    assert post_photo(server, "ok.jpg", jpeg_bytes(coffee_image)).status_code == 200


def test_animated_gif_is_analysed_by_its_first_frame(server, coffee_image):
    body = post_photo(server, "loop.gif", animated_gif(coffee_image)).json()
    assert body["predictions"][0]["label"] == "espresso"
    assert any("first frame" in note for note in body["notes"])


def test_ui_handler_bad_photos_give_clear_messages(server, coffee_image, tmp_path):
    handlers = build_page(server.app.ctx).analyse
    c = handlers.c
    local = SimpleNamespace(username=None)
    for case, (name, data, words) in bad_inputs(coffee_image).items():
        path = tmp_path / name
        path.write_bytes(data)
        shown = handlers.analyze(str(path), None, local)
        state, preview, headline = shown[c.state], shown[c.preview], shown[c.headline]
        head, card, log = shown[c.carb_head], shown[c.card], shown[c.log_btn]
        assert headline.startswith("❌") and words.lower() in headline.lower() and name in headline, case
        assert state["food"] is None and preview is None and head == card == ""
        assert log["interactive"] is False
    big = tmp_path / "big.jpg"
    big.write_bytes(b"\0" * (MAX_UPLOAD_MB * 2**20 + 1))
    assert "limit is 2 MB" in handlers.analyze(str(big), None, local)[c.headline]
    assert "Upload a photo" in handlers.analyze(None, None, local)[c.headline]
    gif = tmp_path / "loop.gif"
    gif.write_bytes(animated_gif(coffee_image))
    shown = handlers.analyze(str(gif), None, local)
    state, headline = shown[c.state], shown[c.headline]
    assert "first frame" in headline and state["food"] == "Espresso"


def test_ui_refuses_bad_portions_and_times(server, coffee_jpeg):
    page = build_page(server.app.ctx)
    handlers = page.analyse
    c = handlers.c
    local = SimpleNamespace(username=None)
    state = handlers.analyze(str(coffee_jpeg), None, local)[c.state]
    for grams, words in ((5e-324, "from 1 to 5000"), ("5e-324", "number"), (-1, "from 1 to 5000"),
                         ("nan", "number"), (float("inf"), "from 1 to 5000"), ("1e308", "number"),
                         ("abc", "number"), ("9999", "from 1 to 5000"), ("1_000", "number")):
        with pytest.raises(gr.Error, match=words):
            handlers.set_grams(state, grams, local)
        with pytest.raises(gr.Error, match=words):
            handlers.log_meal(state, None, grams, "lunch", "now", "", local)
    with pytest.raises(gr.Error, match="not understood"):
        handlers.log_meal(state, "1 shot (1 fl oz)", None, "lunch", "teatime", "", local)
    with pytest.raises(gr.Error, match="outside the years 1900-2100"):
        handlers.log_meal(state, "1 shot (1 fl oz)", None, "lunch", "0001-01-01 12:00", "", local)
    for day in ("0001-01-01", "9999-12-31"):
        with pytest.raises(gr.Error, match="outside the years 1900-2100"):
            page.today.day_view(day, local)
    entry = service.log_meal(LOCAL_USER, "Espresso", grams=100)
    for grams in (5e-324, float("nan"), 1e308):
        with pytest.raises(gr.Error, match="from 1 to 5000"):
            page.today.edit_entry(entry["id"], grams, "", entry["eaten_at"][:16], "", local)
    assert service.day_summary(LOCAL_USER, date.today())["totals"]["kcal"] is not None
    shown = handlers.set_grams(state, " 90 ", local)
    state, head, card = shown[c.state], shown[c.carb_head], shown[c.card]
    assert "90 g" in card and "90 g" in head
    # Emptied grams: back to the serving.
    card = handlers.set_grams(state, "", local)[c.card]
    assert "1 shot (1 fl oz) (30 g)" in card


def test_unsure_model_says_so(client, tmp_path):
    # Random noise is no food: the model spreads its probability thin.
    noise = tmp_path / "noise.png"
    Image.fromarray(np.random.default_rng(0).integers(0, 255, (224, 224, 3), dtype=np.uint8)).save(noise)
    before = client.predict(api_name="/load_settings")
    client.predict(2000, 250, "15", 0.95, "US", None, api_name="/save_settings")
    try:
        _preview, headline, *_ = client.predict(handle_file(str(noise)), None, api_name="/analyze")
        assert "not sure" in headline and "threshold is 95%" in headline
    finally:
        client.predict(*before, api_name="/save_settings")


def test_api_foods_is_the_search_box(server):
    found = httpx.get(f"{server.url}/api/foods", params={"q": "banan", "limit": "3"})
    assert found.status_code == 200
    body = found.json()
    assert body["query"] == "banan" and body["results"][0]["food"] == "Banana"
    assert set(body["results"][0]) == {"food", "food_id", "category", "score", "own", "recent",
                                       "favourite", "portion", "dataset", "duplicates", "asks"}
    # The default serving and its carbohydrate: 118 g x 22.84 g/100 g = 26.95 g, of it
    # available (UK and German units): 118 g x (22.84 - 2.6 fibre) g/100 g = 23.88 g.
    assert body["results"][0]["portion"] == {
        "serving": '1 medium (7" to 7-7/8" long)', "grams": 118.0, "carbohydrate_g": 27.0,
        "available_carbohydrate_g": 23.9, "amount": None}  # "amount": what the query asked for ("2 × 1 slice"), where it did
    two = httpx.get(f"{server.url}/api/foods", params={"q": "2 bananas", "limit": "1"}).json()
    assert two["results"][0]["portion"]["amount"].startswith("2 × ")
    assert two["results"][0]["portion"]["grams"] == 236.0
    bad = httpx.get(f"{server.url}/api/foods", params={"q": "banana", "limit": "lots"})
    assert bad.status_code == 422 and "limit" in bad.json()["error"]
    bad = httpx.get(f"{server.url}/api/foods", params={"q": "x" * 500})
    assert bad.status_code == 422 and "longer than" in bad.json()["error"]
    service.log_meal(LOCAL_USER, "banana")  # the server runs in this process, on this database
    recent = httpx.get(f"{server.url}/api/foods")  # no query: favourite and recent foods
    assert recent.status_code == 200
    # The same shape as a search hit, the default portion included.
    banana = next(r for r in recent.json()["results"] if r["food"] == "Banana")
    assert banana == {**body["results"][0], "score": None, "recent": True}


def test_search_pick_edit_delete_and_export(client, coffee_jpeg, tmp_path):
    hits, status = client.predict("banan", "All food groups", api_name="/search_foods")
    # Each hit shows its default serving's carbohydrate; picking it gives the food's name.
    assert hits["choices"][0] == [
        'Banana - 1 medium (7" to 7-7/8" long) (118 g): 27 g carbohydrate', "Banana"]
    assert status.endswith("'banan': pick one.")
    client.predict(handle_file(str(coffee_jpeg)), None, api_name="/analyze")
    picked = client.predict("Banana", api_name="/choose_food")
    assert "### Banana" in picked[-2] and "You picked Banana" in picked[0]
    client.predict("1 cup sliced", api_name="/set_serving")
    logged = client.predict("1 cup sliced", None, "snack", "now", "", api_name="/log_meal")
    assert "Logged: Banana, 1 cup sliced (150 g)" in logged

    entries, *_ = client.predict(date.today().isoformat(), api_name="/day_view")
    entry_id = next(r[-1] for r in table_rows(entries) if r[1] == "Banana")
    grams, meal, when, note = client.predict(entry_id, date.today().isoformat(), api_name="/load_entry")
    assert (grams, meal) == (150, "snack")
    client.predict(entry_id, 75, "snack", when, "half", api_name="/edit_entry")
    entries, *_ = client.predict(date.today().isoformat(), api_name="/day_view")
    assert any(r[-1] == entry_id and r[2] == "75" for r in table_rows(entries))

    exported = client.predict(api_name="/export_csv")
    with open(exported, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert any(r["id"] == str(entry_id) and r["note"] == "half" for r in rows)
    # The photo of an espresso logged as a banana: stored and exported as a correction.
    [row] = [r for r in rows if r["id"] == str(entry_id)]
    assert (row["predicted_label"], row["food"], row["is_correction"]) == ("espresso", "Banana", "True")
    assert len(row["photo_sha256"]) == 64
    recent = client.predict(api_name="/recent_foods")
    assert "Banana" in str(recent)
    assert {r["user"] for r in rows} == {LOCAL_USER}

    client.predict(entry_id, api_name="/delete_entry")
    assert all(e["id"] != entry_id for e in service.day_summary(LOCAL_USER, date.today())["entries"])


def test_settings_round_trip_and_refusals(client):
    before = client.predict(api_name="/load_settings")
    assert "saved" in client.predict(1800, 180, "10", 0.4, "UK", "mg/dL", api_name="/save_settings")
    assert client.predict(api_name="/load_settings") == (1800, 180, "10", 0.4, "UK", "mg/dL")
    # The fields refuse what the service would: their bounds are db.arguments' own.
    low, high = SETTING_RANGES["daily_kcal_target"]
    with pytest.raises(Exception, match=f"kcal\\) must be from {low:g} to {high:g}, got {low - 1:g}"):
        client.predict(low - 1, 180, "10", 0.4, "UK", None, api_name="/save_settings")
    with pytest.raises(Exception, match=f"kcal\\) must be from {low:g} to {high:g}, got {high + 1:g}"):
        client.predict(high + 1, 180, "10", 0.4, "UK", None, api_name="/save_settings")
    low, high = SETTING_RANGES["daily_carb_target_g"]
    with pytest.raises(Exception, match=f"must be from {low:g} to {high:g}, got {high + 1:g}"):
        client.predict(1800, high + 1, "10", 0.4, "UK", None, api_name="/save_settings")
    assert client.predict(api_name="/load_settings") == (1800, 180, "10", 0.4, "UK", "mg/dL")
    client.predict(*before, api_name="/save_settings")


def test_models_tab_lists_and_switches(client):
    table, choice, _note = client.predict(api_name="/list_models")
    rows = table_rows(table)
    # Single-user mode: the local user runs the server, so it is the admin and sees file paths.
    assert rows[0][:3] == ["●", "", "food101"] and rows[0][4] == 132 and rows[0][7].endswith("food101.onnx")
    _table, choice, status = client.predict("food101", api_name="/activate_model")
    assert "Server default model: food101" in status
    assert service.model_changes()[0] | {"changed_at": None} == {
        "changed_at": None, "changed_by": LOCAL_USER, "scope": "server",
        "from_model": "food101", "to_model": "food101"}
    with pytest.raises(Exception, match="not in the list of choices"):
        client.predict("nope", api_name="/activate_model")


def test_single_user_mode_refuses_foreign_hosts_and_origins(server):
    port = server.url.rsplit(":", 1)[1]
    rebinding = {"Host": f"evil.example:{port}"}
    assert httpx.get(f"{server.url}/healthz", headers=rebinding).status_code == 403
    response = httpx.post(f"{server.url}/gradio_api/call/save_settings", headers=rebinding,
                          json={"data": [1800, 180, "10", 0.4]})
    assert response.status_code == 403 and "answers only to" in response.json()["error"]
    foreign_page = {"Origin": "http://evil.example"}
    response = httpx.post(f"{server.url}/gradio_api/call/save_settings", headers=foreign_page,
                          json={"data": [1800, 180, "10", 0.4]})
    assert response.status_code == 403 and "cross-origin" in response.json()["error"]
    assert service.get_settings(LOCAL_USER)["exchange_unit_g"] == 15.0  # nothing changed
    # The food API is guarded the same way: no own food made, no food list read.
    label = {"name": "Rebound bar", "nutrients": {"kcal": 100, "carbohydrate_g": 10,
                                                  "protein_g": 1, "fat_g": 1}}
    for headers in (rebinding, foreign_page):
        assert httpx.post(f"{server.url}/api/my/foods", headers=headers, json=label).status_code == 403
    assert httpx.get(f"{server.url}/api/foods", headers=rebinding, params={"q": "tea"}).status_code == 403
    assert httpx.get(f"{server.url}/api/my/foods", headers=rebinding).status_code == 403
    assert all(f["food"] != "Rebound bar" for f in personal.own_foods(LOCAL_USER))
    for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
        assert httpx.get(f"{server.url}/healthz", headers={"Host": host}).status_code == 200
    same_origin = {"Origin": f"http://localhost:{port}"}
    assert httpx.post(f"{server.url}/gradio_api/call/save_settings", headers=same_origin,
                      json={"data": [1800, 180, "10", 0.4]}).status_code == 200


def test_single_user_mode_refuses_pages_on_other_local_ports(server):
    port = int(server.url.rsplit(":", 1)[1])
    settings = {"data": [1800, 180, "10", 0.4]}
    for origin in ("http://localhost:9", f"http://127.0.0.1:{port + 1}", "http://localhost",
                   f"https://localhost:{port}", "null"):
        response = httpx.post(f"{server.url}/gradio_api/call/save_settings", headers={"Origin": origin},
                              json=settings)
        assert response.status_code == 403 and "cross-origin" in response.json()["error"], origin
    for origin in (f"http://localhost:{port}", f"http://127.0.0.1:{port}"):
        response = httpx.post(f"{server.url}/gradio_api/call/save_settings", headers={"Origin": origin},
                              json=settings)
        assert response.status_code == 200, origin


def test_deeply_nested_json_is_a_400_on_a_healthy_connection(server):
    import http.client

    label = {"name": "Nest bar", "nutrients": {"kcal": 100, "carbohydrate_g": 10, "protein_g": 1,
                                               "fat_g": 1}}
    bodies = {
        "/api/my/foods": [b"[" * 1100 + b"]" * 1100, b'{"a":' * 10_000 + b"1" + b"}" * 10_000,
                          json.dumps(label).replace('"kcal": 100', '"kcal": ' + "[" * 1100 + "]" * 1100).encode()],
        "/api/my/recipes": [b'{"name": "Stew", "ingredients": ' + b"[" * 1100 + b"]" * 1100 + b"}"],
    }
    connection = http.client.HTTPConnection("127.0.0.1", int(server.url.rsplit(":", 1)[1]), timeout=30)
    try:
        for path, cases in bodies.items():
            for body in cases:
                connection.request("POST", path, body=body, headers={"Content-Type": "application/json"})
                response = connection.getresponse()
                answer = json.loads(response.read())
                assert response.status == 400 and "nested more than 8 levels" in answer["error"], answer
                assert not response.will_close  # keep-alive: the next request reuses the connection
        # Gradio's own routes (FastAPI's body parsing) answer a 4xx too.
        connection.request("POST", "/gradio_api/call/save_settings", headers={"Content-Type": "application/json"},
                           body=b'{"data": ' + b"[" * 1100 + b"]" * 1100 + b"}")
        response = connection.getresponse()
        assert 400 <= response.status < 500 and b"Traceback" not in response.read()
        # Brackets inside strings are text, not nesting; the same connection still serves.
        connection.request("POST", "/api/my/foods", headers={"Content-Type": "application/json"},
                           body=json.dumps({**label, "name": "[[[[[[[[[[[[ bar"}).encode())
        response = connection.getresponse()
        assert response.status == 201, response.read()
        response.read()
    finally:
        connection.close()


def test_expected_ui_errors_are_logged_as_one_line(client, capfd, caplog):
    caplog.set_level("WARNING", logger="foodtag.ui")
    capfd.readouterr()
    with pytest.raises(Exception, match="name is empty"):
        client.predict("  ", PER_100G, "", None, 120, 20, 8, 3, 2, 4, None, None, api_name="/add_own_food")
    err = capfd.readouterr().err
    assert "Traceback" not in err, err
    [line] = [r.getMessage() for r in caplog.records if r.name == "foodtag.ui"]
    assert line.startswith("refused: ") and "name is empty" in line


def test_heic_photo_is_analysed_like_its_jpeg_twin(server, coffee_image):
    from image_support import heic_bytes

    as_jpeg = post_photo(server, "cup.jpg", jpeg_bytes(coffee_image, quality=95)).json()
    as_heic = post_photo(server, "IMG_0001.HEIC", heic_bytes(coffee_image)).json()
    assert as_heic["predictions"][0]["label"] == as_jpeg["predictions"][0]["label"] == "espresso"
    assert as_heic["food"] == "Espresso"


def test_no_upload_is_served_back_in_single_user_mode_either(server, coffee_jpeg):
    upload = httpx.post(f"{server.url}/gradio_api/upload", files={"files": ("espresso.jpg", coffee_jpeg.read_bytes())})
    [path] = upload.json()
    assert Path(path).is_file() and httpx.get(f"{server.url}/gradio_api/file={path}").status_code == 404


def test_private_files_are_owner_only(client, server, tmp_path):
    import os
    import stat

    from db.session import database_url
    from models.paths import data_home

    service.log_meal(LOCAL_USER, "Espresso", grams=100)  # the -wal and -shm exist once written
    client.predict(api_name="/export_csv")
    database = Path(database_url().removeprefix("sqlite:///"))
    files = [database, Path(f"{database}-wal"), Path(f"{database}-shm")]
    cache = Path(os.environ["GRADIO_TEMP_DIR"])
    assert cache.is_relative_to(data_home())
    cached = [p for p in cache.rglob("*") if p.is_file()]
    assert any(p.name.startswith("foodtag-log-") for p in cached)  # the export, as Gradio serves it
    files += cached + list((data_home() / "models").glob("*.onnx"))
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    folders = [data_home(), data_home() / "models", cache, *(p for p in cache.rglob("*") if p.is_dir())]
    for path in folders:
        assert stat.S_IMODE(path.stat().st_mode) == 0o700, path
