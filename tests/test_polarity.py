"""A property denied where the point asserts it (`polarity.py`): "is not associative" against
"is associative", each read in its own clause."""

import pytest

from interviewer.polarity import property_flipped

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
