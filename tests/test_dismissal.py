"""An answer that waves away what a key point recommends contradicts that point."""

from __future__ import annotations

import pytest

from interviewer.dismissal import dismissed, dismissed_points


@pytest.mark.parametrize(
    "sentence,things",
    [
        ("Loss scaling isn't needed since it only affects speed.", ["Loss scaling"]),
        ("Honestly the collective order doesn't matter here.", ["the collective order"]),
        ("The data loader has nothing to do with utilization.", ["The data loader"]),
        ("Skip checkpointing, which won't help at all.", ["Skip checkpointing"]),
        ("There is no need for gradient clipping.", ["gradient clipping"]),
        ("Honestly you don't need loss scaling.", ["loss scaling"]),
        # Within limits, asked, or about nothing named: no dismissal.
        ("Loss scaling isn't needed with BF16.", []),
        ("NCCL_DEBUG alone won't help; read the stack traces too.", []),
        ("Checkpointing doesn't help much if activations are small.", []),
        ("You don't need loss scaling with BF16.", []),
        ("BF16 doesn't need loss scaling.", []),
        ("If you're already at peak bandwidth it won't help.", []),
        ("Does loss scaling matter?", []),
        ("It doesn't matter.", []),
        ("Recompute when there is no need for low latency.", []),
    ],
)
def test_what_a_sentence_waves_away(sentence, things):
    assert dismissed(sentence) == things


POINTS = [
    "The cleanest fix is BF16, which trains stably without loss scaling.",
    "If you must stay on FP16, you add dynamic loss scaling plus gradient clipping.",
    "Older cards like the V100 must use FP16 with loss scaling.",
]
QUESTION = "FP16 training diverges. How do you fix it?"


def test_a_dismissal_contradicts_the_point_that_names_the_thing_first():
    found = dismissed_points(
        POINTS, ["Loss scaling isn't needed, it only affects speed."], QUESTION
    )
    # Not the BF16 point, which says the same; of the other two, the one about loss scaling.
    assert found == {1: "Loss scaling isn't needed, it only affects speed."}


def test_a_point_that_spares_the_thing_agrees_with_its_dismissal():
    """In-domain dev: "you don't need loss scaling" is right about BF16, whose point says BF16
    avoids what forces loss scaling in FP16."""
    bf16 = [
        "BF16 keeps FP32's 8 exponent bits, so it has the same dynamic range as FP32.",
        "Because of that range, BF16 training avoids the underflow of small gradients and "
        "overflow of large values that force loss scaling in FP16.",
    ]
    said = ["Because it's more stable and you don't need loss scaling."]
    assert dismissed_points(bf16, said, "Why use BF16 instead of FP16 for training?") == {}


def test_the_questions_own_topic_is_not_a_dismissed_thing():
    assert dismissed_points(POINTS, ["FP16 training doesn't matter."], QUESTION) == {}
    assert dismissed_points(POINTS, ["Loss scaling isn't needed with BF16."], QUESTION) == {}


def test_not_the_problem_denies_only_a_point_that_gives_the_thing_as_a_cause():
    """Negation set 2 dev: "Low intensity, you're memory-bound, the math isn't the problem"
    was read as denying a point that only names the math (a right answer scored 1); "FP16's
    range isn't the problem" still denies the point that says the divergence comes from it."""
    intensity = [
        "Low arithmetic intensity makes a kernel memory-bound, finishing the math before the "
        "data arrives, while high intensity makes it compute-bound with the ALUs saturated.",
    ]
    said = ["Low intensity, you're memory-bound, the math isn't the problem."]
    assert dismissed_points(intensity, said, "Explain memory-bound vs compute-bound.") == {}
    cause = ["The divergence almost certainly comes from FP16's narrow dynamic range."]
    said = ["FP16's range isn't the problem, so just lower the learning rate."]
    assert dismissed_points(cause, said, QUESTION) == {0: said[0]}


def test_a_confident_answer_that_waves_the_fix_away_is_wrong(built_index):
    """Blind set, dev split: answers that said the rubric's fix "isn't needed" or "doesn't
    help" scored 2 with nothing wrong listed (the model reads a dismissal as neutral to the
    point). My own answer in that style scored 3 with the loss-scaling point listed as covered;
    a right one that limits the same words stays right."""
    from interviewer.grader import make_grader
    from interviewer.references import gather

    settings, index = built_index
    question = "FP16 training diverges but FP32 is stable and slow. How do you fix it?"
    q = next(q for q in index.bank.technical() if q.text == question)
    refs = gather(q.text, index, settings, question_id=q.id)
    wrong = (
        "The cause is FP16's narrow exponent: values overflow past 65504 and small gradients "
        "underflow. Keep training in FP16 and lower the learning rate; loss scaling isn't needed "
        "since it only affects speed."
    )
    right = (
        "FP16's 5-bit exponent overflows and underflows. Switch to BF16, which has FP32's range, "
        "and loss scaling isn't needed with BF16; if you must stay on FP16, add dynamic loss "
        "scaling and gradient clipping."
    )
    grader = make_grader("offline", settings, index=index)
    bad, good = grader.grade_many([(q.text, a, refs) for a in (wrong, right)])
    assert bad.score <= 1
    assert any(c.startswith("\"loss scaling isn't needed") for c in bad.wrong_claims)
    assert [c.point_id for c in bad.claims if c.verdict == "contradicted"] == ["loss-scaling"]
    assert good.wrong_claims == () and good.score >= 3


STREAM = [
    "A CUDA stream is an ordered queue of GPU operations, and work within one stream runs in "
    "the order it was issued.",
    "Operations in different streams can run concurrently and overlap with each other.",
]
QAT = [
    "Post-training quantization quantizes an already-trained model, using a small calibration "
    "set to choose scales and zero-points.",
    "Quantization-aware training inserts fake quantization into the forward pass during "
    "training or fine-tuning, so the model learns weights that are robust to quantization.",
]


@pytest.mark.parametrize(
    "points,question,sentence,found",
    [
        # Stop 45's fresh set: denials said of "it", the thing asked about, in plain words.
        (
            STREAM,
            "What does a CUDA stream do?",
            "It has nothing to do with running work concurrently; the GPU executes everything "
            "one operation at a time.",
            1,
        ),
        (
            QAT,
            "What is the difference between QAT and PTQ?",
            "Despite the name it doesn't involve any retraining or fine-tuning of the model.",
            1,
        ),
        # A condition, and a named subject that may rightly deny it of itself: no denial.
        (
            QAT,
            "What is the difference between QAT and PTQ?",
            "If it doesn't involve any fine-tuning of the model, it is PTQ.",
            None,
        ),
        (
            QAT,
            "What is the difference between QAT and PTQ?",
            "PTQ doesn't involve any fine-tuning of the model.",
            None,
        ),
    ],
)
def test_a_denial_of_what_the_question_is_about_contradicts_its_point(
    points, question, sentence, found
):
    assert dismissed_points(points, [sentence], question) == (
        {} if found is None else {found: sentence}
    )


def test_a_point_that_itself_denies_the_thing_agrees_and_a_condition_is_no_denial():
    """The rubrics' own texts: the point says "has nothing to do with"; a model answer's
    "If you don't need all that context" is a condition."""
    ckpt = [
        "Activation checkpointing recomputes activations in the backward pass to save memory.",
        "Despite the name, it has nothing to do with saving model checkpoints to storage for "
        "fault tolerance.",
    ]
    said = ["Despite the name, it has nothing to do with saving model checkpoints to disk."]
    assert dismissed_points(ckpt, said, "What is activation checkpointing?") == {}
    context = ["Sequence parallelism splits the context across GPUs when it does not fit."]
    said = ["If you don't need all that context, truncate or chunk it."]
    assert dismissed_points(context, said, "How do you train with long context?") == {}
