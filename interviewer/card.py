"""The grade card: what the page shows about the last answer, in plain words, with the
technical details folded away."""

from __future__ import annotations

import re

from .delivery import assess
from .interview import Engine
from .report import point_line, wrong_line
from .session import Session, question_result

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


def grade_card(session: Session, engine: Engine) -> tuple[str, str]:
    """The last turn's card. While a follow-up of the question is pending it shows the score
    so far only: what was missed would give the follow-up away. Once the question is closed:
    the question's result over all its turns, the wrong claims with their corrections, what was
    missed with its source, and the model answer."""
    turn = session.turns[-1]
    g = turn.grade
    if g is None:
        return "_Skipped._", ""
    refs = "\n\n".join(f"**{r.source or r.id}**\n\n> {passage(r.text)}" for r in g.references)
    refs = refs or "_No reference passages._"
    qid = turn.prompt.question_id
    q = engine.bank.get(qid)
    rubric = engine.rubric(q) if q else None
    # Delivery is apart from the score: how it was said, not what (and nothing to say of an
    # "I don't know" or an empty answer).
    said = (
        []
        if g.flags and set(g.flags) <= {"empty", "non_answer"}
        else assess(turn.answer, rubric.model_answer if rubric else "", turn.spoken).lines()
    )
    delivery = (
        ["**Delivery** (not part of the score)", *[f"- {x}" for x in said], ""] if said else []
    )
    if not closed_after(session, len(session.turns) - 1):
        return (
            "\n".join(
                [
                    f"### Score so far {score_so_far(session, len(session.turns) - 1)}/5",
                    "",
                    "A follow-up question is next. What you missed, and a model answer, are "
                    "shown when this question is closed.",
                    "",
                    *delivery,
                ]
            ),
            refs,
        )
    result = question_result(session.turns, qid)
    lines = [f"### Score {result.score}/5", "", result.feedback, "", *delivery]
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
        lines += ["**Missed**", *(point_line(c.point, c.source) for c in missed), ""]
    if rubric and rubric.model_answer:
        lines += ["**Model answer**", "", rubric.model_answer, ""]
    p = g.provenance
    lines += [
        f"<details><summary>Grading details</summary>grader {p.grader} ({p.model}); "
        f"key points: {p.rubric or 'n/a'}; claim checker: {p.claim_checker or 'n/a'}; "
        f"decided by {p.decided_by}; confidence {g.confidence:.2f}</details>"
    ]
    return "\n".join(lines), refs
