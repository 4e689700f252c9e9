"""Frozen domain records: the bank's questions and passages, and the grades every grader
returns, whichever produced it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from .rubrics import Rubric

Difficulty = Literal["easy", "medium", "hard"]
Kind = Literal["concept", "scenario", "system design", "coding", "advice"]
DIFFICULTIES: tuple[Difficulty, ...] = ("easy", "medium", "hard")


@dataclass(frozen=True)
class RawItem:
    """One question as a single guide states it, before duplicates are merged."""

    text: str
    source: str
    start: int
    end: int
    difficulty: Difficulty
    difficulty_inferred: bool
    kind: Kind
    reference: str | None = None
    key_points: tuple[str, ...] = ()
    section: str = ""


@dataclass(frozen=True)
class Question:
    """A bank question: one canonical text and every variant the guides give of it."""

    id: str
    text: str
    difficulty: Difficulty
    kind: Kind
    topics: tuple[str, ...]
    variants: tuple[RawItem, ...]

    @property
    def source(self) -> str:
        return self.variants[0].source

    @property
    def span(self) -> tuple[int, int]:
        return (self.variants[0].start, self.variants[0].end)

    @property
    def reference_answers(self) -> tuple[str, ...]:
        return tuple(v.reference for v in self.variants if v.reference)

    @property
    def key_points(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for v in self.variants:
            for kp in v.key_points:
                seen.setdefault(kp, None)
        return tuple(seen)

    @property
    def technical(self) -> bool:
        return self.kind != "advice"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "difficulty": self.difficulty,
            "kind": self.kind,
            "topics": list(self.topics),
            "source": self.source,
            "span": list(self.span),
            "reference_answers": list(self.reference_answers),
            "key_points": list(self.key_points),
            "variants": [asdict(v) | {"key_points": list(v.key_points)} for v in self.variants],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Question:
        variants = tuple(
            RawItem(**(v | {"key_points": tuple(v["key_points"])})) for v in d["variants"]
        )
        return cls(
            id=d["id"],
            text=d["text"],
            difficulty=d["difficulty"],
            kind=d["kind"],
            topics=tuple(d["topics"]),
            variants=variants,
        )


@dataclass(frozen=True)
class Passage:
    id: str
    text: str
    source: str
    start: int
    end: int
    question_id: str | None = None


@dataclass(frozen=True)
class Hit:
    """A retrieval result: a question or a passage with its cosine similarity."""

    id: str
    text: str
    score: float
    kind: Literal["question", "passage"]
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "score": round(self.score, 4),
            "text": self.text,
            "metadata": self.metadata,
        }


# ------------------------------------------------------------------ grades
FLAGS = ("empty", "non_answer", "off_topic", "injection", "no_reference", "language")
RefKind = Literal["input", "bank", "passage"]


@dataclass(frozen=True)
class Reference:
    """One piece of reference material a grade was judged against."""

    id: str
    kind: RefKind
    text: str
    key_points: tuple[str, ...] = ()
    source: str = ""
    score: float | None = None  # retrieval similarity, where retrieved


@dataclass(frozen=True)
class ReferenceSet:
    question: str
    references: tuple[Reference, ...]
    question_id: str | None = None  # the bank question matched, if any
    match_score: float | None = None
    rubric: Rubric | None = None  # the matched question's rubric
    # Set for a follow-up reply: grade it on these key point ids of the rubric only.
    focus: tuple[str, ...] = ()

    @property
    def given(self) -> Reference | None:
        """The row's own reference answer, if it came with one."""
        return next((r for r in self.references if r.kind == "input"), None)

    @property
    def answer_keys(self) -> tuple[Reference, ...]:
        """Authored answers (input first, then the bank's variants); passages only if none."""
        authored = tuple(r for r in self.references if r.kind in ("input", "bank"))
        return authored or tuple(r for r in self.references if r.kind == "passage")


@dataclass(frozen=True)
class Provenance:
    grader: str  # "offline" or "llm"
    model: str
    prompt_version: str = ""
    decided_by: str = "model"  # or "rule:<flag>" when a detector settled the score
    settings: dict[str, Any] = field(default_factory=dict)
    # The key points graded against: "authored", "passages", "llm", "auto" (rubrics.py),
    # "input" (the row's own reference answer) or "retrieved" (passages, no rubric).
    rubric: str = ""
    rubric_id: str = ""  # the bank question whose rubric it is, when it is a bank question's
    claim_checker: str = ""  # the NLI model (offline) that gave the verdicts


# A missed point whose best sentence the claim checker read as at least this likely to state
# it ("partial credit") may have been said in other words. In a trial's mock interviews
# (stop 65), 6 of 7 follow-ups asked for something the candidate had said; of the points
# marked missed in its first answers, 7 of 10 the candidate had said were at 0.25 or more,
# 2 of 9 it had not.
PARTLY_SAID = 0.25


@dataclass(frozen=True)
class ClaimResult:
    """One key point's verdict in a grade: what the answer said about it, and where from."""

    point: str
    verdict: str  # covered | contradicted | missed
    label: str = ""
    weight: str = "core"  # core | supporting
    evidence: str = ""  # the answer's sentence that decided it
    source: str = ""  # where the key point comes from (guide and section)
    misconception: str = ""  # the known wrong claim the answer stated, if that decided it
    point_id: str = ""
    credit: float = 0.0  # 0-1: how fully it was stated (a missed point's partial credit)

    @property
    def partly_said(self) -> bool:
        """Missed, but partly credited: it may have been said in other words."""
        return self.verdict == "missed" and self.credit >= PARTLY_SAID

    @property
    def raise_first(self) -> tuple[bool, bool, bool]:
        """Which point not covered to raise first, lowest first (a follow-up, "Work on:"): one
        said wrong, then one missed outright, then one that may have been said; core first."""
        return (self.verdict != "contradicted", self.partly_said, self.weight != "core")


@dataclass(frozen=True)
class Grade:
    score: int
    covered: tuple[str, ...]
    missed: tuple[str, ...]
    wrong_claims: tuple[str, ...]
    feedback: str
    reference_ids: tuple[str, ...]
    flags: tuple[str, ...]
    confidence: float
    provenance: Provenance
    expected_score: float | None = None  # the unrounded score
    references: tuple[Reference, ...] = ()
    claims: tuple[ClaimResult, ...] = ()  # per key point verdicts, in the rubric's order

    def __post_init__(self) -> None:
        if not 0 <= self.score <= 5:
            raise ValueError(f"score {self.score} is outside 0-5")

    def points(self, verdict: str) -> frozenset[str]:
        """The key points given this verdict (covered, contradicted or missed)."""
        return frozenset(c.point_id or c.point for c in self.claims if c.verdict == verdict)

    def covers_as_much(self, other: Grade) -> bool:
        """Covers as many core key points, and as many in all, as `other` (not always the same
        ones: a sentence that decides nothing can still tip the model on another point)."""

        def counts(g: Grade) -> tuple[int, int]:
            covered = [c for c in g.claims if c.verdict == "covered"]
            return sum(c.weight == "core" for c in covered), len(covered)

        mine, theirs = counts(self), counts(other)
        return mine[0] >= theirs[0] and mine[1] >= theirs[1]

    def to_dict(self, with_references: bool = False) -> dict[str, Any]:
        d = asdict(self)
        if not with_references:
            d.pop("references")
        for key in ("covered", "missed", "wrong_claims", "reference_ids", "flags"):
            d[key] = list(d[key])
        d["claims"] = [asdict(c) for c in self.claims]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Grade:
        prov = dict(d["provenance"])
        return cls(
            score=d["score"],
            covered=tuple(d["covered"]),
            missed=tuple(d["missed"]),
            wrong_claims=tuple(d["wrong_claims"]),
            feedback=d["feedback"],
            reference_ids=tuple(d["reference_ids"]),
            flags=tuple(d["flags"]),
            confidence=d["confidence"],
            provenance=Provenance(**prov),
            expected_score=d.get("expected_score"),
            references=tuple(
                Reference(**(r | {"key_points": tuple(r.get("key_points", ()))}))
                for r in d.get("references", ())
            ),
            claims=tuple(ClaimResult(**c) for c in d.get("claims", ())),
        )
