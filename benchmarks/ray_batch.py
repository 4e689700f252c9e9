"""The default batch engine against Ray: `python -m benchmarks.ray_batch [--answers 5000]
[--workers 1,2] [--repeats 1]`.

The same file of answers (Mohler report rows with their reference answers, cycled, each made
distinct so that no cache keyed by answer text helps a later run) is graded with the offline
grader by `interviewer grade` (default engine) and by `interviewer grade --engine ray` with 1
and 2 grading actors on a local Ray started by the command. Wall time per run includes what a
user waits for: Ray's start and each actor loading the embedder and the claim checker.
Prints the medians and the ratio to the default engine; writes out/bench_ray.json.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks import report
from interviewer.cli import main as cli
from interviewer.config import Settings
from interviewer.evaldata import load


def answers_file(folder: Path, n: int) -> Path:
    rows = [i for i in load("mohler", Settings(data_dir=folder)) if i.part != "dev"]
    path = folder / "answers.jsonl"
    with path.open("w", encoding="utf-8") as f:
        for k in range(n):
            item = rows[k % len(rows)]
            row = {
                "id": f"a{k}",
                "question": item.question,
                "answer": f"{item.answer} ({k // len(rows)})" if k >= len(rows) else item.answer,
                "reference_answer": item.reference,
            }
            f.write(json.dumps(row) + "\n")
    return path


def timed(folder: Path, src: Path, *extra: str) -> float:
    out = folder / f"out-{time.monotonic_ns()}.jsonl"
    args = ["--data-dir", str(folder), "grade", str(src), "-o", str(out), "-q", *extra]
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        rc = cli(args)
    seconds = time.perf_counter() - start
    if rc != 0:
        raise SystemExit(f"grading failed ({' '.join(extra) or 'default engine'}): exit {rc}")
    return seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--answers", type=int, default=5000)
    ap.add_argument("--workers", default="1,2", help="grading actors per Ray run")
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        src = answers_file(folder, args.answers)
        runs: dict[str, list[float]] = {"default engine": []}
        for _ in range(args.repeats):
            runs["default engine"].append(timed(folder, src))
            for w in (int(x) for x in args.workers.split(",")):
                name = f"--engine ray, {w} actor{'s' if w > 1 else ''}"
                runs.setdefault(name, []).append(
                    timed(folder, src, "--engine", "ray", "--concurrency", str(w))
                )
    base = statistics.median(runs["default engine"])
    rows = []
    for name, seconds in runs.items():
        s = statistics.median(seconds)
        rows.append(
            (
                f"grade {args.answers} answers, {name}",
                f"{s:.1f} s",
                f"{args.answers / s:.0f} ans/s; {base / s:.2f}x the default engine; "
                f"{len(seconds)} run(s)",
            )
        )
    meta = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "python": platform.python_version(),
        "answers": args.answers,
        "runs": runs,
    }
    report("bench_ray", "Batch grading: default engine vs Ray", rows, meta, "median")


if __name__ == "__main__":
    main()
