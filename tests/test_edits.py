"""A key point copied with a word turned is a contradiction of it, read word by word (trial J:
a team lead's own reference with two words turned scored 5/5 at confidence 0.98)."""

import pytest

from interviewer.edits import copied_edits, edited

LATENCY = (
    "Continuous batching therefore keeps the GPU busy, raising throughput and lowering average "
    "latency."
)
PREFILL = (
    "During prefill all prompt tokens are processed in parallel, so each weight read from HBM is "
    "reused across many tokens and the arithmetic intensity is high, making it compute bound."
)
DECODE = (
    "During decode only one new token per sequence is generated per step, so all the weights "
    "must be read from HBM for very little arithmetic, making it memory-bandwidth bound."
)


@pytest.mark.parametrize(
    "sentence,turned",
    [
        # a word for its opposite, in any inflection; a denial added
        (LATENCY.replace("and lowering", "but also raising"), True),
        (LATENCY.replace("raising throughput and lowering", "raises throughput and raises"), True),
        (LATENCY.replace("and lowering", "and not lowering"), True),
        (LATENCY.replace("busy", "idle"), True),
        # the point itself, shortened, or in other words: no turn
        (LATENCY, False),
        ("Continuous batching keeps the GPU busy, raising throughput and lowering latency.", False),
        ("It keeps the GPU busy, which raises throughput and cuts average latency.", False),
        # another change beside the turn: a sentence of its own, for the other checks
        (LATENCY.replace("GPU busy", "scheduler busy").replace("lowering", "raising"), False),
        # a denial that adds to what follows is no denial
        (LATENCY.replace("and lowering", "and not just lowering"), False),
    ],
)
def test_a_copy_with_a_word_turned(sentence, turned):
    assert (edited([[LATENCY]], [sentence]) == {0: 0}) == turned


def test_two_words_exchanged_between_two_copied_sentences():
    swapped = [
        PREFILL.replace("compute bound", "memory-bandwidth bound"),
        DECODE.replace("memory-bandwidth bound", "compute bound"),
    ]
    assert edited([[PREFILL], [DECODE]], swapped) == {0: 0, 1: 1}
    # one word changed alone is another word, not an exchange
    assert edited([[PREFILL], [DECODE]], [swapped[0], DECODE]) == {}


def test_a_sentence_not_copied_is_not_read_word_by_word():
    assert copied_edits(LATENCY, "Static batching waits for the longest sequence.") is None
    assert copied_edits(LATENCY, "It raises latency.") is None  # too few words copied


def test_graded_against_its_own_reference(tmp_path):
    from interviewer.config import Settings
    from interviewer.grader import grade

    settings = Settings(data_dir=tmp_path)
    question = (
        "Why is the decode phase of LLM inference memory-bandwidth bound while prefill is "
        "compute bound?"
    )
    reference = f"{PREFILL} {DECODE}"
    swapped = grade(
        question,
        f"{PREFILL.replace('compute bound', 'memory-bandwidth bound')} "
        f"{DECODE.replace('memory-bandwidth bound', 'compute bound')}",
        reference_answer=reference,
        settings=settings,
    )
    assert swapped.score <= 1
    assert [c.verdict for c in swapped.claims] == ["contradicted", "contradicted"]
    assert grade(question, reference, reference_answer=reference, settings=settings).score == 5
