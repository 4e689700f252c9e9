"""The question bank: parsed items merged into questions with ids, topics and variants."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from .embeddings import Embedder
from .records import Question, RawItem

# Two items are one question when their questions say nearly the same thing, or when the
# questions are close and the answers agree. Chosen on the shipped guides: the known repeats
# ("CUDA core vs Tensor Core" x3, occupancy x3, FlashAttention x2...) merge, and look-alikes
# with different answers ("nvidia-smi shows 95%" vs "shows 0%") stay apart.
SAME_QUESTION = 0.90
CLOSE_QUESTION, SAME_ANSWER = 0.70, 0.80

TOPICS: dict[str, tuple[str, ...]] = {
    "gpu-architecture": (
        "cuda core",
        "tensor core",
        "warp",
        " sm",
        "streaming multiprocessor",
        "gpus faster than cpus",
        "memory hierarchy",
        "gpus and tpus",
        "vram",
    ),
    "memory": (
        "memory",
        "hbm",
        "gddr",
        "vram",
        "out-of-memory",
        "oom",
        "kv cache",
        "checkpointing",
        "pinned",
        "data movement",
    ),
    "kernels-performance": (
        "kernel",
        "occupancy",
        "coalesc",
        "roofline",
        "profil",
        "bank conflict",
        "divergence",
        "fusion",
        "flashattention",
        "arithmetic intensity",
        "benchmark",
        "throughput",
        "utilization",
        "cuda graph",
        "stream",
        "loss.item",
        "memory-bound",
        "compute-bound",
        "stall",
        "overlap",
    ),
    "precision-quantization": (
        "fp16",
        "bf16",
        "fp8",
        "int4",
        "int8",
        "mixed precision",
        "mixed-precision",
        "quantiz",
        "qat",
        "ptq",
    ),
    "distributed-training": (
        "allreduce",
        "all-reduce",
        "nccl",
        "parallelism",
        "zero",
        "fsdp",
        "ddp",
        "parameter-server",
        "parameter server",
        "sharding",
        "scales from",
        "distributed",
        "pipeline bubble",
        "gradient",
        "adding gpus",
    ),
    "interconnect-networking": (
        "nvlink",
        "pcie",
        "infiniband",
        "rdma",
        "gpudirect",
        "interconnect",
        "communication",
        "host-to-device",
        "host–device",
    ),
    "inference-serving": ("inference", "serve", "serving", "latency", "70b model"),
    "cluster-infrastructure": (
        "kubernetes",
        "mig",
        "mps",
        "multi-tenant",
        "scheduler",
        "scheduling",
        "cluster",
        "spot",
        "preemptible",
        "cost of training",
        "estimate the cost",
        "estimated cost",
        "raises cost",
        "gpu-hour",
        "platform",
        "share one gpu",
        "nvidia-smi",
        "throttl",
    ),
    "data-pipelines": (
        "data pipeline",
        "dataloader",
        "shuffle",
        "preprocessing",
        "data loading",
        "images",
        "input pipeline",
    ),
    # Robot learning on GPUs: a trial found the sim-to-real humanoid question filed as
    # "general", the only technical question there.
    "robotics-simulation": ("robot", "humanoid", "sim-to-real", "isaac", "locomotion"),
    "mlops-reliability": (
        "reproducib",
        "determinis",
        "ci ",
        "release",
        "diverges",
        "hangs",
        "debug",
        "fault",
        "checkpoint/resume",
        "test harness",
    ),
}


def topics_for(text: str, reference: str = "") -> tuple[str, ...]:
    """The topics a question names. Its reference answer decides only when the question names
    none, and then only topics it names twice: answers mention memory, kernels or clusters in
    passing ("What is a warp?" is not a cluster question, nor Linux knowledge a memory one)."""
    found = _named(text, 1) or _named(reference, 2)
    return found or ("general",)


def topics_of(variants: Sequence[RawItem]) -> tuple[str, ...]:
    return topics_for(
        " ".join(v.text for v in variants), " ".join((v.reference or "")[:200] for v in variants)
    )


def _named(text: str, times: int) -> tuple[str, ...]:
    lowered = f" {text.lower()} "
    return tuple(
        t for t, words in TOPICS.items() if sum(_starts_word(w, lowered) for w in words) >= times
    )


def _starts_word(word: str, text: str) -> bool:
    """`word` as a word of `text`: a short one whole, or plural ("mig" in "MIG on A100", not
    in "migrate"; "mps" not in "jumps"; "stalls"), a longer one as a stem ("quantiz" in
    "quantized")."""
    end = r"(?:e?s)?(?![a-z0-9])" if len(word) < 6 else ""
    return re.search(rf"(?<![a-z0-9]){re.escape(word)}{end}", text) is not None


def question_id(text: str) -> str:
    normal = re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()
    return "q-" + hashlib.sha1(normal.encode()).hexdigest()[:10]


# The topic every question from the user's own documents also has: the interview's topic
# picker is how a candidate asks for their own material (trial H could not).
MY_DOCUMENTS = "my-documents"


def merge_items(
    items: Sequence[RawItem], embedder: Embedder, own: frozenset[str] = frozenset()
) -> list[Question]:
    """Merge near-duplicate items (within or across guides) into questions, in corpus order;
    `own`: the sources that are the user's documents, not the guides."""
    if not items:
        return []
    q_vecs = embedder.embed([it.text for it in items])
    qa_vecs = embedder.embed([f"{it.text} {(it.reference or '')[:400]}" for it in items])
    answered = np.asarray([bool(it.reference) for it in items])
    parent = list(range(len(items)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    # Blocks of rows keep memory linear in the corpus (10,000 questions: no 10k x 10k matrix).
    for lo in range(0, len(items), 1024):
        rows = slice(lo, lo + 1024)
        q_sim = q_vecs[rows] @ q_vecs.T
        same = (q_sim >= SAME_QUESTION) | (
            (q_sim >= CLOSE_QUESTION)
            & answered[rows, None]
            & answered[None, :]
            & ((qa_vecs[rows] @ qa_vecs.T) >= SAME_ANSWER)
        )
        for a, b in zip(*np.nonzero(same), strict=True):
            if lo + a < b:
                parent[find(int(b))] = find(lo + int(a))
    groups: dict[int, list[RawItem]] = {}
    for i, item in enumerate(items):
        groups.setdefault(find(i), []).append(item)
    return [_question(group, own) for _, group in sorted(groups.items())]


def _question(variants: list[RawItem], own: frozenset[str] = frozenset()) -> Question:
    first = variants[0]
    # A difficulty a guide states outweighs one inferred (a note without one is "medium").
    stated = [v for v in variants if not v.difficulty_inferred] or variants
    counts = Counter(v.difficulty for v in stated)
    difficulty = max(counts, key=lambda d: (counts[d], d == first.difficulty))
    return Question(
        id=question_id(first.text),
        text=first.text,
        difficulty=difficulty,
        kind=first.kind,
        topics=topics_of(variants) + _own(bool(own & {v.source for v in variants})),
        variants=tuple(variants),
    )


def _own(mine: bool) -> tuple[str, ...]:
    return (MY_DOCUMENTS,) if mine else ()


@dataclass(frozen=True)
class Bank:
    questions: tuple[Question, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {q.id: q for q in self.questions})

    def get(self, qid: str) -> Question | None:
        return self._by_id.get(qid)  # type: ignore[attr-defined]

    def __len__(self) -> int:
        return len(self.questions)

    def technical(self) -> list[Question]:
        return [q for q in self.questions if q.technical]

    def topics(self) -> list[str]:
        return sorted({t for q in self.technical() for t in q.topics})

    def counts(self) -> dict[str, dict[str, int]]:
        out: dict[str, Counter[str]] = {
            k: Counter() for k in ("source", "difficulty", "kind", "topic")
        }
        for q in self.questions:
            for v in {v.source for v in q.variants}:
                out["source"][v] += 1
            out["difficulty"][q.difficulty] += 1
            out["kind"][q.kind] += 1
            for t in q.topics:
                out["topic"][t] += 1
        return {k: dict(sorted(c.items())) for k, c in out.items()}

    def to_json(self) -> dict[str, Any]:
        return {"counts": self.counts(), "questions": [q.to_dict() for q in self.questions]}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False, indent=1)

    def save(self, path: Path) -> None:
        path.write_text(self.dumps(), "utf-8")

    @classmethod
    def loads(cls, text: str) -> Bank:
        data = json.loads(text)
        # Topics are derived, so a bank saved under an older rule reads with today's (where the
        # question came from, a guide or the user's documents, is kept as saved).
        questions = (Question.from_dict(q) for q in data["questions"])
        return cls(
            tuple(
                replace(q, topics=topics_of(q.variants) + _own(MY_DOCUMENTS in q.topics))
                for q in questions
            )
        )

    @classmethod
    def load(cls, path: Path) -> Bank:
        return cls.loads(path.read_text("utf-8"))

    @classmethod
    def from_items(
        cls, items: Iterable[RawItem], embedder: Embedder, own: frozenset[str] = frozenset()
    ) -> Bank:
        return cls(tuple(merge_items(list(items), embedder, own)))
