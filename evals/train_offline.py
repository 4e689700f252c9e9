"""Fit the offline grader's weights on dev parts only, and write interviewer/data/.

    .venv/bin/python evals/train_offline.py

Dev parts (../shared/evaldata/README.md): Mohler `question_fold_5 == 0`; plus the in-domain
set's `dev` split. SAF and SciEntsBank train parts were tried and made Mohler dev fits worse
(their scales are coarser), so they are not used. The datasets themselves never ship.
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
from interviewer.evaldata import INDOMAIN, load
from interviewer.offline import FEATURES, MODEL_FILE, analyse_many
from interviewer.references import gather

ALPHA = 1.0  # ridge penalty on standardised features
COVER_THRESHOLD = 0.60  # key point counted as covered at this cosine similarity
OFF_TOPIC_THRESHOLD = 0.12  # below this similarity to both question and reference


def dev_items(settings: Settings) -> dict[str, list]:
    parts = {"mohler": [i for i in load("mohler", settings) if i.part == "dev"]}
    if INDOMAIN.exists():
        parts["indomain"] = [i for i in load("indomain", settings) if i.part == "dev"]
    return parts


def features(items, settings, index=None):  # type: ignore[no-untyped-def]
    triples = [
        (i.question, i.answer, gather(i.question, index, settings, i.reference, i.question_id))
        for i in items
    ]
    return np.stack([a.features for a in analyse_many(triples, default_embedder())])


def main() -> None:
    settings = Settings()
    index = None
    parts = dev_items(settings)
    if "indomain" in parts:
        from interviewer.index import Index
        from interviewer.ingest import ingest

        ingest(settings, default_embedder())
        index = Index(settings.index_dir, default_embedder())
    xs, ys = [], []
    for name, items in parts.items():
        xs.append(features(items, settings, index if name == "indomain" else None))
        ys.append(np.array([i.score for i in items]))
        print(f"{name}: {len(items)} dev answers")
    x, y = np.vstack(xs), np.concatenate(ys)
    mean, scale = x.mean(0), x.std(0) + 1e-6
    z = (x - mean) / scale
    a = z.T @ z + ALPHA * np.eye(z.shape[1])
    w = np.linalg.solve(a, z.T @ (y - y.mean()))
    bias = float(y.mean())
    pred = np.clip(z @ w + bias, 0, 5)
    r = float(np.corrcoef(pred, y)[0, 1])
    MODEL_FILE.write_text(
        json.dumps(
            {
                "name": "offline-linear-v1",
                "features": list(FEATURES),
                "weights": [round(float(v), 6) for v in w],
                "bias": round(bias, 6),
                "mean": [round(float(v), 6) for v in mean],
                "scale": [round(float(v), 6) for v in scale],
                "cover_threshold": COVER_THRESHOLD,
                "off_topic_threshold": OFF_TOPIC_THRESHOLD,
                "trained_on": {k: len(v) for k, v in parts.items()},
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
