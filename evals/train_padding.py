"""Fit the padding classifier: is a sentence of an answer about the subject at all?

    .venv/bin/python -m evals.train_padding

A logistic regression over the packaged MiniLM's sentence vectors (each sentence embedded
alone). Padding: evals/data/padding_train.jsonl's padding sentences (pleasantries, appeals,
self-praise, anecdotes, offers, vague talk in the field's words, meta-comments; written for
training by a helper that saw neither the grader nor the padding eval's sentences; stop 35
added enthusiasm for the field's topics and content sentences in the same styles, written by
a developer who had read the dev split's pads, `blind2`, and not the held-out ones) and
asides.GENERIC. Content: that file's content sentences (candidate-voiced, spoken, terse and
confidently wrong ones) and the authored rubrics' key points, paraphrases and misconceptions,
less the in-domain test split's questions. Writes interviewer/data/padding.json (a few KB).
Fixed seed; seconds on a CPU.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from evals.train_nli import indomain_test_questions
from interviewer.asides import GENERIC
from interviewer.embeddings import default_embedder
from interviewer.padding import MODEL_FILE
from interviewer.rubrics import load_authored

DATA = Path(__file__).resolve().parent / "data"
SEED = 1234
# Padding is set aside only this sure: a content sentence taken for padding could lower an
# honest answer's grade (the grader keeps the lower of the two readings).
CONTENT_RECALL = 0.995


def examples() -> tuple[list[str], list[int], list[str]]:
    """(texts, labels 1 = padding, groups for cross-validation)."""
    texts, labels, groups = [], [], []
    for row in map(json.loads, (DATA / "padding_train.jsonl").read_text("utf-8").splitlines()):
        texts.append(row["text"])
        labels.append(int(row["label"] == "padding"))
        groups.append(row["kind"])
    texts += GENERIC
    labels += [1] * len(GENERIC)
    groups += ["generic"] * len(GENERIC)
    held_out = indomain_test_questions()
    for r in load_authored().values():
        if not r.technical or r.question.strip().lower() in held_out:
            continue
        said = [t for kp in r.key_points for t in (kp.text, *kp.paraphrases)]
        said += [m.text for m in r.misconceptions]
        texts += said
        labels += [0] * len(said)
        groups += [f"rubric:{r.question_id}"] * len(said)
    return texts, labels, groups


def fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    from sklearn.linear_model import LogisticRegression

    clf = LogisticRegression(C=4.0, class_weight="balanced", max_iter=2000, random_state=SEED)
    clf.fit(x, y)
    return clf.coef_[0], float(clf.intercept_[0])


def main() -> None:
    texts, labels, groups = examples()
    x = default_embedder().embed(texts)
    y = np.asarray(labels)
    # Cross-validated by kind and rubric: a whole kind of padding (or a question's content)
    # is unseen when it is scored.
    folds = {g: n % 5 for n, g in enumerate(sorted(set(groups)))}
    fold = np.asarray([folds[g] for g in groups])
    logit = np.zeros(len(y))
    for k in range(5):
        w, b = fit(x[fold != k], y[fold != k])
        logit[fold == k] = x[fold == k] @ w + b
    content = np.sort(logit[y == 0])
    threshold = float(content[min(len(content) - 1, int(CONTENT_RECALL * len(content)))])
    caught = float(np.mean(logit[y == 1] > threshold))
    w, b = fit(x, y)
    report = {
        "sentences": {"padding": int(y.sum()), "content": int(len(y) - y.sum())},
        "cv_content_kept": round(float(np.mean(logit[y == 0] <= threshold)), 4),
        "cv_padding_caught": round(caught, 4),
        "seed": SEED,
    }
    MODEL_FILE.write_text(
        json.dumps(
            {
                "weights": [round(float(v), 6) for v in w],
                "bias": round(b, 6),
                "threshold": round(threshold, 4),
                "report": report,
            }
        )
        + "\n",
        "utf-8",
    )
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
