"""The clauses of a run-on sentence, read apart for what they state.

A spoken or hurried answer packs a design into one sentence ("300B parameters need about 4.8
TB, so use tensor parallelism inside a node over NVLink, pipeline parallelism across nodes,
ZeRO-1 for the optimizer state and activation checkpointing"). Read whole, such a sentence
entails none of the key points it lists; the same words as four sentences cover four. A key
point the checker found missed is asked again against the sentence's comma-separated clauses.
A clause read out of its sentence may show that the sentence states a point, never that it
contradicts one; a sentence with a negation in it is not read apart ("no tensor
parallelism, pipeline parallelism across nodes" must not cover tensor parallelism), nor is a
subordinate clause read alone. A point still missed is also asked against its tersest
paraphrase ("The GPU is starved for work."): a sentence may state the gist of a long point.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from .asides import about_me
from .claims import PointVerdict, Verdicts, margin
from .roles import first_contradiction

if TYPE_CHECKING:
    from .checker import Case
    from .nli import Entailment
    from .thresholds import Thresholds

MIN_WORDS = 12  # a sentence shorter than this is read whole
CLAUSE_WORDS = 3  # a clause shorter than this ("pipeline parallelism") says too little alone
_NEGATION = re.compile(r"\b(?:not|no|never|none|nor|without|neither)\b|n't\b", re.I)
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


def read_again(
    cases: Sequence[Case], results: list[Verdicts], nli: Entailment | None, th: Thresholds
) -> list[Verdicts]:
    """Points still missed, asked again of the clauses of run-on sentences and against their
    tersest paraphrase, in one more NLI call."""
    again = [
        ask_again(v, case.clauses, case.claim_vectors, th.min_sim, th.top_k)
        for case, v in zip(cases, results, strict=True)
    ]
    terse = [
        ask_paraphrases(case, v, th.paraphrase_sim) for case, v in zip(cases, results, strict=True)
    ]
    flat = [
        (c.text, case.claims[n].text) for case, a in zip(cases, again, strict=True) for n, c in a
    ] + [(case.sentences[i], alt) for case, t in zip(cases, terse, strict=True) for _, i, alt in t]
    if not flat or nli is None:
        return results
    more = iter(nli.probabilities(flat))
    by_clause = [[next(more) for _ in a] for a in again]  # the clause pairs come first
    out = []
    for case, v, a, pa, t in zip(cases, results, again, by_clause, terse, strict=True):
        v = covered_by_clauses(v, a, pa, case.sentences, th.entail) if a else v
        if t:
            alts = [(n, Clause(alt, i, case.vectors[i])) for n, i, alt in t]
            probs = [next(more) for _ in t]
            v = covered_by_clauses(v, alts, probs, case.sentences, th.entail, "nli:paraphrase")
        out.append(v)
    return out


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
    decided_by: str = "nli:clause",
) -> Verdicts:
    """The verdicts with each missed point that a clause entails (and does not contradict
    more) turned covered, quoting the whole sentence the clause comes from."""
    best: dict[int, tuple[float, int]] = {}
    for (n, clause), p in zip(asked, probs, strict=True):
        e, c = float(p[0]), float(p[2])
        if (
            verdicts.points[n].verdict == "missed"
            and e >= entail
            and e > c
            and e > best.get(n, (0.0, 0))[0]
        ):
            best[n] = (e, clause.sentence)
    if not best:
        return verdicts
    points = list(verdicts.points)
    for n, (e, i) in best.items():
        claim = points[n].claim
        points[n] = PointVerdict(claim, "covered", sentences[i], 1.0, margin(e, entail), decided_by)
    return replace(verdicts, points=tuple(points))


def ask_paraphrases(case: Case, verdicts: Verdicts, min_sim: float) -> list[tuple[int, int, str]]:
    """(claim index, sentence index, paraphrase) for each point still missed that has
    paraphrases: its tersest one, against the sentence nearest the point's texts. Not for an
    answer that says something wrong (no benefit of the doubt), nor of a sentence as near a
    misconception as the point, or that an exact check finds contradicting the point: the
    model entails a terse paraphrase from a wrong sentence more readily than the point. Nor of
    one that speaks of the candidate or thanks (as padding does; an explanation's "you" is no
    padding): padding earns nothing, and a lenient reading must not make it decide a verdict."""
    if case.verbatim is None or not len(case.verbatim) or verdicts.wrong_points():
        return []
    out = []
    for n, v in enumerate(verdicts.points):
        if v.verdict != "missed" or not v.claim.alternatives:
            continue
        i = int(np.argmax(case.verbatim[:, n]))
        near = float(case.verbatim[i, n])
        tersest = min(v.claim.alternatives, key=lambda t: len(t.split()))
        if (
            near >= min_sim
            and not about_me(case.sentences[i])
            and (case.misconceived is None or near > float(case.misconceived[i]))
            and not first_contradiction(v.claim.text, [case.sentences[i]])
            and not first_contradiction(tersest, [case.sentences[i]])
        ):
            out.append((n, i, tersest))
    return out


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
