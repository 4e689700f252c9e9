"""The two things a question compares, and a point about one said of the other."""

import pytest

from interviewer.compared import compared, topic_swapped

DP_TP = "What is the difference between data parallelism and tensor (model) parallelism?"
DP = (
    "In data parallelism each GPU holds a full copy of the model and processes a different "
    "slice of the batch, with gradients all-reduced each step."
)


@pytest.mark.parametrize(
    "question,pair",
    [
        (DP_TP, ({"data"}, {"tensor"})),  # the shared word and the bracketed alias dropped
        ("What is the difference between a stack and a queue?", ({"stack"}, {"queue"})),
        ("What is the difference between QAT and PTQ?", None),  # names: the roles checks'
        ("What is a CUDA core vs a Tensor Core?", None),
        ("Why does loss.item() in the training loop hurt performance?", None),
    ],
)
def test_the_two_things_a_question_compares(question, pair):
    found = compared(question)
    assert (found and tuple(map(set, found))) == pair


@pytest.mark.parametrize(
    "sentence,swapped",
    [
        ("In tensor parallelism each GPU holds a full copy of the model.", True),
        ("Tensor parallelism: each GPU keeps a full copy of the model.", True),
        ("In data parallelism each GPU holds a full copy of the model.", False),
        ("Each GPU holds a full copy of the model.", False),  # says of neither
        # leads with both, or names the other only as an object
        ("Unlike tensor parallelism, data parallelism keeps a full copy on each GPU.", False),
        ("Data parallelism copies the model and tensor parallelism splits layers.", False),
    ],
)
def test_a_point_about_one_thing_said_of_the_other(sentence, swapped):
    assert (topic_swapped(DP_TP, DP, sentence) == "exact:swapped") == swapped


def test_a_definition_swap_against_a_rows_own_reference_scores_0_or_1(tmp_path):
    """A batch trial: the two definitions swapped scored 5, "Complete answer", each point
    covered by the sentence that gives it to the other thing."""
    from interviewer.config import Settings
    from interviewer.grader import grade

    settings = Settings(data_dir=tmp_path)
    reference = (
        f"{DP} In tensor parallelism a single layer's weight matrices are split across GPUs, "
        "which compute parts of each operation and exchange activations."
    )
    swapped = (
        "In data parallelism each layer's weight matrices are split across GPUs, while in "
        "tensor parallelism each GPU holds a full copy of the model and processes a different "
        "slice of the batch."
    )
    partial = "Data parallelism splits the batch across GPUs, each with a full model copy."
    graded = grade(DP_TP, swapped, reference_answer=reference, settings=settings)
    assert graded.score <= 1 and len(graded.wrong_claims) == 2
    graded = grade(DP_TP, partial, reference_answer=reference, settings=settings)
    assert graded.score >= 2 and not graded.wrong_claims
    # Against a listed reference (numbered items, headings) swaps do not stand: on the dev
    # parts' such references they were found mostly in right answers.
    listed = f"Two kinds: 1. {reference.replace('. In tensor', '. 2. In tensor')}"
    graded = grade(DP_TP, swapped, reference_answer=listed, settings=settings)
    assert not graded.wrong_claims
