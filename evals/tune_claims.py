"""Choose how the offline grader turns claim verdicts into a grade, on dev parts only:

    .venv/bin/python -m evals.tune_claims          # prints the grid, writes the chosen values

The NLI thresholds (entailment, contradiction, a stated misconception) and the weight of the
verdicts' coverage against the fitted model's estimate are picked on Mohler dev (Pearson),
the in-domain dev split (QWK), wrong answers scored <= 1 and right ones (4-5) given a wrong
claim on the in-domain and blind wrong-answer dev splits, and a fixed sample of SciEntsBank
train (3-way weighted F1). Run after evals/train_nli.py and evals/train_offline.py; it writes
`verdict_weight` and `thresholds` into interviewer/data/offline_grader.json.
"""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import asdict, replace

import numpy as np

from interviewer.claim_evals import verdict_label
from interviewer.config import Settings
from interviewer.embeddings import default_embedder
from interviewer.evaldata import load
from interviewer.fitted import MODEL_FILE
from interviewer.index import Index, open_index
from interviewer.ingest import ingest
from interviewer.metrics import f1_scores, qwk
from interviewer.offline import OfflineGrader
from interviewer.references import gather
from interviewer.thresholds import Thresholds

GRID = {
    "input_weight": (0.0, 0.25),  # verdicts' weight for a row's own reference answer
    "bank_weight": (0.5, 0.75),  # ... for the guides' rubrics
    "entail": (0.5,),
    "contradict": (0.6, 0.9),
    "stated": (0.6, 0.8),
    "stated_margin": (0.2, 0.4),
    "stated_agree": (1.01, 0.6),  # 1.01: off
    # Which sentences are asked about at all (what grading costs): the similarity floor, and
    # a second sentence only when it is this close to the first.
    "min_sim": (0.3, 0.4),
    "next_gap": (0.1, 1.0),  # on a tie, the cheaper first
}
SB_SAMPLE = 900
BLIND = "evals/data/claims_blind.jsonl"


def offline_grader() -> tuple[Settings, Index, OfflineGrader]:
    """The settings, the built index and the offline grader that a tuning script grades with."""
    settings = Settings()
    embedder = default_embedder()
    ingest(settings, embedder)
    index = open_index(settings, embedder)
    return settings, index, OfflineGrader(embedder, index=index)


def main() -> None:
    settings, index, grader = offline_grader()
    base = grader.model
    rng = random.Random(1234)
    sb = [i for i in load("scientsbank", settings) if i.part == "dev"]
    sets = {
        "mohler": ([i for i in load("mohler", settings) if i.part == "dev"], None),
        "indomain": ([i for i in load("indomain", settings) if i.part == "dev"], index),
        # Wrong answers the project did not write (its dev split): more of them than in-domain.
        "blind": ([i for i in load(BLIND, settings) if i.part == "dev"], index),
        "scientsbank": (rng.sample(sb, SB_SAMPLE), None),
    }
    prepared = {}
    for name, (items, use_index) in sets.items():
        triples = [
            (
                i.question,
                i.answer,
                gather(i.question, use_index, settings, i.reference, i.question_id),
            )
            for i in items
        ]
        prepared[name] = (items, triples, *grader.prepare(triples))
        print(f"{name}: {len(items)} dev answers prepared", flush=True)
    rows = []
    for wi, wb, ent, con, stated, margin, agree, floor, gap in itertools.product(*GRID.values()):
        th = Thresholds(
            entail=ent,
            contradict=con,
            stated=stated,
            stated_margin=margin,
            stated_agree=agree,
            contradict_sim=0.65,
            min_sim=floor,
            next_gap=gap,
            wrong_min_sim=0.5,
        )
        # (a row's own reference in the guides' field: chosen on the own-reference dev parts)
        vw = {"input": wi, "bank": wb, "field": base.verdict_weight.get("field", wi)}
        grader._model = replace(base, verdict_weight=vw, thresholds=th)
        got: dict[str, float] = {}
        wrong, falsely = [], []  # wrong answers scored <= 1; right ones (4-5) told they are wrong
        for name, (items, triples, analyses, preds) in prepared.items():
            grades = grader.finish(triples, analyses, preds)
            y = np.asarray([i.score for i in items])
            s = np.asarray([g.score for g in grades], dtype=float)
            if name == "mohler":
                got["mohler_r"] = float(np.corrcoef(s, y)[0, 1])
            elif name in ("indomain", "blind"):
                if name == "indomain":
                    got["indomain_qwk"] = qwk(s, y)
                for i, g in zip(items, grades, strict=True):
                    if i.tags[0] in ("wrong", "inverted"):
                        wrong.append(g.score <= 1)
                    elif i.score >= 4:
                        falsely.append(bool(g.wrong_claims))
            else:
                pred = [verdict_label(g) for g in grades]
                gold = [i.label_3way or "" for i in items]
                got["sb_3way_wf1"] = f1_scores(pred, gold)["weighted_f1"]
        got["wrong_le_1"] = float(np.mean(wrong))
        got["right_called_wrong"] = float(np.mean(falsely))
        got["objective"] = (
            got["mohler_r"]
            + got["indomain_qwk"]
            + got["sb_3way_wf1"]
            + 0.5 * got["wrong_le_1"]
            - got["right_called_wrong"]
        )
        rows.append((asdict(th) | {"verdict_weight": vw}, got))
        print(rows[-1], flush=True)
    best, figures = max(rows, key=lambda r: r[1]["objective"])
    print("chosen:", best, figures)
    data = json.loads(MODEL_FILE.read_text("utf-8"))
    data["verdict_weight"] = best.pop("verdict_weight")
    data["thresholds"] = best
    data["claims_tuned_on"] = {k: round(v, 4) for k, v in figures.items()}
    MODEL_FILE.write_text(json.dumps(data, indent=1) + "\n", "utf-8")
    print(f"wrote {MODEL_FILE}")


if __name__ == "__main__":
    main()
