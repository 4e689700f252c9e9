"""An action turned round (`actions.py`): "cut num_workers" against a point that raises it."""

import pytest

from interviewer.actions import action_turned

PIPELINE = (
    "The usual cause is a slow input pipeline, fixed by raising num_workers, setting "
    "pin_memory=True, raising prefetch_factor, and using persistent workers."
)

OCCUPANCY = (
    "You raise occupancy or instruction-level parallelism so the scheduler has other warps to "
    "run during outstanding loads, and prefetch where possible."
)


@pytest.mark.parametrize(
    "point,sentence",
    [
        (PIPELINE, "Cut num_workers and turn off pin_memory."),
        (PIPELINE, "I'd cut num_workers to save RAM."),
        (PIPELINE, "Reducing num_workers fixes it."),
        (PIPELINE, "I'd instead cut num_workers."),
        # "lower" as a verb: before an identifier, a determiner, or "to <number>".
        (PIPELINE, "Lower num_workers to 0."),
        (PIPELINE, "Lower the num_workers setting."),
        # ... or after a subject, a modal or a prescription (a trial's confidently wrong
        # answer, stop 66, was credited with the occupancy point).
        (OCCUPANCY, "Too many warps fight for the bus, so the fix is to lower occupancy."),
        (OCCUPANCY, "You should lower occupancy so fewer warps compete."),
        (OCCUPANCY, "I'd lower occupancy."),
        # A flag set the other way.
        (PIPELINE, "Set pin_memory=False."),
        (PIPELINE, "Leave num_workers alone and turn off pin_memory."),
        ("Fusion reduces memory traffic.", "Fusion increases memory traffic."),
        ("Turn on mixed precision to cut memory.", "Turn off mixed precision."),
        (
            "Activation checkpointing reduces memory at the cost of extra compute.",
            "Checkpointing increases memory but saves compute.",
        ),
    ],
)
def test_the_opposite_action_on_the_same_thing_is_a_contradiction(point, sentence):
    assert action_turned(point, sentence) == "exact:action"


@pytest.mark.parametrize(
    "point,sentence",
    [
        (PIPELINE, "Usually the loader can't keep up, so I bump num_workers and raise it more."),
        (PIPELINE, "Raise num_workers and enable pin_memory."),
        (PIPELINE, "Raise num_workers and keep pin_memory=True."),
        # "lower" as an adjective is no action.
        (PIPELINE, "Lower num_workers counts starve the GPU, so raise them."),
        ("Lower precision halves memory.", "Raise precision to FP32."),
        (OCCUPANCY, "More registers per thread lead to lower occupancy."),
        (OCCUPANCY, "You get higher bandwidth and lower occupancy."),
        # Not a plain statement of the opposite: conditional, negated.
        (PIPELINE, "If CPU RAM runs out, reduce num_workers."),
        (PIPELINE, "Don't reduce num_workers."),
        (PIPELINE, "You shouldn't cut num_workers."),
        (PIPELINE, "Instead of cutting num_workers, raise it."),
        # Another subject: both can be true.
        ("Fusion reduces memory traffic.", "Unfused kernels increase memory traffic."),
        ("The all-reduce adds latency.", "Overlap removes latency from the critical path."),
        # Intransitive: no object to turn.
        ("Latency increases with batch size.", "Throughput reduces with batch size."),
        # Another thing: the micro-batch, not the batch.
        ("Gradient accumulation lets you reduce the micro-batch size.", "Increase the batch size."),
        # Both directions, each on its own thing, as the point says.
        (
            "Activation checkpointing reduces memory at the cost of extra compute.",
            "Checkpointing adds compute and reduces memory.",
        ),
        # "reduce" inside a collective's name is no action.
        ("Overlap hides the all-reduce behind backward.", "The all-reduce is exposed."),
    ],
)
def test_no_contradiction_where_it_is_not_sure(point, sentence):
    assert action_turned(point, sentence) is None


def test_an_answer_that_turns_the_fix_round_is_wrong_on_that_point(built_index):
    """The NLI model entailed the raising point from "Cut num_workers and turn off
    pin_memory." (0.64): the inverted fix was credited. The action check names it wrong."""
    from interviewer.grader import make_grader
    from interviewer.references import gather

    settings, index = built_index
    q = next(q for q in index.bank.technical() if q.text.startswith("My GPU utilization is low"))
    refs = gather(q.text, index, settings, question_id=q.id)
    grader = make_grader("offline", settings, index=index)
    inverted, right = grader.grade_many(
        [
            (
                q.text,
                "The input pipeline is starving the GPU. Cut num_workers and turn off pin_memory "
                "so the loader has less overhead.",
                refs,
            ),
            (
                q.text,
                "The input pipeline is starving the GPU. Raise num_workers and turn on pin_memory "
                "so batches are ready in time.",
                refs,
            ),
        ]
    )
    assert any("Cut num_workers" in c for c in inverted.wrong_claims)
    assert inverted.score <= 1
    assert right.wrong_claims == ()


def test_a_confident_answer_that_lowers_occupancy_is_wrong_and_scores_at_most_1(bank_grader):
    """A trial's confidently wrong answer (stop 66) scored 4/5, "You raise occupancy ..." listed
    as covered and under the report's Strengths: "lower" was read as an adjective."""
    wrong, right = bank_grader(
        "The profiler shows heavy memory-related warp stalls. How do you fix it?"
    )(
        "Heavy memory stalls mean there are too many warps competing for the memory bus, so the "
        "fix is to lower occupancy: use fewer threads per block and fewer blocks so fewer warps "
        "fight over bandwidth. That reliably removes memory stalls.",
        "Raise occupancy so other warps can run while loads are in flight, coalesce global "
        "accesses and tile reused data into shared memory.",
    )
    assert wrong.score <= 1 and "latency-hiding" in wrong.points("contradicted")
    assert any("lower occupancy" in c for c in wrong.wrong_claims)
    assert not right.wrong_claims and "latency-hiding" in right.points("covered")


def test_local_memory_said_to_be_on_chip_and_faster_is_a_named_wrong_claim(bank_grader):
    """The same trial answer also said to route loads through local memory, "which is faster
    than global memory because it lives on-chip": no rubric said otherwise, so it went unnamed.
    Local memory lives in device memory (the rubric's misconception, stop 67)."""
    wrong, right = bank_grader(
        "The profiler shows heavy memory-related warp stalls. How do you fix it?"
    )(
        "Switch the global loads to go through local memory, which is faster than global memory "
        "because it lives on-chip. That reliably removes memory stalls.",
        "Register spills go to local memory, which lives in device memory like global memory, so "
        "they show up as long-scoreboard stalls too; coalesce accesses and tile reused data into "
        "shared memory.",
    )
    assert wrong.score <= 1 and "stall-names" in wrong.points("contradicted")
    assert any("local memory" in c and "on-chip" in c for c in wrong.wrong_claims)
    assert not right.wrong_claims
