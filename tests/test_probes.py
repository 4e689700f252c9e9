"""Which point a follow-up asks about. A trial's mock interviews (stop 65): 6 of 7 follow-ups
asked for something the candidate had already said, in other words the checker only partly
credited ("MPS when trusted processes just want to share the whole GPU" for "Choose MPS when
workloads are cooperative ..."), while a point it had left out was never asked."""

from __future__ import annotations

from dataclasses import replace

from interviewer.probes import probe_order
from interviewer.records import PARTLY_SAID, ClaimResult
from interviewer.rubrics import KeyPoint, Rubric

POINTS = (
    KeyPoint("mig", "Choose MIG for hardware isolation.", "MIG choice", "core", "Which?"),
    KeyPoint("mps", "Choose MPS for cooperative workloads.", "MPS choice", "core", "Which?"),
    KeyPoint("sizes", "MIG has fixed partition sizes.", "fixed sizes", "supporting", "Cost?"),
    KeyPoint("seven", "MIG makes up to seven instances.", "seven", "supporting", "How many?"),
)
RUBRIC = Rubric("q", "How do you choose between MIG and MPS?", "authored", key_points=POINTS)


def claims(**verdicts: tuple[str, float]) -> list[ClaimResult]:
    return [
        ClaimResult(
            k.text, verdicts[k.id][0], weight=k.weight, point_id=k.id, credit=verdicts[k.id][1]
        )
        for k in POINTS
    ]


def test_a_point_left_out_is_asked_before_one_the_answer_may_have_said():
    said = claims(
        mig=("covered", 1.0), mps=("missed", 0.28), sizes=("missed", 0.05), seven=("missed", 0.0)
    )
    assert [k.id for k in probe_order(RUBRIC, said)] == ["sizes", "seven", "mps"]


def test_a_wrong_claim_comes_first_and_core_before_supporting_among_clear_misses():
    said = claims(
        mig=("missed", 0.0),
        mps=("missed", PARTLY_SAID),
        sizes=("contradicted", 0.0),
        seven=("missed", PARTLY_SAID - 0.01),
    )
    assert [k.id for k in probe_order(RUBRIC, said)] == ["sizes", "mig", "seven", "mps"]


def test_covered_points_are_never_asked_and_an_ungraded_point_counts_as_missed():
    said = claims(
        mig=("covered", 1.0), mps=("covered", 1.0), sizes=("covered", 1.0), seven=("missed", 0.3)
    )
    assert [k.id for k in probe_order(RUBRIC, said)] == ["seven"]
    assert [k.id for k in probe_order(RUBRIC, said[:1])] == ["mps", "sizes", "seven"]


def test_work_on_names_a_point_left_out_before_one_the_answer_may_have_said():
    from interviewer.scoring import feedback

    said = claims(
        mig=("covered", 1.0), mps=("missed", 0.28), sizes=("missed", 0.05), seven=("missed", 0.0)
    )
    said = [replace(c, label=k.label) for c, k in zip(said, POINTS, strict=True)]
    assert feedback(3, said).endswith("Work on: fixed sizes.")
    clear = [replace(c, credit=0.0) for c in said]
    assert feedback(3, clear).endswith("Work on: MPS choice.")  # else core first


def test_a_point_the_answer_may_have_said_is_to_be_made_explicit_not_worked_on():
    """Trial F: "Use pinned memory with cudaMemcpyAsync ..." was told "Work on: pinned host
    memory" (partly said, the only point missed)."""
    from interviewer.scoring import feedback

    said = claims(
        mig=("covered", 1.0), mps=("missed", 0.28), sizes=("covered", 1.0), seven=("covered", 1.0)
    )
    said = [replace(c, label=k.label) for c, k in zip(said, POINTS, strict=True)]
    assert feedback(4, said).endswith("Make explicit: MPS choice.")
    assert "Work on" not in feedback(4, said)


def test_a_score_with_no_point_found_says_where_it_came_from():
    """Trial G: a 3 read "The core idea is there ... You covered 0 of 3 key points."."""
    from interviewer.scoring import feedback

    none = claims(
        mig=("missed", 0.0), mps=("missed", 0.0), sizes=("missed", 0.0), seven=("missed", 0.0)
    )
    text = feedback(3, none)
    assert "You covered 0" not in text
    assert "None of the 4 key points was found stated" in text
    assert "You covered 0 of 4 key points." in feedback(1, none)
    # Trial J: "Solid answer with a minor gap. You covered 1 of 3 key points."
    one = claims(
        mig=("covered", 1.0), mps=("missed", 0.0), sizes=("missed", 0.0), seven=("missed", 0.0)
    )
    assert "1 of the 4 key points were found stated sentence by sentence" in feedback(4, one)
    assert "You covered 1 of 4 key points." in feedback(2, one)
