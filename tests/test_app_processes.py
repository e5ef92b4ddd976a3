"""Two `python -m app` processes on two ports against one database behave as one server:
a sign-in made on one is valid on the other (and a sign-out on one ends it on both), wrong
passwords tried on one delay the next try on the other, a meal logged through one is listed by
the other, and a default-model change by an admin on one is served by the other within the poll
interval, and by any server started later."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from app_support import jpeg_bytes
from batch_support import tiny_model
from db_support import BACKENDS
from gradio_client import Client, handle_file

from app.config import AppConfig
from app.server import App
from db import service, signins
from db.session import configure

ROOT = Path(__file__).resolve().parents[1]
PASSWORDS = {"alice": "alice-pass-123", "bob": "bob-pass-456"}
POLL_S = 1.0


def _today() -> str:
    """Read when used: a run that crosses midnight logs and lists on the same day."""
    return date.today().isoformat()


@dataclass
class Process:
    url: str
    popen: subprocess.Popen
    log: Path

    def stop(self) -> None:
        self.popen.terminate()
        self.wait_stopped()

    def wait_stopped(self) -> None:
        try:
            self.popen.wait(20)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait(10)


def stop_all(processes: list[Process]) -> None:
    """Each told to stop before any is waited for: they shut down side by side."""
    for process in processes:
        process.popen.terminate()
    for process in processes:
        process.wait_stopped()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def launch(db_url: str, models: list[Path], folder: Path, name: str) -> Process:
    """`python -m app --accounts` on a free port, with the test session's FOODTAG_HOME (where
    the default model is already exported)."""
    port = free_port()
    log = folder / f"{name}.log"
    env = {**os.environ, "FOODTAG_DB_URL": db_url}
    args = [sys.executable, "-m", "app", "--accounts", "--port", str(port),
            "--model-poll-seconds", str(POLL_S)]
    for model in models:
        args += ["--model", str(model)]
    with log.open("w") as out:
        popen = subprocess.Popen(args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    return Process(f"http://127.0.0.1:{port}", popen, log)


def wait_healthy(process: Process, timeout_s: float = 240) -> dict:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            response = httpx.get(f"{process.url}/healthz", timeout=5)
            if response.status_code == 200:
                return response.json()
        except httpx.TransportError:
            pass
        if process.popen.poll() is not None or time.monotonic() > deadline:
            process.stop()
            raise RuntimeError(f"{process.url} did not start:\n" + process.log.read_text()[-3000:])
        time.sleep(0.3)


@pytest.fixture(scope="module", params=BACKENDS)
def database(request, tmp_path_factory) -> str:
    """The one database both processes use, on the small seed, with admin Alice and Bob: a
    PostgreSQL database on the session's server (the deployment this is for), and a SQLite
    file (several processes on one machine)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('two-processes') / 'shared.db'}"
        shutil.copyfile(request.getfixturevalue("seeded_template"), url.removeprefix("sqlite:///"))
    else:
        server = request.getfixturevalue("postgres_server")
        url = server.create_database(template=request.getfixturevalue("postgres_template"))
    configure(url)
    service.create_user("alice", PASSWORDS["alice"], admin=True)
    service.create_user("bob", PASSWORDS["bob"])
    yield url
    configure(None)
    if request.param != "sqlite":
        server.drop_database(url.rsplit("/", 1)[1])


@pytest.fixture(scope="module")
def models(tmp_path_factory, default_model_path) -> list[Path]:
    return [default_model_path, tiny_model(tmp_path_factory.mktemp("tiny"))]


@pytest.fixture(scope="module")
def servers(database, models, tmp_path_factory):
    """(one, other): both started at once, both on the shared database."""
    folder = tmp_path_factory.mktemp("logs")
    with ExitStack() as stack:
        pair = []
        stack.callback(stop_all, pair)
        for name in ("one", "other"):
            pair.append(launch(database, models, folder, name))
        for process in pair:
            wait_healthy(process)
        yield pair


def sign_in(url: str, name: str) -> httpx.Cookies:
    response = httpx.post(f"{url}/login", data={"username": name, "password": PASSWORDS[name]}, timeout=60)
    assert response.status_code == 200, response.text
    return response.cookies


def analyze_as(url: str, name: str, photo: bytes) -> dict:
    response = httpx.post(f"{url}/api/analyze", files={"file": ("cup.jpg", photo)},
                          auth=(name, PASSWORDS[name]), timeout=60)
    assert response.status_code == 200, response.text
    return response.json()


def test_signed_in_on_one_is_signed_in_on_the_other_and_signed_out_on_both(servers):
    one, other = servers
    cookies = sign_in(one.url, "alice")
    with httpx.Client(base_url=other.url, cookies=cookies, timeout=60) as browser:
        assert browser.get("/gradio_api/info").status_code == 200
        assert browser.get("/api/my/foods").status_code == 200
    as_alice = Client(other.url, httpx_kwargs={"cookies": dict(cookies)}, verbose=False)
    assert as_alice.predict(api_name="/whoami").startswith("Signed in as **alice**")
    assert httpx.get(f"{other.url}/api/my/foods", timeout=60).status_code == 401  # no cookie, no user
    # Bob's session on the first process names Bob on the other, never Alice.
    bob = Client(other.url, httpx_kwargs={"cookies": dict(sign_in(one.url, "bob"))}, verbose=False)
    assert bob.predict(api_name="/whoami").startswith("Signed in as **bob**")

    with httpx.Client(base_url=other.url, cookies=cookies, timeout=60) as browser:
        assert browser.post("/logout").status_code == 303
    for process in servers:
        with httpx.Client(base_url=process.url, cookies=cookies, timeout=60) as replay:
            assert replay.get("/gradio_api/info").status_code == 401
            assert replay.get("/api/my/foods").status_code == 401


def test_wrong_passwords_on_one_delay_the_next_try_on_the_other(servers):
    one, other = servers

    def wrong_password(url: str) -> float:
        started = time.perf_counter()
        response = httpx.post(f"{url}/login", data={"username": "bob", "password": "guess"}, timeout=60)
        assert response.status_code == 400
        return time.perf_counter() - started

    for _ in range(6):  # five free tries, then a 1 s wait
        wrong_password(one.url)
    assert wrong_password(other.url) > 2.0  # the 7th failure in a row waits 2 s, on any process
    assert signins.failures("user:bob")[0] == 7  # the count both processes read and write
    sign_in(other.url, "bob")  # a success resets the count everywhere
    assert signins.failures("user:bob") is None
    wrong_password(one.url)
    assert signins.failures("user:bob")[0] == 1  # counting afresh: four more tries before any wait


def test_meal_logged_through_one_is_listed_by_the_other(servers, coffee_image, tmp_path):
    one, other = servers
    photo = tmp_path / "cup.jpg"
    photo.write_bytes(jpeg_bytes(coffee_image))
    on_one = Client(one.url, auth=("alice", PASSWORDS["alice"]), verbose=False)
    on_one.predict(handle_file(str(photo)), None, api_name="/analyze")
    on_one.predict("120", api_name="/set_grams")
    assert "Logged: Espresso" in on_one.predict(None, "120", "breakfast", "now", "via one", api_name="/log_meal")

    [logged] = [e for e in service.day_summary("alice", date.today())["entries"] if e["note"] == "via one"]

    entries, *_ = Client(other.url, auth=("alice", PASSWORDS["alice"]), verbose=False).predict(
        _today(), api_name="/day_view")
    [row] = [row for row in entries["data"] if row[-1] == logged["id"]]
    assert row[1] == "Espresso" and row[2] == "120"
    bobs, *_ = Client(other.url, auth=("bob", PASSWORDS["bob"]), verbose=False).predict(_today(), api_name="/day_view")
    assert logged["id"] not in [row[-1] for row in bobs["data"]]


def test_an_export_made_on_one_is_refused_to_everyone_else_on_the_other(servers):
    one, other = servers
    alice, bob = sign_in(one.url, "alice"), sign_in(one.url, "bob")
    with httpx.Client(base_url=one.url, cookies=alice, timeout=60) as browser:
        event = browser.post("/gradio_api/call/export_csv", json={"data": []}).json()["event_id"]
        stream = browser.get(f"/gradio_api/call/export_csv/{event}").text
    data = next(line for line in stream.splitlines() if line.startswith("data:") and "url" in line)
    path = urlsplit(json.loads(data[len("data:"):])[0]["url"]).path
    # Both processes keep Gradio's files in the one $FOODTAG_HOME/gradio here, so the other
    # could serve the file: only its owner, recorded in the database, gets it.
    for cookies, status in ((alice, 200), (bob, 404)):
        with httpx.Client(base_url=other.url, cookies=cookies, timeout=60) as client:
            assert client.get(path).status_code == status


def test_default_model_change_on_one_is_served_by_the_other_and_by_later_servers(
        servers, models, database, coffee_image):
    one, other = servers
    tiny = models[1].stem  # "tiny-N": N counts the tiny models this process exported before it
    photo = jpeg_bytes(coffee_image)
    assert analyze_as(other.url, "bob", photo)["model"]["name"] == "food101"
    admin = Client(one.url, auth=("alice", PASSWORDS["alice"]), verbose=False)
    admin.predict(api_name="/list_models")
    *_, status = admin.predict(tiny, api_name="/activate_model")
    assert f"Server default model: {tiny}" in status
    changed = time.monotonic()
    assert analyze_as(one.url, "bob", photo)["model"]["name"] == tiny  # at once where it was made

    while analyze_as(other.url, "bob", photo)["model"]["name"] != tiny:
        # A deadline for "never", not a speed claim: the poll interval plus a generous model load.
        assert time.monotonic() - changed < POLL_S + 60, "the other process never picked the change up"
        time.sleep(0.1)
    delay = time.monotonic() - changed
    assert httpx.get(f"{other.url}/healthz", timeout=10).json()["model"]["name"] == tiny
    print(f"default-model change served by the other process after {delay:.2f} s (poll every {POLL_S} s)")

    # Stored, not remembered: a new server (here in this process, which is quicker to start)
    # begins with it, although its first --model is the built-in default.
    fresh = App(AppConfig(port=0, db_url=database, accounts=True, models=models))
    fresh.startup()
    try:
        assert models[0].stem == "food101" and fresh.ctx.catalog.active_info.name == tiny
    finally:
        fresh.shutdown()
