"""Exclusive terms: a thing given the other of two terms that exclude each other is wrong, in
any prose, against a curated point or a row's own reference answer."""

import pytest

from interviewer.config import Settings
from interviewer.exclusive import other_term
from interviewer.grader import grade

STACK = "A stack is a last-in first-out data structure: push adds on top and pop removes the top."


@pytest.mark.parametrize(
    "sentence,wrong",
    [
        ("A stack is a first-in first-out structure.", True),
        ("Stacks are FIFO.", True),
        ("It is FIFO.", True),  # "it": the question's subject
        ("It's first in, first out.", True),
        ("Stacks work first in first out.", True),
        ("A stack is LIFO.", False),
        ("A queue is FIFO.", False),  # another thing
        ("A stack is not first-in first-out.", False),  # denied
        ("A stack is not FIFO, it is LIFO.", False),  # says the point's term too
        ("Unlike a queue, which is FIFO, a stack pops the newest.", False),
        ("This is because FIFO queues are fair.", False),  # a clause of its own
        # the two swapped in one sentence (a batch trial: 4/5, nothing caught)
        ("A stack is first-in first-out and a queue is last-in first-out.", True),
        ("Stacks are LIFO and queues are FIFO.", False),
    ],
)
def test_the_other_of_two_exclusive_terms_is_wrong(sentence, wrong):
    assert (other_term(STACK, sentence) == "exact:exclusive") == wrong


def test_a_term_that_names_a_kind_in_a_list_says_nothing_of_the_point():
    """A networking course's reference lists three service classes; an answer that names one
    of them as a heading contradicts none."""
    point = "1. unconfirmed connectionless - no ACK, loss of data possible, no flow control."
    assert (
        other_term(point, "Connection-Oriented Service: connection over error free channel.")
        is None
    )
    assert other_term(point, "Connection-oriented service: a three-phase communication.") is None


@pytest.mark.parametrize(
    "point,sentence",
    [
        ("Frames are sent over UDP with a 4-byte header.", "It sends frames over TCP."),
        ("Java passes primitives by value.", "Java passes primitives by reference."),
        ("NumPy arrays are row-major by default.", "They are column-major by default."),
        ("The L2 cache is write-back.", "The L2 cache is write-through."),
    ],
)
def test_pairs_of_exclusive_terms(point, sentence):
    assert other_term(point, sentence) == "exact:exclusive"
    assert other_term(point, point) is None


def test_answers_that_turn_their_own_reference_round_score_0_or_1(tmp_path):
    """A batch row with its own reference: "first-in first-out" for a stack was covered (the
    model entailed LIFO from it at 0.81) and scored 4; TCP for UDP scored 3."""
    settings = Settings(data_dir=tmp_path)
    frames = "Frames are sent over UDP with a 4-byte header carrying a sequence number."
    for question, reference, wrong, right in [
        (
            "What is a stack?",
            STACK,
            "A stack is a first-in first-out structure.",
            "Last in, first out.",
        ),
        (
            "How does the protocol deliver frames?",
            frames,
            "It sends frames over TCP with no header.",
            "Over UDP, with a 4-byte header holding a sequence number.",
        ),
    ]:
        graded = grade(question, wrong, reference_answer=reference, settings=settings)
        assert graded.score <= 1 and graded.wrong_claims, graded
        assert grade(question, right, reference_answer=reference, settings=settings).score >= 3
