"""Negation read both ways (stop 54): a denial of what the point asserts of its own subject is a
wrong claim ("Gradient checkpointing doesn't recompute anything" was covered, 3), and a right
answer that uses a negation is not one ("A GPU core isn't faster than a CPU core" was a
contradicted comparison, 1). Each check on its own, then answers graded on the bank."""

import pytest

from interviewer.denial import subject_denied
from interviewer.disagreement import disagree
from interviewer.exact import exact_contradiction
from interviewer.polarity import verb_flipped
from interviewer.roles import swapped_roles
from interviewer.scope import scope_flipped
from interviewer.things import bindings

SLOWER = (
    "Each GPU core is individually slower than a CPU core, so the GPU wins by orders of magnitude "
    "on a big matmul but loses on serial logic."
)
FA_BACKWARD = (
    "It recomputes some quantities in the backward pass, doing more FLOPs, but it is faster in "
    "wall-clock time because it moves far fewer bytes."
)
HBM_BW = (
    "HBM delivers several times GDDR's bandwidth, over 3 TB/s on an H100 SXM against roughly "
    "1 TB/s for a high-end GDDR6X card."
)
THROUGHPUT = (
    "A GPU is a throughput machine with thousands of simple cores that apply the same "
    "instruction to many data elements at once."
)


def test_a_comparison_denied_asserts_neither_way():
    assert exact_contradiction(SLOWER, "A GPU core isn't faster than a CPU core.") is None
    assert exact_contradiction(SLOWER, "A GPU core is not much faster than a CPU core.") is None
    assert exact_contradiction(SLOWER, "A GPU core is faster than a CPU core.") is not None


def test_the_points_own_word_for_the_sentences_thing_agrees():
    """The point says "more FLOPs" and "fewer bytes"; the sentence says the second."""
    assert exact_contradiction(FA_BACKWARD, "It recomputes but moves far fewer bytes.") is None
    fewer = "FlashAttention moves far fewer bytes than standard attention."
    assert exact_contradiction(fewer, fewer.replace("fewer", "more")) is not None


def test_a_denial_reaches_no_further_than_its_clause():
    point = (
        "For tensor parallelism and frequent all-reduce, NVLink versus PCIe is often the "
        "difference between near-linear and poor scaling."
    )
    right = (
        "For tensor parallelism and frequent all-reduce, PCIe doesn't come close, often the "
        "difference between near-linear and poor scaling."
    )
    assert exact_contradiction(point, right) is None


def test_a_clause_that_points_back_and_a_plural_are_the_same_things():
    """ "it's 3D-stacked ..." is HBM's; "GPUs win because ..." is the GPU's own."""
    right = (
        "HBM isn't board-mounted like GDDR; it's 3D-stacked DRAM on the package with a very wide "
        "bus, so an H100 gets over 3 TB/s while a GDDR6X card sits around 1 TB/s."
    )
    assert swapped_roles(HBM_BW, right) is None
    right = (
        "A GPU core is simpler and slower. GPUs win because thousands of them run the same "
        "instruction across data."
    )
    assert swapped_roles(THROUGHPUT, right) is None
    swapped = "CPUs have thousands of simple cores that apply the same instruction at once."
    assert swapped_roles(THROUGHPUT, f"A GPU has a few big cores, while {swapped}") is not None


def test_another_figure_denied_is_not_the_points_denied():
    point = "An H100 sustains about 500 TFLOP/s in real training, roughly half its ~989 peak."
    right = "An H100 doesn't sustain its ~989 TFLOP/s peak, more like 500 in practice."
    assert verb_flipped(point, right) is None
    assert verb_flipped(point, "An H100 doesn't sustain 500 TFLOP/s in training.") is not None


@pytest.mark.parametrize(
    "point,sentence",
    [
        (
            "Tensor parallelism needs an all-reduce every layer, so it is kept within one "
            "NVLink node.",
            "Tensor parallelism all-reduces every layer, so it doesn't leave the NVLink node.",
        ),
        (
            "Data parallelism's memory grows with model size.",
            "Per-GPU memory doesn't shrink with more GPUs.",
        ),
    ],
)
def test_a_denied_limit_or_change_is_no_visible_disagreement(point, sentence):
    assert not disagree(point, sentence)


def test_a_subject_denial_reads_its_pronoun_and_not_everyday_words():
    stacked = "HBM is 3D-stacked DRAM that sits on the GPU package beside the die."
    wrong = "HBM is what the H100 uses, but it isn't stacked at all; it's DRAM on the board."
    assert subject_denied(stacked, wrong) == "exact:denied"
    frees = "ZeRO-3 all-gathers each layer's parameters just before use and frees them afterwards."
    assert subject_denied(frees, "ZeRO-3 shards the parameters too, so it isn't free.") is None
    assert subject_denied(frees, "ZeRO-3 doesn't stop at optimizer states.") is None
    bypass = "NVLink is a direct GPU-to-GPU interconnect that bypasses the PCIe bus and the CPU."
    assert subject_denied(bypass, "NVLink doesn't go through PCIe or the CPU at all.") is None


def test_a_sentence_that_opens_on_its_own_word_is_not_about_the_thing_before():
    """ "Pipeline goes across nodes" moved tensor parallelism across nodes (a swap, 1)."""
    tp = (
        "Tensor parallelism needs an all-reduce of activations in every layer, so it stays "
        "within a node over NVLink."
    )
    right = (
        "Tensor parallelism all-reduces activations every layer, so it doesn't leave the "
        "NVLink node. Pipeline goes across nodes with many micro-batches."
    )
    assert scope_flipped(tp, right) is None
    assert scope_flipped(tp, "Tensor parallelism runs across nodes over InfiniBand.") is not None
    # A sentence that points back is still about its thing.
    assert bindings("E4M3 has more precision. It suits weights.") == {
        "e4m3": {"precision", "suits", "weights"}
    }


@pytest.mark.parametrize(
    "question,answer,right",
    [
        (
            "What is gradient checkpointing?",
            "Gradient checkpointing doesn't recompute anything; it saves all the activations to "
            "disk so GPU memory stays low.",
            False,
        ),
        (
            "What is the pipeline bubble in pipeline parallelism?",
            "The pipeline bubble doesn't involve any idle time; every stage stays busy the whole "
            "step, it's just the memory of stashed activations.",
            False,
        ),
        (
            "What is the difference between HBM and GDDR?",
            "HBM isn't board-mounted like GDDR; it's 3D-stacked DRAM on the GPU package with a "
            "very wide bus, so an H100 gets over 3 TB/s while a GDDR6X card sits around 1 TB/s. "
            "GDDR is far cheaper, which is why consumer cards use it.",
            True,
        ),
        (
            "Why are GPUs faster than CPUs for deep learning?",
            "A GPU core isn't faster than a CPU core, it's much simpler and slower. GPUs win "
            "because thousands of them run the same instruction across data, and deep learning "
            "is mostly big, regular matmuls.",
            True,
        ),
        # Stop 55: misconceptions in their own words, and one reported as a belief.
        # Echoes the misconception; the model read it as entailing the hardware-partition point.
        (
            "What is MIG?",
            "MIG is software time-slicing, so processes take turns using the whole GPU.",
            False,
        ),
        (
            "What is MIG?",
            "People often think MIG is software time-slicing where processes take turns on the "
            "whole GPU, but it's hardware partitioning into up to seven isolated instances.",
            True,
        ),
        (
            "What is kernel fusion and why does it help?",
            "Kernel fusion mostly helps compute-bound matmuls; memory-bound elementwise ops gain "
            "nothing from it.",
            False,
        ),
        # Stop 56: a passive denial, an effect denied, "limited by" (the model read each as
        # its point).
        (
            "What is DeepSpeed ZeRO-3?",
            "ZeRO-3 shards the optimizer states, but the model parameters are never "
            "partitioned; each GPU holds all of the weights.",
            False,
        ),
        (
            "What is DeepSpeed ZeRO-3?",
            "ZeRO-3 partitions parameters, gradients and optimizer states across the "
            "data-parallel GPUs, so each holds about 1/N of them, and all-gathers each layer's "
            "parameters just before it runs.",
            True,
        ),
        (
            "What is the pipeline bubble in pipeline parallelism?",
            "The bubble is the idle time while the pipeline fills and drains; using more "
            "micro-batches doesn't reduce the bubble at all.",
            False,
        ),
        (
            "What is HBM and why is its bandwidth so important?",
            "HBM is stacked DRAM on the GPU package, but LLM decode is limited by compute, not "
            "by memory, so its bandwidth hardly matters there.",
            False,
        ),
    ],
)
def test_negated_answers_graded_on_the_bank(bank_grader, question, answer, right):
    graded = bank_grader(question)(answer)[0]
    if right:
        assert graded.wrong_claims == () and graded.score >= 3
    else:
        assert graded.wrong_claims and graded.score <= 1


def test_numbers_in_words_are_numbers():
    """A spoken answer's "thirty-two threads" was read as 2 threads against the point's 32,
    and "six times seven billion times a trillion" as no number at all: right answers given a
    wrong number."""
    from interviewer.quantities import number_off, quantities

    assert quantities("a warp is thirty-two threads") == {("thread", 32.0)}
    assert quantities("about three point six times ten to the twenty-three FLOPs") == {
        ("flop count", 3.6e23)
    }
    assert ("× parameters", 6.0) in quantities("six times parameters times tokens")
    assert quantities("one hundred and twenty-eight GB/s") == {("bytes/s", 128e9)}
    assert quantities("One correct approach records two events") == set()
    # Said the way people say sizes; each once raised KeyError and stopped the grade.
    assert quantities("one point five million FLOPs") == {("flop count", 1.5e6)}
    assert quantities("it is one point two point three GB") == {("bytes", 1.2e9)}
    point = "A warp is a group of 32 threads that execute the same instruction."
    assert not number_off(point, "A warp is thirty-two threads that run the same instruction.")
    assert number_off(point, "A warp is sixteen threads that run the same instruction.")


@pytest.mark.parametrize(
    "sentence,things",
    [
        ("More warps don't help.", ["More warps"]),
        # A condition that opens the clause before it, or how often, limits the dismissal.
        (
            "But, um, higher isn't always better, once latency's hidden or you're "
            "bandwidth-bound, more warps don't help.",
            [],
        ),
        ("Check you're not calling loss.item() every step, you don't need it every step.", []),
        ("You don't need loss scaling.", ["loss scaling"]),
        # ... or after a colon or a dash (a fresh trial's right answer scored 1 by it)
        ("Higher is not always better: once latency is hidden, extra warps don't help.", []),
        ("Higher is not always better - once latency is hidden, extra warps don't help.", []),
        ("Higher isn't better: extra warps don't help.", ["extra warps"]),
    ],
)
def test_a_dismissal_limited_by_a_condition_or_a_frequency_is_none(sentence, things):
    from interviewer.dismissal import dismissed

    assert dismissed(sentence) == things


def test_one_is_an_article_not_a_count():
    """ "one instance per model" against "up to seven instances" (a right terse answer given a
    wrong number in make test)."""
    from interviewer.quantities import quantities

    assert quantities("MIG gives one instance per model.") == set()
    assert quantities("twenty-one threads") == {("thread", 21.0)}


def test_a_negation_denies_the_word_it_takes_first():
    """Stop 55, negation set 2 dev: right answers given a wrong claim by a negation read too
    widely."""
    dp = (
        "Data parallelism replicates the full model on every GPU and gives each GPU a different "
        "slice of the batch."
    )
    split = (
        "Data parallelism doesn't split the model: every GPU holds a full replica and processes "
        "a different slice of the batch"
    )
    assert exact_contradiction(dp, split) is None
    assert exact_contradiction(dp, dp.replace("replicates", "doesn't replicate")) is not None
    # A denied equality compares; two denials in one clause turn each other round.
    gddr = "GDDR is board-mounted graphics memory that costs much less than HBM."
    assert exact_contradiction(gddr, "GDDR memory doesn't cost nearly as much as HBM.") is None
    fits = (
        "Plain data parallelism requires the whole model, with its gradients and optimizer "
        "state, to fit in one GPU's memory."
    )
    cant = (
        "Plain data parallelism can't train a model whose gradients and optimizer state don't "
        "fit in one GPU's memory."
    )
    assert exact_contradiction(fits, cant) is None


def test_contrary_to_a_belief_is_the_candidates_own_claim():
    """Negation set 1 dev: "Contrary to what people assume, NVLink doesn't bypass PCIe" was read
    as a reported belief, so its denial went unread (2/5)."""
    from interviewer.polarity import reported

    assert not reported("Contrary to what people assume, NVLink doesn't bypass PCIe.")
    assert reported("People assume NVLink doesn't bypass PCIe.")
    point = (
        "NVLink is NVIDIA's direct high-bandwidth GPU-to-GPU interconnect that bypasses the PCIe "
        "bus and the CPU."
    )
    wrong = "Contrary to what people assume, NVLink doesn't bypass PCIe at all."
    assert verb_flipped(point, wrong) is not None
    assert verb_flipped(point, "People assume NVLink doesn't bypass PCIe.") is None
