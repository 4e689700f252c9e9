"""`interviewer eval`: grader accuracy against human grades, written as a report."""

from __future__ import annotations

import json
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from .claim_evals import confidence_split, contradiction_metrics, report_lines
from .config import Settings
from .errors import InputError, InterviewerError
from .evaldata import EvalItem, load, part
from .grader import CHUNK, Grader, grade_isolated, make_grader
from .index import Index
from .metrics import bootstrap_ci, f1_scores, fit_threshold, regression
from .records import Grade
from .references import ReferenceCache


def grade_items(
    items: list[EvalItem],
    grader: Grader,
    settings: Settings,
    index: Index | None,
    desc: str,
    quiet: bool = False,
) -> list[Grade]:
    """Every item's grade, in chunks as batch grading does; an item that cannot be graded
    stops the eval (its figures would be wrong without it)."""
    from tqdm import tqdm

    out: list[Grade] = []
    references = ReferenceCache(index, settings)
    with tqdm(total=len(items), desc=desc, unit="answer", file=sys.stderr, disable=quiet) as bar:
        for start in range(0, len(items), CHUNK):
            batch = items[start : start + CHUNK]
            triples = [
                (i.question, i.answer, references(i.question, i.reference, i.question_id))
                for i in batch
            ]
            for item, g in zip(batch, grade_isolated(grader, triples), strict=True):
                if isinstance(g, Exception):
                    raise InterviewerError(f"{item.id}: could not be graded: {g}") from g
                out.append(g)
            bar.update(len(batch))
    return out


def evaluate(
    items: list[EvalItem],
    grades: list[Grade],
    dev: tuple[list[EvalItem], list[Grade]] | None,
    baseline_mean: float,
) -> dict[str, Any]:
    pred = [float(g.score) for g in grades]
    gold = [i.score for i in items]
    groups = [i.group for i in items]
    m: dict[str, Any] = {"grader": regression(pred, gold)}
    m["grader"]["pearson_ci95"] = bootstrap_ci(pred, gold, groups, "pearson")
    m["grader"]["rmse_ci95"] = bootstrap_ci(pred, gold, groups, "rmse")
    expected = [
        g.expected_score if g.expected_score is not None else float(g.score) for g in grades
    ]
    m["grader_unrounded"] = regression(expected, gold)
    scored = [n for n, g in enumerate(grades) if g.provenance.decided_by == "model"]
    if scored and len(scored) < len(grades):  # rules settle the easy cases; show the rest too
        m["grader_model_scored_only"] = regression(
            [pred[n] for n in scored], [gold[n] for n in scored]
        )
    m["baseline_constant_mean"] = regression([baseline_mean] * len(gold), gold)
    m["baseline_constant_mean"]["value"] = baseline_mean
    humans = [i.human_pair for i in items if i.human_pair is not None]
    if humans:  # computed the same way as the grader's figure: one human against the other
        m["human_vs_human"] = regression([a for a, _ in humans], [b for _, b in humans])
    if items and items[0].label_2way is not None and dev:
        dev_items, dev_grades = dev
        t2 = fit_threshold(
            [g.score for g in dev_grades], [i.label_2way or "" for i in dev_items], "correct"
        )
        m["threshold_2way_fitted_on_dev"] = t2
        for subset in sorted({i.subset for i in items}):
            sel = [n for n, i in enumerate(items) if i.subset == subset]
            p2 = ["correct" if grades[n].score >= t2 else "incorrect" for n in sel]
            g2 = [items[n].label_2way or "" for n in sel]
            # A wrong claim found makes it contradictory; else the 2-way threshold decides.
            p3 = [
                "contradictory"
                if grades[n].wrong_claims
                else "correct"
                if grades[n].score >= t2
                else "incorrect"
                for n in sel
            ]
            g3 = [items[n].label_3way or "" for n in sel]
            base = ["incorrect"] * len(sel)  # majority class in every part
            m[f"{subset}_2way"] = f1_scores(p2, g2) | {"baseline_majority": f1_scores(base, g2)}
            m[f"{subset}_3way"] = f1_scores(p3, g3) | {"baseline_majority": f1_scores(base, g3)}
    m["contradictions"] = contradiction_metrics(items, grades)
    m["confidence"] = confidence_split(items, grades)
    by_tag: dict[str, list[int]] = defaultdict(list)
    for n, i in enumerate(items):
        for t in i.tags:
            by_tag[t].append(n)
    m["by_tag"] = {
        t: regression([pred[n] for n in idx], [gold[n] for n in idx])
        for t, idx in sorted(by_tag.items())
        if len(idx) >= 5
    }
    by_q: dict[str, list[int]] = defaultdict(list)
    for n, i in enumerate(items):
        by_q[i.group].append(n)
    m["by_question"] = {
        q: {
            "n": len(idx),
            "mean_grader": float(np.mean([pred[n] for n in idx])),
            "mean_human": float(np.mean([gold[n] for n in idx])),
            "mae": float(np.mean([abs(pred[n] - gold[n]) for n in idx])),
        }
        for q, idx in sorted(by_q.items())
    }
    return m


def plots(out: Path, items: list[EvalItem], grades: list[Grade], title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    gold = np.clip(np.rint([i.score for i in items]), 0, 5).astype(int)
    pred = np.array([g.score for g in grades])
    cm = np.zeros((6, 6), int)
    for h, p in zip(gold, pred, strict=True):
        cm[h, p] += 1
    fig, ax = plt.subplots(figsize=(5, 4.5))
    ax.imshow(cm, cmap="Blues")
    for (r, c), v in np.ndenumerate(cm):
        ax.text(c, r, str(v), ha="center", va="center", fontsize=8)
    ax.set(
        xlabel="grader score",
        ylabel="human score (rounded)",
        title=f"{title}: confusion",
        xticks=range(6),
        yticks=range(6),
    )
    fig.tight_layout()
    fig.savefig(out / "confusion.png", dpi=110)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(5, 4.5))
    jitter = np.random.default_rng(0).uniform(-0.15, 0.15, len(pred))
    ax.scatter([i.score for i in items], pred + jitter, s=6, alpha=0.4)
    ax.plot([0, 5], [0, 5], color="grey", lw=1)
    ax.set(xlabel="human score", ylabel="grader score (jittered)", title=f"{title}: scatter")
    fig.tight_layout()
    fig.savefig(out / "scatter.png", dpi=110)
    plt.close(fig)


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return "nan" if np.isnan(v) else f"{v:.3f}"
    if isinstance(v, tuple | list) and len(v) == 2:
        return f"[{_fmt(v[0])}, {_fmt(v[1])}]"
    return str(v)


def report_md(meta: dict[str, Any], m: dict[str, Any]) -> str:
    lines = [
        f"# Eval: {meta['dataset']} ({meta['split']}), grader {meta['grader']}",
        "",
        f"{meta['when']}; {meta['n']} answers; command: `{meta['command']}`",
        "",
        "| who | n | Pearson | 95% CI | Spearman | QWK | MAE | RMSE | exact | within 1 |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    rows = [
        ("grader (integer score)", m["grader"]),
        ("grader (unrounded estimate)", m["grader_unrounded"]),
        ("baseline: constant dev mean", m["baseline_constant_mean"]),
    ]
    if "grader_model_scored_only" in m:
        rows.insert(2, ("grader, rule-settled answers left out", m["grader_model_scored_only"]))
    if "human_vs_human" in m:
        rows.append(("human vs human (grader 1 vs grader 2)", m["human_vs_human"]))
    for name, r in rows:
        ci = _fmt(r.get("pearson_ci95", ""))
        lines.append(
            f"| {name} | {r['n']} | {_fmt(r['pearson'])} | {ci} | {_fmt(r['spearman'])}"
            f" | {_fmt(r['qwk'])} | {_fmt(r['mae'])} | {_fmt(r['rmse'])} | "
            f"{_fmt(r['exact'])} | {_fmt(r['within1'])} |"
        )
    f1_keys = [k for k in m if k.endswith(("_2way", "_3way"))]
    if f1_keys:
        lines += [
            "",
            f"Score→label threshold fitted on dev: {m['threshold_2way_fitted_on_dev']}",
            "",
            "| part | weighted F1 | macro F1 | accuracy | majority weighted F1 |",
            "| --- | --- | --- | --- | --- |",
        ]
        for k in f1_keys:
            r = m[k]
            lines.append(
                f"| {k} | {_fmt(r['weighted_f1'])} | {_fmt(r['macro_f1'])} | "
                f"{_fmt(r['accuracy'])} | {_fmt(r['baseline_majority']['weighted_f1'])} |"
            )
    if m["by_tag"]:
        lines += ["", "| tag | n | Pearson | QWK | MAE |", "| --- | --- | --- | --- | --- |"]
        lines += [
            f"| {t} | {r['n']} | {_fmt(r['pearson'])} | {_fmt(r['qwk'])} | {_fmt(r['mae'])} |"
            for t, r in m["by_tag"].items()
        ]
    lines += report_lines(m)
    if "stability" in m:
        s = m["stability"]
        lines += [
            "",
            f"Stability over {s['repeats']} repeats: mean per-item score spread "
            f"{_fmt(s['mean_range'])}, items with any change {_fmt(s['changed_fraction'])}.",
        ]
    lines += ["", "![confusion](confusion.png) ![scatter](scatter.png)", ""]
    return "\n".join(lines)


def run(
    settings: Settings,
    dataset: str,
    split: str,
    grader_kind: str,
    out: Path,
    index_or_none: Callable[[], Index | None],
    repeats: int = 1,
    command: str = "",
    quiet: bool = False,
) -> dict[str, Any]:
    """Grade one part of a dataset, write metrics, grades, plots and report.md to OUT."""
    items = load(dataset, settings)
    chosen = part(items, split)
    if not chosen:
        raise InputError(f"{dataset} has no rows in its {split} part")
    dev = part(items, "dev")
    # As `grade` does: rows without a reference (the in-domain set) are graded against the
    # bank, and rows with their own are checked against the bank's other questions (an answer
    # to another question is off-topic).
    index = index_or_none()
    grader = make_grader(grader_kind, settings, index=index)
    started = time.perf_counter()
    grades = grade_items(chosen, grader, settings, index, f"{dataset}/{split}", quiet)
    seconds = time.perf_counter() - started
    dev_pair = None
    if chosen and chosen[0].label_2way is not None and split != "dev":
        dev_pair = (dev, grade_items(dev, grader, settings, index, "dev (thresholds)", quiet))
    baseline = (
        float(np.mean([i.score for i in dev])) if dev else float(np.mean([i.score for i in chosen]))
    )
    m = evaluate(chosen, grades, dev_pair, baseline)
    if repeats > 1:
        runs = [grades] + [
            grade_items(chosen, grader, settings, index, f"repeat {k}", quiet)
            for k in range(2, repeats + 1)
        ]
        spread = np.array([[g.score for g in run] for run in runs])
        ranges = spread.max(axis=0) - spread.min(axis=0)
        m["stability"] = {
            "repeats": repeats,
            "mean_range": float(ranges.mean()),
            "changed_fraction": float((ranges > 0).mean()),
        }
    out.mkdir(parents=True, exist_ok=True)
    meta = {
        "dataset": dataset,
        "split": split,
        "grader": grader_kind,
        "n": len(chosen),
        "seconds": round(seconds, 1),
        "answers_per_s": round(len(chosen) / seconds, 1) if seconds else None,
        "when": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "command": command,
    }
    (out / "metrics.json").write_text(json.dumps(meta | {"metrics": m}, indent=1, default=str))
    with (out / "grades.jsonl").open("w") as f:
        for i, g in zip(chosen, grades, strict=True):
            f.write(json.dumps({"id": i.id, "human": i.score, "grade": g.to_dict()}) + "\n")
    if chosen:
        plots(out, chosen, grades, dataset)
    (out / "report.md").write_text(report_md(meta, m))
    return m


def headline(m: dict[str, Any]) -> str:
    """The figures a run prints: the grader's, and the constant-mean baseline's error."""
    r = m["grader"]
    return (
        f"n={r['n']} pearson={_fmt(r['pearson'])} "
        f"rmse={_fmt(r['rmse'])} qwk={_fmt(r['qwk'])} (unrounded pearson "
        f"{_fmt(m['grader_unrounded']['pearson'])}); baseline rmse "
        f"{_fmt(m['baseline_constant_mean']['rmse'])}"
    )
