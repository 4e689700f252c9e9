"""Property: whatever rows a file holds and wherever a kill cuts the output, `--resume` leaves
every valid row graded exactly once, with the grade an uninterrupted run gives, and the output
valid JSONL. A SIGKILL can only leave a prefix of what was written (rows are appended and
flushed one by one), so the kill is simulated by cutting the full output at any byte."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interviewer.cli import main

QUESTION = "What is the difference between HBM and GDDR?"
REF = "HBM is 3D-stacked memory with massive bandwidth. GDDR has lower bandwidth and costs less."
ANSWERS = (
    "HBM is stacked on the package and much faster; GDDR is cheaper.",
    "GDDR has higher bandwidth than HBM.",
    "I don't know.",
    "HBM sits beside the die with a very wide bus, so it reaches over 3 TB/s.",
)
HOSTILE = {
    "torn json": '{"id": "t", "question": ',
    "lone surrogate": '{"id": "s", "question": "Q?", "answer": "\\ud800"}',
    "no answer": '{"id": "m", "question": "Q?"}',
    "NaN": '{"id": "n", "question": "Q?", "answer": "x", "score": NaN}',
    "not an object": "[1, 2, 3]",
}
KINDS = st.one_of(st.integers(0, len(ANSWERS) - 1), st.sampled_from([*HOSTILE, "repeated id"]))


def build(kinds: list[int | str]) -> tuple[str, list[str]]:
    """The input file's text and the ids of its valid rows; hostile rows get unique ids."""
    lines, valid = [], []
    for n, kind in enumerate(kinds):
        if isinstance(kind, int):
            valid.append(f"r{n}")
            row = {"id": f"r{n}", "question": QUESTION, "answer": ANSWERS[kind]}
            lines.append(json.dumps(row | {"reference_answer": REF}))
        elif kind == "repeated id" and valid:
            lines.append(json.dumps({"id": valid[0], "question": QUESTION, "answer": "again"}))
        elif kind != "repeated id":
            lines.append(HOSTILE[kind].replace('"id": "', f'"id": "{kind[0]}{n}-', 1))
    return "".join(line + "\n" for line in lines), valid


def grade(data: Path, src: Path, out: Path, *extra: str) -> int:
    return main(["--data-dir", str(data), "grade", str(src), "-o", str(out), "-q", *extra])


def graded(out: Path) -> dict[str, int]:
    """id -> score; fails on a line that is not strict JSON or an id written twice."""
    scores: dict[str, int] = {}
    for line in out.read_bytes().decode("utf-8").split("\n"):
        if line:
            row = json.loads(line, parse_constant=lambda c: 1 / 0)  # no NaN/Infinity
            assert row["id"] not in scores, f"{row['id']} written twice"
            scores[row["id"]] = row["score"]
    return scores


@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,  # the same examples in every CI run
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(kinds=st.lists(KINDS, min_size=1, max_size=12), cut=st.floats(0.0, 1.0))
def test_a_killed_run_resumes_every_valid_row_exactly_once(tmp_path, kinds, cut):
    text, valid = build(kinds)
    work = Path(tempfile.mkdtemp(dir=tmp_path))  # one folder per example
    src = work / "in.jsonl"
    src.write_text(text, "utf-8")
    full = work / "full.jsonl"
    hostile = len(text.splitlines()) - len(valid)
    assert grade(work / "d", src, full) == (1 if hostile else 0)
    expected = graded(full)
    assert sorted(expected) == sorted(valid)

    killed = work / "killed.jsonl"
    whole = full.read_bytes()
    killed.write_bytes(whole[: int(cut * len(whole))])
    assert grade(work / "d", src, killed, "--resume") == (1 if hostile else 0)
    assert graded(killed) == expected
    errors = Path(str(killed) + ".errors.jsonl").read_text("utf-8").splitlines()
    assert len(errors) == hostile  # every bad row reported once, with its line
