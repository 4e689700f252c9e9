"""Numbers the exact check reads (stop 44): a fresh set's "3.6e21 FLOPs" against the point's
"3.6 × 10^23 FLOPs" and "15-20%" against "60-90% cheaper" had been no numbers at all."""

import pytest

from interviewer.exact import exact_contradiction
from interviewer.quantities import numbers_like, quantities


@pytest.mark.parametrize(
    "text,found",
    [
        ("3.6 × 10^23 FLOPs", {("flop count", 3.6e23)}),
        ("3.6e21 FLOPs", {("flop count", 3.6e21)}),
        ("on the order of 10^22 FLOPs", {("flop count", 1e22)}),
        ("often 40% of peak", {("%", 40.0)}),  # a percent had never been read
        ("savings of 15-20%", {("%", 17.5)}),  # a range said is its middle
        ("a 4x4 tile of 2^10 elements", set()),
        ("500 TFLOPS", {("flops", 5e14)}),  # a rate, not a count of FLOPs
    ],
)
def test_numbers_in_scientific_notation_percents_and_ranges(text, found):
    assert quantities(text) == found


def test_a_range_in_a_point_gives_both_ends():
    assert quantities("often 60-90% cheaper", ranges=True) == {("%", 60.0), ("%", 90.0)}


COMPUTE = (
    "Training needs about 6 × 30B × 2T = 3.6 × 10^23 FLOPs, which at about 500 TFLOP/s "
    "sustained per H100 is roughly 200,000 GPU-hours, about 16 days on 512 GPUs or 33 days on 256."
)
SPOT = (
    "Spot or preemptible capacity is often 60-90% cheaper but can be reclaimed with short notice."
)


@pytest.mark.parametrize(
    "point,sentence,wrong",
    [
        (COMPUTE, "Compute is about 6 × 30B × 2T ≈ 3.6e21 FLOPs.", 1),
        (COMPUTE, "Compute is about 6 × 30B × 2T ≈ 3.6e23 FLOPs.", 0),
        # A total of FLOPs is said to its order of magnitude.
        (COMPUTE, "6 × 30B × 2T FLOPs is on the order of 10^23 FLOPs.", 0),
        (SPOT, "Spot capacity is usually only 15-20% cheaper.", 1),
        (SPOT, "Spot capacity is usually around 70% cheaper.", 0),
    ],
)
def test_a_number_far_from_the_points(point, sentence, wrong):
    assert (exact_contradiction(point, sentence) == "exact:number") == bool(wrong)


NVLINK = (
    "On the H100 SXM, fourth-generation NVLink provides 900 GB/s of total bidirectional "
    "bandwidth per GPU, about 450 GB/s in each direction."
)
PCIE = (
    "That is about 7x a PCIe Gen5 x16 slot, which carries roughly 128 GB/s counting both "
    "directions."
)
STORAGE = (
    "Storage combines a parallel file system for the training data and object storage for "
    "checkpoints of about 420 GB each, 14 bytes per parameter with the Adam state."
)
NDR = "Infiniband NDR runs at 400 Gb/s per port, which is 50 GB/s."
NOTICE = (
    "Spot capacity can be reclaimed with short notice (about two minutes on AWS and thirty "
    "seconds on GCP or Azure)."
)
DAYS = "On 64 GPUs the run takes about 15 days of wall-clock time."
BITS = "BF16 keeps FP32's 8-bit exponent range and usually needs no loss scaling."


@pytest.mark.parametrize(
    "point,sentence,wrong",
    [
        # Stop 45: a number of another thing is no number of the point's.
        (PCIE, "The total comes out to 900 GB/s, about seven times PCIe Gen5.", 0),
        (STORAGE, "Storage: tokenized data is about 4 TB, so a parallel filesystem.", 0),
        (STORAGE, "Each checkpoint is about 42 GB.", 1),
        # "Gb/s" is bits: 400 Gb/s is 50 GB/s, and 100 Gb/s is a quarter of it.
        (NDR, "NDR is 400 Gb/s, that's 50 GB/s.", 0),
        (NDR, "NDR gives you 100 Gb/s per port.", 1),
        (NDR, "NDR runs at 100 Gb/s.", 1),  # says nothing of another thing
        # Counts in words and minutes are read.
        (NOTICE, "Spot capacity on AWS gives a 30-minute interruption warning.", 1),
        (NOTICE, "Spot capacity on AWS gives a two-minute warning.", 0),
        # Another number of GPUs is another case.
        (DAYS, "On 256 H100s that's roughly five days of wall clock.", 0),
        (DAYS, "On 64 GPUs it takes about 2 days.", 1),
        # A number written as an adjective names what it measures (fresh set, stop 47).
        (BITS, "So you keep a 32-bit copy of the weights and do the loss in 32-bit.", 0),
        (BITS, "BF16 keeps a 3-bit exponent, which is why it needs no loss scaling.", 1),
    ],
)
def test_a_number_is_read_against_the_points_number_of_the_same_thing(point, sentence, wrong):
    assert (exact_contradiction(point, sentence) == "exact:number") == bool(wrong)


@pytest.mark.parametrize(
    "sentence,side",
    [
        ("It provides about 600 GB/s of total bandwidth per GPU.", -1),
        ("It provides 900 GB/s in total per GPU.", 1),
        ("It is fast, with 18 links.", 0),
    ],
)
def test_numbers_tell_a_misconception_from_its_point(sentence, side):
    wrong = "An H100 SXM's NVLink gives about 600 GB/s per GPU, the same as an A100."
    assert numbers_like(sentence, NVLINK, wrong) == side


def test_a_number_from_the_question_decides_nothing():
    """The question's "95%" is in the misconception and not in the point."""
    point = "The nvidia-smi utilization number only measures the fraction of time a kernel ran."
    wrong = "95% utilization in nvidia-smi means 95% of the SMs are busy."
    assert numbers_like("A GPU can read 95% while running small kernels.", point, wrong) == 0


def test_a_confident_wrong_number_that_a_misconception_gives_is_stated(bank_grader):
    """Stop 45's fresh set: the sentence entailed the point (0.88) and the misconception
    (0.93) alike, so the NLI model could not tell 600 GB/s from 900; it scored 4."""
    grade = bank_grader("What is NVLink and what bandwidth does it provide on H100?")
    (g,) = grade(
        "NVLink is NVIDIA's dedicated GPU-to-GPU interconnect. On H100 it's fourth-generation "
        "NVLink and provides about 600 GB/s of total bandwidth per GPU, the same ballpark as "
        "A100 but with better latency. In a DGX H100 the eight GPUs are wired through NVSwitch "
        "chips, so every GPU can talk to every other at full NVLink speed."
    )
    assert g.score <= 1
    assert any("600 GB/s" in w for w in g.wrong_claims)
