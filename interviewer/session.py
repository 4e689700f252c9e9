"""An interview's records: the plan, each prompt and turn, the session, and a question's
result over its first answer and the replies to its follow-ups."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from .delivery import Spoken
from .records import ClaimResult, Difficulty, Grade
from .scoring import as_verdicts, feedback
from .scoring import score as by_scale

Mode = Literal["phone screen", "deep dive", "rapid-fire"]
MODES: dict[str, dict[str, Any]] = {
    "phone screen": {"followups": 1, "seconds": None},
    "deep dive": {"followups": 2, "seconds": None},
    "rapid-fire": {"followups": 0, "seconds": 60},
}
# A question whose result so far is under this gets a follow-up on a key point it missed or got
# wrong (up to the mode's count); a 4 with a minor point missed moves on (in a deep dive, a 4
# with a core point missed is probed on it).
FOLLOW_UP_UNDER = 4
# The mode selector's words: they must say the rule above (a trial's 4/5 expected one).
MODE_INFO = (
    f"Phone screen: a follow-up when an answer scores {FOLLOW_UP_UNDER - 1} or less, on a key "
    "point it missed or got wrong (a 4 or 5 moves on). Deep dive: up to two, and a 4 that "
    "missed a core point is probed too. "
    "Rapid-fire: no follow-ups, 60 seconds per answer."
)


@dataclass(frozen=True)
class Plan:
    topics: tuple[str, ...] = ()
    difficulty: Difficulty = "easy"
    length: int = 6  # main questions
    mode: Mode = "phone screen"
    # A review: these questions, in this order, whatever their topic or difficulty.
    questions: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "questions", tuple(self.questions))  # a stored list, too

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
    focus: str = ""  # the id of the rubric key point a follow-up probes
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
    spoken: Spoken | None = None  # the recording it was transcribed from, if it was spoken


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
    owner: str = ""  # a hash of the key of the browser that started it
    seen_before: tuple[str, ...] = ()  # questions asked in this browser's earlier sessions
    end_reason: str = ""  # why the interview ended before its planned length, if it did

    def asked_ids(self) -> set[str]:
        ids = {t.prompt.question_id for t in self.turns}
        return ids | ({self.current.question_id} if self.current else set())

    def main_questions(self) -> int:
        return sum(1 for t in self.turns if t.prompt.kind == "question")


@dataclass(frozen=True)
class QuestionResult:
    """A question's result over its first answer and the replies to its follow-ups: a point
    covered in any of them counts; a wrong claim in any of them counts too."""

    question_id: str
    score: int
    claims: tuple[ClaimResult, ...]
    closed: bool = True
    feedback: str = ""  # about the whole question: its answer and the replies together
    # Wrong claims that a later reply put right: the point counts as covered, the slip as one
    # notable error (the scale's 3 at most), and it stays on record.
    corrected: tuple[ClaimResult, ...] = ()


def question_result(turns: list[Turn], question_id: str) -> QuestionResult:
    mine = [t for t in turns if t.prompt.question_id == question_id and t.grade is not None]
    if not mine:
        return QuestionResult(question_id, 0, ())
    first = mine[0].grade
    assert first is not None
    merged: dict[str, ClaimResult] = {c.point_id or c.point: c for c in first.claims}
    corrected: dict[str, ClaimResult] = {}
    rank = {"missed": 0, "covered": 1, "contradicted": 2}
    for t in mine[1:]:
        assert t.grade is not None
        for c in t.grade.claims:
            key = c.point_id or c.point
            was = merged.get(key)
            if was is not None and was.verdict == "contradicted" and c.verdict == "covered":
                corrected[key], merged[key] = was, c
            elif was is None or rank[c.verdict] > rank[was.verdict]:
                merged[key] = c
                corrected.pop(key, None)  # wrong again after the correction
    results = tuple(merged.values())
    if len(mine) == 1 or not results:
        return QuestionResult(question_id, first.score, results, feedback=first.feedback)
    verdicts = as_verdicts(results)
    # The first answer's own estimate, raised by what the replies added to the coverage: taken
    # as the coverage alone, a reply that scored 5 on the point it was asked often left the
    # question's score where it was (a trial: "so far 3/5" after a 5/5 reply).
    _, by_coverage = by_scale(verdicts)
    gained = 5.0 * max(0.0, verdicts.coverage - as_verdicts(first.claims).coverage)
    estimate = max((first.expected_score or float(first.score)) + gained, by_coverage)
    score, _ = by_scale(verdicts, estimate)
    fixed = tuple(corrected.values())
    # Capped by the slip, not by gaps: the score's own line ("important points are missing")
    # would contradict "You covered 6 of 6 key points".
    lead = (
        "Right in the end, but a wrong claim counts as one notable error even when put right."
        if fixed and score > 3
        else ""
    )
    if fixed:
        score = min(score, 3)
    text = feedback(score, results, lead)
    if fixed:
        text += (
            f" You corrected {len(fixed)} wrong claim{'s' if len(fixed) > 1 else ''} when asked."
        )
    return QuestionResult(question_id, score, results, feedback=text, corrected=fixed)
