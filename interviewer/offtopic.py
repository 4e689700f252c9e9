"""Whether an answer fits another bank question clearly better than the one it was asked."""

from __future__ import annotations

import numpy as np

from .embeddings import Embedder
from .index import Index


class OtherQuestions:
    """The bank's technical questions as vectors (each with the start of its reference
    answer), embedded on first use and again when the index changes generation."""

    def __init__(self, index: Index | None, embedder: Embedder) -> None:
        self.index, self.embedder = index, embedder
        self._bank: tuple[str | None, dict[str, int], np.ndarray] | None = None

    def vectors(self) -> tuple[dict[str, int], np.ndarray] | None:
        if self.index is None:
            return None
        gen = self.index.generation()
        if self._bank is None or self._bank[0] != gen:
            qs = self.index.bank.technical()
            texts = [f"{q.text} {(q.reference_answers or ('',))[0][:300]}" for q in qs]
            self._bank = (gen, {q.id: n for n, q in enumerate(qs)}, self.embedder.embed(texts))
        return self._bank[1], self._bank[2]

    def fits_better(self, question_id: str | None, answer_vec: np.ndarray, margin: float) -> bool:
        """The answer sits nearer another question than its own by more than `margin`."""
        bank = self.vectors() if question_id else None
        if bank is None or question_id not in bank[0]:
            return False
        pos, matrix = bank
        sims = matrix @ answer_vec
        own = sims[pos[question_id]]
        return bool(np.delete(sims, pos[question_id]).max() - own > margin)
