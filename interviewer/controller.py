"""The interview page's logic without Gradio: what each session shows (View), what the page
shows about earlier sessions (Past), and the Controller the page's handlers call. Tests drive
it directly."""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .card import closed_after, grade_card, score_so_far
from .config import Settings
from .delivery import Spoken, unsure_transcript
from .errors import InputError, InterviewerError
from .grader import too_long
from .interview import Engine
from .progress import due, review_schedule, review_summary, topic_progress, weak_topics
from .report import as_typed, printable_html, question_scores, to_json, to_markdown, topic_scores
from .rubrics import KeyPoint
from .session import Plan, Prompt, Session, Turn, question_result
from .speech import Transcriber, Transcript
from .store import Store


def new_key() -> str:
    """A browser's own key, made on its first visit (kept in its storage, encrypted)."""
    import secrets

    return secrets.token_urlsafe(24)


def owner_of(key: str) -> str:
    """Whose sessions these are: a hash of the browser's key, never the key itself."""
    import hashlib

    return hashlib.sha256(key.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Past:
    """What the page shows about a browser's earlier sessions."""

    sessions: list[list[Any]]  # id, started, status, questions, mean score
    weak: str  # topics that stay weak
    progress: list[dict[str, Any]]  # started, topic, score: one row per session and topic
    review: str  # what is due for review


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
    busy: bool = False  # an answer is being graded: the buttons wait for it


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
        # An ended session never changes: loaded once, not again after every answer.
        self._ended: dict[str, Session] = {}

    def _load(self, owner: str, session_id: str) -> Session:
        """The session, only for the browser that started it: another browser's id is
        answered exactly like an unknown one."""
        session = self.store.load(session_id) if session_id else None
        if session is None or not owner or session.owner != owner:
            raise InterviewerError("no interview in progress: press Start")
        return session

    def open(self, owner: str, session_id: str) -> View:
        """A past session by the id typed in. Another browser's id gets the same answer as a
        mistyped one: whether it exists is not this browser's to learn."""
        session_id = session_id.strip()
        if not session_id:
            raise InterviewerError("Type the id of one of your sessions: Past sessions lists them.")
        session = self.store.load(session_id)
        if session is None or not owner or session.owner != owner:
            raise InterviewerError("No session with that id in this browser.")
        return self.view(session)

    def _hints(self, prompt: Prompt, count: int, before: list[Turn]) -> list[dict[str, str]]:
        given = self.engine.hints_given(prompt, count, before)
        return [{"role": "assistant", "content": h} for h in given]

    def view(self, session: Session, note: str = "") -> View:
        chat: list[dict[str, str]] = []
        for n, t in enumerate(session.turns):
            chat.append({"role": "assistant", "content": t.prompt.text})
            chat += self._hints(t.prompt, t.hints, session.turns[:n])
            if t.skipped:
                chat.append({"role": "user", "content": "(skipped)"})
                continue
            chat.append({"role": "user", "content": as_typed(t.answer) or "(empty)"})
            if t.grade:
                if closed_after(session, n):
                    result = question_result(session.turns[: n + 1], t.prompt.question_id)
                    said = f"Score {result.score}/5 — {result.feedback}"
                else:
                    said = f"Score so far {score_so_far(session, n)}/5."
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
            chat += self._hints(session.current, session.hints, session.turns)
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
        mode = ("review · " if session.plan.questions else "") + session.plan.mode
        status = (
            f"Session {session.id} · {mode} · question "
            f"{max(1, min(number, session.plan.length))}/{session.plan.length}"
            + (" · follow-up" if current is not None and current.kind == "follow_up" else "")
            + (f" · {current.difficulty}" if current is not None else "")
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

    def close(self, owner: str, session_id: str) -> bool:
        """End this browser's interview in progress when it starts another (a trial's Start
        left it "active", its rapid-fire clock run down, counted as a session of its own): it
        goes to Past sessions with its answers and the question on screen as skipped. Not
        one whose answer is being graded. True when one was ended."""
        session = self.store.load(session_id) if session_id else None
        if session is None or session.owner != owner or session.status != "active":
            return False
        with self._busy_lock:
            if session_id in self._busy:
                return False
            self.engine.end(session)
            self.store.save(session)
        return True

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
        if problem := too_long(text, self.settings):  # before the answer is shown as graded
            raise InputError(f"{problem}: shorten it and send it again")
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
        chat = [*before.chat, {"role": "user", "content": as_typed(text) or "(empty)"}]
        yield View(
            before.session_id,
            [*chat, {"role": "assistant", "content": "Grading…"}],
            before.card,
            before.references,
            before.status,
            before.turns,
            busy=True,
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
                    busy=True,
                )
            elif kind == "done":
                yield self.view(session)
                return
            else:
                raise value

    def stored(self, owner: str, session_id: str) -> View:
        """The session as stored: what the page shows again when a turn failed half-way."""
        return self.view(self._load(owner, session_id))

    def command(self, owner: str, session_id: str, name: str) -> View:
        session = self._load(owner, session_id)
        note = ""
        if name == "skip":
            self.engine.skip(session)
        elif name == "hint":
            given = session.hints
            note = self.engine.hint(session)
            if session.hints > given:  # a hint of the ladder: the chat shows it from now on
                note = ""
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
        if not session_id:
            raise InterviewerError(
                "No report yet: start an interview, or open one of yours under Past sessions."
            )
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

    def sessions(self, owner: str) -> list[Session]:
        out = []
        for row in self.store.sessions(owner, limit=500):
            session = self._ended.get(row["id"]) or self.store.load(row["id"])
            if session is None:
                continue
            if session.status == "ended" and session.id not in self._ended:
                if len(self._ended) > 5_000:
                    self._ended.clear()
                self._ended[session.id] = session
            out.append(session)
        return out

    def points_of(self, qid: str) -> tuple[KeyPoint, ...]:
        rubric = self.engine.rubric_for(qid)
        return rubric.ordered() if rubric else ()

    def history(self, owner: str) -> Past:
        """Past sessions, scored as their reports score them (per question, follow-ups
        included), each topic's progress over time, and what is due for review."""
        sessions = self.sessions(owner)
        rows = []
        for session in sessions[:50]:
            scores = question_scores(session)
            answered = [v for v in scores.values() if v is not None]
            rows.append(
                [
                    session.id,
                    time.strftime("%Y-%m-%d %H:%M", time.localtime(session.created_at)),
                    session.status,
                    len(scores),
                    len(scores) - len(answered),  # skipped, as the report counts them
                    round(sum(answered) / len(answered), 2) if answered else None,
                ]
            )
        weak = weak_topics(sessions, self.engine.bank)
        text = (
            "Topics that stay weak across sessions: "
            + ", ".join(f"{t} ({m}/5 over {n} questions)" for t, m, n in weak)
            if weak
            else "No topic is consistently weak yet."
        )
        schedule = review_schedule(sessions, self.points_of)
        review = review_summary(schedule, self.engine.clock())
        return Past(rows, text, topic_progress(sessions, self.engine.bank), review)

    def review(self, owner: str, mode: str, length: int) -> View:
        """A new interview of the questions whose key points are due for review."""
        if not owner:
            raise InterviewerError("this browser has no key yet: reload the page")
        points = due(review_schedule(self.sessions(owner), self.points_of), self.engine.clock())
        questions = tuple(dict.fromkeys(p.question_id for p in points))[: int(length)]
        if not questions:
            raise InterviewerError("nothing is due for review yet")
        first = self.engine.bank.get(questions[0])
        level = first.difficulty if first else "easy"
        plan = Plan((), level, len(questions), mode, questions)  # type: ignore[arg-type]
        session = self.engine.start(plan, owner, self.store.asked_before(owner))
        self.store.save(session)
        return self.view(session)
