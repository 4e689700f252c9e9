"""Is a sentence of an answer about the subject at all? A logistic model over the packaged
MiniLM's sentence vectors, fitted by `evals/train_padding.py` (interviewer/data/padding.json):
pleasantries, appeals, self-praise, anecdotes, offers and vague talk in the field's words are
padding; any checkable claim, right or wrong, is content."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from .errors import DependencyError

MODEL_FILE = Path(__file__).parent / "data" / "padding.json"


@dataclass(frozen=True)
class PaddingModel:
    weights: np.ndarray
    bias: float
    threshold: float  # on the logit: set so that 99.5 % of content sentences stay below it

    def is_padding(self, vectors: np.ndarray) -> np.ndarray:
        """One bool per row of unit sentence vectors (each sentence embedded alone)."""
        return np.asarray(vectors @ self.weights + self.bias > self.threshold)

    @classmethod
    def load(cls, path: Path = MODEL_FILE) -> PaddingModel:
        try:
            d = json.loads(path.read_text("utf-8"))
            return cls(np.asarray(d["weights"], dtype=np.float32), d["bias"], d["threshold"])
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise DependencyError(
                f"the padding model {path} is missing or unreadable ({e}): "
                "run `python -m evals.train_padding`"
            ) from e


@lru_cache(maxsize=1)
def default_padding() -> PaddingModel:
    return PaddingModel.load()
