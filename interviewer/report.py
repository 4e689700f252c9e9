"""End-of-session reports (Markdown, JSON and printable HTML).

A report is about questions, not turns: each question's result combines its first answer and
the replies to its follow-ups. It says how it went overall and per chosen topic, what was strong,
which claims were wrong (with the correction and where it comes from), what to study (the
missed key points with their sources), and shows the model answers.
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from .bank import Bank
from .delivery import assess
from .hints import ladder
from .records import Provenance, Question
from .rubrics import Rubric
from .session import Session, Turn, question_result
from .words import terms

RubricOf = Callable[[Question], Rubric | None]
NO_ATTEMPT = {"empty", "non_answer"}

# The chat renders Markdown: a candidate's "~160 MB/s per node ... ~20 GB/s" was struck through.
_MARKDOWN = re.compile(r"([\\`*_~\[\]#|<>])")


def as_typed(text: str) -> str:
    """A candidate's words shown as typed, their Markdown characters escaped."""
    return _MARKDOWN.sub(r"\\\1", text)


def quoted(text: str) -> str:
    """A candidate's answer as a Markdown quote: every line of it, as typed."""
    return "\n".join(f"> {line}" for line in as_typed(text).split("\n"))


def delivery_lines(turn: Turn, model_answer: str) -> list[str]:
    """How a turn's answer was said, for the card and the report. Its length is weighed
    against the model answer for a main answer only: a reply to a follow-up is meant to be
    short, and nothing is said of a skip, an empty answer or an "I don't know"."""
    flags = set(turn.grade.flags) if turn.grade else set()
    if turn.skipped or flags & NO_ATTEMPT:
        return []
    needed = model_answer if turn.prompt.kind == "question" else ""
    return assess(turn.answer, needed, turn.spoken).lines()


def same_point(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two strengths of one question that say the same thing: a point covered in the answer
    and again, worded by another reference, in a reply. Distinct authored points of one
    question share a label never, and at most 62% of their words."""
    if a["question"] != b["question"]:
        return False
    if a["label"] and a["label"] == b["label"]:
        return True
    x, y = set(terms(a["point"])), set(terms(b["point"]))
    return len(x & y) >= 0.7 * max(1, min(len(x), len(y)))


def _questions(session: Session) -> list[str]:
    return list(dict.fromkeys(t.prompt.question_id for t in session.turns))


def question_scores(session: Session) -> dict[str, int | None]:
    """Each asked question's result (None when it was skipped)."""
    out: dict[str, int | None] = {}
    for qid in _questions(session):
        graded = [t for t in session.turns if t.prompt.question_id == qid and t.grade]
        out[qid] = question_result(session.turns, qid).score if graded else None
    return out


def topic_scores(session: Session, bank: Bank) -> dict[str, float]:
    """Mean question result per topic, over the topics chosen (all asked ones if none were)."""
    chosen = set(session.plan.topics)
    by_topic: dict[str, list[int]] = defaultdict(list)
    for qid, score in question_scores(session).items():
        q = bank.get(qid)
        if q is None or score is None:
            continue
        for topic in q.topics:
            if not chosen or topic in chosen:
                by_topic[topic].append(score)
    return {k: round(statistics.fmean(v), 2) for k, v in sorted(by_topic.items())}


def to_json(session: Session, bank: Bank, rubric_of: RubricOf) -> dict[str, Any]:
    from .store import turn_to_dict

    questions, study = [], []
    strengths: list[dict[str, Any]] = []
    wrong: list[dict[str, Any]] = []
    scores = question_scores(session)
    for qid, score in scores.items():
        q = bank.get(qid)
        if q is None:
            continue
        result = question_result(session.turns, qid)
        rubric = rubric_of(q)
        turns = [t for t in session.turns if t.prompt.question_id == qid]
        # A skipped question is marked in its heading; a skipped follow-up is listed, marked.
        shown = [t for t in turns if not (t.skipped and t.prompt.kind == "question")]
        model = rubric.model_answer if rubric else ""
        mine: list[dict[str, Any]] = []  # this question's missed points, to study
        for c in result.claims:
            item = {"question": q.text, "point": c.point, "label": c.label, "source": c.source}
            if c.verdict == "covered" and c.weight == "core":
                if not any(same_point(item, s) for s in strengths):
                    strengths.append(item)
            elif c.verdict == "contradicted":
                wrong.append(item | {"claim": c.evidence, "misconception": c.misconception})
            elif c.verdict == "missed":
                mine.append(item | {"weight": c.weight, "partly": c.partly_said})
        for c in result.corrected:
            item = {"question": q.text, "point": c.point, "label": c.label, "source": c.source}
            wrong.append(
                item | {"claim": c.evidence, "misconception": c.misconception, "corrected": True}
            )
        if rubric and not any(c.verdict != "covered" for c in result.claims) and not score:
            # Skipped, "I don't know" or off-topic: no point was checked, all are to learn.
            mine += [
                {"question": q.text, "point": k.text, "label": k.label, "source": ""}
                | {"weight": k.weight}
                for k in rubric.ordered()
            ]
        # In the order the questions were asked; within a question, the core points first.
        study += sorted(mine, key=lambda s: s["weight"] != "core")
        questions.append(
            {
                "id": qid,
                "question": q.text,
                "topics": list(q.topics),
                "difficulty": q.difficulty,
                "score": score,
                "skipped": score is None,
                # Each answer (None: its follow-up was skipped), the follow-up it replied to
                # (None: the question itself) and how it was said.
                "answers": [None if t.skipped else t.answer for t in shown],
                # Each answer's own score (a reply's, not the question's) and whether it came
                # after a rapid-fire time limit.
                "answer_scores": [t.grade.score if t.grade else None for t in shown],
                "late": [t.late for t in shown],
                "follow_ups": [
                    t.prompt.text if t.prompt.kind == "follow_up" else None for t in shown
                ],
                "delivery": [delivery_lines(t, model) for t in shown],
                "claims": [
                    {"point": c.point, "verdict": c.verdict, "evidence": c.evidence}
                    for c in result.claims
                ],
                "model_answer": model,
                "hints": sum(t.hints for t in turns),
                # The hints as the chat showed them (a trial's report said "Hints taken: 1" and
                # not which), empty where the rubric has none to show.
                "hints_shown": [
                    h
                    for n, t in enumerate(turns)
                    for h in ladder(rubric, t.prompt, turns[:n])[: t.hints]
                ],
                "graded_by": sorted({grader_label(t.grade.provenance) for t in turns if t.grade}),
            }
        )
    answered = [s for s in scores.values() if s is not None]
    return {
        "session": session.id,
        "plan": {
            "topics": list(session.plan.topics),
            "difficulty": session.plan.difficulty,
            "length": session.plan.length,
            "mode": session.plan.mode,
        },
        "started": datetime.fromtimestamp(session.created_at, UTC).isoformat(),
        "questions_answered": len(answered),
        "questions_skipped": len(scores) - len(answered),
        "mean_score": round(statistics.fmean(answered), 2) if answered else None,
        # The session as a whole: a skipped question counts as 0 (what the verdict rests on).
        "session_score": (
            round(statistics.fmean([s or 0 for s in scores.values()]), 2) if scores else None
        ),
        "topic_scores": topic_scores(session, bank),
        "strengths": strengths,
        "wrong_claims": wrong,
        "study_plan": study,
        "questions": questions,
        "graded_by": sorted(
            {grader_label(t.grade.provenance) for t in session.turns if t.grade is not None}
        ),
        "turns": [turn_to_dict(t) for t in session.turns],
    }


def grader_label(p: Provenance) -> str:
    """Which grader gave a score, in words: never an offline score shown as the LLM's."""
    if p.grader == "llm":
        version = f", prompt {p.prompt_version}" if p.prompt_version else ""
        return f"the LLM grader ({p.model}{version})"
    checker = f", claim checker {p.claim_checker}" if p.claim_checker else ""
    return f"the offline grader on this computer ({p.model}{checker})"


def _verdict_line(mean: float | None, answered: int = 1) -> str:
    """The verdict on the session's score, skipped questions counted as 0 ("4 / 5 over 1
    question (2 skipped)" had read "Strong: interview-ready")."""
    if mean is None or not answered:
        return "No question was answered."
    if mean >= 4:
        return "Strong: interview-ready on these topics."
    if mean >= 3:
        return "Solid core, with gaps to close before the real interview."
    if mean >= 2:
        return "Partial: the basics are there; work through the study plan below."
    return "Not there yet: start with the study plan below."


def wrong_line(said: str, point: str, source: str) -> str:
    """A wrong claim and its correction, as the grade card and the report show it."""
    line = f'- You said: "{as_typed(said)}" — in fact: {point}'
    return line + (f" _(source: {source})_" if source else "")


PARTLY = "_(said in part, not plainly)_ "  # a missed point the answer may have said in other words


def point_line(point: str, source: str, tag: str = "") -> str:
    """A key point to study, with where it comes from."""
    return f"- {tag}{point}" + (f" _(source: {source})_" if source else "")


def _counted(data: dict[str, Any]) -> str:
    """The session's score with its skipped questions as 0, where any were skipped."""
    if not data["questions_skipped"] or data["session_score"] is None:
        return ""
    return f"; {_number(data['session_score'])} / 5 counting them as 0"


def _number(x: float) -> str:
    """A mean as people write it: 3, 3.5, 3.67 (not 3.0)."""
    return f"{x:.2f}".rstrip("0").rstrip(".")


def to_markdown(session: Session, bank: Bank, rubric_of: RubricOf) -> str:
    data = to_json(session, bank, rubric_of)
    mean = data["mean_score"]
    lines = [
        f"# Interview report — {data['started'][:16].replace('T', ' ')} UTC",
        "",
        f"**{_number(mean) if mean is not None else '—'} / 5** over {data['questions_answered']} "
        f"question{'' if data['questions_answered'] == 1 else 's'} "
        f"({data['questions_skipped']} skipped{_counted(data)}) · {session.plan.mode} · "
        f"topics: {', '.join(session.plan.topics) or 'all'}",
        "",
        _verdict_line(data["session_score"], data["questions_answered"]),
        "",
        f"_Graded by {' and '.join(data['graded_by'])}._" if data["graded_by"] else "",
        "",
        "## Scores by topic",
        "",
        "| topic | mean score |",
        "| --- | --- |",
    ]
    lines += [f"| {t} | {_number(s)} |" for t, s in data["topic_scores"].items()]
    if data["strengths"]:
        lines += ["", "## Strengths", ""]
        lines += [f"- {s['point']}" for s in data["strengths"]]
    if data["wrong_claims"]:
        lines += ["", "## Wrong claims to fix", ""]
        lines += [
            wrong_line(w["claim"], w["point"], w["source"])
            + (" — corrected when asked" if w.get("corrected") else "")
            for w in data["wrong_claims"]
        ]
    if data["study_plan"]:
        lines += [
            "",
            "## Study plan",
            "",
            "The key points you missed, question by question: the core points first, then the "
            'supporting ones ("Also:").',
        ]
        by_question: dict[str, list[dict[str, Any]]] = {}
        for s in data["study_plan"]:
            by_question.setdefault(s["question"], []).append(s)
        for question, points in by_question.items():
            lines += ["", f"**{question}**", ""]
            core = any(s["weight"] == "core" for s in points)
            for s in points:  # "Also:" after the core points only, never as the first line
                tag = "Also: " if core and s["weight"] != "core" else ""
                tag += PARTLY if s.get("partly") else ""  # as the card marks it
                lines.append(point_line(s["point"], s["source"], tag))
    lines += ["", "## Questions", ""]
    for n, q in enumerate(data["questions"], 1):
        score = "skipped" if q["skipped"] else f"{q['score']}/5"
        lines += [f"### {n}. {q['question']} — {score}", ""]
        if len(data["graded_by"]) > 1 and q["graded_by"]:  # graders mixed: say whose this is
            lines += [f"_Graded by {' and '.join(q['graded_by'])}._", ""]
        if q["hints_shown"]:
            lines += [f"_Hints taken ({len(q['hints_shown'])}):_", ""]
            lines += [f"- {h}" for h in q["hints_shown"]] + [""]
        elif q["hints"]:
            lines += [f"_Hints taken: {q['hints']}._", ""]
        for a, asked, said, own, late in zip(
            q["answers"], q["follow_ups"], q["delivery"], q["answer_scores"], q["late"], strict=True
        ):
            if a is None:  # marked as a skipped question is, in its line
                lines += [f"**Follow-up:** {asked} — skipped", ""]
                continue
            if asked:  # a reply: the follow-up it answers comes first
                lines += [f"**Follow-up:** {asked}", ""]
            lines += [quoted(a) if a else "> (empty)", ""]
            notes = [f"reply scored {own}/5 on its own"] if asked and own is not None else []
            notes += ["answered late, over the time limit"] if late else []
            if notes:
                lines += [f"_{'; '.join(notes).capitalize()}._", ""]
            if said:
                lines += [f"_Delivery: {' '.join(said)}_", ""]
        if q["model_answer"]:
            lines += [f"**Model answer:** {q['model_answer']}", ""]
    return "\n".join(lines)


def printable_html(markdown: str, title: str) -> str:
    """The report as one self-contained HTML page, laid out for printing to PDF."""
    from html import escape

    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark").enable("table").render(markdown)
    style = (
        "body{font:14px/1.5 system-ui,sans-serif;max-width:46em;margin:2em auto;color:#111}"
        "table{border-collapse:collapse}td,th{border:1px solid #999;padding:.2em .6em}"
        "blockquote{color:#444;border-left:3px solid #ccc;margin:0;padding-left:1em}"
        "@media print{body{margin:0}h3{break-after:avoid}}"
    )
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{escape(title)}</title>"
        f"<style>{style}</style></head><body>{body}</body></html>"
    )
