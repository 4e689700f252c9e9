"""Eval rows about claims and confidence: does the grader find wrong answers, and does its
confidence know when it is unsure."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from .evaldata import EvalItem
from .records import Grade

WRONG_CASES = {"wrong", "inverted"}  # in-domain cases whose key claim is wrong
RIGHT_CASES = {"complete", "partial", "terse", "spoken", "stt", "limited", "correct_own_words"}


def _pr(pred: list[bool], gold: list[bool]) -> dict[str, float]:
    p, g = np.asarray(pred, dtype=bool), np.asarray(gold, dtype=bool)
    tp = float((p & g).sum())
    return {
        "n": len(pred),
        "positives": int(g.sum()),
        "precision": tp / max(1.0, float(p.sum())),
        "recall": tp / max(1.0, float(g.sum())),
    }


def contradiction_metrics(items: list[EvalItem], grades: list[Grade]) -> dict[str, Any]:
    """Precision and recall of 'the answer makes a wrong claim' (a contradicted key point or a
    stated misconception), against the labels each dataset has: SciEntsBank's contradictory
    class per test part; the in-domain confidently-wrong and inverted cases."""
    out: dict[str, Any] = {}
    said = [bool(g.wrong_claims) for g in grades]
    if items and items[0].label_3way in {"correct", "contradictory", "incorrect"}:
        for subset in sorted({i.subset for i in items}):
            sel = [n for n, i in enumerate(items) if i.subset == subset]
            gold = [items[n].label_3way == "contradictory" for n in sel]
            out[subset] = _pr([said[n] for n in sel], gold)
            out[subset]["confusion"] = confusion(
                [items[n].label_3way or "" for n in sel], [verdict_label(grades[n]) for n in sel]
            )
    cases = [i.tags[0] if i.tags else "" for i in items]
    if any(c in WRONG_CASES for c in cases):
        sel = [n for n, c in enumerate(cases) if c in WRONG_CASES | RIGHT_CASES]
        out["indomain"] = _pr([said[n] for n in sel], [cases[n] in WRONG_CASES for n in sel])
        wrong = [n for n in sel if cases[n] in WRONG_CASES]
        out["indomain"]["wrong_scored_at_most_1"] = float(
            np.mean([grades[n].score <= 1 for n in wrong])
        )
        out["indomain"]["wrong_listed"] = float(np.mean([said[n] for n in wrong]))
        terse = [n for n, c in enumerate(cases) if c == "terse"]
        if terse:
            out["indomain"]["terse_within_1"] = float(
                np.mean([abs(grades[n].score - items[n].score) <= 1 for n in terse])
            )
    return out


def verdict_label(g: Grade) -> str:
    """The grade as a 3-way label from its verdicts: a wrong claim makes it contradictory;
    otherwise correct when most weighted key points are covered."""
    if g.wrong_claims:
        return "contradictory"
    if g.claims:
        weights = {"core": 2.0, "supporting": 1.0}
        total = sum(weights[c.weight] for c in g.claims)
        got = sum(weights[c.weight] for c in g.claims if c.verdict == "covered")
        return "correct" if total and got / total >= 0.5 else "incorrect"
    return "correct" if g.score >= 4 else "incorrect"


def confusion(gold: list[str], pred: list[str]) -> dict[str, dict[str, int]]:
    counts = Counter(zip(gold, pred, strict=True))
    labels = sorted(set(gold) | set(pred))
    return {g: {p: counts[(g, p)] for p in labels} for g in labels}


def confidence_split(items: list[EvalItem], grades: list[Grade]) -> dict[str, Any]:
    """Mean absolute error of the least-confident fifth of the grades against the rest: a
    confidence that means something puts the larger errors in that fifth."""
    if len(grades) < 10:
        return {}
    conf = np.asarray([g.confidence for g in grades])
    err = np.abs(np.asarray([g.score for g in grades]) - np.asarray([i.score for i in items]))
    order = np.argsort(conf, kind="stable")
    cut = len(order) // 5
    low, rest = order[:cut], order[cut:]
    return {
        "least_confident_fifth": {"n": int(cut), "mae": float(err[low].mean())},
        "rest": {"n": len(rest), "mae": float(err[rest].mean())},
        "confidence_cut": float(conf[order[cut]]),
    }


def report_lines(m: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    c = m.get("contradictions") or {}
    if c:
        lines += [
            "",
            "Wrong claims found (a contradicted key point or a stated misconception):",
            "",
            "| part | n | wrong answers | precision | recall |",
            "| --- | --- | --- | --- | --- |",
        ]
        for part, r in c.items():
            lines.append(
                f"| {part} | {r['n']} | {r['positives']} | {r['precision']:.3f} | "
                f"{r['recall']:.3f} |"
            )
        if "indomain" in c:
            r = c["indomain"]
            lines += [
                "",
                f"In-domain wrong and inverted answers scored ≤ 1: "
                f"{r['wrong_scored_at_most_1']:.3f}; wrong claim listed: {r['wrong_listed']:.3f}"
                + (
                    f"; terse answers within 1: {r['terse_within_1']:.3f}"
                    if "terse_within_1" in r
                    else ""
                ),
            ]
        for part, r in c.items():
            if "confusion" in r:
                labels = list(r["confusion"])
                lines += [
                    "",
                    f"{part}: human 3-way label (rows) vs the grade's verdicts (columns)",
                    "",
                    "| human \\ grader | " + " | ".join(labels) + " |",
                    "| --- |" + " --- |" * len(labels),
                ]
                lines += [
                    f"| {g} | " + " | ".join(str(r["confusion"][g][p]) for p in labels) + " |"
                    for g in labels
                ]
    s = m.get("confidence") or {}
    if s:
        lo, rest = s["least_confident_fifth"], s["rest"]
        lines += [
            "",
            f"Confidence: the least-confident fifth (n {lo['n']}, confidence < "
            f"{s['confidence_cut']:.2f}) has MAE {lo['mae']:.3f}; the rest (n {rest['n']}) "
            f"{rest['mae']:.3f}.",
        ]
    return lines
