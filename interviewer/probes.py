"""Which key point a follow-up asks about: what the candidate got wrong, then what the answer
shows no sign of, and only then what it may have said in other words."""

from __future__ import annotations

from collections.abc import Sequence

from .records import ClaimResult
from .rubrics import KeyPoint, Rubric


def probe_order(rubric: Rubric, claims: Sequence[ClaimResult]) -> list[KeyPoint]:
    """The points not covered, in the order to ask about them: one said wrong first (the
    follow-up lets the candidate correct it), then those missed outright, then those that may
    have been said (`ClaimResult.raise_first`); core before supporting within each, each in
    the authored order."""
    by_id = {c.point_id: c for c in claims}

    def rank(k: KeyPoint) -> tuple[bool, bool, bool]:
        c = by_id.get(k.id)
        return c.raise_first if c is not None else (True, False, k.weight != "core")

    left = [
        k for k in rubric.key_points if (c := by_id.get(k.id)) is None or c.verdict != "covered"
    ]
    return sorted(left, key=rank)
