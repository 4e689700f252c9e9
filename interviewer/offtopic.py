"""Whether an answer fits another bank question clearly better than the one it was asked."""

from __future__ import annotations

import numpy as np

from .embeddings import Embedder
from .index import Index

# A bank question this near a row's own question and reference is that question, asked in the
# row's words (own_indomain: every bank question to its own text, 1.0).
SAME = 0.8
# A question (with its reference) at least this near one of the bank's is in the guides' field,
# GPU, CUDA and ML infrastructure, where the structural checks were built and measured. The
# nearest bank question to each of Mohler's 85 questions (data structures): at most 0.40; SAF's
# 31 (networking): 0.41; SciEntsBank's 195 (school science): 0.33; trial J's six take-home
# questions on inference and CUDA, none in the bank: 0.46 to 0.85.
FIELD = 0.45


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
            texts = [as_other(q.text, (q.reference_answers or ("",))[0]) for q in qs]
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

    def fits_better_than(self, own: np.ndarray, answer_vec: np.ndarray, margin: float) -> bool:
        """As `fits_better`, for a question outside the bank: `own` is its text and reference
        embedded as the bank's are. Bank questions that are the same question (at least SAME
        to it) are not others."""
        bank = self.vectors()
        if bank is None:
            return False
        matrix = bank[1]
        others = (matrix @ answer_vec)[matrix @ own < SAME]
        return bool(others.size and others.max() - float(own @ answer_vec) > margin)

    def nearest(self, own: np.ndarray) -> float:
        """How near the nearest bank question is to a question outside the bank (0 without)."""
        bank = self.vectors()
        return float((bank[1] @ own).max()) if bank is not None and len(bank[0]) else 0.0


def as_other(question: str, reference: str) -> str:
    """A question as the comparison embeds it: its text and its reference's start."""
    return f"{question} {reference[:300]}"
