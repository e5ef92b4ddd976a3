"""Latency and throughput of POST /api/analyze.

    python -m benchmarks.bench_app                 # starts `python -m app` itself
    python -m benchmarks.bench_app --url http://127.0.0.1:7860 [--user U --password P]

1. One client, one photo: --requests sequential calls after --warmup; p50/p95/mean.
2. --clients concurrent clients for --seconds: requests/s, errors, p50/p95 under load. They are
   one user, who may have 8 analyses at once (2 running, 6 waiting for their turn); a ninth is
   answered 429 at once, so the default is 8.
The photo is scikit-image's espresso sample (or --photo FILE). Without --url the server runs
in a child process with the current FOODTAG_HOME, so the default model is exported there
once (about a minute the first time) and reused afterwards.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from benchmarks.common import ROOT, free_port, percentile


def photo_bytes(path: Path | None) -> bytes:
    if path:
        return path.read_bytes()
    from PIL import Image
    from skimage import data

    out = io.BytesIO()
    Image.fromarray(data.coffee()).save(out, format="JPEG", quality=90)
    return out.getvalue()


def start_server() -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited: {proc.stderr.read()[-2000:]}")
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    proc.terminate()
    raise SystemExit("server did not become healthy within 300 s")


def call(client: httpx.Client, url: str, photo: bytes) -> tuple[float, bool]:
    start = time.perf_counter()
    try:
        response = client.post(f"{url}/api/analyze", files={"file": ("coffee.jpg", photo, "image/jpeg")}, timeout=60)
        ok = response.status_code == 200
    except httpx.HTTPError:
        ok = False
    return (time.perf_counter() - start) * 1000, ok


def sequential(url: str, photo: bytes, warmup: int, requests: int, auth) -> dict:
    with httpx.Client(auth=auth) as client:
        for _ in range(warmup):
            call(client, url, photo)
        results = [call(client, url, photo) for _ in range(requests)]
    latencies = [ms for ms, ok in results if ok]
    return {"requests": requests, "errors": sum(not ok for _, ok in results), "latencies": latencies}


def concurrent(url: str, photo: bytes, clients: int, seconds: float, auth) -> dict:
    stop = time.monotonic() + seconds
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()

    def worker():
        with httpx.Client(auth=auth) as client:
            while time.monotonic() < stop:
                ms, ok = call(client, url, photo)
                with lock:
                    if ok:
                        latencies.append(ms)
                    else:
                        errors[0] += 1

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    began = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - began
    return {"requests": len(latencies) + errors[0], "errors": errors[0], "latencies": latencies, "elapsed": elapsed}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="a running app; default: start one")
    parser.add_argument("--photo", type=Path)
    parser.add_argument("--user")
    parser.add_argument("--password", default=os.environ.get("FOODTAG_BENCH_PASSWORD"))
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args(argv)

    photo = photo_bytes(args.photo)
    auth = (args.user, args.password) if args.user else None
    proc = None
    url = args.url
    if not url:
        proc, url = start_server()
    try:
        health = httpx.get(f"{url}/healthz", timeout=10).json()
        seq = sequential(url, photo, args.warmup, args.requests, auth)
        conc = concurrent(url, photo, args.clients, args.seconds, auth)
    finally:
        if proc:
            proc.terminate()
            proc.wait(timeout=30)

    model = health.get("model", {})
    print(f"model: {model.get('name')} ({model.get('classes')} classes), photo {len(photo) / 1024:.0f} kB, "
          f"{os.cpu_count()} CPUs")
    print(f"| {'scenario':<34} | {'requests':>8} | {'errors':>6} | {'req/s':>6} | {'p50 ms':>7} | {'p95 ms':>7} | {'mean ms':>7} |")
    print("|" + "|".join("-" * (w + 1) + ":" if i else "-" * (w + 2) for i, w in enumerate((34, 8, 6, 6, 7, 7, 7))) + "|")
    rows = [
        ("1 client, sequential", seq, None),
        (f"{args.clients} clients, {args.seconds:.0f} s", conc, conc["elapsed"]),
    ]
    for name, result, elapsed in rows:
        lat = result["latencies"]
        rate = f"{result['requests'] / elapsed:.1f}" if elapsed else f"{len(lat) / (sum(lat) / 1000):.1f}" if lat else "-"
        mean = statistics.fmean(lat) if lat else float("nan")
        print(f"| {name:<34} | {result['requests']:>8} | {result['errors']:>6} | {rate:>6} | "
              f"{percentile(lat, 50):>7.1f} | {percentile(lat, 95):>7.1f} | {mean:>7.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
