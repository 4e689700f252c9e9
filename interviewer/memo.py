"""A bounded memo of model outputs keyed by their input: a text's vector, a pair's NLI
probabilities. Grading one answer meets the same inputs several times (the injection, aside
and claim checks, a second reading without padding); each is computed once."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Generic, TypeVar

import numpy as np

K = TypeVar("K", bound=Hashable)


class Memo(Generic[K]):
    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._seen: dict[K, np.ndarray] = {}

    def clear(self) -> None:
        self._seen.clear()

    def rows(self, keys: Sequence[K], compute: Callable[[list[K]], np.ndarray]) -> list[np.ndarray]:
        """Each key's row, in order; `compute` gets the distinct keys not seen yet. Read into a
        local copy: another thread (the interview's warm-up) may clear the memo meanwhile."""
        known = {k: v for k in dict.fromkeys(keys) if (v := self._seen.get(k)) is not None}
        todo = [k for k in dict.fromkeys(keys) if k not in known]
        if todo:
            fresh = dict(zip(todo, compute(todo), strict=True))
            known.update(fresh)
            if len(self._seen) > self._limit:
                self._seen.clear()
            self._seen.update(fresh)
        return [known[k] for k in keys]
