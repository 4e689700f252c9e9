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
    assert (topic_swapped(DP_TP, DP, sentence) == "exact:compared") == swapped


def test_against_a_rows_own_reference_the_swap_is_found_by_descriptions_not_roles(tmp_path):
    """`topic_swapped` is not trusted against a row's own reference (it found Mohler's
    held-out "Function definition contains the code ..." wrong, the model having entailed the
    prototype sentence from it); the swapped definitions are found there by comparing what the
    answer says of each thing with what the reference says of each (`exchanged.py`)."""
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
    right = (
        "Data parallel: replicate the whole model on every GPU, give each a different part of "
        "the batch and all-reduce the gradients. Tensor parallel: split each layer's matrices "
        "over the GPUs, which swap activations inside the layer."
    )
    wrong = grade(DP_TP, swapped, reference_answer=reference, settings=settings)
    assert wrong.score <= 1
    assert {c.evidence for c in wrong.claims if c.verdict == "contradicted"} == {
        "In data parallelism each layer's weight matrices are split across GPUs",
        "in tensor parallelism each GPU holds a full copy of the model and processes a "
        "different slice of the batch",
    }
    fine = grade(DP_TP, right, reference_answer=reference, settings=settings)
    assert fine.score >= 4 and fine.wrong_claims == ()


def test_the_bank_question_on_data_and_model_parallelism_with_the_two_swapped(bank_grader):
    question = "What is the difference between data parallelism and model parallelism?"
    swapped, right = bank_grader(question)(
        "In data parallelism the model is split across GPUs, with each GPU holding a different "
        "group of layers, while in model parallelism every GPU holds a full copy of the model "
        "and processes a different slice of the batch, with gradients all-reduced.",
        "In data parallelism every GPU holds a full copy of the model and processes a different "
        "slice of the batch, with gradients all-reduced, while in model parallelism the model "
        "itself is split across GPUs, each holding part of the layers or tensors.",
    )
    assert swapped.score <= 1 and swapped.wrong_claims
    assert right.score >= 4 and not right.wrong_claims
