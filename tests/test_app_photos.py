"""Kept meal photos through the app: the Settings consent checkbox and household controls,
the Analyse tab's photo reaching the log only with consent, and `python -m app photos
export`. A stand-in analyser answers "banana" for every photo, so no model is needed, except
in the one test through a live server."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from types import SimpleNamespace

import gradio as gr
import pytest
from app_support import jpeg_bytes, seeded_server
from gradio_client import Client, handle_file
from photo_support import files_in, photo_with_location, photos_dir  # noqa: F401  (fixture)

from app.__main__ import main
from app.meals import Analyzer, Analysis, Suggestion, read_photo
from app.auth import Identity
from app.security import FairSlots, OwnedFiles
from app.ui import AppContext, build_page
from app.ui.analyse import AnalyseTab
from db import photos, service
from db.session import configure

ALICE, BOB = SimpleNamespace(username="alice"), SimpleNamespace(username="bob")


class BananaAnalyzer(Analyzer):
    """The app's Analyzer without a model: reads photos as the app does, and is sure every one
    is a banana."""

    def __init__(self) -> None:
        pass

    def read(self, data: bytes, name: str, model: str | None = None):
        return read_photo(data, name, min_side=224)

    def analyze(self, photo, threshold: float, model: str | None = None, user: str | None = None) -> Analysis:
        return Analysis({"name": "stand-in", "version": "1"},
                        [Suggestion("banana", "banana", 0.9, "Banana"),
                         Suggestion("espresso", "espresso", 0.1, "Espresso")], threshold)


@pytest.fixture
def database(tmp_path: Path, seeded_template: Path):
    """A copy of the seeded SQLite template with alice and bob, configured for this test."""
    path = tmp_path / "foodtag.db"
    shutil.copyfile(seeded_template, path)
    url = f"sqlite:///{path}"
    configure(url)
    for user in ("alice", "bob"):
        service.create_user(user)
    yield url
    configure(None)


@pytest.fixture
def context(database, photos_dir) -> AppContext:
    return AppContext(catalog=None, analyzer=BananaAnalyzer(), identity=Identity(True),
                      max_upload_bytes=2**20, files=OwnedFiles())


@pytest.fixture
def page(context):
    return build_page(context)


@pytest.fixture
def handlers(page):
    """The Analyse tab's handlers."""
    return page.analyse


@pytest.fixture
def photo_handlers(page):
    """The consent and household handlers, wired as app.ui.build_page wires them."""
    return page.photos


def analyse_and_log(handlers: AnalyseTab, upload: Path, request, food: str | None = None) -> str:
    """Analyse, optionally pick another food than the model's (a correction), press Log."""
    state = handlers.analyze(str(upload), None, request)[handlers.c.state]
    if food is not None:
        state = handlers.choose_food(state, food, request)[handlers.c.state]
    return handlers.log_meal(state, state["serving"], "", "Lunch", "now", "", request)


@pytest.fixture
def upload(tmp_path: Path) -> Path:
    path = tmp_path / "IMG_0042.jpg"
    path.write_bytes(photo_with_location())
    return path


def run_while_alice_holds(slots: FairSlots, turns: int, call) -> tuple:
    """``call(request)`` for Bob, then for Alice, while ``turns`` of Alice's turns in ``slots``
    are held: Bob's outcome (a result or a gr.Error), whether Alice's waited, and hers."""
    async def outcome(call_for):
        try:
            return await call(call_for)
        except gr.Error as exc:
            return exc

    async def scenario():
        release = asyncio.Event()

        async def hold() -> None:
            async with slots.turn("alice"):
                await release.wait()

        held = [asyncio.create_task(hold()) for _ in range(turns)]
        await asyncio.sleep(0)
        bobs = await asyncio.wait_for(outcome(BOB), 10)
        alices = asyncio.create_task(outcome(ALICE))
        await asyncio.sleep(0.5)
        waited = not alices.done()
        release.set()
        await asyncio.gather(*held)
        return bobs, waited, await alices

    return asyncio.run(scenario())


def test_the_pages_model_events_wait_for_the_users_turn_that_the_api_shares(context, page, upload):
    """Alice holds both of her turns at the model (two API analyses in flight, say): Bob's
    analysis from the page is served at once; hers waits, holding no thread, until one of her
    turns ends. Every page event that runs the model waits so (batch runs among themselves),
    and Gradio does not queue it."""
    events = {fn.api_name: fn for fn in page.blocks.fns.values()}
    handlers = {"analyze": page.analyse.analyze, "analyze_upload": page.analyse.analyze,
                "analyze_webcam": page.analyse.analyze, "add_dish": page.photos.add_dish, "batch_run": page.batch.run}
    for name, handler in handlers.items():
        assert events[name].concurrency_limit is None and events[name].fn.__wrapped__ == handler, name
    state = page.analyse.c.state
    bobs, waited, alices = run_while_alice_holds(context.model_slots, 2,
                                                 lambda who: events["analyze"].fn(str(upload), None, who))
    assert bobs[state]["food"] == "Banana" and waited and alices[state]["food"] == "Banana"
    bobs, waited, alices = run_while_alice_holds(context.batch_slots, 1,
                                                 lambda who: events["batch_run"].fn(None, None, 3, who))
    assert "Upload the meals CSV" in str(bobs) and waited and "Upload the meals CSV" in str(alices)


def test_without_consent_the_analysed_photo_is_never_written(handlers, photo_handlers, upload, photos_dir):
    assert photo_handlers.load_photo_settings(ALICE)[photo_handlers.c.keep_photos] is False
    state = handlers.analyze(str(upload), None, ALICE)[handlers.c.state]
    assert state["photo_jpeg"] is None and state["photo_sha256"]
    assert "Logged: Banana" in handlers.log_meal(state, state["serving"], "", "Lunch", "now", "", ALICE)
    assert photos.kept_photos("alice") == [] and files_in(photos_dir) == []


def test_with_consent_the_logged_photo_is_kept_with_its_label(handlers, photo_handlers, upload, photos_dir):
    assert "are kept" in photo_handlers.set_keep_photos(True, ALICE)
    assert photo_handlers.load_photo_settings(ALICE)[photo_handlers.c.keep_photos] is True
    analyse_and_log(handlers, upload, ALICE)  # the model's answer accepted
    analyse_and_log(handlers, upload, ALICE, food="Espresso")  # corrected
    kept = photos.kept_photos("alice")
    assert [(p["food"], p["labelled"]) for p in kept] == [("Banana", False), ("Espresso", True)]
    assert files_in(photos_dir) == sorted(p["path"] for p in kept)
    assert photos.kept_photos("bob") == []
    with pytest.raises(gr.Error, match="keep_photos must be true or false"):
        photo_handlers.set_keep_photos(None, ALICE)  # an API call without a value withdraws nothing
    assert len(photos.kept_photos("alice")) == 2
    # Withdrawn: nothing kept from now on, and what was kept is gone.
    assert photo_handlers.set_keep_photos(False, ALICE).endswith("2 kept photos deleted.")
    analyse_and_log(handlers, upload, ALICE)
    assert photos.kept_photos("alice") == [] and files_in(photos_dir) == []


def test_household_controls_need_an_invite_code(photo_handlers):
    c = photo_handlers.c
    assert "no household" in photo_handlers.household_view(BOB)
    shown = photo_handlers.create_household("Home", ALICE)
    status, typed = shown[c.household_status], shown[c.household_text]
    assert status == "Household **'Home'**: alice." and typed == ""
    with pytest.raises(gr.Error, match="not valid"):
        photo_handlers.join_household("Home", BOB)  # the name alone lets nobody in
    invite = photo_handlers.invite_to_household(ALICE)[c.household_status]
    code = invite.rsplit("`", 2)[1]
    assert photo_handlers.join_household(code, BOB)[c.household_status] == "Household **'Home'**: alice, bob."
    assert service.household_members("bob") == ["alice", "bob"]
    assert "no household" in photo_handlers.leave_household(BOB)[c.household_status]
    assert service.household_members("alice") == ["alice"]


def test_export_command_writes_the_image_folder_and_says_what_is_wrong(handlers, photo_handlers, upload,
                                                                       photos_dir, database, tmp_path, capsys):
    photo_handlers.set_keep_photos(True, ALICE)
    analyse_and_log(handlers, upload, ALICE, food="Espresso")
    analyse_and_log(handlers, upload, ALICE)
    out = tmp_path / "export"
    common = ["--db-url", database, "--photos-dir", str(photos_dir)]
    assert main(["photos", "export", "alice", "--out", str(out), *common]) == 0
    printed = capsys.readouterr().out
    assert "1 labelled photos of 1 foods" in printed and "1 unlabelled" in printed
    assert [p.parent.relative_to(out).as_posix() for p in files_in(out)] == ["labelled/espresso", "unlabelled"]
    assert main(["photos", "export", "alice", "--out", str(out), *common]) == 1
    assert "not an empty folder" in capsys.readouterr().err
    assert main(["photos", "export", "nobody", "--out", str(tmp_path / "new"), *common]) == 1
    assert "no user 'nobody'" in capsys.readouterr().err
    assert main(["photos", "list"]) == 2


def test_through_a_live_server_the_photo_is_kept_only_after_consent(tmp_path, default_model_path, photos_dir,
                                                                      coffee_image):
    upload = tmp_path / "espresso.jpg"
    upload.write_bytes(jpeg_bytes(coffee_image))
    with seeded_server(tmp_path / "server", {"erin": "erin-pass-123"}, accounts=True) as live:
        erin = Client(live.url, auth=("erin", "erin-pass-123"), verbose=False)
        for consent in (False, True):
            erin.predict(consent, api_name="/set_keep_photos")
            erin.predict(handle_file(str(upload)), None, api_name="/analyze")
            assert "Logged: Espresso" in erin.predict(None, "", "snack", "now", "", api_name="/log_meal")
            assert len(files_in(photos_dir)) == int(consent)
        [kept] = photos.kept_photos("erin")
        assert (kept["food"], kept["labelled"]) == ("Espresso", False)
