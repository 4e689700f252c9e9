"""The grade card: what the page shows about the last answer, in plain words, with the
technical details folded away."""

from __future__ import annotations

import re

from .interview import Engine
from .records import ClaimResult
from .report import PARTLY, as_typed, delivery_lines, point_line, wrong_line
from .session import Session, Turn, question_result

FLAG_WORDS = {
    "empty": "No answer was given",
    "non_answer": "Marked as no attempt at an answer",
    "off_topic": "This answers a different question",
    "injection": "Instructions to the grader were found in the answer and ignored",
    "language": "The answer is not in English",
    "no_reference": "No reference material for this question: the score is a rough guess",
    "too_long": "The answer is very long",
}


def passage(text: str, limit: int = 700) -> str:
    """A reference passage as a reader wants it: the guides' difficulty tags off the ends of
    question lines, cut at a sentence end."""
    text = re.sub(r"(?m)[ \t]+(?:easy|medium|hard)[ \t]*$", "", text).strip()
    if len(text) <= limit:
        return text.replace("\n", "\n> ")
    cut = text[:limit]
    end = max(cut.rfind(". "), cut.rfind("? "), cut.rfind(".\n"))
    return (cut[: end + 1] if end > limit // 2 else cut.rsplit(" ", 1)[0] + " …").replace(
        "\n", "\n> "
    )


def closed_after(session: Session, n: int) -> bool:
    """Whether turn n closed its question: the next turn, or the prompt pending, is another
    question's. (An earlier turn of a question closed since then stays as it was shown.)"""
    qid = session.turns[n].prompt.question_id
    if n + 1 < len(session.turns):
        return session.turns[n + 1].prompt.question_id != qid
    return session.current is None or session.current.question_id != qid


def score_so_far(session: Session, n: int) -> int:
    """The question's score over its answer and the replies up to turn n: a reply is graded
    on the point its follow-up probed, so its own score is not the question's."""
    return question_result(session.turns[: n + 1], session.turns[n].prompt.question_id).score


def skipped_card(session: Session, engine: Engine) -> tuple[str, str]:
    """The card after a skip. A skipped follow-up closes its question: the question's card, as
    its answer left it. A skipped question: what a full answer covers, and the model answer,
    to learn from as an answered question's card teaches."""
    qid = session.turns[-1].prompt.question_id
    graded = [t for t in session.turns if t.prompt.question_id == qid and t.grade]
    if graded:
        return closed_card(session, engine, graded[-1], "_You skipped the follow-up._")
    rubric = engine.rubric_for(qid)
    lines = ["### Skipped", ""]
    if rubric and rubric.key_points:
        points = [point_line(k.text, "") for k in rubric.ordered()]
        lines += ["**What a full answer covers**", *points, ""]
    if rubric and rubric.model_answer:
        lines += ["**Model answer**", "", rubric.model_answer, ""]
    return "\n".join(lines), ""


def grade_card(session: Session, engine: Engine) -> tuple[str, str]:
    """The last turn's card. While a follow-up of the question is pending it shows the score
    so far only: what was missed would give the follow-up away. Once the question is closed:
    the question's result over all its turns, the wrong claims with their corrections, what was
    missed with its source, and the model answer."""
    turn = session.turns[-1]
    if turn.grade is None:
        return skipped_card(session, engine)
    if closed_after(session, len(session.turns) - 1):
        return closed_card(session, engine, turn)
    delivery = _delivery(engine, turn)
    return (
        "\n".join(
            [
                f"### Score so far {score_so_far(session, len(session.turns) - 1)}/5",
                "",
                *_reply_line(turn),
                "A follow-up question is next. What you missed, and a model answer, are "
                "shown when this question is closed.",
                "",
                *delivery,
            ]
        ),
        _references(turn),
    )


def _reply_line(turn: Turn) -> list[str]:
    """A reply to a follow-up, scored on its own: the question's score above moves little with
    one reply, and a wrong reply must not pass for an accepted one."""
    if turn.prompt.kind != "follow_up" or turn.grade is None:
        return []
    return [f"_Your reply to the follow-up, on its own: {turn.grade.score}/5._", ""]


def _references(turn: Turn) -> str:
    assert turn.grade is not None
    refs = "\n\n".join(
        f"**{r.source or r.id}**\n\n> {passage(r.text)}" for r in turn.grade.references
    )
    return refs or "_No reference passages._"


def _delivery(engine: Engine, turn: Turn) -> list[str]:
    """Apart from the score: how it was said, not what."""
    rubric = engine.rubric_for(turn.prompt.question_id)
    said = delivery_lines(turn, rubric.model_answer if rubric else "")
    return ["**Delivery** (not part of the score)", *[f"- {x}" for x in said], ""] if said else []


def closed_card(session: Session, engine: Engine, turn: Turn, note: str = "") -> tuple[str, str]:
    """A closed question's card, `turn` being its last graded one."""
    g = turn.grade
    assert g is not None
    qid = turn.prompt.question_id
    rubric = engine.rubric_for(qid)
    result = question_result(session.turns, qid)
    lines = [f"### Score {result.score}/5", "", as_typed(result.feedback), "", *_reply_line(turn)]
    lines += [note, ""] if note else []
    lines += _delivery(engine, turn)
    if g.flags:
        # The flags are the last turn's; after a follow-up they describe the reply, not the
        # question whose result stands above.
        words = "; ".join(FLAG_WORDS.get(f, f) for f in g.flags)
        if turn.prompt.kind == "follow_up":
            words = f"Your last reply: {words[:1].lower()}{words[1:]}"
        lines += [f"_{words}._", ""]
    if turn.late and session.plan.seconds_per_answer:
        lines += [
            f"_Answered late: over the {session.plan.seconds_per_answer}-second limit._",
            "",
        ]
    wrong = [c for c in result.claims if c.verdict == "contradicted"]
    covered = [c for c in result.claims if c.verdict == "covered"]
    missed = [c for c in result.claims if c.verdict == "missed"]
    if wrong:
        lines += ["**Wrong claims**", *(wrong_line(c.evidence, c.point, c.source) for c in wrong)]
        lines += [""]
    if result.corrected:
        lines += [
            "**Corrected when asked**",
            *(wrong_line(c.evidence, c.point, c.source) for c in result.corrected),
            "",
        ]
    if covered:
        lines += ["**Covered**", *(f"- {c.point}" for c in covered), ""]
    if missed:
        # Partly credited: the answer may have said it in other words, and the candidate
        # should not read "missed" as "never said".
        lines += [
            "**Missed**",
            *(point_line(c.point, c.source, _partly(c)) for c in missed),
            "",
        ]
    if rubric and rubric.model_answer:
        lines += ["**Model answer**", "", rubric.model_answer, ""]
    p = g.provenance
    lines += [
        f"<details><summary>Grading details</summary>grader {p.grader} ({p.model}); "
        f"key points: {p.rubric or 'n/a'}; claim checker: {p.claim_checker or 'n/a'}; "
        f"decided by {p.decided_by}; confidence {g.confidence:.2f}</details>"
    ]
    return "\n".join(lines), _references(turn)


def _partly(c: ClaimResult) -> str:
    return PARTLY if c.partly_said else ""
