"""Eval datasets with human grades, their dev/report parts and their scale mapped to 0-5.

Parts follow ../shared/evaldata/README.md exactly: tune on `dev`, report on `report`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .config import Settings
from .errors import InputError

NAMED = {"mohler": "mohler.jsonl", "scientsbank": "scientsbank.jsonl", "saf": "saf_english.jsonl"}


@dataclass(frozen=True)
class EvalItem:
    id: str
    question: str
    reference: str | None
    answer: str
    score: float  # human grade on the 0-5 scale
    group: str  # the question: bootstrap and breakdowns resample by it
    part: str  # "dev" or "report"
    subset: str  # the dataset's own split name (e.g. test_unseen_questions)
    tags: tuple[str, ...] = ()
    label_2way: str | None = None
    label_3way: str | None = None
    human_pair: tuple[float, float] | None = None  # two humans' grades, where the data has them
    question_id: str | None = None  # a bank question id (in-domain set)


def _rows(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        raise InputError(f"{path}: eval data not found (set INTERVIEWER_EVALDATA_DIR)")
    rows = []
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as e:
                    raise InputError(f"{path}:{n}: not JSON ({e.msg})") from e
    return rows


def load(name: str, settings: Settings) -> list[EvalItem]:
    if name in NAMED:
        path = settings.evaldata_dir / NAMED[name]
    elif name == "indomain":
        path = settings.indomain_file
    else:
        path = Path(name)
    rows = _rows(path)
    kind = name if name in NAMED or name == "indomain" else _guess(rows)
    return [item for r in rows if (item := _convert(kind, r)) is not None]


def _guess(rows: list[dict[str, Any]]) -> str:
    first = rows[0] if rows else {}
    if "question_fold_5" in first:
        return "mohler"
    if "label_3way" in first:
        return "scientsbank"
    if "question_max_observed" in first:
        return "saf"
    return "indomain"


def _convert(kind: str, r: dict[str, Any]) -> EvalItem | None:
    if kind == "mohler":
        if r.get("excluded_in_published_work"):
            return None
        return EvalItem(
            r["id"],
            r["question"],
            r["reference_answer"],
            r["student_answer"],
            float(r["score"]),
            f"mohler-{r['question_id']}",
            "dev" if r["question_fold_5"] == 0 else "report",
            f"fold{r['question_fold_5']}",
            ("exam",) if r.get("is_exam") else ("homework",),
            human_pair=(float(r["score_grader1_ta"]), float(r["score_grader2_mohler"])),
        )
    if kind == "scientsbank":
        # 2-way labels map to the ends of the scale: correct = 5, anything else = 0.
        return EvalItem(
            str(r["id"]),
            r["question"],
            r["reference_answer"],
            r["student_answer"],
            5.0 if r["label_2way"] == "correct" else 0.0,
            f"sb-{r['question_id']}",
            "dev" if r["split"] == "train" else "report",
            r["split"],
            (r.get("module", ""),),
            label_2way=r["label_2way"],
            label_3way=r["label_3way"],
        )
    if kind == "saf":
        top = float(r["question_max_observed"]) or 1.0
        return EvalItem(
            r["id"],
            r["question"],
            r["reference_answer"],
            r["student_answer"],
            5.0 * float(r["score"]) / top,
            f"saf-{r['question_id']}",
            "dev" if r["split"] == "train" else "report",
            r["split"],
            label_3way=r.get("verification_feedback"),
        )
    return EvalItem(
        r["id"],
        r["question"],
        r.get("reference_answer"),
        r["answer"],
        float(r["score"]),
        r.get("question_id") or r["question"],
        "dev" if r["split"] == "dev" else "report",  # the in-domain test split is reported
        r["split"],
        (r["case"],),
        question_id=r.get("question_id"),
    )


def part(items: list[EvalItem], which: str) -> list[EvalItem]:
    if which == "all":
        return items
    return [i for i in items if i.part == which]
