"""End-of-session reports (Markdown and JSON) and weak topics across sessions."""

from __future__ import annotations

import statistics
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from .bank import Bank
from .interview import Session


def topic_scores(session: Session, bank: Bank) -> dict[str, float]:
    by_topic: dict[str, list[int]] = defaultdict(list)
    for t in session.turns:
        q = bank.get(t.prompt.question_id)
        if t.grade is None or q is None:
            continue
        for topic in q.topics:
            by_topic[topic].append(t.grade.score)
    return {k: round(statistics.fmean(v), 2) for k, v in sorted(by_topic.items())}


def weak_topics(
    scores: list[tuple[str, float]], bank: Bank, below: float = 3.0, min_answers: int = 2
) -> list[tuple[str, float, int]]:
    """Topics whose mean score across all sessions stays below `below`."""
    by_topic: dict[str, list[float]] = defaultdict(list)
    for qid, score in scores:
        q = bank.get(qid)
        for topic in q.topics if q else ():
            by_topic[topic].append(score)
    out = [
        (t, round(statistics.fmean(v), 2), len(v))
        for t, v in by_topic.items()
        if len(v) >= min_answers and statistics.fmean(v) < below
    ]
    return sorted(out, key=lambda x: x[1])


def to_json(session: Session, bank: Bank) -> dict[str, Any]:
    from .store import turn_to_dict

    graded = [t.grade.score for t in session.turns if t.grade]
    return {
        "session": session.id,
        "plan": {
            "topics": list(session.plan.topics),
            "difficulty": session.plan.difficulty,
            "length": session.plan.length,
            "mode": session.plan.mode,
        },
        "started": datetime.fromtimestamp(session.created_at, UTC).isoformat(),
        "mean_score": round(statistics.fmean(graded), 2) if graded else None,
        "topic_scores": topic_scores(session, bank),
        "turns": [turn_to_dict(t) for t in session.turns],
    }


def to_markdown(session: Session, bank: Bank) -> str:
    data = to_json(session, bank)
    lines = [
        f"# Interview report — {data['started'][:16].replace('T', ' ')} UTC",
        "",
        f"Mode: {session.plan.mode}; topics: {', '.join(session.plan.topics) or 'all'}; "
        f"mean score: {data['mean_score'] if data['mean_score'] is not None else '—'} / 5",
        "",
        "## Scores by topic",
        "",
        "| topic | mean score |",
        "| --- | --- |",
    ]
    lines += [f"| {t} | {s} |" for t, s in data["topic_scores"].items()]
    lines += ["", "## Turns", ""]
    for n, t in enumerate(session.turns, 1):
        kind = "Follow-up" if t.prompt.kind == "follow_up" else "Question"
        lines.append(f"### {n}. {kind}: {t.prompt.text}")
        if t.skipped:
            lines += ["", "_Skipped._", ""]
            continue
        g = t.grade
        assert g is not None
        lines += [
            "",
            f"**Answer:** {t.answer or '(empty)'}",
            "",
            f"**Score: {g.score}/5** (grader: {g.provenance.grader}, "
            f"{g.provenance.model}; decided by {g.provenance.decided_by})",
            "",
            f"{g.feedback}",
            "",
        ]
        if g.covered:
            lines += ["Covered:"] + [f"- {c}" for c in g.covered] + [""]
        if g.missed:
            lines += ["Missed:"] + [f"- {m}" for m in g.missed] + [""]
        if g.wrong_claims:
            lines += ["Wrong claims:"] + [f"- {w}" for w in g.wrong_claims] + [""]
        sources = [f"{r.id} ({r.source})" if r.source else r.id for r in g.references]
        if sources:
            lines += [f"Sources: {'; '.join(sources)}", ""]
    return "\n".join(lines)
