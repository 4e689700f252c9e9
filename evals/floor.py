"""The accuracy floor: a fast eval on dev parts that `make test` holds the grader to.

    .venv/bin/python -m evals.floor            # print the figures
    .venv/bin/python -m evals.floor --record   # write them to evals/floor.json

Every third answer of Mohler dev (fold 0; 159 of 476: the whole fold took four of CI's
thirty minutes) and the whole in-domain dev split, offline grader, integer scores: Pearson and
QWK against the human grades. The test fails when either drops more than 0.03 below the
recorded figure, so a worse refit or a broken feature cannot pass CI unnoticed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from interviewer.config import Settings
from interviewer.evaldata import load
from interviewer.evals import grade_items
from interviewer.grader import make_grader
from interviewer.index import Index, open_index
from interviewer.metrics import qwk

FLOOR = Path(__file__).resolve().parent / "floor.json"
TOLERANCE = 0.03
SAMPLE = {"mohler": 3, "indomain": 1}  # every n-th dev answer, in the file's order


def figures(settings: Settings, index: Index) -> dict[str, dict[str, float]]:
    grader = make_grader("offline", settings, index=index)
    out = {}
    for name, use_index in (("mohler", None), ("indomain", index)):
        items = [i for i in load(name, settings) if i.part == "dev"][:: SAMPLE[name]]
        grades = grade_items(items, grader, settings, use_index, name, quiet=True)
        pred = np.asarray([g.score for g in grades], dtype=float)
        gold = np.asarray([i.score for i in items])
        out[name] = {
            "n": len(items),
            "pearson": round(float(np.corrcoef(pred, gold)[0, 1]), 4),
            "qwk": round(float(qwk(pred, gold)), 4),
        }
    return out


def main() -> None:
    from interviewer.embeddings import default_embedder
    from interviewer.ingest import ingest

    settings = Settings()
    ingest(settings, default_embedder())
    got = figures(settings, open_index(settings, default_embedder()))
    print(json.dumps(got, indent=1))
    if "--record" in sys.argv:
        FLOOR.write_text(json.dumps(got, indent=1) + "\n", "utf-8")
        print(f"wrote {FLOOR}")


if __name__ == "__main__":
    main()
