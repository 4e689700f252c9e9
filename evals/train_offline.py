"""Fit the offline grader's weights on dev parts only, and write interviewer/data/.

    .venv/bin/python evals/train_offline.py

Dev parts (../shared/evaldata/README.md): Mohler `question_fold_5 == 0`, and the in-domain
set's `dev` split (evals/data/indomain.jsonl). SAF and SciEntsBank train parts were tried and
made the Mohler dev fit worse (their scales are coarser), so they are not used. Rows that the
rules settle (empty, non-answers, injections, off-topic) never reach the model and are left out
of the fit. The datasets themselves never ship; only the fitted numbers do.
"""

from __future__ import annotations

import json
import sys
from datetime import date
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from interviewer.config import Settings
from interviewer.embeddings import default_embedder
from interviewer.evaldata import load
from interviewer.index import Index
from interviewer.ingest import ingest
from interviewer.offline import FEATURES, MODEL_FILE, Model, OfflineGrader, analyse_many
from interviewer.references import gather

ALPHA = 1.0  # ridge penalty on standardised features
INDOMAIN_WEIGHT = 5.0  # chosen by leave-questions-out CV on in-domain dev (1, 3, 5, 10 tried)
COVER_THRESHOLD = 0.60  # a key point counts as covered at this cosine similarity
OFF_TOPIC_THRESHOLD = 0.12  # below this similarity to both question and reference
OFF_TOPIC_MARGIN = 0.15  # another bank question fits the answer this much better (dev grid)


def main() -> None:
    settings = Settings()
    embedder = default_embedder()
    ingest(settings, embedder)
    index = Index(settings.index_dir, embedder)
    rules = OfflineGrader(
        embedder,
        Model(
            (0.0,) * len(FEATURES),
            0.0,
            (0.0,) * len(FEATURES),
            (1.0,) * len(FEATURES),
            COVER_THRESHOLD,
            OFF_TOPIC_THRESHOLD,
            OFF_TOPIC_MARGIN,
        ),
        index,
    )
    xs, ys, ws, counts = [], [], [], {}
    for name, use_index, weight in (("mohler", None, 1.0), ("indomain", index, INDOMAIN_WEIGHT)):
        items = [i for i in load(name, settings) if i.part == "dev"]
        triples = [
            (
                i.question,
                i.answer,
                gather(i.question, use_index, settings, i.reference, i.question_id),
            )
            for i in items
        ]
        kept = 0
        for item, (_, answer, refs), an in zip(
            items, triples, analyse_many(triples, embedder), strict=True
        ):
            if rules.settle(refs, an, answer) is None:
                xs.append(an.features)
                ys.append(item.score)
                ws.append(weight)
                kept += 1
        counts[name] = {"dev_rows": len(items), "fitted_rows": kept}
        print(f"{name}: {len(items)} dev answers, {kept} reach the model")
    x, y, w = np.stack(xs), np.asarray(ys), np.asarray(ws)
    mean, scale = x.mean(0), x.std(0) + 1e-6
    z = (x - mean) / scale
    bias = float(np.average(y, weights=w))
    coef = np.linalg.solve(
        z.T @ (z * w[:, None]) + ALPHA * np.eye(z.shape[1]), z.T @ (w * (y - bias))
    )
    pred = np.clip(z @ coef + bias, 0, 5)
    r = float(np.corrcoef(pred, y)[0, 1])
    MODEL_FILE.write_text(
        json.dumps(
            {
                "name": "offline-linear-v2",
                "features": list(FEATURES),
                "weights": [round(float(v), 6) for v in coef],
                "bias": round(bias, 6),
                "mean": [round(float(v), 6) for v in mean],
                "scale": [round(float(v), 6) for v in scale],
                "cover_threshold": COVER_THRESHOLD,
                "off_topic_threshold": OFF_TOPIC_THRESHOLD,
                "off_topic_margin": OFF_TOPIC_MARGIN,
                "trained_on": counts,
                "indomain_weight": INDOMAIN_WEIGHT,
                "train_fit_pearson": round(r, 4),
                "fitted": date.today().isoformat(),
            },
            indent=1,
        )
        + "\n"
    )
    print(f"wrote {MODEL_FILE} (train fit r={r:.3f})")


if __name__ == "__main__":
    main()
