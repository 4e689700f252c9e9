"""Frozen domain records shared by the bank, the index and the grader."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

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
