"""Hostile uploads cost a bounded amount of memory: the server's and the batch tool's peak RSS
(VmHWM / ru_maxrss of a separate process) grows by less than 300 MB for hostile photos, one at
a time, four at once and eight large photos at once, and the server gives the memory back
afterwards; a 32 MB glucose import, of junk or of real readings, costs under 100 MB."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest
from app_support import jpeg_bytes
from batch_support import photo, read_csv, write_csv

MAX_GROWTH_KB = 300 * 1000
# How each hostile photo must come out: refused with this in the message, or analysed.
EXPECTED = {
    "sliver-1x100000.png": "too long and thin",
    "sliver-1x8000.png": "too long and thin",
    "rgba-8000x8000.png": "too large to decode",
    "photo-60mp.jpg": None,
}

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")


def peak_rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM in /proc status")


@pytest.fixture(scope="module")
def server(tmp_path_factory, default_model_path):
    """`python -m app` in its own process (the default model is already exported)."""
    folder = tmp_path_factory.mktemp("memory")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "FOODTAG_DB_URL": f"sqlite:///{folder / 'foodtag.db'}"}
    log = (folder / "server.log").open("w")
    process = subprocess.Popen([sys.executable, "-m", "app", "--port", str(port)], env=env, stdout=log,
                               stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while True:
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                break
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError("server did not start: " + (folder / "server.log").read_text()[-2000:])
        time.sleep(0.3)
    yield url, process
    process.terminate()
    process.wait(20)
    log.close()


def check_answer(name: str, response: httpx.Response) -> None:
    expected = EXPECTED[name]
    if expected is None:
        assert response.status_code == 200, response.text
    else:
        assert response.status_code == 400 and expected in response.json()["error"], response.text


def test_hostile_photos_cost_the_server_little_memory(server, bomb_files, coffee_image):
    url, process = server

    def post(name: str, data: bytes) -> httpx.Response:
        return httpx.post(f"{url}/api/analyze", files={"file": (name, data)}, timeout=120)

    for _ in range(3):  # warm up: model arenas, database, multipart parsing
        assert post("cup.jpg", jpeg_bytes(coffee_image)).status_code == 200
    baseline = peak_rss_kb(process.pid)
    for name, data in bomb_files.items():
        check_answer(name, post(name, data))
    one_at_a_time = peak_rss_kb(process.pid) - baseline
    with ThreadPoolExecutor(4) as pool:
        for _round in range(2):  # four at once, twice: each kind of photo four times in flight
            for name, data in bomb_files.items():
                for response in pool.map(lambda _: post(name, data), range(4)):
                    check_answer(name, response)
    four_at_once = peak_rss_kb(process.pid) - baseline
    print(f"server peak RSS growth: {one_at_a_time / 1000:.0f} MB one at a time, {four_at_once / 1000:.0f} MB four at once")
    assert one_at_a_time < MAX_GROWTH_KB and four_at_once < MAX_GROWTH_KB


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc status")


def test_eight_large_photos_at_once_cost_bounded_memory_that_is_given_back(server, coffee_image):
    """8 parallel 20 MP progressive JPEGs, then 8 parallel 25 MP PNGs: each round lifts the
    server's peak RSS by under 300 MB over where it started, and afterwards the server holds
    at most 100 MB more than before (no memory kept in per-thread malloc arenas). A 60 MP
    progressive JPEG (its coefficients alone take 173 MB, whatever scale it is decoded to) is
    refused, and so is an 8000x8000 progressive 4:4:4 one (384 MB)."""
    from image_support import blank_png, large_jpeg

    url, process = server

    def post(name: str, data: bytes) -> httpx.Response:
        return httpx.post(f"{url}/api/analyze", files={"file": (name, data)}, timeout=600)

    for _ in range(3):
        assert post("cup.jpg", jpeg_bytes(coffee_image)).status_code == 200
    start_rss, start_peak = rss_kb(process.pid), peak_rss_kb(process.pid)
    rounds = {"progressive-20mp.jpg": large_jpeg(5200, 3900, progressive=True),
              "rgb-25mp.png": blank_png(5000, 5000, rgb=True)}
    growth = {}
    for name, data in rounds.items():
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda _: post(name, data), range(8)))
        assert [r.status_code for r in answers] == [200] * 8, answers[0].text
        growth[name] = peak_rss_kb(process.pid) - start_peak
    kept = rss_kb(process.pid) - start_rss
    print("server peak RSS growth: " + ", ".join(f"{g / 1000:.0f} MB ({name})" for name, g in growth.items())
          + f"; RSS after both rounds: {kept / 1000:+.0f} MB")
    assert all(g < MAX_GROWTH_KB for g in growth.values()) and kept < 100_000
    for name, data in {"progressive-60mp.jpg": large_jpeg(progressive=True),
                       "progressive-444.jpg": large_jpeg(8000, 8000, progressive=True, subsampling=0)}.items():
        refused = post(name, data)
        assert refused.status_code == 400 and "too large to decode" in refused.json()["error"], name
        assert "baseline JPEG" in refused.json()["error"]


def test_hostile_photos_in_a_batch_are_row_errors_at_bounded_memory(tmp_path, bomb_files, default_model_path):
    def run_batch(rows: list[list[str]]) -> tuple[int, int]:
        csv = write_csv(tmp_path / "meals.csv", ["image"], rows)
        process = subprocess.Popen([sys.executable, "-m", "app", "batch", str(csv), "--out", str(tmp_path / "out.csv"),
                                    "--model", str(default_model_path), "--workers", "4",
                                    "--confidence-threshold", "0"],  # noise photos: a card for every guess
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _pid, status, usage = os.wait4(process.pid, 0)
        return os.waitstatus_to_exitcode(status), usage.ru_maxrss

    for i in range(8):
        photo(tmp_path / f"ok{i}.jpg", seed=i, size=(640, 480))
    normal_code, normal_peak = run_batch([[f"ok{i}.jpg"] for i in range(8)])
    assert normal_code == 0
    for name, data in bomb_files.items():
        (tmp_path / name).write_bytes(data)
    code, peak = run_batch([[name] for name in bomb_files for _ in range(4)])  # each four times
    assert code == 1  # some rows failed, the run finished
    results = read_csv(tmp_path / "out.csv")
    for row in results:
        expected = EXPECTED[row["image"]]
        if expected is None:
            assert row["status"] == "ok", row
        else:
            assert row["status"] == "error" and expected in row["error"], row
    print(f"batch peak RSS: {normal_peak / 1000:.0f} MB on 8 normal photos, {peak / 1000:.0f} MB on 16 hostile ones")
    assert peak - normal_peak < MAX_GROWTH_KB


GLUCOSE_LIMIT = 32 * 2**20


def glucose_readings_32mb() -> bytes:
    """399,000 valid readings, 5 minutes apart (almost the 400,000 a file may hold), padded with
    a note to 32 MB; one note is a banana emoji, so that the text as one Python string would
    take 4 bytes a character (128 MB)."""
    start = datetime(2020, 1, 1)
    rows = [f"{start + timedelta(minutes=5 * i):%Y-%m-%dT%H:%M:%S},{80 + i % 150},mg/dL,cgm,"
            for i in range(399_000)]
    width = (GLUCOSE_LIMIT - 100) // len(rows)
    rows[0] += "\U0001F34C"
    return ("timestamp,value,unit,kind,note\n" + "".join(row.ljust(width - 1, "x") + "\n" for row in rows)).encode()


# The red team's files (32 MB of rows that are not readings) and one of real readings.
GLUCOSE_FILES = {
    "readings.csv": (glucose_readings_32mb, 200),
    "zeros.json": (lambda: ("[" + ",".join(["0"] * (GLUCOSE_LIMIT // 2 - 1)) + "]").encode(), 422),
    "letters.csv": (lambda: ("timestamp,value,unit\n" + "a\n" * ((GLUCOSE_LIMIT - 21) // 2)).encode(), 422),
}


@pytest.mark.parametrize("name", GLUCOSE_FILES)
def test_a_32_mb_glucose_import_costs_the_server_under_100_mb(server, name):
    """The red team's 32 MB import of refused rows took the server from 340 to 2,990 MB, and
    390,000 real readings took 255 MB: the body is written to a file as it arrives and read a
    line (or a JSON entry) at a time, its rows kept as columns and stored in chunks, so the
    server's peak RSS (VmHWM, reset before the upload) stays under 100 MB above idle."""
    url, process = server
    make, status = GLUCOSE_FILES[name]
    data = make()
    assert len(data) <= GLUCOSE_LIMIT
    warm = httpx.post(f"{url}/api/glucose/import?tz=UTC", content=b"timestamp,value,unit\n2019-06-01T08:00:00,100,mg/dL\n",
                      timeout=60)
    assert warm.status_code == 200, warm.text
    idle = rss_kb(process.pid)
    Path(f"/proc/{process.pid}/clear_refs").write_text("5")  # VmHWM starts again from the RSS now
    answer = httpx.post(f"{url}/api/glucose/import?tz=UTC", content=data, timeout=600)
    growth = peak_rss_kb(process.pid) - idle
    print(f"{name}: peak RSS {growth / 1000:.0f} MB above idle")
    assert growth < 100_000
    assert answer.status_code == status, answer.text[:300]
    if status == 200:
        assert answer.json()["added"] == 399_000


def test_a_60_mp_progressive_jpeg_is_refused_within_the_64_mb_budget(server, coffee_image):
    """The red team's 60 MP progressive JPEG raised the server's peak RSS by 173 MB (its
    coefficients are held at full size whatever scale it is decoded to): it is refused from its
    header, the server's peak RSS (VmHWM, reset before the upload) under 64 MB above idle."""
    from image_support import large_jpeg

    url, process = server
    photo = large_jpeg(progressive=True)
    assert httpx.post(f"{url}/api/analyze", files={"file": ("cup.jpg", jpeg_bytes(coffee_image))},
                      timeout=120).status_code == 200  # warm
    idle = rss_kb(process.pid)
    Path(f"/proc/{process.pid}/clear_refs").write_text("5")
    refused = httpx.post(f"{url}/api/analyze", files={"file": ("progressive.jpg", photo)}, timeout=120)
    growth = peak_rss_kb(process.pid) - idle
    print(f"60 MP progressive JPEG ({len(photo) / 1e6:.1f} MB): peak RSS {growth / 1000:.0f} MB above idle")
    assert refused.status_code == 400 and "baseline JPEG" in refused.json()["error"]
    assert growth < 64_000
