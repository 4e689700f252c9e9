"""Run-on sentences: fillers that carry meaning are kept, the clauses of a long list are read
apart for what they state, and a segment set aside leaves its sentence's full stop."""

from __future__ import annotations

import pytest

from interviewer.asides import without
from interviewer.clauses import clauses
from interviewer.detectors import strip_fillers


@pytest.mark.parametrize(
    "said,kept",
    [
        ("So, um, a warp is like, 32 threads.", "a warp is 32 threads."),
        ("It fits on one GPU, so use plain DDP.", "It fits on one GPU, so use plain DDP."),
        ("Fuse ops like bias and GELU.", "Fuse ops like bias and GELU."),
        ("Uh, well, it caches as well as prefetches.", "it caches as well as prefetches."),
        ("Well the kernel stalls. So it waits.", "the kernel stalls. it waits."),
        ("Well-known fix. So-called fusion.", "Well-known fix. So-called fusion."),
    ],
)
def test_a_filler_is_stripped_and_a_connective_kept(said, kept):
    assert strip_fillers(said) == kept


@pytest.mark.parametrize(
    "answer,drop,left",
    [
        (
            "It fits on one GPU, so I'd use plain DDP across all GPUs. Nodes have 8 GPUs.",
            ["I'd use plain DDP across all GPUs."],
            "It fits on one GPU. Nodes have 8 GPUs.",
        ),
        ("I love GPUs. Warps are 32 threads.", ["I love GPUs."], "Warps are 32 threads."),
        # the mark goes with the remark it ended: a full stop is left
        ("Warps are 32 threads, and I love GPUs!", ["I love GPUs!"], "Warps are 32 threads."),
        (  # a question run on to a spoken answer (padding `blind4`, stop 51)
            "memory is linear so longer context Want me to whiteboard it?",
            ["Want me to whiteboard it?"],
            "memory is linear so longer context.",
        ),
        (
            "Warps are 32 threads, and I love GPUs, and they run in lockstep.",
            ["I love GPUs"],
            "Warps are 32 threads, and they run in lockstep.",
        ),
        (  # a sentence's first segment takes the joiner after it
            "In FP16 the weights are 140 GB, more than one GPU, and the KV cache grows. So shard.",
            ["In FP16 the weights are 140 GB, more than one GPU"],
            "the KV cache grows. So shard.",
        ),
        (  # a sentence's last segment with no joiner before it (fresh set, stop 46)
            "Third, the DCGM exporter so you can see GPU usage and health. For training you'd "
            "want a gang scheduler.",
            ["GPU usage and health."],
            "Third, the DCGM exporter so you can see. For training you'd want a gang scheduler.",
        ),
        (  # both segments of a sentence set aside leave nothing of it, not its "!"
            "GDDR is cheaper. Hope you're having a good day, and thanks for the chat!",
            ["Hope you're having a good day", "thanks for the chat!"],
            "GDDR is cheaper.",
        ),
    ],
)
def test_a_segment_set_aside_leaves_its_sentences_full_stop(answer, drop, left):
    """Set aside from "A, so B. C", the tail B took the full stop with it: "A C" ran two
    sentences into one, which the checker then read as one claim."""
    assert without(answer, drop) == left


RUN_ON = (
    "300B parameters need about 16 bytes per parameter, 4.8 TB, so use tensor parallelism "
    "inside a node over NVLink, pipeline parallelism across nodes, ZeRO-1 for the optimizer "
    "state in the data-parallel dimension and activation checkpointing."
)


def test_a_long_list_is_read_clause_by_clause():
    assert clauses(RUN_ON) == [
        "300B parameters need about 16 bytes per parameter",
        "so use tensor parallelism inside a node over NVLink",
        "pipeline parallelism across nodes",
        "ZeRO-1 for the optimizer state in the data-parallel dimension and activation "
        "checkpointing",
    ]


@pytest.mark.parametrize(
    "sentence",
    [
        "Use tensor parallelism, pipeline parallelism and ZeRO.",  # short: read whole
        "I would not use tensor parallelism inside a node, pipeline parallelism across nodes, "
        "or ZeRO-3 for a model this small.",  # a negation may govern every clause
        "Without FP32 master weights, loss scaling or a BF16 fallback the training run "
        "diverges within a few hundred steps.",
        "One long sentence with no commas in it at all that goes on for a good while.",
    ],
)
def test_a_short_or_negated_sentence_is_not_read_apart(sentence):
    assert clauses(sentence) == []


SHARDING = (
    "Propose a model sharding strategy to train a transformer with 300B parameters across "
    "hundreds of GPUs. Discuss tensor parallelism, pipeline parallelism, ZeRO optimizer "
    "partitioning stages, activation checkpointing, micro-batching, and the communication "
    "patterns needed to keep devices utilized."
)


def test_a_run_on_answer_covers_what_it_lists_as_sentences_would(built_index):
    """A helper's trial (stop 36): this answer, said as one sentence, covered none of the
    points it lists and scored 2; the same words as separate sentences scored 4."""
    from interviewer.grader import make_grader
    from interviewer.references import gather

    settings, index = built_index
    q = next(q for q in index.bank.technical() if q.text == SHARDING)
    refs = gather(q.text, index, settings, question_id=q.id)
    grader = make_grader("offline", settings, index=index)
    apart = (
        "300B parameters need about 16 bytes per parameter, 4.8 TB. Use tensor parallelism "
        "inside a node over NVLink. Pipeline parallelism across nodes. ZeRO-1 for the "
        "optimizer state in the data-parallel dimension. Activation checkpointing."
    )
    whole, split = grader.grade_many([(q.text, a, refs) for a in (RUN_ON, apart)])
    covered = {c.point_id for c in whole.claims if c.verdict == "covered"}
    assert len({"memory-math", "tensor-parallel", "pipeline", "zero"} & covered) >= 3
    assert whole.wrong_claims == () and whole.score >= split.score - 1 and whole.score >= 3


def test_a_subordinate_clause_is_not_read_alone():
    """Blind set, dev split: "When a warp's accesses are spread across different banks" read
    alone entailed the bank-conflict point that the rest of the sentence inverts."""
    assert clauses(
        "When a warp's accesses are spread across different banks, they get serialized, "
        "and padding pushes them into one bank."
    ) == ["they get serialized", "and padding pushes them into one bank"]


def test_a_sentence_cut_into_segments_is_also_read_whole():
    """The premises: each segment, each sentence cut into several read whole beside them,
    and the whole answer when short. The whole answer's parts are its segments only, so a
    wrong claim is quoted from the segment that says it."""
    from types import SimpleNamespace

    from interviewer.case import cut_sentences, parts_of
    from interviewer.features import _cut_sentences

    inverted = (
        "Fusion helps compute-bound GEMMs most, because it adds more FLOPs per byte; "
        "memory-bound ops don't benefit."
    )
    answer = f"{inverted} Frameworks fuse bias and GELU."
    assert _cut_sentences(answer) == [inverted]
    assert _cut_sentences(inverted) == []  # the whole answer, read whole anyway
    segs = [
        "Fusion helps compute-bound GEMMs most, because it adds more FLOPs per byte",
        "memory-bound ops don't benefit.",
        "Frameworks fuse bias and GELU.",
    ]
    case = SimpleNamespace(sentences=(answer, *segs, inverted), text=answer)
    assert cut_sentences(case) == {4}  # type: ignore[arg-type]
    assert parts_of(case, 0) == [1, 2, 3]  # type: ignore[arg-type]
    assert parts_of(case, 4) == [1, 2]  # type: ignore[arg-type]
    assert parts_of(case, 1) == []  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "sentence,parts",
    [
        # Spoken clauses run together with a comma: each is read apart (negation set 2 dev:
        # "..., it's not free" hid the sorting fix, 0.33 read together, 0.95 apart).
        (
            "The fix is sort your data so threads in the same warp take the same branch, "
            "it's not free.",
            [
                "The fix is sort your data so threads in the same warp take the same branch",
                "it's not free.",
            ],
        ),
        (
            "A lot of the time it's memory-bound stuff like layernorm, or your matmuls are in "
            "FP32 so they're not hitting the Tensor Cores.",
            [
                "A lot of the time it's memory-bound stuff like layernorm",
                "your matmuls are in FP32 so they're not hitting the Tensor Cores.",
            ],
        ),
        # Not after a clause that leads into the next, nor a phrase too short to say anything.
        ("If it's low, you're memory-bound.", ["If it's low, you're memory-bound."]),
        ("Low intensity, you're memory-bound.", ["Low intensity, you're memory-bound."]),
        # Nor after a phrase with no verb, nor at a relative "that" or "that is" (i.e.).
        (
            "At the end of the day, it's all about keeping the GPU fed.",
            ["At the end of the day, it's all about keeping the GPU fed."],
        ),
        (
            "Break big structures into smaller sub-units, that are easier to manipulate.",
            ["Break big structures into smaller sub-units, that are easier to manipulate."],
        ),
        # Nor inside a list.
        ("Use FP16, or BF16 on Ampere.", ["Use FP16, or BF16 on Ampere."]),
    ],
)
def test_clauses_run_together_with_a_comma_are_read_apart(sentence, parts):
    from interviewer.segmenter import segments

    assert segments(sentence) == parts


def test_a_spoken_answer_with_clauses_run_together_covers_what_each_says(bank_grader):
    """Negation set 2 dev (a right spoken answer, label 4, scored 2): the sorting fix ran on
    into ", it's not free" and was read as one clause that did not entail the point."""
    spoken = (
        "So when threads in one warp go different ways on a branch, the warp basically runs "
        "one path, then the other, with the idle threads masked. So if there are four "
        "different paths, you could be four times slower. Um, the fix is sort your data so "
        "threads in the same warp take the same branch, it's not free."
    )
    (got,) = bank_grader("What is the cost of warp divergence and how do you mitigate it?")(spoken)
    covered = {c.label for c in got.claims if c.verdict == "covered"}
    assert any("sort" in label or "regroup" in label for label in covered), covered
    assert not got.wrong_claims and got.score >= 3
