"""Choose the offline grader's stretch (`fitted.Model.stretch`) on dev parts only:

    .venv/bin/python -m evals.calibrate          # prints the grid, writes the chosen values

The claim checker misses key points that a right answer states in its own words, so the
blended estimate sits low on right answers (human 5 -> 3.9 on the dev parts). For the guides'
rubrics (`bank`), the estimate above a knee is stretched by a slope, capped at 5; wrong claims
cap the result afterwards as before. Chosen on the in-domain dev split and the blind set's dev
split together (root-mean-square error of the integer score), with no wrong or inverted dev
answer allowed to rise above 1 that the unstretched grader kept at 1 or below. Run after
evals/tune_claims.py; it writes `stretch` into interviewer/data/offline_grader.json.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import replace

import numpy as np

from interviewer.evaldata import load
from interviewer.fitted import MODEL_FILE
from interviewer.references import gather

from .tune_claims import BLIND, offline_grader

KNEES = (2.0, 2.25, 2.5, 2.75, 3.0, 3.25, 3.5, 4.0)
SLOPES = (1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0)


def main() -> None:
    settings, index, grader = offline_grader()
    base = grader.model
    items = [i for name in ("indomain", BLIND) for i in load(name, settings) if i.part == "dev"]
    triples = [
        (i.question, i.answer, gather(i.question, index, settings, i.reference, i.question_id))
        for i in items
    ]
    analyses, preds = grader.prepare(triples)
    y = np.asarray([i.score for i in items], dtype=float)
    wrong = np.asarray([i.tags[0] in ("wrong", "inverted") for i in items])
    print(f"{len(items)} dev answers (in-domain dev, blind dev)", flush=True)
    rows = []
    kept_low: np.ndarray | None = None
    for knee, slope in itertools.product(KNEES, SLOPES):
        if slope == 1.0 and knee != KNEES[0]:
            continue  # one identity is enough
        grader._model = replace(base, stretch={"bank": (knee, slope)})
        s = np.asarray([g.score for g in grader.finish(triples, analyses, preds)], dtype=float)
        low = wrong & (s <= 1)
        if kept_low is None:  # the identity comes first: what no stretch may lose
            kept_low = low
        got = {
            "rmse": float(np.sqrt(np.mean((s - y) ** 2))),
            "pearson": float(np.corrcoef(s, y)[0, 1]),
            "right_mean": float(s[y >= 4].mean()),
            "wrong_le_1": int(low.sum()),
            "wrong_lost": int((kept_low & ~low).sum()),
        }
        rows.append(((knee, slope), got))
        print(knee, slope, {k: round(v, 3) for k, v in got.items()}, flush=True)
    allowed = [r for r in rows if r[1]["wrong_lost"] == 0]
    (knee, slope), figures = min(allowed, key=lambda r: (r[1]["rmse"], r[0][1]))
    print("chosen:", (knee, slope), figures)
    data = json.loads(MODEL_FILE.read_text("utf-8"))
    data["stretch"] = {"bank": [knee, slope]} if slope != 1.0 else {}
    data["stretch_tuned_on"] = {k: round(v, 4) for k, v in figures.items()} | {"n": len(items)}
    MODEL_FILE.write_text(json.dumps(data, indent=1) + "\n", "utf-8")
    print(f"wrote {MODEL_FILE}")


if __name__ == "__main__":
    main()
