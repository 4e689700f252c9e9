"""Which answer sentence a verdict rests on: the part that says a contradiction, the part
quoted for a covered point, a restatement near word for word, whether a sentence is about this
point or another one, roles swapped across the answer, no point covered by a sentence found
wrong, and each quote put back in the candidate's own words."""

from __future__ import annotations

import re
from dataclasses import replace
from difflib import Match, SequenceMatcher
from itertools import pairwise

import numpy as np

from .asides import of_the_candidate
from .bound import bound_number, format_wrong
from .case import Ask, Case, nearest_part, parts_of
from .claims import Verdicts
from .roles import first_contradiction, swapped_binding, swapped_kinds
from .scope import scope_flipped
from .thresholds import Thresholds
from .words import distinctive, numbered_names


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
    if float(np.delete(sims, n_claim).max(initial=-1.0)) - float(sims[n_claim]) < th.elsewhere:
        return False
    # Nearer another point, but naming two of this one's numbered names (E4M3, E5M2) and more
    # than any other point's: about this one too.
    names = numbered_names(case.sentences[ask[1]])
    shared = [len(names & numbered_names(c.text)) for c in case.claims]
    mine = shared.pop(n_claim)  # (another point is nearer, so there is one)
    return not (mine >= 2 and mine > max(shared))


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


def as_said(v: Verdicts, answer: str) -> Verdicts:
    """The verdicts with each quote in the candidate's own words: the checker reads the answer
    with numbers in digits and shorthand expanded ("up to seven instances" was quoted as "up to
    7 instances")."""
    return replace(
        v,
        points=tuple(replace(p, evidence=in_their_words(answer, p.evidence)) for p in v.points),
        misconceptions=tuple(
            replace(m, evidence=in_their_words(answer, m.evidence)) for m in v.misconceptions
        ),
    )


def in_their_words(answer: str, quote: str) -> str:
    """The stretch of the answer that a quote of its normalised reading comes from (the quote
    itself where the answer has it word for word, or where no stretch clearly matches)."""
    if not quote or quote in answer:
        return quote
    blocks = [
        b
        for b in SequenceMatcher(None, answer, quote, autojunk=False).get_matching_blocks()
        if b.size >= 3
    ]
    if not blocks:
        return quote
    # The longest run, and the runs beside it that sit as far apart in the answer as in the
    # quote, give or take a rewritten word ("7" for "seven").
    k = max(range(len(blocks)), key=lambda i: blocks[i].size)
    lo = hi = k
    while lo > 0 and _adjacent(blocks[lo - 1], blocks[lo]):
        lo -= 1
    while hi < len(blocks) - 1 and _adjacent(blocks[hi], blocks[hi + 1]):
        hi += 1
    near = blocks[lo : hi + 1]
    if sum(b.size for b in near) < 0.7 * len(quote):
        return quote
    first, last = near[0], near[-1]
    start = max(0, first.a - first.b)
    end = last.a + last.size
    start = answer.rfind(" ", 0, start) + 1 if start and answer[start - 1] != " " else start
    stop = re.search(r"\s", answer[end:])
    end = end + stop.start() if stop and end and answer[end - 1] != " " else end
    said = answer[start:end].strip()
    return said if quote[-1:] in ",;:" or said[-1:] not in ",;:" else said[:-1]


def _adjacent(before: Match, after: Match) -> bool:
    gap_answer = after.a - (before.a + before.size)
    gap_quote = after.b - (before.b + before.size)
    return gap_answer <= gap_quote + 15


def swapped_in(case: Case, claim: str) -> str | None:
    """Roles swapped across the answer (the top sentence alone was checked): between things of
    one kind across its sentences, between two named things within one sentence, or between
    the point's subject and another point's across the answer, or a thing moved to the other
    side of a scope (within a node or across nodes); or the point's subject given
    another count of a part ("BF16 only gets 5 exponent bits"), or a number format something
    it is not (`format_wrong`)."""
    if not case.text:
        return None
    if found := format_wrong(claim, case.text):
        return found
    if len(case.sentences) < 2:
        return None
    siblings = [c.text for c in case.claims if c.text != claim]
    alone = [t for i, t in enumerate(case.sentences) if i not in case.cut]
    return (
        swapped_kinds(claim, case.text)
        or scope_flipped(claim, case.text)
        or bound_number(claim, case.text)
        or next((found for t in alone if (found := swapped_binding(claim, t))), None)
        or swapped_binding(claim, case.text, siblings)
    )
