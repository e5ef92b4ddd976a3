"""`python -m app`: serving, the refusal to serve a network without accounts, `users ...`."""

from __future__ import annotations

import functools
import io
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_app(*args: str, stdin: str = "", env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "app", *args], cwd=ROOT, input=stdin, capture_output=True, text=True,
        timeout=timeout, env={**os.environ, **(env or {})},
    )


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20"])
def test_refuses_network_address_without_accounts(host):
    result = run_app("--host", host)
    assert result.returncode == 1
    assert "refusing to listen on" in result.stderr and "--accounts" in result.stderr
    assert "Traceback" not in result.stderr


def test_accounts_mode_without_any_account_says_how_to_create_one(tmp_path):
    result = run_app("--accounts", "--db-url", f"sqlite:///{tmp_path / 'empty.db'}", "--port", "0")
    assert result.returncode == 1
    assert "no user has a password yet" in result.stderr and "python -m app users add NAME" in result.stderr
    assert "Traceback" not in result.stderr


def test_users_add(tmp_path, monkeypatch, capsys):
    from db import service
    from db.session import configure

    url = f"sqlite:///{tmp_path / 'users.db'}"
    # once as the command a person types; the refusals in this process (``users``)
    result = run_app("users", "add", "carol", "--password-stdin", "--db-url", url, stdin="carol-secret-1\n")
    assert result.returncode == 0, result.stderr
    status, _, err = users(url, "add", "carol", "--password-stdin", stdin="carol-secret-2\n",
                           monkeypatch=monkeypatch, capsys=capsys)
    assert status == 1 and "already exists" in err
    status, _, err = users(url, "add", "dave", "--password-stdin", stdin="abc\n",
                           monkeypatch=monkeypatch, capsys=capsys)
    assert status == 1 and "too short" in err
    # The region is chosen at sign-up and brings its exchange unit (DE: 12 g BE).
    status, _, err = users(url, "add", "erika", "--password-stdin", "--region", "de",
                           stdin="erika-secret-1\n", monkeypatch=monkeypatch, capsys=capsys)
    assert status == 0, err
    with pytest.raises(SystemExit) as refused:
        users(url, "add", "zed", "--password-stdin", "--region", "MARS", stdin="zed-secret-123\n",
              monkeypatch=monkeypatch, capsys=capsys)
    assert refused.value.code == 2 and "invalid choice: 'MARS'" in capsys.readouterr().err
    configure(url)
    try:
        assert service.verify_password("carol", "carol-secret-1")
        assert not service.verify_password("carol", "carol-secret-2")
        assert (service.user_region("carol"), service.get_settings("carol")["exchange_unit_g"]) == ("US", 15.0)
        assert (service.user_region("erika"), service.get_settings("erika")["exchange_unit_g"]) == ("DE", 12.0)
    finally:
        configure(None)


def users(url: str, *args: str, stdin: str = "", monkeypatch=None, capsys=None) -> tuple[int, str, str]:
    """`python -m app users ...` in this process (a subprocess costs seconds of imports each)."""
    from app.__main__ import main

    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    status = main(["users", *args, "--db-url", url])
    out, err = capsys.readouterr()
    return status, out, err


def test_users_list_passwd_admin_and_remove(tmp_path, monkeypatch, capsys):
    from db import service
    from db.session import configure

    url = f"sqlite:///{tmp_path / 'users.db'}"
    run = functools.partial(users, url, monkeypatch=monkeypatch, capsys=capsys)
    assert run("add", "ann", "--password-stdin", stdin="ann-secret-1\n")[0] == 0
    assert run("add", "bob", "--password-stdin", stdin="bob-secret-1\n")[0] == 0
    status, out, _ = run("list")
    assert status == 0 and [line.split()[:4] for line in out.splitlines()] == [
        ["user", "role", "signs", "in"], ["ann", "admin", "password", "0"], ["bob", "user", "password", "0"]]

    assert run("passwd", "bob", "--password-stdin", stdin="bob-secret-2\n")[:2] == (
        0, "password of 'bob' changed; their sign-in sessions have ended\n")
    assert run("passwd", "bob", "--password-stdin", stdin="short\n")[2].startswith("error: password too short")
    assert run("admin", "bob")[:2] == (0, "user 'bob' is an admin\n")
    assert run("admin", "ann", "--revoke")[:2] == (0, "user 'ann' is no longer an admin\n")
    status, _, err = run("admin", "bob", "--revoke")
    assert status == 1 and "'bob' is the only admin" in err

    status, _, err = run("remove", "ann")  # no terminal to ask at, and no --yes: nothing happens
    assert status == 2 and "nothing removed: pass --yes" in err
    assert run("remove", "ann", "--yes")[:2] == (
        0, "user 'ann' removed, with 0 logged meals, own foods, favourites and settings\n")
    status, _, err = run("remove", "ann", "--yes")
    assert status == 1 and err == "error: no user 'ann'\n"
    configure(url)
    try:
        assert [u["name"] for u in service.list_users()] == ["bob"] and service.is_admin("bob")
        assert service.verify_password("bob", "bob-secret-2")
    finally:
        configure(None)


def test_batch_command_is_dispatched():
    result = run_app("batch", "--help")
    assert result.returncode == 0 and "usage" in result.stdout.lower()


def test_python_m_app_serves(tmp_path, default_model_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "FOODTAG_PORT": str(port), "FOODTAG_DB_URL": f"sqlite:///{tmp_path / 'serve.db'}"}
    proc = subprocess.Popen([sys.executable, "-m", "app"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, proc.stdout.read()
            try:
                response = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "server did not start"
                time.sleep(0.5)
        assert response.status_code == 200 and response.json()["model"]["name"] == "food101"
        assert "foodtag" in httpx.get(f"http://127.0.0.1:{port}/").text
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_batch_results_are_owner_only_whatever_the_umask(tmp_path, default_model_path):
    """Results and their summary are meal data: 0600 even for a caller whose umask is 022."""
    import stat

    from batch_support import photo, write_csv

    from app.batch.summary import summary_path

    photo(tmp_path / "lunch.jpg")
    meals = write_csv(tmp_path / "meals.csv", ["image", "grams"], [["lunch.jpg", "150"]])
    out = tmp_path / "results.csv"
    result = subprocess.run(
        [sys.executable, "-m", "app", "batch", str(meals), "--out", str(out), "--model", str(default_model_path),
         "--confidence-threshold", "0"],  # a random-noise photo: the default model is rightly unsure
        cwd=ROOT, capture_output=True, text=True, timeout=300, preexec_fn=lambda: os.umask(0o022))
    assert result.returncode == 0, result.stderr
    for path in (out, summary_path(out)):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
