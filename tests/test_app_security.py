"""Accounts mode under attack: sign-in that cannot stall the server, backoff and logging,
expiring sessions, admin-only default model with per-user choice, private downloads."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from app_support import jpeg_bytes, seeded_server
from batch_support import KNOWN_LABELS, tiny_model
from gradio_client import Client
from gradio_client.exceptions import AppError
from sqlalchemy import delete

from app.security import PASSWORD_NICE, SESSION_COOKIE, PasswordChecker
from db import service
from db.models import SignInFailure
from db.session import session_scope

PASSWORDS = {"alice": "alice-pass-123", "bob": "bob-pass-456"}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return tiny_model(tmp_path_factory.mktemp("tiny"))


@pytest.fixture(scope="module")
def server(tmp_path_factory, default_model_path, tiny):
    folder = tmp_path_factory.mktemp("app-security")
    with seeded_server(folder, PASSWORDS, admins=("alice",), accounts=True, models=[default_model_path, tiny]) as live:
        yield live


@pytest.fixture(autouse=True)
def fresh_throttles(server):
    """Each test starts with no failed sign-ins on record (they are per user and per address)."""
    with session_scope() as session:
        session.execute(delete(SignInFailure))


def sign_in(server, name: str, password: str) -> httpx.Response:
    return httpx.post(f"{server.url}/login", data={"username": name, "password": password}, timeout=120)


def basic_analyze(server, name: str, photo: bytes) -> dict:
    response = httpx.post(f"{server.url}/api/analyze", files={"file": ("cup.jpg", photo)},
                          auth=(name, PASSWORDS[name]), timeout=60)
    assert response.status_code == 200, response.text
    return response.json()


# --- units ---------------------------------------------------------------------------------

def test_password_checks_run_in_a_bounded_pool_off_the_event_loop():
    running, peak, lock = 0, 0, threading.Lock()

    def slow_verify(name, password):
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        time.sleep(0.05)
        with lock:
            running -= 1
        return password == "right-password"

    checker = PasswordChecker(slow_verify, workers=2, max_waiting=64)

    async def attack():
        loop_stalls = []

        async def heartbeat():
            for _ in range(10):
                started = time.perf_counter()
                await asyncio.sleep(0.01)
                loop_stalls.append(time.perf_counter() - started)

        results = await asyncio.gather(heartbeat(), *(checker.check(f"u{i}", "wrong", "10.0.0.1") for i in range(12)))
        return results[1:], loop_stalls

    results, stalls = asyncio.run(attack())
    assert results == [False] * 12 and peak == 2
    assert max(stalls) < 0.1  # the loop kept running while 12 checks queued behind 2 workers
    assert asyncio.run(checker.check("u1", "x" * 2000, "10.0.0.2")) is False  # overlong: never hashed


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice values are Linux's")
def test_password_checks_run_at_low_cpu_priority():
    niceness = []

    def verify_noting_priority(name, password):
        niceness.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        return True

    checker = PasswordChecker(verify_noting_priority, workers=1)
    own = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    assert asyncio.run(checker.check("bob", "a-password", "10.0.0.1")) is True
    assert niceness == [max(own, PASSWORD_NICE)]  # argon2's own lane threads inherit it
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == own  # the caller's is untouched


# --- against the live server ----------------------------------------------------------------

def test_parallel_wrong_sign_ins_do_not_stall_the_server(server):
    latencies: list[float] = []
    stop, probing = threading.Event(), threading.Event()

    def probe():
        with httpx.Client(timeout=10) as client:
            while not stop.is_set():
                started = time.perf_counter()
                assert client.get(f"{server.url}/healthz").status_code == 200
                latencies.append(time.perf_counter() - started)
                probing.set()
                time.sleep(0.05)

    prober = threading.Thread(target=probe)
    prober.start()
    probing.wait(10)  # measure the server, not the probe's own first connection
    before = len(latencies)
    try:
        with httpx.Client(base_url=server.url, timeout=120, limits=httpx.Limits(max_connections=20)) as attacker, \
                ThreadPoolExecutor(20) as pool:
            attempt = lambda i: attacker.post("/login", data={"username": f"mallory{i}", "password": "wrong"})  # noqa: E731
            answers = [r.status_code for r in pool.map(attempt, range(20))]
    finally:
        stop.set()
        prober.join()
    during = latencies[before:]
    assert answers == [400] * 20
    assert len(during) >= 5, "the sign-ins were over before /healthz was probed"
    assert max(during) < 0.5, sorted(during)[-5:]


def test_sixth_wrong_password_is_delayed_failures_are_logged_and_success_resets(server, caplog):
    caplog.set_level("WARNING", logger="foodtag.security")
    throttle = server.app.ctx.identity.passwords.users
    for _ in range(5):
        assert throttle.wait_s("bob") == 0  # five free tries
        assert sign_in(server, "bob", "not-bobs-password").status_code == 400
    assert throttle.wait_s("bob") > 0.8  # then a wait of 1 s, doubling after each further failure
    started = time.perf_counter()
    assert sign_in(server, "bob", "not-bobs-password").status_code == 400
    assert time.perf_counter() - started > 0.8 + 0.05  # the wait, then the check itself
    failures = [r.getMessage() for r in caplog.records if "sign-in failed" in r.getMessage()]
    assert failures[0] == "sign-in failed for user 'bob' from 127.0.0.1 (1 in a row)"
    assert failures[-1].endswith("(6 in a row)") and all("not-bobs-password" not in m for m in failures)
    assert all(time.time() - r.created < 120 for r in caplog.records)  # each stamped with its time
    assert sign_in(server, "bob", PASSWORDS["bob"]).status_code == 200
    assert server.app.ctx.identity.passwords.users.wait_s("bob") == 0


def test_idle_sessions_expire_and_their_cookie_is_cleared(server, coffee_image):
    sessions = server.app.ctx.identity.sessions
    with httpx.Client(base_url=server.url, timeout=60) as browser:
        assert browser.post("/login", data={"username": "alice", "password": PASSWORDS["alice"]}).status_code == 200
        assert list(browser.cookies) == [SESSION_COOKIE]
        assert browser.get("/gradio_api/info").status_code == 200
        files = {"file": ("cup.jpg", jpeg_bytes(coffee_image))}
        assert browser.post("/api/analyze", files=files).status_code == 200  # the cookie signs API calls in
        cookies = dict(browser.cookies)
        idle = sessions.idle_s
        sessions.idle_s = 0.3
        try:
            time.sleep(0.5)
            expired = browser.get("/gradio_api/info")
            assert expired.status_code == 401
            assert expired.headers["set-cookie"].startswith(f"{SESSION_COOKIE}=\"\";") and "Max-Age=0" in expired.headers["set-cookie"]
            assert not browser.cookies
            sessions.idle_s = idle
            # The token stays dead even with the long idle time back.
            with httpx.Client(base_url=server.url, cookies=cookies, timeout=60) as replay:
                assert replay.get("/gradio_api/info").status_code == 401
                assert replay.post("/api/analyze", files=files).status_code == 401
        finally:
            sessions.idle_s = idle


def test_sign_out_ends_the_session_and_the_page_asks_signed_out_browsers_to_sign_in(server):
    html = {"accept": "text/html,application/xhtml+xml"}
    with httpx.Client(base_url=server.url, timeout=60) as browser:
        page = browser.get("/", headers=html)
        assert page.status_code == 303 and page.headers["location"] == "login"
        form = browser.get("/login")
        assert form.status_code == 200 and '<form method="post" action="login">' in form.text
        refused = browser.post("/login", data={"username": "alice", "password": "wrong-password"}, headers=html)
        assert refused.status_code == 400 and "Incorrect credentials." in refused.text and not browser.cookies
        signed_in = browser.post("/login", data={"username": "alice", "password": PASSWORDS["alice"]}, headers=html)
        assert signed_in.status_code == 303 and signed_in.headers["location"] == "./"
        cookies = dict(browser.cookies)
        assert browser.get("/", headers=html).status_code == 200  # the app itself
        assert "HttpOnly" in signed_in.headers["set-cookie"] and "SameSite=lax" in signed_in.headers["set-cookie"]
        out = browser.get("/logout")
        assert out.status_code == 303 and out.headers["location"] == "login" and not browser.cookies
    with httpx.Client(base_url=server.url, cookies=cookies, timeout=60) as replay:
        assert replay.get("/gradio_api/info").status_code == 401
        assert replay.get("/api/my/foods").status_code == 401


def test_only_admins_change_the_default_model_and_each_user_may_pick_their_own(server, coffee_image, default_model_path):
    photo = jpeg_bytes(coffee_image)
    alice = Client(server.url, auth=("alice", PASSWORDS["alice"]), verbose=False)
    bob = Client(server.url, auth=("bob", PASSWORDS["bob"]), verbose=False)

    table, _choice, note = bob.predict(api_name="/list_models")
    assert "file" not in table["headers"] and str(default_model_path.parent) not in json.dumps(table)
    assert "Only an admin" in note
    with pytest.raises(AppError, match="Only an admin can change the server's default model"):
        bob.predict("tiny-0", api_name="/activate_model")
    assert server.app.ctx.catalog.active_info.name == "food_default"
    assert basic_analyze(server, "bob", photo)["model"] == {"name": "food_default", "version": server.app.ctx.catalog.active()[0].version}

    # Bob's own choice changes his predictions only.
    bob.predict("tiny-0", api_name="/use_model")
    as_bob, as_alice = basic_analyze(server, "bob", photo), basic_analyze(server, "alice", photo)
    assert as_bob["model"]["name"] == "tiny-0" and as_bob["predictions"][0]["label"] in KNOWN_LABELS
    assert as_alice["model"]["name"] == "food_default" and as_alice["predictions"][0]["label"] == "espresso"

    # The admin changes the default: recorded with who, when, from and to.
    alice.predict(api_name="/list_models")  # the page load that fills her model picker
    table, _choice, status = alice.predict("tiny-0", api_name="/activate_model")
    try:
        assert "Server default model: tiny-0" in status and "file" in table["headers"]
        assert basic_analyze(server, "alice", photo)["model"]["name"] == "tiny-0"
        changes = service.model_changes()
        assert [(c["changed_by"], c["scope"], c["from_model"], c["to_model"]) for c in changes[:2]] == [
            ("alice", "server", "food_default", "tiny-0"), ("bob", "user", None, "tiny-0")]
    finally:
        alice.predict("food_default", api_name="/activate_model")
        bob.predict("", api_name="/use_model")


def test_user_b_cannot_download_user_a_export(server):
    def export_url(browser: httpx.Client) -> str:
        event = browser.post("/gradio_api/call/export_csv", json={"data": []}).json()["event_id"]
        stream = browser.get(f"/gradio_api/call/export_csv/{event}").text
        data = next(line for line in stream.splitlines() if line.startswith("data:") and "url" in line)
        return json.loads(data[len("data:"):])[0]["url"]

    with httpx.Client(base_url=server.url, timeout=60) as alice, httpx.Client(base_url=server.url, timeout=60) as bob:
        assert alice.post("/login", data={"username": "alice", "password": PASSWORDS["alice"]}).status_code == 200
        assert bob.post("/login", data={"username": "bob", "password": PASSWORDS["bob"]}).status_code == 200
        url = export_url(alice)
        assert alice.get(url).status_code == 200 and alice.get(url).text.startswith("user,date,")
        assert bob.get(url).status_code == 404
        assert httpx.get(url).status_code in (401, 403, 404)  # signed out
