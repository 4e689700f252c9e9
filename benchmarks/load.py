"""Concurrent candidates against the running app: `python -m benchmarks.load [--url URL]
[--candidates 1,10,50] [--turns 3] [--think S]`.

Each simulated candidate is one HTTP client of the app (gradio_client, the same endpoints the
page calls: load, start, answer, and the refresh after each answer), running a deep-dive
interview of `--turns` answers, each sent `--think` seconds (on average) after the last. A
turn's latency is what a candidate waits for: the graded answer and the page's refresh after
it. Prints p50/p95 turn latency, throughput and errors per N. Without --url it builds an index
in a temp dir and starts the app there (offline grader). Writes out/bench_load.json.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks import report

ANSWERS = (
    "HBM is stacked DRAM on the package with a very wide bus, several TB/s on an H100; GDDR is "
    "cheaper and narrower, so consumer cards use it.",
    "Occupancy is the ratio of active warps to the maximum an SM supports; higher hides latency "
    "but is not always better, since registers and shared memory per thread matter too.",
    "I would check whether the kernel is memory-bound with the roofline model: arithmetic "
    "intensity against the ridge point, then use Nsight Compute to see bandwidth use.",
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def local_app() -> Iterator[str]:
    """A fresh data dir with the built-in corpus indexed, and the app serving it."""
    exe = Path(sys.executable).with_name("interviewer")
    with tempfile.TemporaryDirectory(prefix="bench-load-") as data:
        env = os.environ | {"INTERVIEWER_DATA_DIR": data, "INTERVIEWER_GRADER": "offline"}
        subprocess.run([str(exe), "ingest", "--quiet"], env=env, check=True)
        port = _free_port()
        app = subprocess.Popen(
            [str(exe), "app", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = f"http://127.0.0.1:{port}/"
        try:
            for _ in range(240):
                try:
                    urllib.request.urlopen(url, timeout=2)
                    break
                except OSError:
                    time.sleep(0.5)
            else:
                raise RuntimeError("the app did not start in 120 s")
            yield url
        finally:
            app.terminate()
            app.wait(30)


def candidate(
    url: str, n: int, turns: int, think: float, latencies: list[float], errors: list[str]
) -> None:
    from gradio_client import Client

    pause = random.Random(n)

    try:
        client = Client(url, verbose=False)
        client.predict("", "", api_name="/load")  # the page's load: this client's browser key
        client.predict([], "easy", "deep dive", turns, api_name="/start")
    except Exception as e:  # a benchmark counts every failure
        errors.append(f"start: {type(e).__name__}: {e}"[:200])
        return
    for t in range(turns):
        time.sleep(think * pause.uniform(0.5, 1.5))  # reading the question, typing an answer
        began = time.perf_counter()
        try:
            client.predict(ANSWERS[(n + t) % len(ANSWERS)], api_name="/answer")
            client.predict(api_name="/after_answer")
        except Exception as e:
            errors.append(f"answer: {type(e).__name__}: {e}"[:200])
            continue
        latencies.append(time.perf_counter() - began)


def run(url: str, n: int, turns: int, think: float = 0.0) -> tuple[list[float], list[str], float]:
    latencies: list[float] = []
    errors: list[str] = []
    threads = [
        threading.Thread(target=candidate, args=(url, i, turns, think, latencies, errors))
        for i in range(n)
    ]
    began = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return latencies, errors, time.perf_counter() - began


def _pct(xs: list[float], q: float) -> float:
    return statistics.quantiles(xs, n=100)[int(q) - 1] if len(xs) > 1 else xs[0]


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.load", description=__doc__)
    ap.add_argument("--url", help="a running app (default: start one here)")
    ap.add_argument("--candidates", default="1,10,50", help="comma-separated N")
    ap.add_argument("--turns", type=int, default=3, help="answers per candidate")
    ap.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="mean seconds a candidate takes before each answer (0: back to back, the worst case)",
    )
    args = ap.parse_args()
    sizes = [int(x) for x in args.candidates.split(",")]
    rows = []
    with local_app() if args.url is None else _given(args.url) as url:
        run(url, 1, 1)  # warm: the first grade loads the models
        for n in sizes:
            lat, errs, wall = run(url, n, args.turns, args.think)
            if lat:
                rows.append(
                    (
                        f"{n} candidates: turn latency p50 / p95",
                        f"{statistics.median(lat):.2f} / {_pct(lat, 95):.2f} s",
                        f"{len(lat)} turns in {wall:.0f} s ({len(lat) / wall:.2f} turns/s); "
                        f"{len(errs)} errors",
                    )
                )
            else:
                rows.append((f"{n} candidates", "no turn completed", f"{len(errs)} errors"))
            for e in sorted(set(errs))[:3]:
                print(f"  error ({n} candidates): {e}", file=sys.stderr)
    meta = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "turns": args.turns,
        "think_s": args.think,
    }
    report(
        "bench_load",
        f"Concurrent candidates (offline grader, one app process, {args.think:g} s to answer)",
        rows,
        meta,
        "value",
    )


@contextmanager
def _given(url: str) -> Iterator[str]:
    yield url


if __name__ == "__main__":
    main()
