"""The offline grader: a small fitted linear model over `features.py`, no LLM.

The weights live in `data/offline_grader.json`, written by `evals/train_offline.py` from the
dev parts of the eval data only. Everything runs on CPU with the packaged embedding model.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from .detectors import rule_feedback, settled_by_rules
from .embeddings import Embedder
from .features import FEATURES, Analysis, Cache, analyse_many
from .grade import Grade, Provenance, ReferenceSet
from .index import Index

MODEL_FILE = Path(__file__).parent / "data" / "offline_grader.json"


@dataclass(frozen=True)
class Head:
    """One fitted linear scorer over standardised FEATURES (weight 0: feature unused)."""

    weights: tuple[float, ...]
    bias: float
    mean: tuple[float, ...]
    scale: tuple[float, ...]

    def predict(self, x: np.ndarray) -> np.ndarray:
        z = (x - np.asarray(self.mean)) / np.asarray(self.scale)
        return np.clip(z @ np.asarray(self.weights) + self.bias, 0.0, 5.0)


@dataclass(frozen=True)
class Model:
    """Two heads: `input` for an answer judged against one reference answer given with it
    (batch rows with reference_answer), `bank` for the guides' reference variants, key points
    and passages. The material differs in shape, and so do the features that track a grade."""

    heads: dict[str, Head]
    cover_threshold: float
    off_topic_threshold: float
    off_topic_margin: float = 0.15
    name: str = "offline-linear-v4"

    def predict(self, x: np.ndarray, kinds: Sequence[str]) -> np.ndarray:
        out = self.heads["bank"].predict(x)
        uses_input = np.asarray([k == "input" for k in kinds])
        if "input" in self.heads and uses_input.any():
            out[uses_input] = self.heads["input"].predict(x[uses_input])
        return out

    @classmethod
    def load(cls, path: Path = MODEL_FILE) -> Model:
        d = json.loads(path.read_text("utf-8"))
        if tuple(d["features"]) != FEATURES:
            raise ValueError(f"{path} was fitted on other features; re-run evals/train_offline.py")
        heads = {
            name: Head(tuple(h["weights"]), h["bias"], tuple(h["mean"]), tuple(h["scale"]))
            for name, h in d["heads"].items()
        }
        return cls(
            heads,
            d["cover_threshold"],
            d["off_topic_threshold"],
            d.get("off_topic_margin", 0.15),
            d.get("name", cls.name),
        )


@lru_cache(maxsize=1)
def default_model() -> Model:
    return Model.load()


class OfflineGrader:
    """Grades with the fitted model; rules settle empty, non-answers, injections and
    off-topic answers first. With an index, an answer that fits another bank question
    clearly better than the one asked is off-topic."""

    name = "offline"
    batched = True

    def __init__(
        self, embedder: Embedder, model: Model | None = None, index: Index | None = None
    ) -> None:
        self.embedder = embedder
        self.index = index
        self._model = model
        self._bank: tuple[Path | None, dict[str, int], np.ndarray] | None = None
        self._keep = Cache()

    @property
    def model(self) -> Model:
        if self._model is None:
            self._model = default_model()
        return self._model

    def grade(self, question: str, answer: str, refs: ReferenceSet) -> Grade:
        return self.grade_many([(question, answer, refs)])[0]

    def grade_many(self, items: Sequence[tuple[str, str, ReferenceSet]]) -> list[Grade]:
        if not items:
            return []
        analyses = analyse_many(items, self.embedder, self._keep)
        preds = self.model.predict(
            np.stack([a.features for a in analyses]),
            [a.best.kind if a.best else "" for a in analyses],
        )
        return [
            self._grade(refs, an, float(p), answer)
            for (_, answer, refs), an, p in zip(items, analyses, preds, strict=True)
        ]

    def _bank_vectors(self) -> tuple[dict[str, int], np.ndarray] | None:
        if self.index is None:
            return None
        gen = self.index.generation()
        if self._bank is None or self._bank[0] != gen:
            qs = self.index.bank.technical()
            texts = [f"{q.text} {(q.reference_answers or ('',))[0][:300]}" for q in qs]
            self._bank = (gen, {q.id: n for n, q in enumerate(qs)}, self.embedder.embed(texts))
        return self._bank[1], self._bank[2]

    def answers_other_question(self, refs: ReferenceSet, an: Analysis) -> bool:
        bank = self._bank_vectors() if refs.question_id else None
        if bank is None or refs.question_id not in bank[0]:
            return False
        pos, matrix = bank
        sims = matrix @ an.answer_vec
        own = sims[pos[refs.question_id]]
        return bool(
            np.delete(sims, pos[refs.question_id]).max() - own > self.model.off_topic_margin
        )

    def settle(self, refs: ReferenceSet, an: Analysis, answer: str) -> Grade | None:
        """The grade when a rule decides it, else None (the model scores the answer)."""
        prov = self.provenance()
        if (settled := settled_by_rules(answer, refs, prov)) is not None:
            return settled
        used = tuple(r.id for r in refs.references)
        if an.best is None:  # only passages, and none gave usable key points
            return Grade(
                0,
                (),
                (),
                (),
                "No usable reference material was found for this "
                "question, so this answer could not be graded.",
                used,
                ("no_reference",),
                0.05,
                prov,
                None,
                refs.references,
            )
        off = max(an.question_sim, an.ref_sim) < self.model.off_topic_threshold
        if off or self.answers_other_question(refs, an):
            kps = an.best.key_points or (an.best.text,)
            return Grade(
                0,
                (),
                kps,
                (),
                rule_feedback("off_topic"),
                used,
                ("off_topic",),
                0.8,
                replace(prov, decided_by="rule:off_topic"),
                0.0,
                refs.references,
            )
        return None

    def provenance(self) -> Provenance:
        m = self.model
        return Provenance(
            "offline",
            f"{m.name} + {self.embedder.name}",
            settings={"cover_threshold": m.cover_threshold},
        )

    def _grade(self, refs: ReferenceSet, an: Analysis, pred: float, answer: str) -> Grade:
        if (settled := self.settle(refs, an, answer)) is not None:
            return settled
        assert an.best is not None
        m = self.model
        kps = an.best.key_points or (an.best.text,)
        covered = tuple(k for k, s in zip(kps, an.kp_sims, strict=True) if s >= m.cover_threshold)
        missed = tuple(k for k, s in zip(kps, an.kp_sims, strict=True) if s < m.cover_threshold)
        score = int(np.clip(np.rint(pred), 0, 5))
        confidence = round(
            (0.75 if an.best.kind != "passage" else 0.45) * (1.0 - abs(pred - score)), 2
        )
        return Grade(
            score,
            covered,
            missed,
            (),
            _feedback(score, covered, missed),
            tuple(r.id for r in refs.references),
            (),
            confidence,
            self.provenance(),
            round(pred, 3),
            refs.references,
        )


def _feedback(score: int, covered: tuple[str, ...], missed: tuple[str, ...]) -> str:
    total = len(covered) + len(missed)
    lead = {
        5: "Complete answer.",
        4: "Solid answer with a minor gap.",
        3: "The core idea is there, but important points are missing.",
        2: "Some relevant content, with major gaps.",
        1: "Mostly vague or off the mark.",
        0: "This does not answer the question.",
    }[score]
    parts = [lead, f"It matched {len(covered)} of {total} reference key points."]
    if missed:
        parts.append(f"Work on: {_short(missed[0])}")
        if len(missed) > 1:
            parts.append(f"Also missing: {_short(missed[1])}")
    return " ".join(parts)


def _short(text: str, limit: int = 140) -> str:
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"
