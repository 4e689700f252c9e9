"""The interview engine: plan, question choice, follow-ups, difficulty, commands. No UI.

Every decision (follow up, harder, easier, next topic) is made here in code from the grade;
a model may word a follow-up, never choose one.
"""

from __future__ import annotations

import random
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

from .bank import Bank
from .errors import InputError
from .features import content_words
from .grade import Grade, Reference, ReferenceSet
from .grader import Grader
from .records import DIFFICULTIES, Difficulty, Question
from .references import gather

Mode = Literal["phone screen", "deep dive", "rapid-fire"]
MODES: dict[str, dict[str, Any]] = {
    "phone screen": {"followups": 1, "seconds": None},
    "deep dive": {"followups": 2, "seconds": None},
    "rapid-fire": {"followups": 0, "seconds": 60},
}


@dataclass(frozen=True)
class Plan:
    topics: tuple[str, ...] = ()
    difficulty: Difficulty = "easy"
    length: int = 6  # main questions
    mode: Mode = "phone screen"

    @property
    def max_followups(self) -> int:
        return int(MODES[self.mode]["followups"])

    @property
    def seconds_per_answer(self) -> int | None:
        return MODES[self.mode]["seconds"]


@dataclass(frozen=True)
class Prompt:
    """What the interviewer is asking now."""

    question_id: str
    text: str
    kind: Literal["question", "follow_up"]
    difficulty: Difficulty
    focus: str = ""  # the missed key point a follow-up probes
    asked_at: float = 0.0
    writer: str = "bank"  # who worded it: "bank", "offline" or "llm"


@dataclass(frozen=True)
class Turn:
    prompt: Prompt
    answer: str
    grade: Grade | None
    answered_at: float
    skipped: bool = False
    hints: int = 0
    late: bool = False  # answered after the rapid-fire time limit


@dataclass
class Session:
    id: str
    plan: Plan
    created_at: float
    turns: list[Turn] = field(default_factory=list)
    current: Prompt | None = None
    hints: int = 0
    followups_here: int = 0
    status: Literal["active", "ended"] = "active"

    def asked_ids(self) -> set[str]:
        ids = {t.prompt.question_id for t in self.turns}
        return ids | ({self.current.question_id} if self.current else set())

    def main_questions(self) -> int:
        return sum(1 for t in self.turns if t.prompt.kind == "question")


class FollowUpWriter(Protocol):
    name: str

    def write(
        self,
        question: Question,
        answer: str,
        missed: str,
        refs: ReferenceSet,
        on_text: Callable[[str], None] | None = None,
    ) -> tuple[str, str]:
        """(follow-up text, name of the writer that produced it)."""
        ...


class OfflineFollowUps:
    """A follow-up built from the missed key point's salient terms; it names what to talk
    about and never states the reference's claim."""

    name = "offline"

    def write(
        self,
        question: Question,
        answer: str,
        missed: str,
        refs: ReferenceSet,
        on_text: Callable[[str], None] | None = None,
    ) -> tuple[str, str]:
        terms = salient_terms(missed, question.text, answer)
        text = (
            f"You didn't mention {' and '.join(terms[:2])}. How does that fit into your answer?"
            if terms
            else "Can you go one level deeper on that? What would you add?"
        )
        if on_text:
            on_text(text)
        return text, self.name


class LLMFollowUps:
    """Follow-ups worded by the LLM from the missed point and the retrieved passages
    (prompts/followup_v1.md), streamed as they come. If the endpoint fails, the offline
    wording is used and the prompt says so (writer="offline")."""

    name = "llm"

    def __init__(self, chat: Any, max_tokens: int = 80) -> None:
        self.chat, self.max_tokens = chat, max_tokens
        self.fallback = OfflineFollowUps()

    def write(
        self,
        question: Question,
        answer: str,
        missed: str,
        refs: ReferenceSet,
        on_text: Callable[[str], None] | None = None,
    ) -> tuple[str, str]:
        from .errors import LLMError
        from .prompts import render

        passages = [r for r in refs.references if r.kind == "passage"][:3]
        safe = answer.replace("</answer>", "&lt;/answer&gt;")
        messages = [
            {"role": "system", "content": render("followup_v1")},
            {
                "role": "user",
                "content": render(
                    "followup_v1.user",
                    question=question.text,
                    missed=missed,
                    references=passages,
                    answer=safe,
                ),
            },
        ]
        text = ""
        try:
            for piece in self.chat.stream(messages, self.max_tokens):
                text += piece
                if on_text:
                    on_text(text)
        except LLMError:
            text = ""
        text = " ".join(text.split())
        if not text:
            return self.fallback.write(question, answer, missed, refs, on_text)
        return text, self.name


def salient_terms(point: str, question: str, answer: str, k: int = 3) -> list[str]:
    seen = content_words(question) | content_words(answer)
    words = [
        w
        for w in re.findall(r"[A-Za-z][A-Za-z0-9+\-/]*", point)
        if w.lower() not in seen and w.lower() in content_words(point) and len(w) > 2
    ]
    return list(dict.fromkeys(words))[:k]


@dataclass(frozen=True)
class Outcome:
    turn: Turn
    next: Prompt | None  # None when the interview is over
    decision: str  # "follow-up", "harder", "easier", "same", "skip", "end"


class Engine:
    def __init__(
        self,
        bank: Bank,
        grader: Grader,
        index: Any,
        settings: Any,
        clock: Callable[[], float],
        rng: random.Random,
        followups: FollowUpWriter | None = None,
    ) -> None:
        self.bank, self.grader, self.index, self.settings = bank, grader, index, settings
        self.clock, self.rng = clock, rng
        self.followups = followups or OfflineFollowUps()

    # ------------------------------------------------------------ choosing questions
    def candidates(self, plan: Plan) -> list[Question]:
        pool = [
            q for q in self.bank.technical() if not plan.topics or set(q.topics) & set(plan.topics)
        ]
        if not pool:
            raise InputError(f"no questions for topics {', '.join(plan.topics)}")
        return pool

    def pick(self, session: Session, difficulty: Difficulty) -> Question | None:
        asked = session.asked_ids()
        pool = [q for q in self.candidates(session.plan) if q.id not in asked]
        if not pool:
            return None
        # Cover the plan's topics in turn, then prefer the wanted difficulty, then nearby ones.
        topics = session.plan.topics or tuple(sorted({t for q in pool for t in q.topics}))
        wanted = topics[session.main_questions() % len(topics)]
        target = DIFFICULTIES.index(difficulty)

        def rank(q: Question) -> tuple[int, int, float]:
            return (
                0 if wanted in q.topics else 1,
                abs(DIFFICULTIES.index(q.difficulty) - target),
                self.rng.random(),
            )

        return min(pool, key=rank)

    def _ask(
        self,
        q: Question,
        kind: Literal["question", "follow_up"] = "question",
        text: str | None = None,
        focus: str = "",
        writer: str = "bank",
    ) -> Prompt:
        return Prompt(q.id, text or q.text, kind, q.difficulty, focus, self.clock(), writer)

    # ------------------------------------------------------------ the session
    def start(self, plan: Plan) -> Session:
        if plan.length < 1:
            raise InputError("an interview needs at least one question")
        session = Session(uuid.uuid4().hex[:12], plan, self.clock())
        first = self.pick(session, plan.difficulty)
        if first is None:
            raise InputError("no questions available for this plan")
        session.current = self._ask(first)
        return session

    def references(self, prompt: Prompt) -> ReferenceSet:
        q = self.bank.get(prompt.question_id)
        assert q is not None
        refs = gather(q.text, self.index, self.settings, question_id=q.id)
        if prompt.kind == "follow_up" and prompt.focus:
            # A follow-up is graded on the point it probes first, then the question's material.
            point = Reference(f"{q.id}#focus", "bank", prompt.focus, (prompt.focus,))
            refs = replace(refs, references=(point, *refs.references))
        return refs

    def answer(
        self, session: Session, text: str, on_text: Callable[[str], None] | None = None
    ) -> Outcome:
        prompt = self._require_active(session)
        if len(text) > self.settings.max_answer_chars:
            raise InputError(
                f"the answer is {len(text)} characters; the limit is "
                f"{self.settings.max_answer_chars}"
            )
        q = self.bank.get(prompt.question_id)
        assert q is not None
        refs = self.references(prompt)
        grade = self.grader.grade_many([(prompt.text, text, refs)])[0]
        now = self.clock()
        limit = session.plan.seconds_per_answer
        turn = Turn(
            prompt,
            text,
            grade,
            now,
            hints=session.hints,
            late=bool(limit and now - prompt.asked_at > limit),
        )
        session.turns.append(turn)
        session.hints = 0
        nxt, decision = self._decide(session, q, grade, text, refs, on_text)
        session.current = nxt
        if nxt is None:
            session.status = "ended"
        return Outcome(turn, nxt, decision)

    def _decide(
        self,
        session: Session,
        q: Question,
        grade: Grade,
        answer: str,
        refs: ReferenceSet,
        on_text: Callable[[str], None] | None = None,
    ) -> tuple[Prompt | None, str]:
        plan = session.plan
        if (
            grade.score < 4
            and grade.missed
            and session.followups_here < plan.max_followups
            and not set(grade.flags) & {"injection", "empty", "non_answer"}
        ):
            session.followups_here += 1
            focus = grade.missed[0]  # key points are in the reference's order of importance
            text, writer = self.followups.write(q, answer, focus, refs, on_text)
            return self._ask(q, "follow_up", text, focus, writer), "follow-up"
        session.followups_here = 0
        if session.main_questions() >= plan.length:
            return None, "end"
        level = DIFFICULTIES.index(session.current.difficulty if session.current else "easy")
        decision = "same"
        if grade.score >= 4 and level < 2:
            level, decision = level + 1, "harder"
        elif grade.score <= 2 and level > 0:
            level, decision = level - 1, "easier"
        nxt = self.pick(session, DIFFICULTIES[level])
        return (self._ask(nxt), decision) if nxt else (None, "end")

    def skip(self, session: Session) -> Outcome:
        prompt = self._require_active(session)
        turn = Turn(prompt, "", None, self.clock(), skipped=True, hints=session.hints)
        session.turns.append(turn)
        session.hints, session.followups_here = 0, 0
        nxt = (
            None
            if session.main_questions() >= session.plan.length
            else self.pick(session, prompt.difficulty)
        )
        session.current = self._ask(nxt) if nxt else None
        if session.current is None:
            session.status = "ended"
        return Outcome(turn, session.current, "skip")

    def hint(self, session: Session) -> str:
        prompt = self._require_active(session)
        q = self.bank.get(prompt.question_id)
        assert q is not None
        session.hints += 1
        missed = prompt.focus or next(iter(q.key_points), "")
        terms = salient_terms(missed, prompt.text, "") if missed else []
        return (
            f"Hint: think about {' and '.join(terms[:2])}."
            if terms
            else "Hint: structure it as what, why, and one concrete example."
        )

    def end(self, session: Session) -> None:
        session.current, session.status = None, "ended"

    def _require_active(self, session: Session) -> Prompt:
        if session.status != "active" or session.current is None:
            raise InputError("this interview has ended; start a new one")
        return session.current
