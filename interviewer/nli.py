"""The claim checker's model: a 3-way NLI cross-encoder trained by `evals/train_nli.py`.

Premise = a sentence the candidate said, hypothesis = a claim (a key point or a misconception).
The shipped weights (`data/nli/`) leave out the word-embedding table, which stays the packaged
all-MiniLM-L6-v2's (frozen in training), so the file stays under 25 MB. Loaded on first use.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np

from .embeddings import _packaged_model_path, by_tokens, tokenize
from .errors import DependencyError
from .memo import Memo
from .runtime import onnx_session, run

LABELS = ("entailment", "neutral", "contradiction")
NLI_DIR = Path(__file__).parent / "data" / "nli"
WEIGHTS = "weights.safetensors"
WORD_EMBEDDINGS = "bert.embeddings.word_embeddings.weight"


class Entailment(Protocol):
    name: str

    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """(n, 3) probabilities of entailment, neutral, contradiction per (premise, claim)."""
        ...


def _transformers() -> Any:
    try:
        import transformers
    except ImportError as e:  # pragma: no cover - declared dependency (sentence-transformers)
        raise DependencyError("transformers is not installed") from e
    transformers.logging.set_verbosity_error()
    return transformers


def load_base(path: str | None = None) -> tuple[Any, Any]:
    """The untrained classifier on MiniLM's encoder, word embeddings frozen (training only).
    `path`: a copy of the packaged model elsewhere (a GPU machine without the package)."""
    import torch

    tf = _transformers()
    path = path or _packaged_model_path()
    tokenizer = tf.AutoTokenizer.from_pretrained(path)
    # fp32 whatever the file holds: a half-precision copy would otherwise train in fp16.
    model = tf.BertForSequenceClassification.from_pretrained(
        path, num_labels=len(LABELS), id2label=dict(enumerate(LABELS)), dtype=torch.float32
    )
    model.bert.embeddings.word_embeddings.weight.requires_grad_(False)
    return model, tokenizer


def save_model(model: Any, folder: Path, report: dict[str, Any]) -> None:
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    state = {
        k: v.detach().to("cpu").half().contiguous()
        for k, v in model.state_dict().items()
        if k != WORD_EMBEDDINGS and "position_ids" not in k
    }
    save_file(state, str(folder / WEIGHTS))
    model.config.to_json_file(str(folder / "config.json"))
    (folder / "report.json").write_text(json.dumps(report, indent=1) + "\n", "utf-8")


Precision = Literal["auto", "fp32", "bf16"]
Runtime = Literal["onnx", "torch"]


@lru_cache(maxsize=1)
def bf16_is_fast() -> bool:
    """The CPU multiplies bfloat16 matrices in hardware (AMX, Sapphire Rapids and later)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            return any(line.startswith("flags") and " amx_bf16" in line for line in f)
    except OSError:
        return False


def resolve(precision: Precision) -> Literal["fp32", "bf16"]:
    if precision == "auto":
        return "bf16" if bf16_is_fast() else "fp32"
    return precision


class CrossEncoderNLI:
    """Loads the shipped weights on first call; batches pairs sorted by length. In bf16 the
    matrix products run in bfloat16 (fp32 weights, autocast): 2.4x faster on a CPU with AMX
    (Sapphire Rapids and later), slower on one without; probabilities move by 0.001 on average
    (0.009 at most on 240 answer-sentence pairs), so the grader's name says which ran. Opt-in:
    bf16 rounding turns the order of fp32 sums, which a batch's shape decides, into visible
    differences, so a pair's probabilities depend a little on the pairs batched with it (109
    answers graded together and one by one: 1 verdict and 11 confidences differ; none in
    fp32). "auto": bf16 where the CPU has AMX, else fp32. In fp32 ONNX Runtime runs the
    model (runtime.py) unless `runtime="torch"`."""

    def __init__(
        self,
        folder: Path = NLI_DIR,
        batch_size: int = 32,
        precision: Precision = "fp32",
        runtime: Runtime = "onnx",
    ) -> None:
        self.folder = folder
        self.batch_size = batch_size
        self.precision = resolve(precision)
        self.runtime = runtime
        self.name = f"nli-minilm-l6@{folder.name}" + ("+bf16" if self.precision == "bf16" else "")
        self._model: Any = None
        self._tokenizer: Any = None
        self._session: Any = None  # ONNX Runtime runs the fp32 model (runtime.py)
        self._lock = threading.Lock()
        # The same key point meets the same sentence again (evals, re-grading, follow-ups).
        self._seen: Memo[tuple[str, str]] = Memo(50_000)

    @property
    def available(self) -> bool:
        return (self.folder / WEIGHTS).exists()

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._model is None:
                if not self.available:
                    raise DependencyError(
                        f"the claim checker's weights are missing from {self.folder}: "
                        "run `python -m evals.train_nli`"
                    )
                from safetensors.torch import load_file

                tf = _transformers()
                base = _packaged_model_path()
                config = tf.BertConfig.from_json_file(str(self.folder / "config.json"))
                model = tf.BertForSequenceClassification(config)
                state = {k: v.float() for k, v in load_file(str(self.folder / WEIGHTS)).items()}
                state[WORD_EMBEDDINGS] = _word_embeddings(base)
                missing, unexpected = model.load_state_dict(state, strict=False)
                if unexpected or [m for m in missing if "position_ids" not in m]:
                    raise DependencyError(f"{self.folder} does not match the model: {missing}")
                model.eval()
                # fp32, not int8: dynamic quantization scales each batch's activations
                # together, so a pair's verdict would depend on the pairs batched with it.
                self._tokenizer = tf.AutoTokenizer.from_pretrained(base)
                if self.precision == "fp32" and self.runtime == "onnx":
                    self._session = onnx_session(model, self._tokenizer, "logits", "claim checker")
                self._model = model
        return self._model, self._tokenizer

    def clear(self) -> None:
        self._seen.clear()

    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        if not pairs:
            return np.zeros((0, len(LABELS)), dtype=np.float32)
        # Each distinct pair once: a misconception's check repeats pairs the key points asked.
        return np.stack(self._seen.rows(pairs, self._infer)).astype(np.float32, copy=False)

    def _infer(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        model, tokenizer = self._load()
        ended = [(_ended(p), _ended(h)) for p, h in pairs]
        if self._session is not None:
            return predict_onnx(self._session, tokenizer, ended, self.batch_size)
        return predict(model, tokenizer, ended, self.batch_size, bf16=self.precision == "bf16")


def _batches(
    tokenizer: Any, pairs: Sequence[tuple[str, str]], batch: int, tensors: str
) -> Iterator[tuple[list[int], Any]]:
    """(indices, tokenized batch) in batches sorted by token count (less padding)."""
    order = by_tokens(tokenizer, pairs, 128)
    for start in range(0, len(order), batch):
        idx = order[start : start + batch]
        enc = tokenize(
            tokenizer,
            [pairs[i][0] for i in idx],
            [pairs[i][1] for i in idx],
            padding=True,
            truncation=True,
            max_length=128,
            return_tensors=tensors,
        )
        yield idx, enc


def predict(
    model: Any, tokenizer: Any, pairs: Sequence[tuple[str, str]], batch: int, bf16: bool = False
) -> np.ndarray:
    """Softmax probabilities per (premise, claim) pair; the same code serves the shipped model
    and the one in training."""
    import torch

    out = np.zeros((len(pairs), len(LABELS)), dtype=np.float32)
    with torch.inference_mode(), torch.autocast(model.device.type, torch.bfloat16, enabled=bf16):
        for idx, enc in _batches(tokenizer, pairs, batch, "pt"):
            logits = model(**enc.to(model.device)).logits.float()
            out[idx] = torch.softmax(logits, -1).cpu().numpy()
    return out


def predict_onnx(
    session: Any, tokenizer: Any, pairs: Sequence[tuple[str, str]], batch: int
) -> np.ndarray:
    """`predict` by ONNX Runtime: the same batches, the same softmax."""
    out = np.zeros((len(pairs), len(LABELS)), dtype=np.float32)
    for idx, enc in _batches(tokenizer, pairs, batch, "np"):
        logits = run(session, enc).astype(np.float32)
        shifted = np.exp(logits - logits.max(-1, keepdims=True))
        out[idx] = shifted / shifted.sum(-1, keepdims=True)
    return out


def _ended(text: str) -> str:
    """The text as a sentence, with its full stop: the model learnt from premises that end in
    one (94 % of its training pairs), and reads a transcript's "... launch overhead" less
    surely than "... launch overhead."; an answer and the same answer with a padding sentence
    cut from its end must read alike."""
    text = text.rstrip()
    return text if not text or text[-1] in ".!?\"')" else text + "."


def _word_embeddings(model_path: str) -> Any:
    from safetensors.torch import load_file

    for name in ("model.safetensors",):
        f = Path(model_path) / name
        if f.exists():
            state = load_file(str(f))
            for key in (WORD_EMBEDDINGS, "embeddings.word_embeddings.weight"):
                if key in state:
                    return state[key].float()
    raise DependencyError(f"no word embeddings found in {model_path}")


def default_nli(precision: Precision = "fp32", runtime: Runtime = "onnx") -> CrossEncoderNLI:
    return _shared(resolve(precision), runtime)


@lru_cache(maxsize=4)
def _shared(precision: Precision, runtime: Runtime) -> CrossEncoderNLI:
    return CrossEncoderNLI(precision=precision, runtime=runtime)
