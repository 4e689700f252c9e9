"""Claim verdicts: for each key point, did the answer state it, contradict it, or miss it;
and which known misconceptions did it state. Every grader returns these, and `scoring.score()` turns
them into the 0-5 grade of ../shared/GRADING_SCALE.md.

The offline grader decides them in `checker.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Verdict = Literal["covered", "contradicted", "missed"]


@dataclass(frozen=True)
class Claim:
    """A key point an answer is checked against."""

    id: str
    text: str
    label: str = ""
    weight: float = 1.0  # 2 for a core point, 1 for a supporting one
    alternatives: tuple[str, ...] = ()  # paraphrases a correct answer may use
    source: str = ""  # where the point comes from, for people
    # The verdict ("yes", "disagree") or option letter ("B") a closed question's reference
    # opens with, which this point carries: a reply opening with another one contradicts it.
    verdict: str = ""

    @property
    def core(self) -> bool:
        return self.weight >= 2.0

    @property
    def texts(self) -> tuple[str, ...]:
        """The point and its paraphrases."""
        return (self.text, *self.alternatives)


@dataclass(frozen=True)
class Wrong:
    """A known misconception: a wrong claim and the key point it contradicts."""

    text: str
    contradicts: str
    alternatives: tuple[str, ...] = ()  # the same wrong claim in other words

    @property
    def texts(self) -> tuple[str, ...]:
        """The wrong claim and its paraphrases."""
        return (self.text, *self.alternatives)


@dataclass(frozen=True)
class PointVerdict:
    claim: Claim
    verdict: Verdict
    evidence: str = ""  # the answer sentence that decided it
    credit: float = 0.0  # 0-1: how fully it was stated (1 for a clear entailment)
    margin: float = 1.0  # 0-1: how far the deciding probability was from the threshold
    decided_by: str = "nli"  # or "exact:<check>", "similarity", "llm"


@dataclass(frozen=True)
class StatedMisconception:
    wrong: Wrong
    evidence: str
    probability: float = 1.0


@dataclass(frozen=True)
class Verdicts:
    points: tuple[PointVerdict, ...]
    misconceptions: tuple[StatedMisconception, ...] = ()
    # The question asks for this many of the points, where its reference lists more ("state at
    # least 4 objectives" against nine): that many make it complete (0: every point).
    asked: int = 0

    def of(self, verdict: Verdict) -> tuple[PointVerdict, ...]:
        return tuple(p for p in self.points if p.verdict == verdict)

    @property
    def coverage(self) -> float:
        """Weighted share of the key points stated (contradicted ones count 0), or of as many
        as the question asks for."""
        weights = sorted((p.claim.weight for p in self.points), reverse=True)
        total = sum(weights[: self.asked] if self.asked else weights)
        got = sum(p.claim.weight * p.credit for p in self.points if p.verdict != "contradicted")
        return min(1.0, got / total) if total else 0.0

    @property
    def complete(self) -> bool:
        """Every key point covered, or as many as the question asks for."""
        covered = len(self.of("covered"))
        return covered == len(self.points) or 0 < self.asked <= covered

    def wrong_points(self) -> set[str]:
        """Ids of key points contradicted outright or through a stated misconception."""
        return {p.claim.id for p in self.of("contradicted")} | {
            m.wrong.contradicts for m in self.misconceptions
        }


def margin(p: float, threshold: float) -> float:
    """0-1: how far a deciding probability sits from its threshold, on the side it fell."""
    span = (1.0 - threshold) if p >= threshold else threshold
    return round(min(1.0, abs(p - threshold) / max(span, 1e-6)), 3)
