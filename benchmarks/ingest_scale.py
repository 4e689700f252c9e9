"""Ingest at scale: `python -m benchmarks.ingest_scale [--questions N] [--mb M]`.

Builds a fresh index from generated documents (each question distinct, with a one-sentence
answer, so the bank keeps them apart) and prints time and peak memory, for a corpus of N
questions and one of M megabytes of prose, then a re-ingest of the unchanged corpus.
Writes out/bench_ingest.json. The defaults (10,000 questions, 50 MB) take about an hour on
2 cores, nearly all of it embedding the 50 MB's passages; `--mb 5` gives the rate in minutes.
"""

from __future__ import annotations

import argparse
import platform
import random
import resource
import tempfile
import time
from pathlib import Path

from benchmarks import report
from interviewer.config import Settings
from interviewer.embeddings import default_embedder
from interviewer.ingest import ingest

WORDS = (
    "kernel",
    "warp",
    "tensor",
    "memory",
    "cache",
    "latency",
    "bandwidth",
    "scheduler",
    "pipeline",
    "shard",
    "replica",
    "gradient",
    "optimizer",
    "checkpoint",
    "collective",
    "allreduce",
    "barrier",
    "stream",
    "graph",
    "compiler",
    "fusion",
    "quantization",
    "attention",
    "batch",
    "token",
    "prefix",
    "router",
    "autoscaler",
    "queue",
    "fabric",
    "switch",
    "link",
    "register",
    "occupancy",
    "launch",
    "copy",
    "engine",
    "partition",
    "expert",
    "adapter",
    "sampler",
    "decoder",
    "encoder",
)


VERBS = ("tune", "debug", "measure", "shard", "cache", "schedule", "profile", "compress")
QUESTIONS = (
    "How would you {v} the {a} when the {b} saturates?",
    "Why does the {a} {b} hurt {c}?",
    "What limits {a} throughput in a {b} setup?",
    "Explain how the {a} and the {b} share the {c}.",
    "When should you {v} the {a} instead of the {b}?",
)
ANSWERS = (
    "Start from the {a}: {v} it first, because the {b} waits on it.",
    "The {c} stalls whenever the {b} holds the {a} too long.",
    "Mostly the {b}; measure it before touching the {a}.",
    "They take turns: the {a} fills the {c} while the {b} drains it.",
)


def questions_doc(n: int, rng: random.Random) -> str:
    """N questions in the headed Q&A form the parser reads, varied enough to stay apart."""
    lines = ["# Generated interview guide\n"]
    for i in range(n):
        words = dict(zip("abc", rng.sample(WORDS, 3), strict=True), v=rng.choice(VERBS))
        level = ("easy", "medium", "hard")[i % 3]
        lines.append(
            f"{rng.choice(QUESTIONS).format(**words)} {level}\n\n"
            f"{rng.choice(ANSWERS).format(**words)}\n"
        )
    return "\n".join(lines)


def prose_doc(megabytes: float, rng: random.Random) -> str:
    out, size, n = [], 0, 0
    while size < megabytes * 1_000_000:
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 20)))
        sentence = f"Note {n}: the {words} stays within budget.\n"
        if n % 12 == 0:
            sentence = f"\n## Section {n // 12}\n\n" + sentence
        out.append(sentence)
        size += len(sentence)
        n += 1
    return "".join(out)


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--mb", type=float, default=50.0)
    args = parser.parse_args()
    rng = random.Random(1234)
    embedder = default_embedder()
    embedder.embed(["warm up"])
    rows: list[tuple[str, str, str]] = []
    for label, text in (
        (f"{args.questions:,} questions", questions_doc(args.questions, rng)),
        (f"{args.mb:g} MB of prose", prose_doc(args.mb, rng)),
    ):
        with tempfile.TemporaryDirectory() as tmp:
            corpus = Path(tmp) / "corpus"
            corpus.mkdir()
            (corpus / "generated.md").write_text(text, "utf-8")
            settings = Settings(data_dir=Path(tmp) / "data", corpus_dir=corpus)
            started = time.perf_counter()
            first = ingest(settings, embedder)
            seconds = time.perf_counter() - started
            again = ingest(settings, embedder)
            rate = first.passages / seconds if seconds else 0.0
            rows.append(
                (
                    f"ingest, cold: {label}",
                    f"{seconds:.1f} s",
                    f"{first.questions:,} questions, {first.passages:,} passages "
                    f"({rate:.0f}/s); peak memory {peak_mib():.0f} MiB so far",
                )
            )
            rows.append((f"ingest, unchanged: {label}", f"{again.seconds * 1000:.0f} ms", ""))
    machine = f"{platform.machine()}, {platform.python_version()}"
    report("bench_ingest", f"Ingest at scale ({machine})", rows, {"machine": machine}, "value")


if __name__ == "__main__":
    main()
