"""The offline grader's features: how an answer relates to its reference material.

Sentence vectors (answer, its segments, references, key points), contextual word-piece vectors
for a BERTScore-style recall, and lexical overlap with the question's own words demoted; all
from one forward pass per answer, with recurring texts cached across batches.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from .detectors import strip_fillers
from .embeddings import Embedder, TokenEmbedder
from .numerals import in_digits
from .records import Reference, ReferenceSet
from .segmenter import segments
from .sentences import split_sentences
from .shorthand import expand
from .words import STOP, content_words

Tokens = tuple[tuple[int, ...], np.ndarray]  # word-piece ids, unit token vectors
PUNCTUATION = tuple(".,;:!?()[]{}'\"-/")
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


@dataclass(frozen=True)
class Analysis:
    """Everything the features and the grade card need about one answer."""

    features: np.ndarray
    best: Reference | None
    kp_sims: tuple[float, ...]
    question_sim: float
    ref_sim: float
    answer_vec: np.ndarray
    sentences: tuple[str, ...] = ()  # what the claim checker reads: segments (and the whole)
    sentence_vecs: np.ndarray | None = None
    text: str = ""  # the answer as analysed (fillers stripped)


@dataclass
class Cache:
    """What outlives one batch: texts that recur (questions, references and their key points)
    embedded once, and the word-piece ids of stop words and punctuation."""

    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    tokens: dict[str, Tokens] = field(default_factory=dict)
    skip_ids: set[int] | None = None

    def make_room(self, limit: int = 20_000) -> None:  # bound memory on very long runs
        if len(self.vectors) + len(self.tokens) > limit:
            self.vectors.clear()
            self.tokens.clear()


class _Vectors:
    """Embeds each distinct text once: recurring texts into the long-lived `Cache`, the
    batch's own texts into a cache that ends with the batch."""

    def __init__(self, embedder: Embedder, keep: Cache | None = None) -> None:
        self.embedder = embedder
        self.keep = keep if keep is not None else Cache()
        self.cache: dict[str, np.ndarray] = {}
        self.tokens = self.keep.tokens
        if self.keep.skip_ids is None:
            self.keep.skip_ids = (
                embedder.piece_ids([*STOP, *PUNCTUATION])
                if isinstance(embedder, TokenEmbedder)
                else set()
            )
        self.skip_ids = self.keep.skip_ids

    def prime(self, texts: Sequence[str], keep: bool = False) -> None:
        if keep:
            self.keep.make_room()
        known = self.keep.vectors
        todo = list(dict.fromkeys(t for t in texts if t not in self.cache and t not in known))
        if todo:
            store = known if keep else self.cache
            for t, v in zip(todo, self.embedder.embed(todo), strict=True):
                store[t] = v

    def prime_tokens(self, texts: Sequence[str]) -> None:
        todo = list(dict.fromkeys(t for t in texts if t not in self.tokens))
        if todo and isinstance(self.embedder, TokenEmbedder):
            self.tokens.update(zip(todo, self.embedder.embed_tokens(todo), strict=True))

    def __getitem__(self, text: str) -> np.ndarray:
        if text in self.keep.vectors:
            return self.keep.vectors[text]
        if text not in self.cache:
            self.prime([text])
        return self.cache[text]


def warm(questions: Sequence[tuple[str, ReferenceSet]], embedder: Embedder, keep: Cache) -> None:
    """Embed what recurs across answers to these questions (the question, its references and
    their key points) into `keep` ahead of the answers."""
    _prime_recurring(questions, _Vectors(embedder, keep))


def _prime_recurring(questions: Sequence[tuple[str, ReferenceSet]], vecs: _Vectors) -> None:
    recurring: list[str] = []  # questions and references repeat across answers and batches
    for q, refs in questions:
        recurring.append(q)
        for r in refs.answer_keys:
            recurring.append(r.text)
            recurring.extend(r.key_points)
    vecs.prime(recurring, keep=True)
    vecs.prime_tokens([r.text for _, refs in questions for r in refs.answer_keys])
    vecs.prime_tokens([q for q, _ in questions])


def as_read(answer: str) -> str:
    """The answer as the models read it: fillers struck, typed shorthand written out, and
    numbers said in words written in digits (the NLI model did not read "thirty-two threads"
    as the key point's "32 threads": a right spoken warp answer scored 2, 4 with "32")."""
    return in_digits(expand(strip_fillers(answer)), large=False) or answer


# The scorer's features read an answer's first 12 segments (as it was fitted); the claim
# checker reads them all. It read only those 12 too: in a trial's 282-word warp-divergence
# answer, "Third, replace short branches with predication ..." was never read, and its point,
# said word for word, was marked missed and named under "Work on".
FEATURE_SEGMENTS = 12


def analyse_many(
    items: Sequence[tuple[str, str, ReferenceSet]],
    embedder: Embedder,
    keep: Cache | None = None,
) -> list[Analysis]:
    """Features for (question, answer, references) triples, embedding in one batch."""
    vecs = _Vectors(embedder, keep)
    cleaned = [as_read(a) for _, a, _ in items]
    segs = [segments(a, limit=None) for a in cleaned]
    cut = [_cut_sentences(a) for a in cleaned]
    _prime_recurring([(q, refs) for q, _, refs in items], vecs)
    answer_tokens: list[Tokens | None] = [None] * len(items)
    if not isinstance(embedder, TokenEmbedder):  # no span pooling: each segment embedded
        vecs.prime([t for a, ss, cs in zip(cleaned, segs, cut, strict=True) for t in (a, *ss, *cs)])
        mats = [
            np.stack([vecs[a], *(vecs[x] for x in (*ss, *cs))])
            for a, ss, cs in zip(cleaned, segs, cut, strict=True)
        ]
    else:  # one forward pass per answer: its vector, its segments' vectors and its tokens
        unique = list(dict.fromkeys(cleaned))
        said = {a: (ss, cs) for a, ss, cs in zip(cleaned, segs, cut, strict=True)}
        spans = {a: (_spans(a, said[a][0]), _spans(a, said[a][1])) for a in unique}
        pooled = embedder.embed_spans_tokens(unique, [spans[a][0] + spans[a][1] for a in unique])
        rows = dict(zip(unique, pooled, strict=True))
        mats = [rows[a][0] for a in cleaned]
        answer_tokens = [(rows[a][1], rows[a][2]) for a in cleaned]
        segs = [[a[x:y] for x, y in spans[a][0]] for a in cleaned]
        cut = [[a[x:y] for x, y in spans[a][1]] for a in cleaned]
    return [
        _with_sentences(
            _analyse(q, a, mat[: 1 + min(len(ss), FEATURE_SEGMENTS)], refs, vecs, toks),
            a,
            ss,
            cs,
            mat,
            REPLY_WHOLE_WORDS if refs.focus else WHOLE_WORDS,
        )
        for (q, _, refs), a, mat, toks, ss, cs in zip(
            items, cleaned, mats, answer_tokens, segs, cut, strict=True
        )
    ]


WHOLE_WORDS = 60  # an answer or sentence longer than this is read only in its segments
# ... a reply to a follow-up longer than this: it answers one point, which it may build over
# several sentences (a trial's 104-word reply worked out "several trillion tokens a day" and the
# batch limit in three; each entailed the probed point at most 0.53, the whole reply at 0.69).
REPLY_WHOLE_WORDS = 150


def _cut_sentences(answer: str) -> list[str]:
    """The answer's sentences that `segments` cut into several, each read whole beside its
    parts (not the answer itself, read whole anyway): "Fusion helps compute-bound GEMMs most,
    because it adds more FLOPs per byte; memory-bound ops don't benefit." states its
    misconception only read whole, and any sentence beside it in the answer hid that."""
    sentences = split_sentences(answer)
    return [
        s
        for s in sentences
        if s != answer.strip() and len(s.split()) <= WHOLE_WORDS and len(segments(s)) > 1
    ]


def _with_sentences(
    an: Analysis,
    answer: str,
    segs: list[str],
    cut: list[str],
    mat: np.ndarray,
    whole_words: int = WHOLE_WORDS,
) -> Analysis:
    """The premises the claim checker reads: each segment, each sentence cut into several,
    and the whole answer when it is short enough for one claim to span several of its
    sentences. `mat`: the answer's vector, then the segments', then the cut sentences'."""
    sentences, rows = list(segs), list(range(1, 1 + len(segs)))
    if not segs or (len(segs) > 1 and len(answer.split()) <= whole_words):
        sentences.insert(0, answer)
        rows.insert(0, 0)
    for n, s in enumerate(cut):
        if s not in sentences:
            sentences.append(s)
            rows.append(1 + len(segs) + n)
    return replace(an, sentences=tuple(sentences), sentence_vecs=mat[rows], text=answer)


def token_recall(ref: Tokens, answer: Tokens, question: Tokens, skip: set[int]) -> float:
    """BERTScore-style recall: each reference word piece matched to its most similar answer
    piece in context, averaged with weights that leave out stop words and punctuation (`skip`)
    and demote pieces that the question already says (1 - similarity to the question)."""
    ids, ref_mat = ref
    if len(ref_mat) == 0 or len(answer[1]) == 0:
        return 0.0
    best = (ref_mat @ answer[1].T).max(axis=1)
    weight = np.ones(len(ids))
    if len(question[1]):
        weight = np.clip(1.0 - (ref_mat @ question[1].T).max(axis=1), 0.0, 1.0)
    weight *= np.asarray([i not in skip for i in ids])
    total = float(weight.sum())
    return float(best @ weight) / total if total > 1e-6 else float(best.mean())


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
        token_recall(vecs.tokens[ref.text], answer_tokens, vecs.tokens[question], vecs.skip_ids)
        if answer_tokens is not None and ref.text in vecs.tokens and question in vecs.tokens
        else soft,
    ]
    return Analysis(np.asarray(feats, dtype=np.float32), ref, kp_sims, q_sim, ref_sim, a_vec)
