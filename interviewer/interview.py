"""The interview engine: plan, question choice, follow-ups, difficulty, commands. No UI.

Every decision (follow up, harder, easier, next topic) is made here in code from the grade;
a model may word a follow-up, never choose one.
"""

from __future__ import annotations

import logging
import random
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from .bank import Bank
from .delivery import Spoken
from .errors import InputError, LLMError
from .followups import FollowUpWriter, OfflineFollowUps
from .grader import Grader, too_long
from .hints import hinted, ladder
from .probes import probe_order
from .records import DIFFICULTIES, Difficulty, Grade, Question, ReferenceSet
from .references import focused, gather, load_rubrics, rubric_of
from .rubrics import KeyPoint, Rubric
from .scoring import also_said
from .session import FOLLOW_UP_UNDER, Plan, Prompt, Session, Turn, question_result

if TYPE_CHECKING:
    from .config import Settings
    from .index import Index

NEAR_DUPLICATE = 0.75  # question-text cosine above which two bank questions ask the same thing
WARM_WAIT_S = 30.0  # an answer waits at most this long for its question's warm-up to finish

log = logging.getLogger(__name__)


def in_thread(job: Callable[[], None]) -> None:
    threading.Thread(target=job, name="interviewer-warm", daemon=True).start()


@dataclass(frozen=True)
class Outcome:
    turn: Turn
    next: Prompt | None  # None when the interview is over
    decision: str  # "follow-up", "harder", "easier", "same", "skip", "end"


@dataclass
class _Warming:
    done: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    started: bool = False
    refs: ReferenceSet | None = None


def _key(prompt: Prompt) -> tuple[str, str, str, float]:
    return (prompt.question_id, prompt.focus, prompt.text, prompt.asked_at)


def fits_a_minute(q: Question) -> bool:
    """A question a rapid-fire minute can answer: no design or coding task, and no prompt of
    several parts (the bank's are 200-412 characters; its concepts' median is 50)."""
    return q.kind not in ("system design", "coding") and len(q.text) <= 200


class Engine:
    def __init__(
        self,
        bank: Bank,
        grader: Grader,
        index: Index | None,
        settings: Settings,
        clock: Callable[[], float],
        rng: random.Random,
        followups: FollowUpWriter | None = None,
        background: Callable[[Callable[[], None]], None] = in_thread,
    ) -> None:
        self.bank, self.grader, self.index, self.settings = bank, grader, index, settings
        self.clock, self.rng = clock, rng
        self.followups = followups or OfflineFollowUps()
        self.background = background
        self._near: dict[str, set[str]] | None = None
        self._warming: dict[tuple[str, str, str, float], _Warming] = {}

    # ------------------------------------------------------------ choosing questions
    def candidates(self, plan: Plan) -> list[Question]:
        if plan.questions:
            return [q for qid in plan.questions if (q := self.bank.get(qid)) is not None]
        pool = [
            q for q in self.bank.technical() if not plan.topics or set(q.topics) & set(plan.topics)
        ]
        if not pool:
            raise InputError(f"no questions for topics {', '.join(plan.topics)}")
        return pool

    def _similar(self) -> dict[str, set[str]]:
        """Bank questions that ask nearly the same thing (question texts' cosine >= 0.75):
        one session asks at most one of each such group."""
        if self._near is None:
            qs = self.bank.technical()
            embedder = self.index.embedder if self.index is not None else None
            self._near = {q.id: set() for q in qs}
            if embedder is not None and qs:
                vecs = embedder.embed([q.text for q in qs])
                sims = vecs @ vecs.T
                for a, qa in enumerate(qs):
                    for b, qb in enumerate(qs):
                        if a != b and sims[a, b] >= NEAR_DUPLICATE:
                            self._near[qa.id].add(qb.id)
        return self._near

    def pick(self, session: Session, difficulty: Difficulty) -> Question | None:
        asked = session.asked_ids()
        near = self._similar()
        blocked = asked | {n for a in asked for n in near.get(a, ())}
        pool = [q for q in self.candidates(session.plan) if q.id not in blocked]
        if not pool:
            return None
        if session.plan.questions:
            return pool[0]  # a review asks its questions in the order given
        # The wanted difficulty first (the first question is at the level chosen), then the
        # plan's topics in turn, then questions this candidate has not met in earlier sessions.
        topics = session.plan.topics or tuple(sorted({t for q in pool for t in q.topics}))
        wanted = topics[session.main_questions() % len(topics)]
        target = DIFFICULTIES.index(difficulty)
        # Rapid-fire's 60 seconds fit a concept or a short scenario, not a design, coding or
        # multi-part prompt (trials were served "all-reduce is saturating the interconnect ...
        # hierarchical all-reduce, overlap, compression, ... discuss trade-offs for each"):
        # those come last there.
        quick = session.plan.mode == "rapid-fire"

        def rank(q: Question) -> tuple[int, int, int, int, float]:
            return (
                1 if quick and not fits_a_minute(q) else 0,
                abs(DIFFICULTIES.index(q.difficulty) - target),
                0 if wanted in q.topics else 1,
                1 if q.id in session.seen_before else 0,
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
        prompt = Prompt(q.id, text or q.text, kind, q.difficulty, focus, self.clock(), writer)
        self._warm(prompt)
        return prompt

    def _warm(self, prompt: Prompt) -> None:
        """While the candidate thinks, gather this prompt's references and let the grader
        prepare them, so that the answer's turn pays only for the answer."""
        if len(self._warming) > 256:  # prompts never answered (skipped, abandoned sessions)
            self._warming = {k: w for k, w in self._warming.items() if not w.done.is_set()}
        warming = self._warming[_key(prompt)] = _Warming()
        self.background(lambda: self._run_warm(prompt, warming))

    def _run_warm(self, prompt: Prompt, warming: _Warming) -> None:
        with warming.lock:
            if warming.started:  # the answer came first and prepared it itself
                return
            warming.started = True
        try:
            refs = self.references(prompt)
            self.grader.warm(prompt.text, refs)
            warming.refs = refs
        except Exception:  # the answer's own grading reports whatever is wrong
            log.debug("warming %s failed", prompt.question_id, exc_info=True)
        finally:
            warming.done.set()

    def _prepared(self, prompt: Prompt) -> ReferenceSet:
        """The prompt's references: from its warm-up (waited for if under way), or gathered
        now when the warm-up has not started or failed."""
        warming = self._warming.pop(_key(prompt), None)
        if warming is not None:
            with warming.lock:
                started, warming.started = warming.started, True
            if started and warming.done.wait(WARM_WAIT_S) and warming.refs is not None:
                return warming.refs
        return self.references(prompt)

    # ------------------------------------------------------------ the session
    def start(self, plan: Plan, owner: str = "", seen_before: tuple[str, ...] = ()) -> Session:
        if plan.length < 1:
            raise InputError("an interview needs at least one question")
        session = Session(
            uuid.uuid4().hex[:12], plan, self.clock(), owner=owner, seen_before=seen_before
        )
        first = self.pick(session, plan.difficulty)
        if first is None:
            raise InputError("no questions available for this plan")
        session.current = self._ask(first)
        return session

    def rubric(self, q: Question) -> Rubric | None:
        return rubric_of(q, load_rubrics(self.settings.data_dir))

    def rubric_for(self, question_id: str) -> Rubric | None:
        """The rubric of a bank question by id; None when the id or its rubric is unknown."""
        q = self.bank.get(question_id)
        return self.rubric(q) if q else None

    def references(self, prompt: Prompt) -> ReferenceSet:
        q = self.bank.get(prompt.question_id)
        assert q is not None
        refs = gather(q.text, self.index, self.settings, question_id=q.id)
        if prompt.kind == "follow_up" and prompt.focus:
            # A reply to a follow-up is graded on the key point it probes.
            refs = focused(refs, (prompt.focus,))
        return refs

    def answer(
        self,
        session: Session,
        text: str,
        on_text: Callable[[str], None] | None = None,
        spoken: Spoken | None = None,
    ) -> Outcome:
        prompt = self._require_active(session)
        if problem := too_long(text, self.settings):
            raise InputError(problem)
        q = self.bank.get(prompt.question_id)
        assert q is not None
        refs = self._prepared(prompt)
        items = [(prompt.text, text, refs)]
        if refs.focus:  # a reply may also state, or get wrong, the question's other points
            items.append((q.text, text, replace(refs, focus=())))
        try:
            grades = self.grader.grade_many(items)
        except LLMError:
            if len(items) == 1:
                raise
            grades = self.grader.grade_many(items[:1])  # the reply still stands on its own
        grade = also_said(*grades) if len(grades) > 1 else grades[0]
        now = self.clock()
        limit = session.plan.seconds_per_answer
        turn = Turn(
            prompt,
            text,
            grade,
            now,
            hints=session.hints,
            late=bool(limit and now - prompt.asked_at > limit),
            spoken=spoken,
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
        point = self._next_probe(session, q, grade)
        if point is not None:
            session.followups_here += 1
            text, writer = self.followups.write(q, answer, point, refs, on_text)
            return self._ask(q, "follow_up", text, point.id, writer), "follow-up"
        session.followups_here = 0
        if session.main_questions() >= plan.length:
            return None, "end"
        level = DIFFICULTIES.index(session.current.difficulty if session.current else "easy")
        decision = "same"
        score = question_result(session.turns, q.id).score if session.turns else grade.score
        if score >= 4 and level < 2:
            level, decision = level + 1, "harder"
        elif score <= 2 and level > 0:
            level, decision = level - 1, "easier"
        nxt = self.pick(session, DIFFICULTIES[level])
        if nxt is None:
            session.end_reason = self._why_out(session)
        return (self._ask(nxt), decision) if nxt else (None, "end")

    def _why_out(self, session: Session) -> str:
        pool = self.candidates(session.plan)
        if session.plan.questions:
            return f"That was every question due for review ({len(pool)})."
        topics = ", ".join(session.plan.topics) or "all topics"
        return (
            f"No more questions: {topics} has {len(pool)} questions, and the rest repeat ones "
            f"already asked; ended after {session.main_questions()} of {session.plan.length}."
        )

    def _next_probe(self, session: Session, q: Question, grade: Grade) -> KeyPoint | None:
        """The key point to probe next (`probe_order`), never one probed before in this
        question; None when follow-ups are used up, the answer was a non-answer, the question
        scores FOLLOW_UP_UNDER (4) or more so far (in a deep dive: 5, or 4 with every core
        point covered), or nothing is missed."""
        if session.followups_here >= session.plan.max_followups or set(grade.flags) & {
            "injection",
            "empty",
            "non_answer",
            "off_topic",
        }:
            return None
        rubric = self.rubric(q)
        if rubric is None:
            return None
        turns = [t for t in session.turns if t.prompt.question_id == q.id]
        probed = {t.prompt.focus for t in turns if t.prompt.kind == "follow_up"}
        probed |= hinted(rubric, turns)
        state = question_result(turns, q.id)
        # A deep dive also probes a 4 that left out a core point (a trial's deep dive asked one
        # follow-up in seven questions, an answer without pipeline parallelism among them).
        digs = session.plan.mode == "deep dive" and state.score == FOLLOW_UP_UNDER
        if state.score >= FOLLOW_UP_UNDER and not digs:
            return None
        for point in probe_order(rubric, state.claims):
            if point.id not in probed and (point.weight == "core" or not digs):
                return point
        return None

    def skip(self, session: Session) -> Outcome:
        prompt = self._require_active(session)
        turn = self._skipped(session, prompt)
        session.hints, session.followups_here = 0, 0
        last = session.main_questions() >= session.plan.length
        nxt = None if last else self.pick(session, prompt.difficulty)
        if nxt is None and not last:
            session.end_reason = self._why_out(session)
        session.current = self._ask(nxt) if nxt else None
        if session.current is None:
            session.status = "ended"
        return Outcome(turn, session.current, "skip")

    def _skipped(self, session: Session, prompt: Prompt) -> Turn:
        """The prompt recorded as skipped, with the hints taken on it."""
        turn = Turn(prompt, "", None, self.clock(), skipped=True, hints=session.hints)
        session.turns.append(turn)
        return turn

    def hint_ladder(self, prompt: Prompt, before: Sequence[Turn] = ()) -> tuple[str, ...]:
        return ladder(self.rubric_for(prompt.question_id), prompt, before)

    def hints_given(self, prompt: Prompt, count: int, before: Sequence[Turn] = ()) -> list[str]:
        """The first `count` hints as the chat showed them (they stay in the conversation)."""
        ladder = self.hint_ladder(prompt, before)
        shown = min(count, len(ladder))  # a ladder edited shorter since keeps what is left
        return [f"Hint {i} of {len(ladder)}: {ladder[i - 1]}" for i in range(1, shown + 1)]

    def hint(self, session: Session) -> str:
        """The next hint of the question's ladder; never the same twice."""
        prompt = self._require_active(session)
        ladder = self.hint_ladder(prompt, session.turns)
        if session.hints >= len(ladder):
            return (
                "No more hints for this question: give it your best try, or press Skip."
                if ladder
                else "Hint: structure it as what it is, why it matters, and one example."
            )
        session.hints += 1
        return self.hints_given(prompt, session.hints, session.turns)[-1]

    def end(self, session: Session) -> None:
        # A question on screen unanswered stays in the record, as a skip: the report lists it.
        # (a follow-up's question is there already)
        if (
            session.status == "active"
            and session.current is not None
            and session.current.kind == "question"
        ):
            self._skipped(session, session.current)
        session.current, session.status = None, "ended"

    def _require_active(self, session: Session) -> Prompt:
        if session.status != "active" or session.current is None:
            raise InputError("this interview has ended; start a new one")
        return session.current
