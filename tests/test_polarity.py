"""A property denied where the point asserts it (`polarity.py`): "is not associative" against
"is associative", each read in its own clause."""

import pytest

from interviewer.denial import denial_asserted, subject_denied
from interviewer.exact import exact_contradiction
from interviewer.polarity import property_flipped, trend_flipped, verb_flipped

ASSOCIATIVE = (
    "Floating-point addition is not associative, so any change in the order of a reduction "
    "changes the result bitwise, and these tiny differences compound over many training steps."
)


@pytest.mark.parametrize(
    "point,sentence",
    [
        # The sentence's other negation ("don't matter") hid this from the whole-sentence check.
        (
            ASSOCIATIVE,
            "Atomics and reduction order don't matter, because floating-point addition on GPUs "
            "is associative, so the sum comes out identical however it's ordered.",
        ),
        (
            "Higher occupancy is not always better, because more warps add nothing.",
            "Higher occupancy is always better.",
        ),
        ("HBM is stacked on the package.", "HBM is not stacked, it sits on the board."),
        ("HBM is stacked on the package.", "HBM isn't stacked."),
    ],
)
def test_the_property_turned_round_is_a_contradiction(point, sentence):
    assert property_flipped(point, sentence) == "exact:negation"


@pytest.mark.parametrize(
    "point,sentence",
    [
        (ASSOCIATIVE, "Floating-point addition isn't associative, so order matters."),
        # Reported, not claimed; conditional.
        (ASSOCIATIVE, "People assume floating-point addition is associative, but it is not."),
        (ASSOCIATIVE, "If floating-point addition is associative, order would not matter."),
        # Another subject: "global memory" is not "shared memory".
        ("Shared memory is not cached.", "Global memory is cached in L2."),
        # Not the same property.
        ("Higher occupancy is not always better.", "Higher occupancy is often useful."),
        # Both ways in one sentence: the point's way is said too.
        ("HBM is stacked.", "HBM is stacked, so it is not stacked on the board like GDDR."),
    ],
)
def test_no_contradiction_where_it_is_not_sure(point, sentence):
    assert property_flipped(point, sentence) is None


def test_an_answer_that_calls_float_addition_associative_is_wrong_on_that_point(built_index):
    """The answer's "don't matter" hid its "is associative" from the whole-sentence negation
    check, and the NLI model credited the point: the wrong answer scored 2."""
    from interviewer.grader import make_grader
    from interviewer.references import gather

    settings, index = built_index
    q = next(q for q in index.bank.technical() if "deterministic distrib" in q.text)
    refs = gather(q.text, index, settings, question_id=q.id)
    wrong, right = make_grader("offline", settings, index=index).grade_many(
        [
            (
                q.text,
                "Seeding every rank is enough. Reduction order doesn't matter, because "
                "floating-point addition on the GPU is associative, so the sum is identical in "
                "any order.",
                refs,
            ),
            (
                q.text,
                "Reduction order matters, because floating-point addition is not associative, "
                "so a different order changes the sum bitwise and the differences compound.",
                refs,
            ),
        ]
    )
    assert any("is associative" in c for c in wrong.wrong_claims)
    assert wrong.score <= 1
    assert not any("associative" in c for c in right.wrong_claims)
    assert any("associative" in c for c in right.covered)


KV_CACHE = (
    "The KV cache comes on top of the weights and grows with batch size times context length."
)
LOSS_SCALING = (
    "FP16 needs loss scaling, multiplying the loss before backprop and unscaling the gradients "
    "before the optimizer step, so that small gradients don't underflow to zero."
)
BF16 = (
    "BF16 has the same exponent range as FP32, so it usually needs no loss scaling and is "
    "preferred on Ampere and newer GPUs."
)
CHECKPOINTING = (
    "Activation checkpointing discards most activations in the forward pass and recomputes them "
    "in the backward pass, trading compute for activation memory."
)


@pytest.mark.parametrize(
    "point,sentence",
    [
        # An elided subject ("... and does not grow") is the clause's before it.
        (KV_CACHE, "The KV cache is tiny and does not grow with context length or batch size."),
        # "never" of the same subject, whatever another subject is said to need.
        (
            LOSS_SCALING,
            "FP16 shares FP32's exponent range, so FP16 never needs loss scaling, whereas BF16 "
            "has a narrow exponent and always needs a loss scaler.",
        ),
        # "you" is no subject: the thing the clause before names is; "anything" is any object.
        (
            CHECKPOINTING,
            "Activation checkpointing stores every activation so you never recompute anything.",
        ),
        # "needs no X" denies, "needs X" asserts.
        (BF16, "BF16 needs loss scaling just like FP16."),
    ],
)
def test_the_verb_denied_of_the_same_thing_is_a_contradiction(point, sentence):
    assert verb_flipped(point, sentence) == "exact:negation"


@pytest.mark.parametrize(
    "point,sentence",
    [
        # The point's way, for each subject.
        (
            LOSS_SCALING,
            "FP16 has a narrow exponent, so it needs loss scaling; BF16 shares FP32's exponent "
            "range and usually needs no loss scaling.",
        ),
        (
            BF16,
            "FP16 has a narrow exponent, so it needs loss scaling; BF16 shares FP32's exponent "
            "range and usually needs no loss scaling.",
        ),
        # Another object ("them" is no object to compare).
        (
            "Activation checkpointing stores only layer inputs and recomputes the rest.",
            "Activation checkpointing recomputes activations in the backward pass, so you never "
            "store them.",
        ),
        # Another subject.
        (
            "FlashAttention never writes the full score matrix to HBM.",
            "Standard attention writes the full matrix to HBM and reads it back.",
        ),
        # Conditional.
        (KV_CACHE, "If the context is fixed, the KV cache does not grow with context length."),
        # A denial inside another's relative clause is turned round by it (negation set 2 dev:
        # a right answer scored 1).
        (
            "Plain data parallelism is simpler, but it requires the whole model, with its "
            "gradients and optimizer state, to fit in one GPU's memory.",
            "Plain DP is simpler, but it can't train a model whose weights, gradients and "
            "optimizer state don't fit on one GPU.",
        ),
    ],
)
def test_no_verb_contradiction_where_it_is_not_sure(point, sentence):
    assert verb_flipped(point, sentence) is None


GC = (
    "Gradient checkpointing keeps only some activations, such as those at layer boundaries, "
    "during the forward pass and recomputes the rest during the backward pass."
)
BUBBLE = "The pipeline bubble is the idle time when stages wait for their input."
BF16_PRECISION = (
    "BF16 has less precision than FP16, 7 mantissa bits against FP16's 10, because FP16 spends "
    "only 5 bits on its exponent."
)


@pytest.mark.parametrize(
    "point,sentence",
    [
        # The models entailed the point from this: they read the shared words.
        (GC, "Gradient checkpointing doesn't recompute anything; it saves activations to disk."),
        (BUBBLE, "The pipeline bubble doesn't involve any idle time; every stage stays busy."),
        (BUBBLE, "The pipeline bubble isn't idle time at all, it is stashed activations."),
        (
            "ZeRO-3 partitions all of the model state, meaning the parameters, gradients and "
            "optimizer states, across the data-parallel GPUs.",
            "ZeRO-3 does not partition the parameters; each GPU holds the full model.",
        ),
    ],
)
def test_a_subject_denied_what_the_point_asserts_of_it_is_a_contradiction(point, sentence):
    assert subject_denied(point, sentence) == "exact:denied"


@pytest.mark.parametrize(
    "point,sentence",
    [
        # Another subject, or a pronoun whose thing the check cannot know.
        (GC, "Plain training doesn't recompute anything; it keeps every activation."),
        (GC, "It doesn't recompute anything during the forward pass."),
        # Conditional, reported, or a denial that widens.
        (BUBBLE, "If micro-batches are plentiful, the pipeline bubble doesn't involve idle time."),
        (BUBBLE, "People think the pipeline bubble isn't idle time, but it is."),
        (GC, "Gradient checkpointing doesn't just recompute activations, it also saves memory."),
        # The point limits or denies something itself.
        (
            "A batch that is too small gives the GPU too little parallel work per step.",
            "A small batch doesn't have enough parallel work to fill the GPU.",
        ),
        # The denied words are what the point says of another thing (FP16's exponent).
        (BF16_PRECISION, "BF16 doesn't have 5 exponent bits; it keeps FP32's 8."),
    ],
)
def test_no_subject_denial_where_it_is_not_sure(point, sentence):
    assert subject_denied(point, sentence) is None


MPS_ISOLATION = (
    "MPS clients share the GPU without hardware partitions, so a fatal fault or a noisy client "
    "can affect the others."
)
MPS_SWAPPED = (
    "MPS is the one that gives you hard isolation: it partitions the GPU in hardware into fixed "
    "slices, each with its own dedicated memory, L2 cache and copy engines, so a crash or a "
    "memory error in one tenant's process can never affect the others."
)


@pytest.mark.parametrize(
    "sentence",
    [
        # Trial F's swapped answer: the model entailed the point at 0.90.
        MPS_SWAPPED,
        "Unlike MIG, MPS partitions the GPU in hardware.",
        "MPS has hardware partitions.",
    ],
)
def test_what_the_point_denies_of_a_thing_asserted_of_it_is_a_contradiction(sentence):
    assert denial_asserted(MPS_ISOLATION, sentence) == "exact:denied"


@pytest.mark.parametrize(
    "sentence",
    [
        MPS_ISOLATION,
        # Said of the other thing, or in a relative clause that may be about it.
        "MPS lets processes share the GPU without hardware partitions; MIG partitions the GPU in "
        "hardware into isolated instances.",
        "MIG partitions the GPU in hardware, while MPS just shares it.",
        "Under MPS there are no hardware partitions, unlike MIG, which partitions the GPU in "
        "hardware.",
        # Denied here too, in a condition, or a reported belief.
        "MPS doesn't partition the GPU in hardware, so one client can crash the others.",
        "If MPS partitioned the GPU in hardware, faults would stay contained.",
        "People think MPS partitions the GPU in hardware, but it does not.",
        # The two words far apart: not the denied phrase.
        "MPS runs on any hardware from Volta on, and MIG adds partitions.",
    ],
)
def test_no_denial_asserted_where_it_is_not_sure(sentence):
    assert denial_asserted(MPS_ISOLATION, sentence) is None


def test_a_swapped_mig_and_mps_answer_is_wrong_on_the_point_it_inverts(built_index):
    """Trial F: the answer that gave MPS MIG's hardware isolation scored 2 with "MPS clients
    share the GPU without hardware partitions ..." listed as covered."""
    from interviewer.grader import make_grader
    from interviewer.references import gather

    settings, index = built_index
    q = next(q for q in index.bank.technical() if "between MIG and MPS" in q.text)
    refs = gather(q.text, index, settings, question_id=q.id)
    swapped = (
        f"{MPS_SWAPPED} MIG, on the other hand, is a software time-slicing layer in the driver: "
        "it interleaves the kernels of different CUDA contexts on all SMs, so it gives better "
        "utilization for bursty workloads but no memory protection and no QoS."
    )
    right = (
        "MIG partitions the GPU in hardware into isolated instances, so I'd use it for untrusted "
        "tenants with SLAs. MPS clients share the GPU without hardware partitions, so a fault in "
        "one can affect the others, but it gives better utilization for cooperative workloads."
    )
    wrong, good = make_grader("offline", settings, index=index).grade_many(
        [(q.text, swapped, refs), (q.text, right, refs)]
    )
    assert wrong.score <= 1
    assert any("without hardware partitions" in c for c in wrong.wrong_claims)
    assert not any("without hardware partitions" in c for c in wrong.covered)
    assert not good.wrong_claims
    assert any("without hardware partitions" in c for c in good.covered)


@pytest.mark.parametrize(
    "sentence,flipped",
    [
        ("Activation memory doesn't depend on batch size.", 1),
        ("Activation memory barely changes when you raise the batch size.", 1),
        ("Activation memory is independent of batch size.", 1),
        ("Activation memory doesn't grow with batch size.", 1),
        ("Activation memory grows with batch size.", 0),
        ("Activation memory stays the same with FP16.", 0),  # a condition, not a trend
        ("The weights don't change with batch size.", 0),  # another subject
    ],
)
def test_a_quantity_said_to_stay_put_against_one_that_grows(sentence, flipped):
    """A fresh set (stop 44): "memory usage barely changes when you raise the batch size"
    had no trend at all."""
    point = "Activation memory grows with batch size and sequence length."
    assert (trend_flipped(point, sentence) == "exact:comparative") == bool(flipped)


LIMITS = (
    "Occupancy is bounded by registers per thread, shared memory per block, and block size, so "
    "the more registers or shared memory each thread or block uses, the fewer warps fit."
)


@pytest.mark.parametrize(
    "sentence,wrong",
    [
        # Right (stop 44's fresh set): it relates warps and occupancy, not registers and warps.
        (
            "More resident warps means that when one warp stalls on a memory load, the scheduler "
            "can switch to another, so higher occupancy helps hide latency.",
            0,
        ),
        ("The more registers each thread uses, the more warps fit.", 1),
    ],
)
def test_a_relation_is_turned_round_only_between_the_same_quantities(sentence, wrong):
    assert (exact_contradiction(LIMITS, sentence) == "exact:comparative") == bool(wrong)


ZERO3 = (
    "ZeRO-3 partitions all of the model state, meaning the parameters, gradients and optimizer "
    "states, across the data-parallel GPUs."
)
SPOT = "Spot instances can be preempted by the provider at short notice, so jobs must checkpoint."


@pytest.mark.parametrize(
    "point,sentence,flipped",
    [
        # The passive's subject is what the active's verb acts on.
        (
            ZERO3,
            "ZeRO-3 shards optimizer states across the ranks, but the parameters are never "
            "partitioned; every GPU still keeps the full weights.",
            True,
        ),
        (SPOT, "Spot instances are never preempted, so long jobs run safely.", True),
        (SPOT, "Spot instances can't be preempted, so they suit long jobs.", True),
        # Said the point's way, in either voice.
        (ZERO3, "The parameters are partitioned too, not just the optimizer states.", False),
        (SPOT, "Spot instances can be preempted at any time.", False),
        # Another thing named: the denial may be that thing's.
        (ZERO3, "Unlike ZeRO-3, in plain DDP the parameters are never partitioned.", False),
        # Another thing acted on, another doer, a condition, a reported belief.
        (ZERO3, "The activations are not partitioned.", False),
        (SPOT, "Spot instances are not preempted by the scheduler but by the provider.", False),
        (SPOT, "If you pay on demand, instances are never preempted.", False),
        (SPOT, "People think spot instances are never preempted.", False),
        # A word of how much names no thing: the whole model is not one unit's parameters.
        (
            "With FSDP only one unit's full parameters are gathered at a time.",
            "The full model is never gathered at once.",
            False,
        ),
    ],
)
def test_a_passive_denial_is_read_against_the_active_point(point, sentence, flipped):
    from interviewer.passives import passive_flipped

    assert (passive_flipped(point, sentence) is not None) is flipped


TILES = (
    "Larger tiles and larger batches raise intensity because each loaded weight is used for "
    "more computations."
)
BUBBLE = "The bubble is reduced by using many micro-batches, with M much larger than P."


@pytest.mark.parametrize(
    "point,sentence,turned",
    [
        # No effect, or the point's effect denied, of the same driver on the same thing (a
        # pronoun read from the clause before, or left to the point the clause is nearest).
        (
            TILES,
            "Arithmetic intensity is FLOPs per byte, but tiling and larger batches don't change "
            "it; it's fixed by the algorithm.",
            True,
        ),
        (TILES, "tiling and larger batches don't change it", True),
        (BUBBLE, "The bubble is idle time, but adding micro-batches doesn't shrink it.", True),
        (BUBBLE, "More micro-batches have no effect on the bubble.", True),
        (BUBBLE, "Adding micro-batches increases the bubble.", True),
        # Said the point's way, of another thing, by another driver, or as a condition.
        (TILES, "Larger batches raise arithmetic intensity.", False),
        (TILES, "Larger batches don't change the latency of one request.", False),
        (BUBBLE, "Adding micro-batches shrinks it.", False),
        (BUBBLE, "Fewer micro-batches don't shrink the bubble.", False),
        (BUBBLE, "Faster interconnects don't shrink the bubble.", False),
        (BUBBLE, "The bubble is affected by using more micro-batches.", False),
        (BUBBLE, "The bubble isn't affected by using more micro-batches.", True),
        (BUBBLE, "If stages are unbalanced, more micro-batches don't shrink the bubble.", False),
    ],
)
def test_an_effect_denied_or_turned_is_read_against_the_point(point, sentence, turned):
    from interviewer.effects import effect_flipped

    assert (effect_flipped(point, sentence) is not None) is turned
