"""Which of two named things has more of a quantity, said as a multiple or a comparative."""

import pytest

from interviewer.multiples import multiple_swapped, orders

HBM = (
    "HBM delivers several times GDDR's bandwidth, over 3 TB/s on an H100 SXM against roughly "
    "1 TB/s for a high-end GDDR6X card."
)


@pytest.mark.parametrize(
    "sentence,swapped",
    [
        ("GDDR has several times the bandwidth of HBM.", True),
        ("GDDR has more bandwidth than HBM.", True),
        ("HBM has less bandwidth than GDDR.", True),
        ("HBM has several times the bandwidth of GDDR.", False),
        ("HBM has 3x GDDR's bandwidth.", False),
        ("GDDR has less bandwidth than HBM.", False),
        ("GDDR6X has 3x the bandwidth of GDDR5.", False),  # other things
        ("HBM is stacked next to the die.", False),
    ],
)
def test_the_more_given_to_the_other_thing(sentence, swapped):
    assert (multiple_swapped(HBM, sentence) == "exact:swapped") == swapped


def test_the_thing_a_multiple_is_said_of_is_the_one_its_clause_leads_with():
    point = (
        "Each GPU SKU has its own baseline, since an H100 typically delivers two to three times "
        "the BF16 throughput of an A100."
    )
    assert {(more, less) for more, less, _ in orders(point)} == {("h100", "a100")}


def test_an_inverted_bandwidth_answer_is_wrong(bank_grader):
    """A fresh trial: "GDDR has several times the bandwidth of HBM." scored 3 with the HBM
    bandwidth point covered (the model entailed it at 0.91), above the right answer's 2."""
    graded = bank_grader("What is the difference between HBM and GDDR?")
    wrong, right = graded(
        "GDDR has several times the bandwidth of HBM.",
        "HBM has several times the bandwidth of GDDR.",
    )
    assert wrong.score <= 1 and any("bandwidth" in w for w in wrong.wrong_claims)
    assert right.score > wrong.score and not right.wrong_claims
