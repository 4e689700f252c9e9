"""Fit the offline grader's weights on dev parts only, and write interviewer/data/.

    .venv/bin/python evals/train_offline.py

Dev parts (../shared/evaldata/README.md): Mohler `question_fold_5 == 0`, and the in-domain
set's `dev` split (evals/data/indomain.jsonl). Two heads (interviewer/offline.py `Model`):
`input` (one given reference answer) is fitted on Mohler dev; `bank` (the guides' variants, key
points and passages) on both, in-domain weighted. `--cv` prints leave-one-question-out figures
on the dev parts for the candidate feature sets; USE_* below are the ones it chose.
SAF and SciEntsBank train parts were tried and made the Mohler dev fit worse (their scales are
coarser), so they are not used. Rows that the rules settle (empty, non-answers, injections,
off-topic) never reach the model and are left out of the fit. The datasets themselves never
ship; only the fitted numbers do.
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
from interviewer.features import FEATURES, analyse_many
from interviewer.index import Index
from interviewer.ingest import ingest
from interviewer.offline import MODEL_FILE, Head, Model, OfflineGrader
from interviewer.references import gather

ALPHA = 1.0  # ridge penalty on standardised features
INDOMAIN_WEIGHT = 5.0  # chosen by leave-questions-out CV on in-domain dev (1, 3, 5, 10 tried)
COVER_THRESHOLD = 0.60  # a key point counts as covered at this cosine similarity
OFF_TOPIC_THRESHOLD = 0.12  # below this similarity to both question and reference
OFF_TOPIC_MARGIN = 0.15  # another bank question fits the answer this much better (dev grid)


# Features each head uses (the others get weight 0), chosen with --cv on dev parts only.
USE_BANK = tuple(f for f in FEATURES if f != "token_recall")
USE_INPUT = ("token_recall",)
CANDIDATES = {
    "all": FEATURES,
    "all but token_recall": USE_BANK,
    "token_recall": ("token_recall",),
    "token_recall + kp_soft": ("token_recall", "kp_soft"),
    "token_recall + lex_recall": ("token_recall", "lex_recall"),
    "token_recall + coverage": ("token_recall", "kp_soft", "kp_hard", "lex_recall"),
    "token_recall + ref_minus_question": ("token_recall", "ref_minus_question"),
}


def fit(
    x: np.ndarray, y: np.ndarray, w: np.ndarray
) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """Weighted ridge on standardised features: (coef, bias, mean, scale)."""
    mean, scale = x.mean(0), x.std(0) + 1e-6
    z = (x - mean) / scale
    bias = float(np.average(y, weights=w))
    coef = np.linalg.solve(
        z.T @ (z * w[:, None]) + ALPHA * np.eye(z.shape[1]), z.T @ (w * (y - bias))
    )
    return coef, bias, mean, scale


def head(x: np.ndarray, y: np.ndarray, w: np.ndarray, use: tuple[str, ...]) -> dict[str, object]:
    """A head's JSON: weights over all FEATURES (0 where unused), fitted on `use`."""
    cols = [FEATURES.index(f) for f in use]
    coef_used, bias, mean_used, scale_used = fit(x[:, cols], y, w)
    coef, mean, scale = np.zeros(len(FEATURES)), x.mean(0), x.std(0) + 1e-6
    coef[cols], mean[cols], scale[cols] = coef_used, mean_used, scale_used
    pred = np.clip((x - mean) / scale @ coef + bias, 0, 5)
    return {
        "weights": [round(float(v), 6) for v in coef],
        "bias": round(bias, 6),
        "mean": [round(float(v), 6) for v in mean],
        "scale": [round(float(v), 6) for v in scale],
        "train_fit_r": round(float(np.corrcoef(pred, y)[0, 1]), 4),
    }


def cross_validate(
    x: np.ndarray, y: np.ndarray, w: np.ndarray, g: np.ndarray, use: tuple[str, ...]
) -> str:
    """Pearson and RMSE (rounded scores) per dev set, each question held out in turn."""
    cols = [FEATURES.index(f) for f in use]
    pred = np.zeros(len(y))
    for q in np.unique(g):
        out = g == q
        coef, bias, mean, scale = fit(x[~out][:, cols], y[~out], w[~out])
        pred[out] = np.clip((x[out][:, cols] - mean) / scale @ coef + bias, 0, 5)
    parts = []
    for name in ("mohler", "indomain"):
        m = np.char.startswith(g.astype(str), name + ":")
        if not m.any():
            continue
        r = np.corrcoef(pred[m], y[m])[0, 1]
        rmse = np.sqrt(np.mean((np.round(pred[m]) - y[m]) ** 2))
        parts.append(f"{name} r={r:.3f} rmse={rmse:.3f}")
    return "  ".join(parts)


def main() -> None:
    settings = Settings()
    embedder = default_embedder()
    ingest(settings, embedder)
    index = Index(settings.index_dir, embedder)
    n = len(FEATURES)
    rules = OfflineGrader(
        embedder,
        Model(
            {"bank": Head((0.0,) * n, 0.0, (0.0,) * n, (1.0,) * n)},
            COVER_THRESHOLD,
            OFF_TOPIC_THRESHOLD,
            OFF_TOPIC_MARGIN,
        ),
        index,
    )
    xs, ys, ws, gs, counts = [], [], [], [], {}
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
                gs.append(f"{name}:{item.group}")
                kept += 1
        counts[name] = {"dev_rows": len(items), "fitted_rows": kept}
        print(f"{name}: {len(items)} dev answers, {kept} reach the model")
    x, y, w, g = np.stack(xs), np.asarray(ys), np.asarray(ws), np.asarray(gs)
    mohler = np.char.startswith(g.astype(str), "mohler:")
    if "--cv" in sys.argv:
        for name, use in CANDIDATES.items():
            both = cross_validate(x, y, w, g, use)
            alone = cross_validate(x[mohler], y[mohler], w[mohler], g[mohler], use)
            print(f"{name:<34} bank head: {both}\n{'':<34} input head: {alone}")
        return
    heads = {
        "bank": head(x, y, w, USE_BANK)
        | {"trained_on": "mohler dev + indomain dev", "use": USE_BANK},
        "input": head(x[mohler], y[mohler], w[mohler], USE_INPUT)
        | {"trained_on": "mohler dev", "use": USE_INPUT},
    }
    MODEL_FILE.write_text(
        json.dumps(
            {
                "name": "offline-linear-v3",
                "features": list(FEATURES),
                "heads": heads,
                "cover_threshold": COVER_THRESHOLD,
                "off_topic_threshold": OFF_TOPIC_THRESHOLD,
                "off_topic_margin": OFF_TOPIC_MARGIN,
                "trained_on": counts,
                "indomain_weight": INDOMAIN_WEIGHT,
                "fitted": date.today().isoformat(),
            },
            indent=1,
        )
        + "\n"
    )
    print(
        f"wrote {MODEL_FILE}: "
        + ", ".join(f"{k} fit r={h['train_fit_r']}" for k, h in heads.items())
    )


if __name__ == "__main__":
    main()
