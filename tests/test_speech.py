"""Spoken answers, on WAV files that Debian's espeak-ng makes during the test."""

from __future__ import annotations

import shutil
import subprocess
import wave

import numpy as np
import pytest

from interviewer.errors import InputError
from interviewer.speech import MAX_SECONDS, Transcriber, load_audio

pytestmark = pytest.mark.skipif(
    shutil.which("espeak-ng") is None, reason="espeak-ng is installed by `make test`"
)


def speak(text: str, path) -> str:
    subprocess.run(["espeak-ng", "-s", "150", "-w", str(path), text], check=True)
    return str(path)


def write_wav(path, samples: np.ndarray, rate: int = 16000) -> str:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes((samples * 32767).astype(np.int16).tobytes())
    return str(path)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return Transcriber("tiny.en", tmp_path_factory.mktemp("models"), "NCCL, HBM, GDDR, CUDA")


def test_spoken_answer_is_transcribed(tiny, tmp_path):
    speak(
        "The GPU copies data from pinned memory while the kernel runs, so transfers "
        "overlap with compute.",
        tmp_path / "a.wav",
    )
    t = tiny.transcribe(tmp_path / "a.wav", "How do you overlap data movement with computation?")
    words = t.text.lower()
    assert "kernel" in words and "memory" in words and "overlap" in words
    assert 2 < t.seconds < 15 and t.model == "whisper-tiny.en int8"
    assert 0 < t.confidence <= 1


def test_bad_audio_gets_a_clear_message_and_nothing_is_transcribed(tiny, tmp_path):
    (tmp_path / "empty.wav").write_bytes(b"")
    (tmp_path / "junk.wav").write_bytes(b"RIFF" + bytes(range(256)) * 20)
    silent = write_wav(tmp_path / "silent.wav", np.zeros(16000 * 3))
    long = write_wav(tmp_path / "long.wav", np.zeros(int(16000 * (MAX_SECONDS + 5))))
    for path, message in (
        (tmp_path / "empty.wav", "empty"),
        (tmp_path / "junk.wav", "could not"),
        (silent, "silent"),
        (long, "limit"),
    ):
        with pytest.raises(InputError, match=message):
            tiny.transcribe(tmp_path / str(path).split("/")[-1])  # nothing graded from it
    with pytest.raises(InputError):
        load_audio(tmp_path / "missing.wav")


def test_whisper_base_is_joined_from_its_two_packages(tmp_path):
    from interviewer.speech import model_dir

    folder = model_dir("base", tmp_path)
    assert (folder / "model.bin").stat().st_size > 140_000_000
    assert model_dir("base", tmp_path) == folder  # joined once
