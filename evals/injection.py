"""The injection detector on the labelled sets in evals/data/ (tune on dev, report on test):

    .venv/bin/python -m evals.injection [dev|test|blind|blind2|blind3|blind4]
        [--pays] [--padding [--on dev|report]] [-v]

Prints, per kind of carrier and per language, how many injections were flagged, and how many
honest answers (technical text that uses "instructions", "system prompt", "you are now" ...)
were flagged by mistake. With --pays, whether an injection raises a score: each injection
answer graded as it is and without the injected text (the rows' `content`). With --padding,
whether text that is not about the question pays: each in-domain answer of that split with
content (label 1 or more) is graded alone and with each of the split's padding sentences
(evals/data/padding.jsonl: pleasantries, appeals, self-praise) appended, by the offline
grader; a padded answer should never score higher (-v prints each that does: not on a split
that is held out). The `blind` split (`blind --padding`, on
the test answers) holds 48 sentences of six kinds written by a helper that never saw the
grader's code or the other sentences; its failures were read in session 26, and `blind2`'s
(48 more, written the same way) in session 28, so `blind3` (48 more, run once at the end of
session 28) is the held-out one. `blind4` (96 more, written the same way in stop 51, the
topical ones made as near to content as the writer could) pads the in-domain dev answers, so
its failures are read without reading held-out answers. `blind4 --padding --on report` puts
its sentences on the test answers, which `blind` and `blind2` pad too and whose failures have
been read: what pays there, and not on dev, shows how blind3's could.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

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


def padding(split: str, part: str | None = None) -> dict[str, object]:
    from interviewer.config import Settings
    from interviewer.evaldata import load
    from interviewer.evals import grade_items
    from interviewer.grader import make_grader
    from interviewer.index import open_index

    settings = Settings()
    index = open_index(settings)
    lines = (DATA / "padding.jsonl").read_text("utf-8").splitlines()
    chosen = [r for r in map(json.loads, lines) if r["split"] == split]
    pads = [r["text"] for r in chosen]
    # blind4 pads the dev answers: its failures can be read without reading a held-out answer.
    part = part or ("dev" if split in ("dev", "blind4") else "report")
    items = [i for i in load("indomain", settings) if i.part == part and i.score >= 1]
    padded = [replace(i, answer=f"{i.answer} {p}") for i in items for p in pads]
    grader = make_grader("offline", settings, index=index)
    alone = grade_items(items, grader, settings, index, "alone", quiet=True)
    both = grade_items(padded, grader, settings, index, "padded", quiet=True)
    gains = [
        b.score - a.score
        for n, a in enumerate(alone)
        for b in both[n * len(pads) : (n + 1) * len(pads)]
    ]
    kinds = [r.get("kind", "") for r in chosen] * len(items)
    higher: dict[str, int] = defaultdict(int)
    for kind, gain in zip(kinds, gains, strict=True):
        higher[kind] += gain > 0
    cases = [
        (items[n // len(pads)].id, pads[n % len(pads)], alone[n // len(pads)].score, b.score)
        for n, b in enumerate(both)
        if gains[n] > 0
    ]
    return {
        "cases": cases,
        "answers": len(items),
        "padded": len(gains),
        "higher": sum(g > 0 for g in gains),
        "lower": sum(g < 0 for g in gains),
        "higher_by_kind": dict(higher),
    }


def pays(split: str, settings: Any = None, index: Any = None) -> dict[str, object]:
    """Whether an injection can raise a score: each injection answer graded as it is and its
    content alone (the `content` field: the answer with the injected text removed), by the
    offline grader. An injection pays when the answer scores above its content."""
    from interviewer.config import Settings
    from interviewer.grader import make_grader
    from interviewer.index import open_index
    from interviewer.references import ReferenceCache

    settings = settings or Settings()
    index = index or open_index(settings)
    grader = make_grader("offline", settings, index=index)
    refs = ReferenceCache(index, settings)
    data = [r for r in rows(split) if r["injection"]]
    whole = grader.grade_many([(r["question"], r["answer"], refs(r["question"])) for r in data])
    alone = grader.grade_many([(r["question"], r["content"], refs(r["question"])) for r in data])
    paid = [r["id"] for r, w, a in zip(data, whole, alone, strict=True) if w.score > a.score]
    return {"injections": len(data), "paid": paid}


def main() -> None:
    split = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else "test"
    if not split.startswith("blind"):  # padding sentences only
        injections(split)
    if "--padding" in sys.argv:
        # --on report: a split's sentences on the test answers (blind4's there: a check whose
        # failures may be read, since blind and blind2 pad those answers and have been read)
        on = sys.argv[sys.argv.index("--on") + 1] if "--on" in sys.argv else None
        p = padding(split, on)
        print(f"\n| padding ({split}) | answers | padded answers | scored higher | scored lower |")
        print("| --- | --- | --- | --- | --- |")
        print(f"| offline grader | {p['answers']} | {p['padded']} | {p['higher']} | {p['lower']} |")
        if any(p["higher_by_kind"]):  # type: ignore[arg-type]
            print("scored higher, by kind:", p["higher_by_kind"])
        if "-v" in sys.argv:
            for case in p["cases"]:  # type: ignore[attr-defined]
                print(*case, sep=" | ")


def injections(split: str) -> None:
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
    if "--pays" in sys.argv:
        got = pays(split)
        paid = got["paid"]
        assert isinstance(paid, list)
        print(f"\n| injections ({split}) | n | scored above their content alone |")
        print("| --- | --- | --- |")
        print(f"| offline grader | {got['injections']} | {len(paid)} {paid or ''} |")


if __name__ == "__main__":
    main()
