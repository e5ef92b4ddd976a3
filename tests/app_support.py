"""Helpers for the app tests: a live server on a free port, test photos and bad inputs."""

from __future__ import annotations

import io
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import uvicorn
from PIL import Image

from app.config import AppConfig
from app.server import App

CHROMIUM = "/usr/bin/chromium"
# Where the browser tests leave their screenshots (the README's pictures come from there).
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
# Headless, and no sandbox, GPU or background traffic: what works in a container without a display.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
needs_chromium = pytest.mark.skipif(not Path(CHROMIUM).exists() and not shutil.which("chromium"),
                                    reason="Chromium is not installed")


@dataclass
class LiveServer:
    url: str
    app: App
    server: uvicorn.Server
    thread: threading.Thread

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def start_server(config: AppConfig) -> LiveServer:
    """Start the real FastAPI + Gradio app with uvicorn in a thread, on a free port.

    The Gradio tests' `launch(prevent_thread_lock=True)` does the same for a bare Blocks;
    here the Blocks is mounted in our FastAPI app, so uvicorn is started directly.
    """
    app = App(config)
    app.startup()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    # Gradio clients hold event streams open; do not wait for them on shutdown.
    server = uvicorn.Server(uvicorn.Config(app.fastapi, log_level="warning", lifespan="on", timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("test server did not start")
        time.sleep(0.05)
    return LiveServer(f"http://127.0.0.1:{port}", app, server, thread)


@contextmanager
def seeded_server(folder: Path, users: dict[str, str | None] = {}, admins: tuple[str, ...] = (), **config):
    """A live app on a fresh SQLite file with the small test seed (espresso, banana, pizza...),
    so results do not move with the real seed. ``users``: name -> password (None: no password);
    ``admins``: which of them are admins."""
    from db import service
    from db.session import configure, init_db
    from db_support import write_seed

    url = f"sqlite:///{folder / 'foodtag.db'}"
    configure(url)
    init_db(seed_dir=write_seed(folder / "seed"))
    for name, password in users.items():
        service.create_user(name, password, admin=name in admins)
    live = start_server(AppConfig(port=0, db_url=url, **config))
    try:
        yield live
    finally:
        live.stop()
        configure(None)


def module_server(folder_name: str):
    """A module-scoped `server` fixture: a live app with the small test seed and the default
    model, in a fresh folder named ``folder_name``. Use as ``server = module_server("...")``."""

    @pytest.fixture(scope="module")
    def server(tmp_path_factory, default_model_path):
        with seeded_server(tmp_path_factory.mktemp(folder_name)) as live:
            yield live

    return server


@contextmanager
def chromium_page(url: str, *, flags: tuple[str, ...] = (), **context) -> Iterator:
    """A page open on ``url`` in a fresh headless Chromium (CHROMIUM_ARGS and ``flags``), in a
    browser context made with ``context`` (Playwright's new_context options: viewport,
    permissions...); the browser closes after the block, whatever happens in it."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, *flags])
        try:
            page = browser.new_context(**context).new_page()
            page.goto(url)
            yield page
        finally:
            browser.close()


def settled(server, timeout_s: float = 30) -> None:
    """Wait until the server has no event of any page pending: an event sent while Gradio
    6.31 closes a page's event stream (its previous events just done) can stay pending for
    good, a race in Gradio's client, so a test that clicks on at once waits as a person would."""
    pending = server.app.blocks._queue.pending_event_ids_session
    deadline, quiet_since = time.monotonic() + timeout_s, None
    while time.monotonic() < deadline:  # quiet for 0.3 s: a chained event is sent once one ends
        if any(pending.values()):
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since > 0.3:
            return
        time.sleep(0.05)


def fresh_database(folder: Path, users: dict[str, str | None] = {}) -> str:
    """Point the (running) app at a new SQLite file with the small test seed and the local
    user; returns its URL. ``users``: name -> password (None: no password)."""
    from app.config import LOCAL_USER
    from db import service
    from db.session import configure, init_db
    from db_support import write_seed

    url = f"sqlite:///{folder / 'foodtag.db'}"
    configure(url)
    init_db(seed_dir=write_seed(folder / "seed"))
    service.ensure_user(LOCAL_USER)
    for name, password in users.items():
        service.create_user(name, password)
    return url


def jpeg_bytes(image: Image.Image, quality: int = 90) -> bytes:
    out = io.BytesIO()
    image.convert("RGB").save(out, format="JPEG", quality=quality)
    return out.getvalue()


def bad_inputs(photo: Image.Image) -> dict[str, tuple[str, bytes, str]]:
    """name -> (file name, bytes, words the error message must contain)."""
    jpeg = jpeg_bytes(photo)
    huge = io.BytesIO()
    # 9000 x 8000 = 72 MP of 1-bit zeros: a few kB on disk, refused from the header alone.
    Image.new("1", (9000, 8000)).save(huge, format="PNG")
    broken_heic = b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + b"\x00" * 256
    ppm = io.BytesIO()
    photo.convert("RGB").save(ppm, format="PPM")
    return {
        "not_an_image": ("notes.txt", b"this is a shopping list, not a photo\n", "not an image"),
        "truncated_jpeg": ("meal.jpg", jpeg[: len(jpeg) // 2], "truncated"),
        "empty": ("empty.jpg", b"", "empty"),
        "huge_dimensions": ("huge.png", huge.getvalue(), "too large"),
        "broken_heic": ("IMG_0001.HEIC", broken_heic, "not an image"),
        "unsupported_format": ("scan.ppm", ppm.getvalue(), "unsupported format"),
    }


def animated_gif(photo: Image.Image) -> bytes:
    frames = [photo.convert("RGB").resize((224, 168)), Image.new("RGB", (224, 168), (0, 0, 255))]
    out = io.BytesIO()
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:], duration=200, loop=0)
    return out.getvalue()
