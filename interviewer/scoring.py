"""Claim verdicts into a grade: the one place every grader turns verdicts into a score by
../shared/GRADING_SCALE.md (`score`), the covered / missed / wrong lists and feedback."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from . import claims as cl
from .asks import asked_for
from .disagreement import opening
from .records import ClaimResult, Grade, Provenance, ReferenceSet

MISSED_CAP = 4.4


def score(verdicts: cl.Verdicts, estimate: float | None = None) -> tuple[int, float]:
    """(score, unrounded) by the grading scale. `estimate` is a grader's own 0-5 estimate of
    how much correct content the answer has (the offline grader's fitted model); without one,
    the weighted coverage of the key points decides. Wrong claims then cap it:
    a missed key point holds it under 5; a contradicted core point (or a misconception about
    one) caps at 1 (0 when nothing else is right), a contradicted supporting point at 3, two or
    more wrong points at 2, and any wrong point with no point right at 1."""
    points = verdicts.points
    if not points:
        return 0, 0.0
    cov = verdicts.coverage
    raw = 5.0 * cov if estimate is None else float(estimate)
    # 5 is "covers every key point": a missed one holds it at 4, however high the estimate
    # (a stretched estimate had read "Complete answer. You covered 4 of 5 key points."),
    # unless the question asks for fewer than its reference lists, and those are covered.
    if any(p.verdict == "missed" for p in points) and not verdicts.complete:
        raw = min(raw, MISSED_CAP)
    wrong = verdicts.wrong_points()
    by_id = {p.claim.id: p for p in points}
    core_wrong = any(by_id[w].claim.core for w in wrong if w in by_id)
    right = [p for p in points if p.verdict == "covered" and p.claim.id not in wrong]
    if core_wrong:
        raw = min(raw, 1.0 if right else 0.4)
    elif wrong and not right:
        # Wrong with nothing right is "mostly incorrect" whichever point it gets wrong: a row's
        # own reference has no core point beside others ("A stack is first-in first-out."
        # against a two-sentence reference scored 3).
        raw = min(raw, 1.0)
    elif len(wrong) >= 2:
        raw = min(raw, 2.0)
    elif wrong:
        raw = min(raw, 3.0)
    raw = float(np.clip(raw, 0.0, 5.0))
    return int(np.clip(np.floor(raw + 0.5), 0, 5)), round(raw, 3)


def confidence(verdicts: cl.Verdicts, unrounded: float) -> float:
    """How sure the grade is: the weakest deciding margin among the verdicts, how far the
    unrounded score sits from a rounding boundary, and how far from the middle of the scale.
    The scale's ends are its plainest anchors (nothing right, or every point right); between
    them a grade rests on partial credit, where graders, human or not, disagree most. Weights
    chosen on dev parts (in-domain, blind, Mohler, SAF): the least-confident fifth's error."""
    margins = [p.margin for p in verdicts.points] + [
        min(1.0, 2 * abs(m.probability - 0.5)) for m in verdicts.misconceptions
    ]
    weakest = min(margins) if margins else 0.5
    edge = 1.0 - 2 * abs(unrounded - np.floor(unrounded + 0.5))  # 1 at .0, 0 at .5
    end = min(1.0, abs(unrounded - 2.5) / 2.5)  # 1 at 0 or 5, 0 at 2.5
    return round(float(0.25 + 0.2 * weakest + 0.1 * edge + 0.45 * end), 2)


def from_verdicts(
    verdicts: cl.Verdicts, estimate: float | None, prov: Provenance, refs: ReferenceSet
) -> Grade:
    """A grade from claim verdicts by the scale (`score`): the one place every grader
    turns verdicts into a score, lists and feedback."""
    rounded, unrounded = score(verdicts, estimate)
    stated = {m.wrong.contradicts: m for m in verdicts.misconceptions}
    results = tuple(
        ClaimResult(
            point=_shown(v.claim),
            verdict=v.verdict,
            label=v.claim.label,
            weight="core" if v.claim.core else "supporting",
            evidence=v.evidence,
            source=v.claim.source,
            misconception=stated[v.claim.id].wrong.text if v.claim.id in stated else "",
            point_id=v.claim.id,
            credit=round(v.credit, 3),
        )
        for v in verdicts.points
    )
    wrong = _wrong_lines(results)
    covered = tuple(r.point for r in results if r.verdict == "covered")
    missed = tuple(r.point for r in results if r.verdict == "missed")
    return Grade(
        score=rounded,
        covered=covered,
        missed=missed,
        wrong_claims=wrong,
        feedback=feedback(rounded, results, asked=verdicts.asked),
        reference_ids=tuple(r.id for r in refs.references),
        flags=(),
        confidence=confidence(verdicts, unrounded),
        provenance=prov,
        expected_score=unrounded,
        references=refs.references,
        claims=results,
    )


def also_said(reply: Grade, whole: Grade) -> Grade:
    """A reply to a follow-up, graded on the point it probes (`reply`), with what the same
    reply said about the question's other key points (`whole`: it graded against them all).
    A point it states joins the covered ones without raising its score (the reply is judged
    on what it was asked); a wrong claim caps the score as in any answer. Only from the same
    grader (a fallback's verdicts never join an LLM's grade) and never from a flagged reading."""
    asked = {c.point_id or c.point for c in reply.claims}
    if whole.flags or whole.provenance.grader != reply.provenance.grader:
        return reply
    extra = [
        c for c in whole.claims if (c.point_id or c.point) not in asked and c.verdict != "missed"
    ]
    if not extra:
        return reply
    results = (*reply.claims, *extra)
    capped, unrounded = score(as_verdicts(results), reply.expected_score)
    rounded = min(reply.score, capped)
    return replace(
        reply,
        score=rounded,
        expected_score=min(reply.expected_score or float(reply.score), unrounded),
        covered=tuple(r.point for r in results if r.verdict == "covered"),
        wrong_claims=(*reply.wrong_claims, *_wrong_lines(extra)),
        feedback=feedback(rounded, results),
        claims=results,
    )


def as_verdicts(results: Sequence[ClaimResult]) -> cl.Verdicts:
    """Claim results read back as verdicts (a covered point fully credited), to score again
    what several turns said together."""
    return cl.Verdicts(
        tuple(
            cl.PointVerdict(
                cl.Claim(r.point_id or r.point, r.point, weight=2.0 if r.weight == "core" else 1.0),
                r.verdict,  # type: ignore[arg-type]
                r.evidence,
                1.0 if r.verdict == "covered" else 0.0,
            )
            for r in results
        )
    )


def _wrong_lines(results: Sequence[ClaimResult]) -> tuple[str, ...]:
    return tuple(
        f'"{r.evidence}" contradicts: {r.point}' + (f" ({r.source})" if r.source else "")
        for r in results
        if r.verdict == "contradicted"
    )


def _shown(claim: cl.Claim) -> str:
    """The point as a person reads it: with the verdict its reference opened with ("No. Past
    the critical batch size ..."), which the sentence split leaves out."""
    if not claim.verdict or opening(claim.text):
        return claim.text
    verdict = claim.verdict if len(claim.verdict) == 1 else claim.verdict.capitalize()
    return f"{verdict}. {claim.text}"


def feedback(score: int, results: Sequence[ClaimResult], lead: str = "", asked: int = 0) -> str:
    """Plain feedback: the wrong claim first, then what was right, then what to add. `lead`
    replaces the score's own line where something else set the score (a cap); `asked`: the
    number of the listed points the question asks for."""
    lead = (
        lead
        or {
            5: "Complete answer.",
            4: "Solid answer with a minor gap.",
            3: "The core idea is there, but important points are missing.",
            2: "Some relevant content, with major gaps.",
            1: "Mostly incorrect or vague.",
            0: "This does not answer the question correctly.",
        }[score]
    )
    wrong = [r for r in results if r.verdict == "contradicted"]
    covered = [r for r in results if r.verdict == "covered"]
    missed = [r for r in results if r.verdict == "missed"]
    parts = []
    if wrong:
        w = wrong[0]
        said = _short(w.evidence, 120).rstrip(" .!?;:")
        parts.append(f'Wrong: "{said}". In fact: {w.point}')
    parts.append(lead)
    if not covered and score >= 3:
        # The score came from how near the whole answer sits to the reference (a row's own
        # reference answer, mostly): "You covered 0 of 3" under a 3 read as a contradiction
        # (trial G). On Mohler dev such answers' human mean is 3.9: the score, not the
        # sentence-by-sentence reading, is the better guide there.
        parts.append(
            f"None of the {len(results)} key points was found stated sentence by sentence; "
            "the score follows how closely the answer as a whole matches the reference."
        )
    elif score >= 4 and 2 * len(covered) < (asked or len(results)):
        # "Solid answer with a minor gap. You covered 1 of 3 key points." (trial J)
        parts.append(
            f"{len(covered)} of the {asked or len(results)} key points were found stated "
            "sentence by sentence; the score follows how closely the answer as a whole matches "
            "the reference."
        )
    elif asked:
        parts.append(
            f"You covered {len(covered)} of the {asked} key points asked for "
            f"({len(results)} listed)."
        )
    else:
        parts.append(f"You covered {len(covered)} of {len(results)} key points.")
    if missed and len(covered) < (asked or len(results)):
        m = min(missed, key=lambda r: r.raise_first)
        # A point the answer may have said in other words is not one to learn but one to say
        # plainly: trial F was told "Work on: pinned host memory" after "Use pinned memory ...".
        head = "Make explicit" if m.partly_said else "Work on"
        parts.append(f"{head}: {m.label or _short(m.point).rstrip(' .')}.")
    return " ".join(parts)


def _short(text: str, limit: int = 140) -> str:
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def asking(verdicts: cl.Verdicts, question: str, origin: str) -> cl.Verdicts:
    """The verdicts against key points made from a reference's sentences (a row's own answer,
    or automatic), where the question asks for fewer of them than it lists: "Name two
    challenges" against a marking scheme of five is complete at two. Never against a curated
    rubric, whose key points all make a complete answer."""
    n = asked_for(question)
    if origin in ("input", "auto", "retrieved") and 0 < n < len(verdicts.points):
        return replace(verdicts, asked=n)
    return verdicts


def rubric_id(refs: ReferenceSet, origin: str) -> str:
    """The bank question whose rubric the key points came from ("" for a row's own answer)."""
    return (refs.question_id or "") if origin in ("authored", "passages", "llm", "auto") else ""
