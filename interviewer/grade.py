"""Grade records: what every grader returns, whichever produced it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

FLAGS = ("empty", "non_answer", "off_topic", "injection", "no_reference")
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
    expected_score: float | None = None  # the offline grader's unrounded estimate
    references: tuple[Reference, ...] = ()

    def __post_init__(self) -> None:
        if not 0 <= self.score <= 5:
            raise ValueError(f"score {self.score} is outside 0-5")

    def to_dict(self, with_references: bool = False) -> dict[str, Any]:
        d = asdict(self)
        if not with_references:
            d.pop("references")
        for key in ("covered", "missed", "wrong_claims", "reference_ids", "flags"):
            d[key] = list(d[key])
        return d
