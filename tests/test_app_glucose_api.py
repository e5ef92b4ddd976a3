"""The /api/glucose routes through FastAPI's test client: each user reads only their own
readings, uploads are size-limited (declared and streamed), bad input gets a clear 4xx. The
caller's name comes from a stand-in for the sign-in dependency (the real one is tested with
the other /api routes); what is tested here is that the routes use nothing else."""

import asyncio
from datetime import datetime
from pathlib import Path
from typing import Annotated

import httpx
import pytest
from db_support import alice, db_url  # noqa: F401  (fixtures)
from glucose_support import flagged_bananas
from fastapi import Depends, FastAPI, Request
from fastapi.testclient import TestClient

from app.glucose import api as glucose_api
from db import service
from db.glucose import service as glucose
from models.paths import data_home

DATA = Path(__file__).parent / "data" / "glucose"


def caller(request: Request) -> str:
    return request.headers["x-test-user"]


def client(limit: int | None = None, monkeypatch=None) -> TestClient:
    if limit is not None:
        monkeypatch.setattr(glucose, "MAX_IMPORT_BYTES", limit)
    app = FastAPI()
    glucose_api.add_routes(app, Annotated[str, Depends(caller)])
    return TestClient(app)


def as_user(name: str) -> dict[str, str]:
    return {"x-test-user": name}


def test_each_user_sees_only_their_own_readings(alice):
    service.create_user("bob")
    web = client()
    answer = web.post("/api/glucose/import?tz=Europe/London", headers=as_user(alice),
                      content=(DATA / "libreview_uk_mmol.csv").read_bytes())
    assert answer.status_code == 200, answer.text
    assert (answer.json()["added"], answer.json()["refused_rows"]) == (11, ["line 13: no glucose value"])
    mine = web.get("/api/glucose/report?days=2&end=2026-10-25", headers=as_user(alice)).json()
    theirs = web.get("/api/glucose/report?days=2&end=2026-10-25", headers=as_user("bob")).json()
    assert mine["readings"] == 9 and theirs["readings"] == 0
    assert web.get("/api/glucose/readings.csv", headers=as_user("bob")).text.count("\n") == 1
    assert web.get("/api/glucose/readings.csv", headers=as_user(alice)).text.count("\n") == 12
    png = web.get("/api/glucose/report.png?days=2&end=2026-10-25", headers=as_user(alice))
    assert png.headers["content-type"] == "image/png" and png.content[:4] == b"\x89PNG"
    pdf = web.get("/api/glucose/report.pdf?days=2&end=2026-10-25", headers=as_user(alice))
    assert pdf.headers["content-type"] == "application/pdf" and pdf.content[:5] == b"%PDF-"
    assert pdf.headers["content-disposition"] == 'attachment; filename="glucose-2026-10-24-2026-10-25.pdf"'
    assert web.get("/api/glucose/report.pdf?days=x", headers=as_user(alice)).status_code == 422
    assert web.get("/api/glucose/meals", headers=as_user("bob")).json()["meals"] == []
    assert web.get("/api/glucose/foods", headers=as_user("bob")).json()["foods"] == []


def test_time_zone_round_trip_and_bad_values(alice):
    web = client()
    assert web.put("/api/glucose/zone", headers=as_user(alice),
                   json={"time_zone": "Australia/Sydney"}).json() == {"time_zone": "Australia/Sydney"}
    assert web.get("/api/glucose/zone", headers=as_user(alice)).json() == {"time_zone": "Australia/Sydney"}
    bad = web.put("/api/glucose/zone", headers=as_user(alice), json={"time_zone": "Sydney"})
    assert bad.status_code == 422 and "unknown time zone" in bad.json()["error"]
    assert web.put("/api/glucose/zone", headers=as_user(alice), json=["x"]).status_code == 422
    assert web.get("/api/glucose/report?days=x", headers=as_user(alice)).status_code == 422
    assert web.get("/api/glucose/report?end=tomorrow", headers=as_user(alice)).status_code == 422
    assert web.get("/api/glucose/report", headers=as_user("nobody")).status_code == 404
    unreadable = web.post("/api/glucose/import", headers=as_user(alice), content=b"hello,world\n1,2\n")
    assert unreadable.status_code == 422 and "cannot tell which export" in unreadable.json()["error"]


def test_uploads_over_the_limit_are_refused_declared_or_streamed(alice, monkeypatch):
    web = client(limit=1000, monkeypatch=monkeypatch)
    declared = web.post("/api/glucose/import", headers=as_user(alice), content=b"x" * 5000)
    assert declared.status_code == 413 and "limit" in declared.json()["error"]

    def chunks():  # no Content-Length: the body is cut off while it streams in
        for _ in range(10):
            yield b"y" * 500

    streamed = web.post("/api/glucose/import", headers=as_user(alice), content=chunks())
    assert streamed.status_code == 413
    assert glucose.reading_count(alice) == 0


def test_one_users_slow_uploads_cannot_hold_every_import_slot(alice):
    """Alice starts two imports whose bodies trickle in (their header, then nothing until the
    end of the test); Bob's one-row import is served at once: Alice's second upload waits for
    her own slot, so it does not hold the other one while its body arrives."""
    service.create_user("bob")
    app = FastAPI()
    glucose_api.add_routes(app, Annotated[str, Depends(caller)])
    release = asyncio.Event()

    async def trickle():
        yield b"timestamp,value\n"
        await release.wait()
        yield b"2026-12-01T08:00:00,100\n"

    async def scenario() -> tuple[httpx.Response, list[httpx.Response]]:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as web:
            slow = [asyncio.create_task(web.post("/api/glucose/import?tz=UTC", headers=as_user(alice),
                                                 content=trickle())) for _ in range(2)]
            await asyncio.sleep(0.5)  # time for both of hers to take what slots they can
            try:
                bob = await asyncio.wait_for(web.post("/api/glucose/import?tz=UTC", headers=as_user("bob"),
                                                      content=b"timestamp,value\n2026-12-01T09:00:00,110\n"), 10)
            finally:
                release.set()
            return bob, await asyncio.gather(*slow)

    bob, hers = asyncio.run(scenario())
    assert bob.status_code == 200 and bob.json()["added"] == 1
    # whichever of hers is read second finds the same reading again (either may go first)
    assert sorted(r.json()["added"] for r in hers) == [0, 1]
    assert glucose.reading_count(alice) == 1


def test_slow_uploads_hold_no_import_turn_until_their_body_has_arrived(alice):
    """Alice and Carol each start an import whose body trickles in (as many as there are turns
    to read a file): Bob's one-row import is served at once, as bodies still arriving hold no
    turn; theirs are read once their bodies end."""
    for name in ("bob", "carol"):
        service.create_user(name)
    app = FastAPI()
    glucose_api.add_routes(app, Annotated[str, Depends(caller)])
    release = asyncio.Event()

    async def trickle():
        yield b"timestamp,value\n"
        await release.wait()
        yield b"2026-12-01T08:00:00,100\n"

    async def scenario() -> tuple[httpx.Response, list[httpx.Response]]:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as web:
            slow = [asyncio.create_task(web.post("/api/glucose/import?tz=UTC", headers=as_user(name),
                                                 content=trickle()))
                    for name in (alice, "carol")[:glucose_api.IMPORT_SLOTS]]
            await asyncio.sleep(0.5)
            try:
                bob = await asyncio.wait_for(web.post("/api/glucose/import?tz=UTC", headers=as_user("bob"),
                                                      content=b"timestamp,value\n2026-12-01T09:00:00,110\n"), 10)
            finally:
                release.set()
            return bob, await asyncio.gather(*slow)

    bob, theirs = asyncio.run(scenario())
    assert bob.status_code == 200 and bob.json()["added"] == 1
    assert [r.json()["added"] for r in theirs] == [1, 1]
    assert not list((data_home() / "tmp").glob("glucose-*"))  # the spooled bodies are gone


@pytest.mark.parametrize("fmt", ["nightscout", "auto"])
def test_nightscout_json_upload(alice, fmt):
    web = client()
    answer = web.post(f"/api/glucose/import?format={fmt}", headers=as_user(alice),
                      content=(DATA / "nightscout_entries.json").read_bytes())
    assert answer.json()["added"] == 4 and answer.json()["format"] == "nightscout"


def test_a_meal_entrys_curve_is_its_owners_only(alice):
    service.create_user("bob")
    web = client()
    web.post("/api/glucose/import?tz=UTC", headers=as_user(alice),
             content=(DATA / "clarity_us_mgdl.csv").read_bytes())
    entry = service.log_meal(alice, "banana", eaten_at=datetime(2026, 11, 1, 5, 30))
    mine = web.get(f"/api/glucose/meals/{entry['id']}/curve.png", headers=as_user(alice))
    assert mine.status_code == 200 and mine.content[:4] == b"\x89PNG"
    assert web.get(f"/api/glucose/meals/{entry['id']}/curve.png", headers=as_user("bob")).status_code == 404
    assert web.get("/api/glucose/meals/x/curve.png", headers=as_user(alice)).status_code == 422
    # An id past 64 bits is no entry, not a database error.
    assert web.get("/api/glucose/meals/99999999999999999999999/curve.png", headers=as_user(alice)).status_code == 404


def test_values_stay_in_mg_dl_and_the_persons_unit_is_named_beside_them(alice):
    service.create_user("ben", region="UK")
    web = client()
    for user in (alice, "ben"):
        web.post("/api/glucose/import?tz=Europe/London", headers=as_user(user),
                 content=(DATA / "libreview_uk_mmol.csv").read_bytes())
    reports = {user: web.get("/api/glucose/report?days=2&end=2026-10-25", headers=as_user(user)).json()
               for user in (alice, "ben")}
    assert (reports[alice]["glucose_unit"], reports["ben"]["glucose_unit"]) == ("mg/dL", "mmol/L")
    assert reports[alice]["mean_mg_dl"] == reports["ben"]["mean_mg_dl"] > 54  # mg/dL for both
    for route in ("/api/glucose/meals", "/api/glucose/foods"):
        assert web.get(route, headers=as_user("ben")).json()["glucose_unit"] == "mmol/L"
        assert web.get(route, headers=as_user(alice)).json()["glucose_unit"] == "mg/dL"


def test_a_flagged_meal_is_kept_through_the_api_by_its_owner_only(alice):
    web = client()
    bananas = flagged_bananas(alice)
    assert web.get("/api/glucose/foods", headers=as_user(alice)).json()["foods"] == []
    for entry_id in bananas:
        answer = web.put(f"/api/glucose/meals/{entry_id}/kept", headers=as_user(alice), json={"kept": True})
        assert answer.status_code == 200 and answer.json()["kept"] is True
        assert answer.json()["entry_ids"] == [entry_id] and "another meal in the window" in answer.json()["response"]["flags"]
    assert [f["food"] for f in web.get("/api/glucose/foods", headers=as_user(alice)).json()["foods"]] == ["Banana"]
    assert all(m["kept"] for m in web.get("/api/glucose/meals", headers=as_user(alice)).json()["meals"]
               if m["foods"] == ["Banana"])
    service.create_user("bob")
    assert web.put(f"/api/glucose/meals/{bananas[0]}/kept", headers=as_user("bob"), json={"kept": False}).status_code == 404
    for body, status in (({"kept": "no"}, 422), ({"keep": True}, 422), ([True], 422)):
        assert web.put(f"/api/glucose/meals/{bananas[0]}/kept", headers=as_user(alice), json=body).status_code == status
    assert web.put(f"/api/glucose/meals/{bananas[0]}/kept", headers=as_user(alice), content=b"{").status_code == 400
    assert glucose.meal_of_entry(alice, bananas[0])["kept"] is True  # none of those changed it
