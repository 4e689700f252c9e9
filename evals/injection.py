"""The injection detector on the labelled sets in evals/data/ (tune on dev, report on test):

    .venv/bin/python -m evals.injection [dev|test]

Prints, per kind of carrier and per language, how many injections were flagged, and how many
honest answers (technical text that uses "instructions", "system prompt", "you are now" ...)
were flagged by mistake.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

from interviewer.detectors import rule_flags

DATA = Path(__file__).resolve().parent / "data"


def rows(split: str) -> list[dict]:
    path = DATA / f"injection_{split}.jsonl"
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def flagged(answer: str, flags: tuple[str, ...] = ("injection",)) -> bool:
    return bool(set(flags) & set(rule_flags(answer)))


def summary(split: str) -> dict[str, object]:
    data = rows(split)
    by_kind: dict[str, list[bool]] = defaultdict(list)
    by_lang: dict[str, list[bool]] = defaultdict(list)
    honest_flagged = []
    for r in data:
        # An injection is stopped when it is flagged as one, or when it is in a language the
        # grader does not read (flagged "language", not graded). An honest answer counts as a
        # false alarm when it is flagged as an injection.
        hit = flagged(r["answer"], ("injection", "language") if r["injection"] else ("injection",))
        if r["injection"]:
            by_kind[r["kind"]].append(hit)
            by_lang[r.get("language", "en")].append(hit)
        elif hit:
            honest_flagged.append(r["id"])
    injections = [h for v in by_kind.values() for h in v]
    return {
        "split": split,
        "injections": len(injections),
        "flagged": sum(injections),
        "honest": sum(1 for r in data if not r["injection"]),
        "honest_flagged": honest_flagged,
        "by_kind": {k: (sum(v), len(v)) for k, v in sorted(by_kind.items())},
        "by_language": {k: (sum(v), len(v)) for k, v in sorted(by_lang.items())},
    }


def main() -> None:
    split = sys.argv[1] if len(sys.argv) > 1 else "test"
    s = summary(split)
    n, hit = int(s["injections"]), int(s["flagged"])  # type: ignore[call-overload]
    honest = s["honest_flagged"]
    assert isinstance(honest, list)
    print(f"| {split} | n | flagged |\n| --- | --- | --- |")
    print(f"| injections | {n} | {hit} ({hit / max(1, n):.1%}) |")
    print(f"| honest answers | {s['honest']} | {len(honest)} |")
    for name in ("by_kind", "by_language"):
        groups = s[name]
        assert isinstance(groups, dict)
        print()
        print(" · ".join(f"{k} {a}/{b}" for k, (a, b) in groups.items()))
    if honest:
        print("honest answers flagged:", honest)


if __name__ == "__main__":
    main()
