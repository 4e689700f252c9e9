"""The offline grader's fitted model: linear heads over `features.py`, no LLM.

The weights live in `data/offline_grader.json`, written by `evals/train_offline.py` from the
dev parts of the eval data only.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from .features import FEATURES
from .thresholds import Thresholds

MODEL_FILE = Path(__file__).parent / "data" / "offline_grader.json"


@dataclass(frozen=True)
class Head:
    """One fitted linear scorer over standardised FEATURES (weight 0: feature unused)."""

    weights: tuple[float, ...]
    bias: float
    mean: tuple[float, ...]
    scale: tuple[float, ...]

    def predict(self, x: np.ndarray) -> np.ndarray:
        z = (x - np.asarray(self.mean)) / np.asarray(self.scale)
        return np.clip(z @ np.asarray(self.weights) + self.bias, 0.0, 5.0)


@dataclass(frozen=True)
class Model:
    """Two heads: `input` for an answer judged against one reference answer given with it
    (batch rows with reference_answer), `bank` for the guides' reference variants, key points
    and passages. The material differs in shape, and so do the features that track a grade."""

    heads: dict[str, Head]
    cover_threshold: float
    off_topic_threshold: float
    off_topic_margin: float = 0.15
    name: str = "offline-linear-v4"
    # The estimate blends the fitted model with the claim verdicts' weighted coverage (x5),
    # per head: a row's own reference answer (`input`) or the guides' rubrics (`bank`).
    verdict_weight: dict[str, float] = field(default_factory=lambda: {"input": 0.25, "bank": 0.5})
    thresholds: Thresholds = field(default_factory=Thresholds)
    # Per head, (knee, slope): the blended estimate above the knee is stretched by the slope
    # (capped at 5). The claim checker misses points a right answer states in its own words,
    # so the blend sits about a point low on right answers (human 5 -> 3.9 on the dev parts);
    # chosen on dev parts by `evals/calibrate.py`. No entry: no stretch.
    stretch: dict[str, tuple[float, float]] = field(default_factory=dict)

    def calibrated(self, estimate: float, kind: str) -> float:
        """The blended estimate on the grading scale's footing (see `stretch`)."""
        knee, slope = self.stretch.get(kind, (5.0, 1.0))
        if estimate <= knee:
            return estimate
        return min(5.0, knee + (estimate - knee) * slope)

    def predict(self, x: np.ndarray, kinds: Sequence[str]) -> np.ndarray:
        out = self.heads["bank"].predict(x)
        uses_input = np.asarray([k == "input" for k in kinds])
        if "input" in self.heads and uses_input.any():
            out[uses_input] = self.heads["input"].predict(x[uses_input])
        return out

    @classmethod
    def load(cls, path: Path = MODEL_FILE) -> Model:
        d = json.loads(path.read_text("utf-8"))
        if tuple(d["features"]) != FEATURES:
            raise ValueError(f"{path} was fitted on other features; re-run evals/train_offline.py")
        heads = {
            name: Head(tuple(h["weights"]), h["bias"], tuple(h["mean"]), tuple(h["scale"]))
            for name, h in d["heads"].items()
        }
        return cls(
            heads,
            d["cover_threshold"],
            d["off_topic_threshold"],
            d.get("off_topic_margin", 0.15),
            d.get("name", cls.name),
            d.get("verdict_weight", {"input": 0.25, "bank": 0.5}),
            Thresholds(**d.get("thresholds", {})),
            {k: (float(v[0]), float(v[1])) for k, v in d.get("stretch", {}).items()},
        )


@lru_cache(maxsize=1)
def default_model() -> Model:
    return Model.load()
