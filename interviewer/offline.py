"""The offline grader: embedding and lexical features, a small fitted linear model, no LLM.

The weights live in `data/offline_grader.json`, written by `evals/train_offline.py` from the
dev parts of the eval data only. Everything runs on CPU with the packaged embedding model.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from .detectors import rule_feedback, settled_by_rules, strip_fillers
from .embeddings import Embedder
from .grade import Grade, Provenance, Reference, ReferenceSet
from .index import Index
from .parsing import split_sentences

MODEL_FILE = Path(__file__).parent / "data" / "offline_grader.json"
Tokens = tuple[tuple[int, ...], np.ndarray]  # word-piece ids, unit token vectors
_TOKENS = "\x00tokens"  # the token cache's slot in the persistent cache
FEATURES = (
    "ref_sim",
    "kp_soft",
    "kp_hard",
    "lex_recall",
    "lex_precision",
    "log_words",
    "length_ratio",
    "question_sim",
    "ref_minus_question",
    "token_recall",
)
_WORD = re.compile(r"[a-z0-9][a-z0-9+#.\-]*[a-z0-9+#]|[a-z0-9]")
STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "there",
        "their",
        "they",
        "them",
        "we",
        "you",
        "your",
        "i",
        "he",
        "she",
        "his",
        "her",
        "our",
        "not",
        "no",
        "do",
        "does",
        "did",
        "can",
        "could",
        "would",
        "should",
        "will",
        "may",
        "might",
        "must",
        "so",
        "than",
        "then",
        "too",
        "very",
        "just",
        "also",
        "into",
        "about",
        "over",
        "under",
        "more",
        "most",
        "less",
        "such",
        "each",
        "which",
        "who",
        "whom",
        "what",
        "when",
        "where",
        "why",
        "how",
        "all",
        "any",
        "both",
        "few",
        "other",
        "some",
        "own",
        "same",
        "only",
        "out",
        "up",
        "down",
        "off",
        "again",
        "further",
        "once",
        "here",
        "has",
        "have",
        "had",
        "having",
        "because",
        "while",
        "during",
        "before",
        "after",
        "above",
        "below",
        "between",
        "through",
        "until",
        "against",
    ]
)


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in STOP and len(w) > 1}


def segments(answer: str, limit: int = 12) -> list[str]:
    parts: list[str] = []
    for s in split_sentences(answer):
        parts.extend(c.strip() for c in re.split(r";\s+|,\s+(?:and|but|so|while)\s+", s) if c)
    return [p for p in parts if len(p.split()) >= 2][:limit]


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
    name: str = "offline-linear-v3"

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


@dataclass(frozen=True)
class Analysis:
    """Everything the features and the grade card need about one answer."""

    features: np.ndarray
    best: Reference | None
    kp_sims: tuple[float, ...]
    question_sim: float
    ref_sim: float
    answer_vec: np.ndarray


class _Vectors:
    """Embeds each distinct text once. `keep` is a cache that outlives one batch, for texts
    that recur across batches (references and their key points)."""

    def __init__(self, embedder: Embedder, keep: dict[str, Any] | None = None) -> None:
        self.embedder = embedder
        self.keep = keep if keep is not None else {}
        self.cache: dict[str, np.ndarray] = {}
        self.tokens: dict[str, Tokens] = self.keep.setdefault(_TOKENS, {})

    def prime(self, texts: Sequence[str], keep: bool = False) -> None:
        todo = list(dict.fromkeys(t for t in texts if t not in self.cache and t not in self.keep))
        if todo:
            store = self.keep if keep else self.cache
            for t, v in zip(todo, self.embedder.embed(todo), strict=True):
                store[t] = v
        if keep and len(self.keep) > 20_000:  # bound memory on very long runs
            self.keep.clear()
            self.tokens = self.keep.setdefault(_TOKENS, {})

    def prime_tokens(self, texts: Sequence[str]) -> None:
        todo = list(dict.fromkeys(t for t in texts if t not in self.tokens))
        embed_tokens = getattr(self.embedder, "embed_tokens", None)
        if todo and embed_tokens is not None:
            self.tokens.update(zip(todo, embed_tokens(todo), strict=True))

    def __getitem__(self, text: str) -> np.ndarray:
        if text in self.keep:
            return self.keep[text]
        if text not in self.cache:
            self.prime([text])
        return self.cache[text]


def analyse_many(
    items: Sequence[tuple[str, str, ReferenceSet]],
    embedder: Embedder,
    keep: dict[str, Any] | None = None,
) -> list[Analysis]:
    """Features for (question, answer, references) triples, embedding in one batch."""
    vecs = _Vectors(embedder, keep)
    cleaned = [strip_fillers(a) or a for _, a, _ in items]
    segs = [segments(a) for a in cleaned]
    texts: list[str] = []
    recurring: list[str] = []  # questions and references repeat across answers and batches
    for (q, _, refs), a, ss in zip(items, cleaned, segs, strict=True):
        texts.extend([a, *ss])
        recurring.append(q)
        for r in refs.answer_keys:
            recurring.append(r.text)
            recurring.extend(r.key_points)
    vecs.prime(recurring, keep=True)
    vecs.prime_tokens([r.text for _, _, refs in items for r in refs.answer_keys])
    vecs.prime_tokens([q for q, _, _ in items])
    span_embed = getattr(embedder, "embed_spans_tokens", None)
    answer_tokens: list[Tokens | None] = [None] * len(items)
    if span_embed is None:  # an embedder without span pooling embeds each segment
        vecs.prime(texts)
        mats = [
            np.stack([vecs[a], *(vecs[x] for x in ss)]) for a, ss in zip(cleaned, segs, strict=True)
        ]
    else:  # one forward pass per answer: its vector, its segments' vectors and its tokens
        unique = list(dict.fromkeys(cleaned))
        spans = {a: _spans(a, segments(a)) for a in unique}
        rows = dict(zip(unique, span_embed(unique, [spans[a] for a in unique]), strict=True))
        mats = [rows[a][0] for a in cleaned]
        answer_tokens = [(rows[a][1], rows[a][2]) for a in cleaned]
    return [
        _analyse(q, a, mat, refs, vecs, toks)
        for (q, _, refs), a, mat, toks in zip(items, cleaned, mats, answer_tokens, strict=True)
    ]


def token_recall(ref: Tokens, answer: Tokens, question_ids: set[int]) -> float:
    """BERTScore-style recall: each reference word piece that the question does not already
    contain, matched to its most similar answer word piece in context; the mean similarity."""
    ids, ref_mat = ref
    if len(ref_mat) == 0 or len(answer[1]) == 0:
        return 0.0
    best = (ref_mat @ answer[1].T).max(axis=1)
    new = np.asarray([i not in question_ids for i in ids])
    return float(best[new].mean() if new.any() else best.mean())


def _spans(text: str, parts: list[str]) -> list[tuple[int, int]]:
    out, pos = [], 0
    for part in parts:
        at = text.find(part, pos)
        if at >= 0:
            out.append((at, at + len(part)))
            pos = at + len(part)
    return out


def _analyse(
    question: str,
    answer: str,
    seg_mat: np.ndarray,
    refs: ReferenceSet,
    vecs: _Vectors,
    answer_tokens: Tokens | None = None,
) -> Analysis:
    """`seg_mat`: the answer's vector (row 0) and its sentence segments' vectors."""
    a_vec = seg_mat[0]
    q_sim = float(a_vec @ vecs[question])
    a_words = content_words(answer)
    q_words = content_words(question)
    best: tuple[float, Reference | None, tuple[float, ...], float, float] = (
        -9.0,
        None,
        (),
        0.0,
        0.0,
    )
    for r in refs.answer_keys:
        kps = r.key_points or (r.text,)
        kp_mat = np.stack([vecs[k] for k in kps])
        kp_sims = tuple(float(x) for x in (kp_mat @ seg_mat.T).max(axis=1))
        ref_sim = float(a_vec @ vecs[r.text])
        soft = float(np.mean(kp_sims))
        if ref_sim + soft > best[0]:
            best = (ref_sim + soft, r, kp_sims, ref_sim, soft)
    _, ref, kp_sims, ref_sim, soft = best
    n_words = max(1, len(answer.split()))
    if ref is None:
        feats = [0.0, 0.0, 0.0, 0.0, 0.0, math.log1p(n_words), 0.0, q_sim, -q_sim, 0.0]
        return Analysis(np.asarray(feats, dtype=np.float32), None, (), q_sim, 0.0, a_vec)
    r_words = content_words(ref.text) - q_words or content_words(ref.text)
    overlap = len((a_words - q_words) & r_words)
    hard = float(np.mean([s >= 0.6 for s in kp_sims]))
    feats = [
        ref_sim,
        soft,
        hard,
        overlap / max(1, len(r_words)),
        overlap / max(1, len(a_words - q_words)),
        math.log1p(n_words),
        math.log((n_words + 1) / (len(ref.text.split()) + 1)),
        q_sim,
        ref_sim - q_sim,
        # Without token vectors (an embedder that has none), the nearest sentence-level measure.
        token_recall(vecs.tokens[ref.text], answer_tokens, set(vecs.tokens[question][0]))
        if answer_tokens is not None and ref.text in vecs.tokens and question in vecs.tokens
        else soft,
    ]
    return Analysis(np.asarray(feats, dtype=np.float32), ref, kp_sims, q_sim, ref_sim, a_vec)


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
        self._keep: dict[str, Any] = {}

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
