"""The interview page's logic without Gradio: what each session shows (View), the grade card,
and the Controller the page's handlers call. Tests drive it directly."""

from __future__ import annotations

import json
import queue
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .config import Settings
from .delivery import Spoken, assess, unsure_transcript
from .errors import InterviewerError
from .interview import Engine
from .report import (
    printable_html,
    question_scores,
    to_json,
    to_markdown,
    topic_scores,
    weak_topics,
)
from .session import Plan, Session, question_result
from .speech import Transcriber, Transcript
from .store import Store


@dataclass(frozen=True)
class View:
    """Everything the page shows for one session."""

    session_id: str
    chat: list[dict[str, str]]
    card: str
    references: str
    status: str
    turns: int = -1  # how many turns the page shows
    active: bool = True  # the interview takes answers
    report: str = ""  # the report, once the interview has ended


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
    """Whether turn n's question is over (no follow-up of it is pending)."""
    qid = session.turns[n].prompt.question_id
    if any(t.prompt.question_id != qid for t in session.turns[n + 1 :]):
        return True
    later = any(t.prompt.question_id == qid for t in session.turns[n + 1 :])
    return not later and (session.current is None or session.current.question_id != qid)


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
    # Delivery is apart from the score: how it was said, not what.
    said = assess(turn.answer, rubric.model_answer if rubric else "", turn.spoken).lines()
    delivery = (
        ["**Delivery** (not part of the score)", *[f"- {x}" for x in said], ""] if said else []
    )
    if not closed_after(session, len(session.turns) - 1):
        return (
            "\n".join(
                [
                    f"### Score so far {g.score}/5",
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
        lines += [f"_{'; '.join(FLAG_WORDS.get(f, f) for f in g.flags)}._", ""]
    if turn.late and session.plan.seconds_per_answer:
        lines += [
            f"_Answered late: over the {session.plan.seconds_per_answer}-second limit._",
            "",
        ]
    wrong = [c for c in result.claims if c.verdict == "contradicted"]
    covered = [c for c in result.claims if c.verdict == "covered"]
    missed = [c for c in result.claims if c.verdict == "missed"]
    if wrong:
        lines += (
            ["**Wrong claims**"]
            + [
                f'- "{c.evidence}" — in fact: {c.point}' + (f" _({c.source})_" if c.source else "")
                for c in wrong
            ]
            + [""]
        )
    if covered:
        lines += ["**Covered**"] + [f"- {c.point}" for c in covered] + [""]
    if missed:
        lines += (
            ["**Missed**"]
            + [f"- {c.point}" + (f" _({c.source})_" if c.source else "") for c in missed]
            + [""]
        )
    if rubric and rubric.model_answer:
        lines += ["**Model answer**", "", rubric.model_answer, ""]
    p = g.provenance
    lines += [
        f"<details><summary>Grading details</summary>grader {p.grader} ({p.model}); "
        f"key points: {p.rubric or 'n/a'}; claim checker: {p.claim_checker or 'n/a'}; "
        f"decided by {p.decided_by}; confidence {g.confidence:.2f}</details>"
    ]
    return "\n".join(lines), refs


class Controller:
    def __init__(
        self,
        settings: Settings,
        engine: Engine,
        store: Store,
        transcriber: Transcriber | None,
        llm_status: str,
    ) -> None:
        self.settings, self.engine, self.store = settings, engine, store
        self.transcriber, self.llm_status = transcriber, llm_status
        self._busy: set[str] = set()  # sessions with an answer being graded
        self._busy_lock = threading.Lock()
        self._heard: dict[str, Transcript] = {}  # each session's last transcript, until sent

    def _load(self, owner: str, session_id: str) -> Session:
        """The session, only for the browser that started it: another browser's id is
        answered exactly like an unknown one."""
        session = self.store.load(session_id) if session_id else None
        if session is None or not owner or session.owner != owner:
            raise InterviewerError("no interview in progress: press Start")
        return session

    def view(self, session: Session, note: str = "") -> View:
        chat: list[dict[str, str]] = []
        for n, t in enumerate(session.turns):
            chat.append({"role": "assistant", "content": t.prompt.text})
            if t.skipped:
                chat.append({"role": "user", "content": "(skipped)"})
                continue
            chat.append({"role": "user", "content": t.answer or "(empty)"})
            if t.grade:
                if closed_after(session, n):
                    result = question_result(session.turns[: n + 1], t.prompt.question_id)
                    said = f"Score {result.score}/5 — {result.feedback}"
                else:
                    said = f"Score so far {t.grade.score}/5."
                if t.late:
                    said += " Late: over the time limit."
                chat.append({"role": "assistant", "content": said})
        if session.current:
            label = (
                " _(follow-up worded offline: the LLM did not answer)_"
                if session.current.writer == "offline" and self.settings.grader == "llm"
                else ""
            )
            chat.append({"role": "assistant", "content": session.current.text + label})
        elif session.status == "ended":
            why = f" {session.end_reason}" if session.end_reason else ""
            chat.append(
                {
                    "role": "assistant",
                    "content": f"That's the end of the interview.{why} Your report is below.",
                }
            )
        if note:
            chat.append({"role": "assistant", "content": note})
        card, refs = grade_card(session, self.engine) if session.turns else ("", "")
        done = session.main_questions()
        # The counter counts main questions; a follow-up belongs to the question it follows.
        current = session.current
        number = done + (1 if current is not None and current.kind == "question" else 0)
        status = (
            f"Session {session.id} · {session.plan.mode} · question "
            f"{max(1, min(number, session.plan.length))}/{session.plan.length}"
            + (" · follow-up" if current is not None and current.kind == "follow_up" else "")
            if session.status == "active"
            else f"Session {session.id} · ended"
        )
        limit = session.plan.seconds_per_answer
        if current is not None and limit:
            left = max(0, round(current.asked_at + limit - self.engine.clock()))
            status += f' · <span class="countdown">{left} s left</span>'

        active = session.status == "active"
        report = "" if active else to_markdown(session, self.engine.bank, self.engine.rubric)
        return View(session.id, chat, card, refs, status, len(session.turns), active, report)

    def start(self, owner: str, topics: list[str], difficulty: str, mode: str, length: int) -> View:
        if not owner:
            raise InterviewerError("this browser has no key yet: reload the page")
        plan = Plan(tuple(topics or ()), difficulty, int(length), mode)  # type: ignore[arg-type]
        session = self.engine.start(plan, owner, self.store.asked_before(owner))
        self.store.save(session)
        return self.view(session)

    def answer(self, owner: str, session_id: str, text: str, turns_seen: int = -1) -> View:
        return list(self.answer_stream(owner, session_id, text, turns_seen))[-1]

    def answer_stream(
        self, owner: str, session_id: str, text: str, turns_seen: int = -1
    ) -> Iterator[View]:
        """Show the answer at once, then the follow-up as the LLM streams it, then the turn.
        One answer per turn: a second submit while one is graded, or an answer to a prompt
        that was already answered (`turns_seen` is what the page showed), is refused."""
        with self._busy_lock:
            if session_id in self._busy:
                raise InterviewerError("this answer is already being graded")
            self._busy.add(session_id)
        try:
            yield from self._answer(owner, session_id, text, turns_seen)
        finally:
            with self._busy_lock:
                self._busy.discard(session_id)

    def _answer(self, owner: str, session_id: str, text: str, turns_seen: int) -> Iterator[View]:
        session = self._load(owner, session_id)
        if session.status != "active":
            raise InterviewerError("this interview has ended: press Start for a new one")
        if not text.strip():
            raise InterviewerError("type or speak an answer first, or press Skip")
        if turns_seen >= 0 and turns_seen != len(session.turns):
            raise InterviewerError("that question was already answered; see the conversation")
        before = self.view(session)
        events: queue.Queue[tuple[str, Any]] = queue.Queue()

        spoken = self._spoken(session_id, text)

        def work() -> None:
            try:
                self.engine.answer(
                    session, text, on_text=lambda t: events.put(("text", t)), spoken=spoken
                )
                self.store.save(session)
                events.put(("done", None))
            except Exception as e:
                events.put(("error", e))

        threading.Thread(target=work, daemon=True).start()
        chat = [*before.chat, {"role": "user", "content": text or "(empty)"}]
        yield View(
            before.session_id,
            [*chat, {"role": "assistant", "content": "Grading…"}],
            before.card,
            before.references,
            before.status,
            before.turns,
        )
        while True:
            kind, value = events.get()
            if kind == "text":
                yield View(
                    before.session_id,
                    [*chat, {"role": "assistant", "content": value}],
                    before.card,
                    before.references,
                    before.status,
                    before.turns,
                )
            elif kind == "done":
                yield self.view(session)
                return
            else:
                raise value

    def command(self, owner: str, session_id: str, name: str) -> View:
        session = self._load(owner, session_id)
        note = ""
        if name == "skip":
            self.engine.skip(session)
        elif name == "hint":
            note = self.engine.hint(session)
        elif name == "repeat":
            note = session.current.text if session.current else ""
        elif name == "end":
            self.engine.end(session)
        self.store.save(session)
        return self.view(session, note)

    def transcribe(self, owner: str, session_id: str, audio_path: str | None) -> tuple[str, str]:
        """The transcript for the answer box, and a notice when it may be misheard: the
        candidate fixes it before it is graded."""
        if self.transcriber is None:
            raise InterviewerError("speech input is not installed: pip install 'interviewer[app]'")
        if not audio_path:
            raise InterviewerError("record or upload an answer first")
        question = ""
        if session_id and (s := self.store.load(session_id)) and s.owner == owner and s.current:
            question = s.current.text
        heard = self.transcriber.transcribe(Path(audio_path), question)
        if session_id:
            self._heard[session_id] = heard
        return heard.text, unsure_transcript(heard.confidence)

    def _spoken(self, session_id: str, sent: str) -> Spoken | None:
        """The recording an answer came from: the session's last transcript, when the answer
        sent is that transcript, edited or not (most of its words kept)."""
        heard = self._heard.pop(session_id, None)
        if heard is None:
            return None
        said, kept = set(heard.text.lower().split()), set(sent.lower().split())
        if len(said & kept) < 0.6 * max(1, len(said)):
            return None
        return Spoken(heard.seconds, heard.confidence)

    def report(self, owner: str, session_id: str) -> tuple[str, list[dict[str, Any]], list[str]]:
        session = self._load(owner, session_id)
        bank = self.engine.bank
        rubric_of = self.engine.rubric
        md, data = to_markdown(session, bank, rubric_of), to_json(session, bank, rubric_of)
        # Under the owner's hash (secret to its browser): nobody else can name the file.
        out = self.settings.data_dir / "reports" / owner
        out.mkdir(parents=True, exist_ok=True)
        paths = [out / f"{session.id}.{ext}" for ext in ("md", "json", "html")]
        paths[0].write_text(md, "utf-8")
        paths[1].write_text(json.dumps(data, indent=1), "utf-8")
        paths[2].write_text(printable_html(md, f"Interview report {session.id}"), "utf-8")
        rows = [{"topic": t, "score": s} for t, s in topic_scores(session, bank).items()]
        return md, rows, [str(p) for p in paths]

    def history(self, owner: str) -> tuple[list[list[Any]], str]:
        """Past sessions, scored as their reports score them: per question, follow-ups
        included."""
        rows = []
        for s in self.store.sessions(owner):
            session = self.store.load(s["id"])
            if session is None:
                continue
            scores = question_scores(session)
            answered = [v for v in scores.values() if v is not None]
            rows.append(
                [
                    s["id"],
                    time.strftime("%Y-%m-%d %H:%M", time.localtime(s["created_at"])),
                    session.status,
                    len(scores),
                    round(sum(answered) / len(answered), 2) if answered else None,
                ]
            )
        weak = weak_topics(self.store.topic_scores(owner), self.engine.bank)
        text = (
            (
                "Topics that stay weak across sessions: "
                + ", ".join(f"{t} ({m}/5 over {n} answers)" for t, m, n in weak)
            )
            if weak
            else ("No topic is consistently weak yet.")
        )
        return rows, text
