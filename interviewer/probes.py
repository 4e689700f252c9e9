"""Which key point a follow-up asks about: what the candidate got wrong, then what the answer
shows no sign of, and only then what it may have said in other words."""

from __future__ import annotations

from collections.abc import Sequence

from .records import ClaimResult
from .rubrics import KeyPoint, Rubric

# A missed point whose best sentence the claim checker read as at least this likely to state
# it ("partial credit") may have been said in other words. In a trial's mock interviews
# (stop 65), 6 of 7 follow-ups asked for something the candidate had said; of the points
# marked missed in its first answers, 7 of 10 the candidate had said were at 0.25 or more,
# 2 of 9 it had not.
PARTLY_SAID = 0.25


def probe_order(rubric: Rubric, claims: Sequence[ClaimResult]) -> list[KeyPoint]:
    """The points not covered, in the order to ask about them: one said wrong first (the
    follow-up lets the candidate correct it), then those missed outright, then those that may
    have been said; core before supporting within each, each in the authored order."""
    by_id = {c.point_id: c for c in claims}

    def rank(k: KeyPoint) -> tuple[bool, bool, bool]:
        c = by_id.get(k.id)
        wrong = c is not None and c.verdict == "contradicted"
        partly = c is not None and c.verdict == "missed" and c.credit >= PARTLY_SAID
        return (not wrong, partly, k.weight != "core")

    left = [
        k for k in rubric.key_points if (c := by_id.get(k.id)) is None or c.verdict != "covered"
    ]
    return sorted(left, key=rank)
