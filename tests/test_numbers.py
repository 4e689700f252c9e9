"""Numbers the exact check reads (stop 44): a fresh set's "3.6e21 FLOPs" against the point's
"3.6 × 10^23 FLOPs" and "15-20%" against "60-90% cheaper" had been no numbers at all."""

import pytest

from interviewer.exact import exact_contradiction
from interviewer.quantities import quantities


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
