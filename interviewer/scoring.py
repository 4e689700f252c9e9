"""Claim verdicts into a grade: the one place every grader turns verdicts into a score by
../shared/GRADING_SCALE.md (`claims.score`), the covered / missed / wrong lists and feedback."""

from __future__ import annotations

from collections.abc import Sequence

from . import claims as cl
from .records import ClaimResult, Grade, Provenance, ReferenceSet


def from_verdicts(
    verdicts: cl.Verdicts, estimate: float | None, prov: Provenance, refs: ReferenceSet
) -> Grade:
    """A grade from claim verdicts by the scale (`claims.score`): the one place every grader
    turns verdicts into a score, lists and feedback."""
    score, unrounded = cl.score(verdicts, estimate)
    stated = {m.wrong.contradicts: m for m in verdicts.misconceptions}
    results = tuple(
        ClaimResult(
            point=v.claim.text,
            verdict=v.verdict,
            label=v.claim.label,
            weight="core" if v.claim.core else "supporting",
            evidence=v.evidence,
            source=v.claim.source,
            misconception=stated[v.claim.id].wrong.text if v.claim.id in stated else "",
            point_id=v.claim.id,
        )
        for v in verdicts.points
    )
    wrong = tuple(
        f'"{r.evidence}" contradicts: {r.point}' + (f" ({r.source})" if r.source else "")
        for r in results
        if r.verdict == "contradicted"
    )
    covered = tuple(r.point for r in results if r.verdict == "covered")
    missed = tuple(r.point for r in results if r.verdict == "missed")
    return Grade(
        score=score,
        covered=covered,
        missed=missed,
        wrong_claims=wrong,
        feedback=feedback(score, results),
        reference_ids=tuple(r.id for r in refs.references),
        flags=(),
        confidence=cl.confidence(verdicts, unrounded),
        provenance=prov,
        expected_score=unrounded,
        references=refs.references,
        claims=results,
    )


def feedback(score: int, results: Sequence[ClaimResult]) -> str:
    """Plain feedback: the wrong claim first, then what was right, then what to add."""
    lead = {
        5: "Complete answer.",
        4: "Solid answer with a minor gap.",
        3: "The core idea is there, but important points are missing.",
        2: "Some relevant content, with major gaps.",
        1: "Mostly incorrect or vague.",
        0: "This does not answer the question correctly.",
    }[score]
    wrong = [r for r in results if r.verdict == "contradicted"]
    covered = [r for r in results if r.verdict == "covered"]
    missed = [r for r in results if r.verdict == "missed"]
    parts = []
    if wrong:
        w = wrong[0]
        said = _short(w.evidence, 120).rstrip(" .!?;:")
        parts.append(f'Wrong: "{said}". In fact: {w.point}')
    parts.append(lead)
    parts.append(f"You covered {len(covered)} of {len(results)} key points.")
    if missed:
        m = sorted(missed, key=lambda r: r.weight != "core")[0]
        parts.append(f"Work on: {m.label or _short(m.point)}.")
    return " ".join(parts)


def _short(text: str, limit: int = 140) -> str:
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def rubric_id(refs: ReferenceSet, origin: str) -> str:
    """The bank question whose rubric the key points came from ("" for a row's own answer)."""
    return (refs.question_id or "") if origin in ("authored", "passages", "llm", "auto") else ""
