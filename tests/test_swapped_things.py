"""Things a fresh set's inverted answers (stop 44) moved or traded and the grader read as
covered: things named by a common noun ("tensor parallelism", "shared memory", "spot"),
numbered stages, a name and its noun in title case ("Tensor Core"), and a thing moved to the
other side of a scope (within a node or across nodes, inside each SM or across the GPU)."""

import pytest

from interviewer.roles import swapped_binding, swapped_kinds, swapped_roles
from interviewer.scope import scope_flipped
from interviewer.things import bindings

TENSOR_CORE = (
    "A Tensor Core is a specialized unit that performs a whole small matrix multiply-accumulate, "
    "D = A×B + C on a small tile, in a single operation."
)
CORES_SWAPPED = (
    "CUDA cores are the specialized units: each one does a small matrix multiply-accumulate, "
    "like a 4x4 tile, in one instruction. That's where the huge dense-matmul throughput comes "
    "from. Tensor Cores are the general-purpose scalar lanes that each thread uses for ordinary "
    "FP32 and integer arithmetic, branches and address math."
)
CORES_RIGHT = (
    "Tensor Cores are the specialized units: each one does a small matrix multiply-accumulate, "
    "like a 4x4 tile, in one instruction. CUDA cores are the general-purpose scalar lanes that "
    "each thread uses for ordinary FP32 and integer arithmetic, branches and address math."
)


def test_a_name_and_its_noun_in_title_case_are_one_kind_of_thing():
    """ "A Tensor Core is ..." has "Core" in title case: the check that trades CUDA cores and
    Tensor Cores had taken it for a name, not the noun both share, and checked nothing."""
    assert swapped_kinds(TENSOR_CORE, CORES_SWAPPED) == "exact:swapped"
    assert swapped_kinds(TENSOR_CORE, CORES_RIGHT) is None


ZERO = (
    "The remaining data-parallel dimension uses ZeRO, where stage 1 shards optimizer states, "
    "stage 2 also shards gradients with a reduce-scatter, and stage 3 also shards parameters "
    "with per-layer all-gathers."
)


@pytest.mark.parametrize(
    "sentence,found",
    [
        (
            "ZeRO stage 1 shards the parameters, stage 2 additionally shards the gradients, and "
            "stage 3 finally shards the optimizer states.",
            1,
        ),
        (
            "ZeRO stage 1 shards the optimizer states, stage 2 adds the gradients and stage 3 "
            "the parameters themselves.",
            0,
        ),
        ("ZeRO-3 shards parameters, gradients and optimizer states.", 0),
    ],
)
def test_numbered_stages_are_things_that_trade_what_they_shard(sentence, found):
    assert bool(swapped_binding(ZERO, sentence)) == bool(found)


def test_common_noun_things_are_bound_as_named_ones():
    said = bindings(
        "Put large pretraining runs on spot instances, and keep sweeps on on-demand capacity; "
        "page-locked memory is pinned memory."
    )
    assert {"spotx", "ondemandx", "pinnedmemoryx"} <= set(said)
    assert "pretraining" in said["spotx"] and "sweeps" in said["ondemandx"]
    # Any one of many GPUs is no thing: "every GPU holds a full copy" says it of DP's GPUs.
    dp = "Because every GPU holds a full copy, data parallelism's memory grows with model size."
    assert set(bindings(dp)) == {"dataparallelx"}


TP = (
    "Tensor parallelism splits each layer's matrices across GPUs and needs an all-reduce inside "
    "every layer, so it requires very fast interconnect like NVLink and usually stays within a "
    "node."
)
LEVELS = (
    "From fastest and smallest to slowest and largest, the hierarchy is per-thread registers, "
    "per-SM shared memory and L1, an L2 shared by all SMs, and global memory in HBM."
)


@pytest.mark.parametrize(
    "point,text,found",
    [
        (
            TP,
            "You keep data parallelism inside the node on NVLink, because the gradient "
            "all-reduce is the chattiest thing, and you run tensor parallelism across nodes over "
            "InfiniBand since it only needs small exchanges per layer.",
            1,
        ),
        (
            TP,
            "Tensor parallelism stays inside the node on NVLink, and data parallelism runs "
            "across nodes over InfiniBand.",
            0,
        ),
        # Both sides said of it: no flip ("TP within a node; across nodes it would crawl").
        (TP, "Tensor parallelism goes within a node; across nodes tensor parallelism crawls.", 0),
        (
            LEVELS,
            "Then there's L2, which is a small private cache inside each SM, and shared "
            "memory/L1, which is the big pool that all SMs on the chip share.",
            1,
        ),
        (
            LEVELS,
            "Shared memory is per-SM and programmer-managed, while the L2 is shared by all SMs.",
            0,
        ),
    ],
)
def test_a_thing_moved_to_the_other_side_of_a_scope(point, text, found):
    assert bool(scope_flipped(point, text)) == bool(found)


@pytest.mark.parametrize(
    "question,answer,most,wrong_point",
    [
        (
            "What is a CUDA core vs a Tensor Core?",
            CORES_SWAPPED + " An H100 has about 528 CUDA cores but close to 17,000 Tensor Cores.",
            1,
            "Tensor Core is a specialized unit",
        ),
        (
            "Compare tensor, pipeline, and data parallelism and their trade-offs.",
            "All three split the work differently. Data parallel copies the full model to each "
            "GPU and shards the batch; tensor parallel shards weight matrices within a layer; "
            "pipeline parallel assigns contiguous groups of layers to stages. In practice you "
            "keep data parallelism inside the node on NVLink, because the gradient all-reduce "
            "every step is the chattiest thing you do, and you run tensor parallelism across "
            "nodes over InfiniBand since it only needs a couple of small exchanges per layer.",
            2,
            "usually stays within a node",
        ),
        (
            "Describe the GPU memory hierarchy and why it matters.",
            "Closest to the cores are registers, private to each thread. Then there's L2, which "
            "is a small private cache inside each SM, and shared memory/L1, which is the big pool "
            "that all SMs on the chip share, so blocks on different SMs can exchange data through "
            "it. Beyond that is global memory in HBM, 80 GB at about 3.35 TB/s.",
            1,
            "an L2 shared by all SMs",
        ),
    ],
)
def test_a_fresh_sets_traded_answers_are_wrong(bank_grader, question, answer, most, wrong_point):
    graded = bank_grader(question)(answer)[0]
    assert graded.score <= most
    assert any(wrong_point in w for w in graded.wrong_claims), graded.wrong_claims


def test_what_a_point_says_its_subject_is_bad_at_is_no_role_it_holds():
    """Stop 45's fresh set: a right hedged answer was told it swapped GPU and CPU, since the
    point's "GPU ... loses on serial logic" gave the GPU "serial", and "than a CPU core" gave
    the CPU's own name as a GPU word."""
    point = (
        "Each GPU core is individually slower than a CPU core, so the GPU wins by orders of "
        "magnitude on a big matmul but loses on serial logic."
    )
    said = (
        "A GPU has thousands of simpler cores and runs tons of threads at once, whereas a CPU "
        "has relatively few big cores that are good at serial, branchy stuff with big caches."
    )
    assert swapped_roles(point, said) is None
    # The roles still trade where they do.
    assert (
        swapped_roles(
            "Tensor Cores are matrix units that do a small matrix multiply-accumulate per "
            "instruction.",
            "CUDA cores are the matrix units: each one does a small matrix multiply-accumulate "
            "per instruction, and Tensor Cores are scalar.",
        )
        == "exact:swapped"
    )


def test_a_thing_compared_with_is_not_what_the_clause_is_about():
    """Stop 55, negation set 2 dev: right answers read as swaps, their words given to the thing
    they were compared with ("fewer mantissa bits than FP16", "not chips on the board like
    GDDR"), or a clause that opens on "it" given to no one."""
    bf16 = (
        "BF16 has the same exponent bits as FP32, so the range is the same as FP32. Gradients "
        "don't underflow like they do in FP16. You do give up some precision, fewer mantissa "
        "bits than FP16."
    )
    assert set(bindings(bf16)) == {"bf16"}
    point = (
        "BF16 has less precision than FP16, 7 mantissa bits against FP16's 10, because FP16 "
        "spends only 5 bits on its exponent."
    )
    assert swapped_binding(point, bf16) is None
    hbm = "HBM is stacked dies on the GPU package, not chips around the board like GDDR."
    assert "gddr" not in bindings(hbm)
    cuda = (
        "A CUDA core isn't a matrix engine; it's a scalar ALU doing one FMA or integer op per "
        "clock on arbitrary code. A Tensor Core doesn't work element by element: it does a "
        "whole tile in one operation, giving roughly 10-20x CUDA-core matmul throughput."
    )
    scalar = (
        "A CUDA core is a general-purpose scalar ALU that executes one floating-point or integer "
        "operation, such as a fused multiply-add, per clock for arbitrary code."
    )
    assert swapped_kinds(scalar, cuda) is None
    # The swap itself is still one.
    swapped = cuda.replace("A CUDA core", "A Tensor Core", 1).replace(
        "A Tensor Core doesn't", "A CUDA core doesn't"
    )
    assert swapped_kinds(scalar, swapped) == "exact:swapped"
