"""The clauses of a run-on sentence, read apart for what they state.

A spoken or hurried answer packs a design into one sentence ("300B parameters need about 4.8
TB, so use tensor parallelism inside a node over NVLink, pipeline parallelism across nodes,
ZeRO-1 for the optimizer state and activation checkpointing"). Read whole, such a sentence
entails none of the key points it lists; the same words as four sentences cover four. A key
point the checker found missed is asked again against the sentence's comma-separated clauses.
A clause read out of its sentence may show that the sentence states a point, never that it
contradicts one; a sentence with a negation in it is not read apart ("no tensor
parallelism, pipeline parallelism across nodes" must not cover tensor parallelism), nor is a
subordinate clause read alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from .claims import PointVerdict, Verdicts, margin

MIN_WORDS = 12  # a sentence shorter than this is read whole
CLAUSE_WORDS = 3  # a clause shorter than this ("pipeline parallelism") says too little alone
# "not just perplexity", "not only X" add to what they follow: no negation.
_NEGATION = re.compile(
    r"\b(?:not(?!\s+(?:just|only|merely)\b)|no|never|none|nor|without|neither)\b|n't\b", re.I
)
# A subordinate clause alone asserts nothing: "When a warp's accesses are spread across
# different banks" is the condition of what follows, not a claim about bank conflicts.
_SUBORDINATE = re.compile(
    r"^(?:when|whenever|if|unless|since|because|as|although|though|while|whereas|until|"
    r"before|after|once|which|who|whose|where|that)\b",
    re.I,
)


def clauses(sentence: str) -> list[str]:
    """The comma-separated clauses of a long sentence that lists several things; [] when it
    is short, holds a negation, or does not split into two clauses or more."""
    if len(sentence.split()) < MIN_WORDS or _NEGATION.search(sentence):
        return []
    parts = [p.strip(" .;:") for p in sentence.split(", ")]
    parts = [p for p in parts if len(p.split()) >= CLAUSE_WORDS and not _SUBORDINATE.match(p)]
    return parts if len(parts) >= 2 else []


@dataclass(frozen=True)
class Clause:
    text: str
    sentence: int  # the index of the sentence it comes from
    vector: np.ndarray


def ask_again(
    verdicts: Verdicts,
    found: Sequence[Clause],
    claim_vectors: np.ndarray,
    min_sim: float,
    top_k: int,
) -> list[tuple[int, Clause]]:
    """(claim index, clause) pairs to ask about: for each point found missed, its nearest
    clauses at least `min_sim` similar."""
    if not found:
        return []
    mat = np.stack([c.vector for c in found])
    out = []
    for n, v in enumerate(verdicts.points):
        if v.verdict != "missed":
            continue
        sims = mat @ claim_vectors[n]
        for i in np.argsort(-sims)[:top_k]:
            if sims[i] >= min_sim:
                out.append((n, found[int(i)]))
    return out


def covered_by_clauses(
    verdicts: Verdicts,
    asked: Sequence[tuple[int, Clause]],
    probs: Sequence[np.ndarray],
    sentences: Sequence[str],
    entail: float,
    contradiction: Callable[[str, str], str | None] = lambda point, clause: None,
) -> Verdicts:
    """The verdicts with each missed point that a clause entails (and does not contradict
    more) turned covered, quoting the whole sentence the clause comes from; or contradicted,
    where an exact check finds the clause says the point wrong (the model entailed "The cost
    is tiny in practice, usually well under 1% of throughput" as "it can cost ... 20-40%")."""
    best: dict[int, tuple[float, int, str]] = {}
    for (n, clause), p in zip(asked, probs, strict=True):
        e, c = float(p[0]), float(p[2])
        if e >= entail and e > c and e > best.get(n, (0.0, 0, ""))[0]:
            best[n] = (e, clause.sentence, clause.text)
    if not best:
        return verdicts
    points = list(verdicts.points)
    for n, (e, i, text) in best.items():
        claim = points[n].claim
        if found := contradiction(claim.text, text) or contradiction(claim.text, sentences[i]):
            points[n] = PointVerdict(claim, "contradicted", sentences[i], 0.0, 0.9, found)
            continue
        points[n] = PointVerdict(
            claim, "covered", sentences[i], 1.0, margin(e, entail), "nli:clause"
        )
    return replace(verdicts, points=tuple(points))


def clauses_of(
    answers: Sequence[Sequence[str]], embed: Callable[[list[str]], np.ndarray]
) -> list[tuple[Clause, ...]]:
    """Each answer's clauses with their vectors, embedded in one batch. The whole short
    answer, read as one premise beside its sentences, is not split again."""
    found = [
        [
            (i, t)
            for i, s in enumerate(sentences)
            if not any(j != i and o in s for j, o in enumerate(sentences))
            for t in clauses(s)
        ]
        for sentences in answers
    ]
    texts = list(dict.fromkeys(t for f in found for _, t in f))
    if not texts:
        return [() for _ in answers]
    vec = dict(zip(texts, embed(texts), strict=True))
    return [tuple(Clause(t, i, vec[t]) for i, t in f) for f in found]
