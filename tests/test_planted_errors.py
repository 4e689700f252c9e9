"""Wrong claims planted among right ones, and right answers read as wrong (stop 64's user
trials: 150 written answers to 25 bank questions in the batch CLI, and two mock interviews in
the app). Each check is shown on its own, then on the answer that found it, graded whole."""

import pytest

from interviewer.actions import action_turned, actions
from interviewer.effects import effect_flipped
from interviewer.exclusive import other_term
from interviewer.quantities import numbers_like, states_number
from interviewer.roles import about_another, first_contradiction

OCCUPANCY = (
    "You raise occupancy or instruction-level parallelism so the scheduler has other warps to "
    "run during outstanding loads, and prefetch where possible."
)
INTENSITY = (
    "Larger tiles and larger batches raise intensity because each loaded weight is used for "
    "more computation."
)
DECODE = (
    "LLM decode is memory-bandwidth-bound, because each generated token must stream the "
    "weights and KV cache from memory."
)
FP16_SIZE = "In FP16, 70B parameters at 2 bytes each take about 140 GB for the weights alone."


def test_a_fix_said_as_the_fix_is_to_is_an_action_of_no_subject():
    """ "The fix is to lower occupancy to one block per SM" was read as the fix's own doing,
    with "lower" an adjective: an inverted answer scored 3 with "raise occupancy" covered."""
    said = "The fix is to lower occupancy to one block per SM so each warp gets the whole cache."
    assert (-1, "occupancy", frozenset()) in actions(said)
    assert action_turned(OCCUPANCY, said) == "exact:action"
    assert action_turned(OCCUPANCY, "The fix is to raise occupancy to two blocks per SM.") is None
    # "lower" before a noun and no number stays an adjective
    assert actions("Move to lower precision for speed.") == []


@pytest.mark.parametrize(
    "sentence,turned",
    [
        ("Using smaller batch sizes also raises it, since less data has to be loaded at once.", 1),
        ("Smaller batches lower it.", 0),  # the same relation from the other end
        ("Larger batches raise it.", 0),
        ("Larger batches don't raise it.", 1),
        ("If the batch is smaller it raises intensity.", 0),  # a condition
    ],
)
def test_the_opposite_driver_with_the_same_effect_turns_the_relation(sentence, turned):
    assert bool(effect_flipped(INTENSITY, sentence)) == bool(turned)


@pytest.mark.parametrize(
    "sentence,wrong",
    [
        ("Its bandwidth matters for training, whereas LLM decode is compute-bound.", True),
        ("LLM decode is compute bound because it does lots of math per byte.", True),
        ("LLM decode is memory-bound while prefill is compute-bound.", False),
        ("Prefill is compute-bound.", False),  # another thing
        ("LLM decode is not compute-bound.", False),
    ],
)
def test_memory_bound_and_compute_bound_exclude_each_other(sentence, wrong):
    assert (other_term(DECODE, sentence) == "exact:exclusive") == wrong


def test_an_abbreviation_is_not_a_sentence_end():
    """ "Frameworks automate it, e.g. PyTorch's autocast ..." split at "e.g." read PyTorch as a
    subject taking the point's role: a right answer told it was wrong."""
    point = (
        "Frameworks apply it automatically, for example PyTorch's autocast together with a "
        "gradient scaler for FP16."
    )
    said = "Frameworks automate it, e.g. PyTorch's autocast context with a gradient scaler."
    assert first_contradiction(point, [said]) is None
    assert first_contradiction(point, [said.replace("e.g.", "i.e.")]) is None


def test_numbers_of_the_setting_do_not_state_a_misconception():
    """ "about 140 GB, so you need at least two 80 GB GPUs" gives the point's 140 GB; the
    80 GB GPU is the question's setting, which the misconception names too."""
    wrong = "A 70B model in FP16 needs about 70 GB, so it fits on a single 80 GB GPU."
    setting = "Because 140 GB does not fit one 80 GB GPU, you either split the model or quantize."
    said = "70B in FP16 is about 140 GB, so you need at least two 80 GB GPUs."
    assert numbers_like(said, FP16_SIZE, wrong) == 0
    assert numbers_like(said, FP16_SIZE, wrong, setting) == 1
    assert numbers_like("It needs about 70 GB.", FP16_SIZE, wrong, setting) == -1
    assert states_number(FP16_SIZE, said) and not states_number(FP16_SIZE, "It needs 70 GB.")


def test_a_compound_of_a_named_thing_is_no_other_thing():
    """ "per-GPU traffic" beside "each GPU" was read as another named thing: the ring
    misconception went unstated."""
    wrong = "In ring AllReduce the data each GPU sends grows linearly with the number of GPUs."
    said = "In the ring, each GPU sends about N times the data, so per-GPU traffic grows linearly."
    assert not about_another(wrong, said)


def test_planted_wrong_claims_are_found_and_right_terse_answers_are_not_wrong(bank_grader):
    """From the batch trial: each planted error scored 5 ("Complete answer"), with the planted
    sentence quoted as covering the point it contradicts; the terse right answer scored 0."""
    (planted,) = bank_grader("Why does loss.item() in the training loop hurt performance?")(
        "Kernel launches are asynchronous, so the CPU normally queues work and moves on. "
        ".item() forces a sync: the CPU blocks until the GPU finishes everything queued, which "
        "breaks the CPU-GPU overlap. The fix is to keep the loss on the GPU and call .item() "
        "every N steps. The cost is tiny in practice, usually well under 1% of throughput, so it "
        "only matters in microbenchmarks."
    )
    assert any("well under 1%" in w for w in planted.wrong_claims)
    assert planted.score <= 3
    (intensity,) = bank_grader("What is arithmetic intensity and how do you increase it?")(
        "Arithmetic intensity is FLOPs performed per byte moved from memory. You raise it with "
        "tiling so data is reused from shared memory or registers, and by fusing ops to avoid "
        "writing intermediates to HBM. Using smaller batch sizes also raises it, since less data "
        "has to be loaded at once."
    )
    assert any("smaller batch sizes" in w for w in intensity.wrong_claims)
    assert intensity.score <= 3
    terse, wrong = bank_grader("Pick hardware to serve a 70B model. How do you size it?")(
        "70B in FP16 is about 140 GB, so you need at least two 80 GB GPUs with tensor "
        "parallelism, or you quantize.",
        "A 70B model needs about 70 GB because each parameter takes one byte in FP16, so a "
        "single 80 GB GPU is plenty.",
    )
    assert terse.wrong_claims == () and terse.score >= 2
    assert wrong.wrong_claims and wrong.score <= 1
    (stalls,) = bank_grader(
        "The profiler shows heavy memory-related warp stalls. How do you fix it?"
    )(
        "Memory-related stalls mean the SMs are doing too much arithmetic, so the kernel is "
        "really compute-bound. The fix is to lower occupancy to one block per SM so each warp "
        "gets the whole cache to itself, switch the math from float to double so each load does "
        "more useful work, and add __syncthreads() after every global load so the warps line up."
    )
    assert stalls.score <= 1 and any("lower occupancy" in w for w in stalls.wrong_claims)
    assert not any(c.startswith("You raise occupancy") for c in stalls.covered)


def test_a_quote_is_the_candidates_own_words(bank_grader):
    """A user trial (stop 64): "up to seven instances" was quoted as "up to 7 instances", the
    checker's reading with numbers in digits."""
    from interviewer.evidence import in_their_words

    answer = "MIG splits an H100 into up to seven instances, each with its own SMs. MPS shares."
    assert in_their_words(answer, "up to 7 instances, each with its own SMs.") == (
        "up to seven instances, each with its own SMs."
    )
    assert in_their_words(answer, "MPS shares.") == "MPS shares."
    assert in_their_words(answer, "Nothing like it at all, really.") == (
        "Nothing like it at all, really."
    )
    (g,) = bank_grader("How do you choose between MIG and MPS for a multi-tenant inference box?")(
        "MIG partitions an A100 or H100 in hardware into up to seven instances, each with its "
        "own SMs, L2 slice and memory, so tenants get guaranteed capacity and fault isolation."
    )
    quotes = [c.evidence for c in g.claims if c.evidence]
    assert quotes and all("7 instances" not in q for q in quotes)
    assert any("seven instances" in q for q in quotes)
