"""Which answer sentence a verdict rests on: the part that says a contradiction, the part
quoted for a covered point, a restatement near word for word, whether a sentence is about this
point or another one, and no point covered by a sentence found wrong."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise

import numpy as np

from .asides import of_the_candidate
from .case import Ask, Case, nearest_part, parts_of
from .claims import Verdicts
from .roles import first_contradiction
from .thresholds import Thresholds
from .words import distinctive


def saying(case: Case, claim: str, i: int) -> int:
    """Of a whole short answer that contradicts the claim, the sentence in it that does: alone,
    or read after the one before it, which names what its pronoun is ("MIG splits an A100 into
    up to seven instances, | but they aren't isolated in hardware")."""
    parts = parts_of(case, i)
    alone = (j for j in parts if first_contradiction(claim, [case.sentences[j]]))
    after = (
        j
        for a, j in pairwise(parts)
        if first_contradiction(claim, [f"{case.sentences[a]} {case.sentences[j]}"])
    )
    return next(alone, next(after, i))


def quote_part(case: Case, vec: np.ndarray, i: int) -> str:
    return case.sentences[nearest_part(case, vec, i)]


def covering(case: Case, n_claim: int, i: int) -> str:
    """Of a whole short answer read as one premise that entails the point, the part nearest the
    point, of those that do not speak of the candidate or share two of the point's own words
    (not everyday English) while any do: not a remark beside it ("Back when I was at a startup,
    we had eight GPUs under a desk ..." was quoted, and so counted as content, for the point
    that the stall breaks the CPU-GPU overlap), but "I'd record CUDA events ..." still."""
    claim = case.claims[n_claim]
    words = distinctive(" ".join(claim.texts))
    return case.sentences[
        nearest_part(
            case,
            case.claim_vectors[n_claim],
            i,
            lambda t: not of_the_candidate(t) or len(words & distinctive(t)) >= 2,
        )
    ]


def restated(case: Case, n_claim: int, th: Thresholds) -> int | None:
    """The sentence that restates the claim nearly word for word, if any."""
    if case.verbatim is None or not len(case.verbatim):
        return None
    i = int(np.argmax(case.verbatim[:, n_claim]))
    return i if case.verbatim[i, n_claim] >= th.verbatim else None


def about(case: Case, ask: Ask, n_claim: int, th: Thresholds) -> bool:
    sims = case.claim_vectors @ case.vectors[ask[1]]
    return bool(ask[2] >= th.contradict_sim and int(np.argmax(sims)) == n_claim)


def elsewhere(case: Case, ask: Ask, n_claim: int, th: Thresholds) -> bool:
    sims = case.claim_vectors @ case.vectors[ask[1]]
    return float(np.delete(sims, n_claim).max(initial=-1.0)) - float(sims[n_claim]) >= th.elsewhere


def no_cover_from_wrong(v: Verdicts) -> Verdicts:
    """A sentence found wrong is no evidence that another point was stated: "the H100 itself
    uses GDDR6X." (contradicting where HBM is used) had covered the HBM bandwidth point. A
    restatement near word for word still covers."""
    wrong = {_said(p.evidence) for p in v.of("contradicted")}
    wrong |= {_said(m.evidence) for m in v.misconceptions}
    wrong.discard("")
    if not wrong:
        return v
    return replace(
        v,
        points=tuple(
            replace(p, verdict="missed", evidence="", credit=0.0)
            if p.verdict == "covered" and p.decided_by != "verbatim" and _said(p.evidence) in wrong
            else p
            for p in v.points
        ),
    )


def _said(text: str) -> str:
    return " ".join(text.lower().split()).strip(" .;,")
