"""Agreement metrics between grader and human scores (numpy only)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

Values = Sequence[float] | np.ndarray


def pearson(a: Values, b: Values) -> float:
    x, y = np.asarray(a, float), np.asarray(b, float)
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


def _ranks(v: np.ndarray) -> np.ndarray:
    order = v.argsort(kind="mergesort")
    ranks = np.empty(len(v))
    ranks[order] = np.arange(len(v))
    for value in np.unique(v):  # average ranks for ties
        tie = v == value
        ranks[tie] = ranks[tie].mean()
    return ranks


def spearman(a: Values, b: Values) -> float:
    return pearson(_ranks(np.asarray(a, float)), _ranks(np.asarray(b, float)))


def qwk(a: Values, b: Values, levels: int = 6) -> float:
    """Quadratic weighted kappa on scores rounded to 0..levels-1."""
    x = np.clip(np.rint(np.asarray(a, float)), 0, levels - 1).astype(int)
    y = np.clip(np.rint(np.asarray(b, float)), 0, levels - 1).astype(int)
    observed = np.zeros((levels, levels))
    for i, j in zip(x, y, strict=True):
        observed[i, j] += 1
    counts = np.outer(np.bincount(x, minlength=levels), np.bincount(y, minlength=levels))
    expected = counts / max(1, len(x))
    w = np.array([[(i - j) ** 2 for j in range(levels)] for i in range(levels)]) / (levels - 1) ** 2
    denom = (w * expected).sum()
    return float(1 - (w * observed).sum() / denom) if denom else float("nan")


def regression(pred: Values, gold: Values) -> dict[str, float]:
    p, g = np.asarray(pred, float), np.asarray(gold, float)
    diff = p - g
    return {
        "n": len(p),
        "pearson": pearson(p, g),
        "spearman": spearman(p, g),
        "qwk": qwk(p, g),
        "mae": float(np.abs(diff).mean()),
        "rmse": float(np.sqrt((diff**2).mean())),
        "exact": float((np.rint(p) == np.rint(g)).mean()),
        "within1": float((np.abs(np.rint(p) - np.rint(g)) <= 1).mean()),
    }


def f1_scores(pred: Sequence[str], gold: Sequence[str]) -> dict[str, float]:
    labels = sorted(set(gold) | set(pred))
    p, g = np.asarray(pred), np.asarray(gold)
    f1s, weights = [], []
    for label in labels:
        tp = float(((p == label) & (g == label)).sum())
        prec = tp / max(1, (p == label).sum())
        rec = tp / max(1, (g == label).sum())
        f1s.append(2 * prec * rec / (prec + rec) if prec + rec else 0.0)
        weights.append(float((g == label).sum()))
    return {
        "macro_f1": float(np.mean(f1s)),
        "weighted_f1": float(np.average(f1s, weights=weights)) if sum(weights) else 0.0,
        "accuracy": float((p == g).mean()),
    }


def bootstrap_ci(
    pred: Values,
    gold: Values,
    groups: Sequence[str],
    metric: str = "pearson",
    n: int = 500,
    seed: int = 0,
) -> tuple[float, float]:
    """95 % interval, resampling whole questions (answers to one question are not independent)."""
    rng = np.random.default_rng(seed)
    p, g, grp = np.asarray(pred, float), np.asarray(gold, float), np.asarray(groups)
    uniq = np.unique(grp)
    idx = {u: np.flatnonzero(grp == u) for u in uniq}
    values = []
    for _ in range(n):
        take = np.concatenate([idx[u] for u in rng.choice(uniq, size=len(uniq), replace=True)])
        v = regression(p[take], g[take])[metric]
        if not np.isnan(v):
            values.append(v)
    if not values:
        return (float("nan"), float("nan"))
    return (float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5)))


def fit_threshold(scores: Values, labels: Sequence[str], positive: str) -> float:
    """The score cut that best separates `positive` on dev (weighted F1)."""
    best, best_t = -1.0, 2.5
    for t in np.arange(0.5, 5.0, 0.5):
        pred = [positive if s >= t else "other" for s in scores]
        gold = [positive if lab == positive else "other" for lab in labels]
        f = f1_scores(pred, gold)["weighted_f1"]
        if f > best:
            best, best_t = f, float(t)
    return best_t
