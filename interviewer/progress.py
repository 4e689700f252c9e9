"""A candidate's progress across sessions: each topic's score over time, topics that stay
weak, and the key points missed before that are due for review (spaced repetition).

Review uses Leitner boxes per key point: a point the candidate missed, contradicted or skipped
goes to box 0 and is due at once; each later answer that covers it moves it one box up and
due further out (1, 3, 7, 21 days); covered in the last box, it is learned and leaves the
schedule. Missed again, it goes back to box 0. A point covered the first time it was asked
never enters the schedule.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from .bank import Bank
from .report import question_scores, topic_scores
from .rubrics import KeyPoint
from .session import Session, question_result

DAY = 86400.0
INTERVALS_DAYS = (0.0, 1.0, 3.0, 7.0, 21.0)  # when box n is due after its last answer

PointsOf = Callable[[str], Sequence[KeyPoint]]  # a question id's rubric key points


@dataclass(frozen=True)
class ReviewPoint:
    question_id: str
    point_id: str
    point: str
    box: int
    due_at: float
    last_verdict: str  # missed | contradicted | skipped, or covered once it climbs


def topic_progress(sessions: Sequence[Session], bank: Bank) -> list[dict[str, object]]:
    """One row per (session, topic) over the sessions, oldest first: the session's number
    (1 = the first), when it started, and its mean question result in that topic."""
    rows: list[dict[str, object]] = []
    for n, s in enumerate(sorted(sessions, key=lambda s: s.created_at), 1):
        started = datetime.fromtimestamp(s.created_at).strftime("%Y-%m-%d %H:%M")
        for topic, score in topic_scores(s, bank).items():
            rows.append({"session": n, "started": started, "topic": topic, "score": score})
    return spread(rows)


# How far apart on the plot topics with the same score in a session sit (about a marker's
# width), closer when many tie, so that a tie stays within half a point of its score.
TIE_STEP = 0.2
TIE_SPAN = 0.8


def spread(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    """Each row with `shown`: its score, moved a little up or down where other topics of the
    same session have the same score, so that no point hides another (a trial's plot showed
    one circle for two topics at 4). The tooltip still gives the score."""
    ties: dict[tuple[object, object], list[dict[str, object]]] = defaultdict(list)
    for r in rows:
        ties[r["session"], r["score"]].append(r)
    for group in ties.values():
        step = min(TIE_STEP, TIE_SPAN / max(1, len(group) - 1))
        for k, r in enumerate(group):
            offset = (k - (len(group) - 1) / 2) * step
            r["shown"] = round(float(r["score"]) + offset, 3)  # type: ignore[arg-type]
    return rows


def weak_topics(
    sessions: Sequence[Session], bank: Bank, below: float = 3.0, min_answers: int = 2
) -> list[tuple[str, float, int]]:
    """Topics whose mean question result across all sessions stays below `below`."""
    by_topic: dict[str, list[float]] = defaultdict(list)
    for s in sessions:
        for qid, score in question_scores(s).items():
            q = bank.get(qid)
            if q is not None and score is not None:
                for topic in q.topics:
                    by_topic[topic].append(score)
    out = [
        (t, round(statistics.fmean(v), 2), len(v))
        for t, v in by_topic.items()
        if len(v) >= min_answers and statistics.fmean(v) < below
    ]
    return sorted(out, key=lambda x: x[1])


def _verdicts(session: Session, qid: str, points_of: PointsOf) -> dict[str, tuple[str, str]]:
    """point id -> (point text, verdict) for one question of one session: its first answer
    and follow-up replies together. A skipped question, or one answered with nothing that
    counts ("I don't know", off-topic), leaves every key point to learn."""
    turns = [t for t in session.turns if t.prompt.question_id == qid]
    if all(t.skipped for t in turns):
        return {k.id: (k.text, "skipped") for k in points_of(qid)}
    result = question_result(session.turns, qid)
    out = {c.point_id or c.point: (c.point, c.verdict) for c in result.claims}
    # Put right only when asked: still to review.
    out |= {c.point_id or c.point: (c.point, "contradicted") for c in result.corrected}
    if result.score == 0 and all(v == "covered" for _, v in out.values()):
        return {k.id: (k.text, "missed") for k in points_of(qid)}
    return out


def review_schedule(sessions: Sequence[Session], points_of: PointsOf) -> list[ReviewPoint]:
    """Every key point in the schedule, from all of one candidate's sessions."""
    cards: dict[tuple[str, str], ReviewPoint] = {}
    for s in sorted(sessions, key=lambda s: s.created_at):
        # A question still open (its follow-up pending) is not yet missed: the reply may cover it.
        open_now = s.current.question_id if s.current and s.status == "active" else None
        for qid in dict.fromkeys(t.prompt.question_id for t in s.turns):
            if qid == open_now:
                continue
            when = max(t.answered_at for t in s.turns if t.prompt.question_id == qid)
            for pid, (text, verdict) in _verdicts(s, qid, points_of).items():
                key, card = (qid, pid), cards.get((qid, pid))
                if verdict != "covered":
                    cards[key] = ReviewPoint(qid, pid, text, 0, when, verdict)
                elif card is not None and card.box + 1 >= len(INTERVALS_DAYS):
                    del cards[key]  # learned
                elif card is not None:
                    box = card.box + 1
                    due = when + INTERVALS_DAYS[box] * DAY
                    cards[key] = replace(card, box=box, due_at=due, last_verdict=verdict)
    return list(cards.values())


def due(schedule: Sequence[ReviewPoint], now: float) -> list[ReviewPoint]:
    """The points due now, grouped by question: the question with most points due first,
    then the longest overdue."""
    ready = [p for p in schedule if p.due_at <= now]
    by_q: dict[str, list[ReviewPoint]] = defaultdict(list)
    for p in ready:
        by_q[p.question_id].append(p)
    order = sorted(by_q, key=lambda q: (-len(by_q[q]), min(p.due_at for p in by_q[q])))
    return [p for q in order for p in sorted(by_q[q], key=lambda p: p.due_at)]


def review_summary(schedule: Sequence[ReviewPoint], now: float) -> str:
    ready = due(schedule, now)
    later = [p for p in schedule if p.due_at > now]
    if not schedule:
        return "Nothing to review yet: key points you miss will come back here."
    parts = []
    if ready:
        questions = len({p.question_id for p in ready})
        parts.append(
            f"{len(ready)} key point{'s' * (len(ready) != 1)} you missed before "
            f"{'are' if len(ready) != 1 else 'is'} due for review, from {questions} "
            f"question{'s' * (questions != 1)}."
        )
    else:
        parts.append("Nothing is due for review now.")
    if later:
        soonest = min(p.due_at for p in later)
        days = max(1, round((soonest - now) / DAY))
        parts.append(
            f"{len(later)} more come back later (the next in {days} day{'s' * (days != 1)})."
        )
    return " ".join(parts)
