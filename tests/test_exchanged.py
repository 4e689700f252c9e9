"""Two things' descriptions exchanged, found against a row's own reference answer (where the
roles checks are not trusted) and an automatic rubric: the swapped answers had scored 5/5."""

import pytest

from interviewer.exchanged import exchanged, pairs_compared

PROCESS = "What is the difference between a process and a thread?"
PROCESS_REF = [
    "A process is an instance of a program with its own address space.",
    "A thread is a unit of execution inside a process that shares the process's address space "
    "with its other threads.",
]
HBM = "What is the difference between HBM and GDDR memory?"
HBM_REF = [
    "HBM stacks DRAM dies next to the GPU on an interposer and gives very high bandwidth "
    "through a wide bus; GDDR uses separate chips on the board with a narrow, fast bus and "
    "lower bandwidth at lower cost."
]


@pytest.mark.parametrize(
    "question,reference,pair",
    [
        (PROCESS, PROCESS_REF, ({"proces"}, {"thread"})),
        (HBM, HBM_REF, ({"hbm"}, {"gddr"})),  # two names the question sets side by side
        (
            "Why use BF16 instead of FP16 for training?",
            ["BF16 keeps FP32's range; FP16 ..."],
            ({"bf16"}, {"fp16"}),
        ),
        # names the question does not compare ("on 1024 GPUs"), or a name the reference lacks
        ("Design a 1B-parameter run on 1024 GPUs over InfiniBand.", ["GPUs and InfiniBand"], None),
        ("What is the difference between HBM and GDDR?", ["HBM is stacked."], None),
        # two things named by many words: what they do, not what they are
        (
            "Discuss trade-offs between parameter-server architectures with asynchronous "
            "updates and synchronous ring-allreduce training.",
            ["A parameter server ... ring all-reduce ..."],
            None,
        ),
    ],
)
def test_the_two_things_compared(question, reference, pair):
    found = pairs_compared(question, " ".join(reference))
    assert (tuple(map(set, found[0])) if found else None) == pair


@pytest.mark.parametrize(
    "question,reference,answer,found",
    [
        (
            PROCESS,
            PROCESS_REF,
            "A thread is an instance of a program with its own address space. A process is a "
            "unit of execution inside a thread.",
            {0: "A thread is an instance of a program with its own address space"},
        ),
        (
            HBM,
            HBM_REF,
            "GDDR is stacked on an interposer with a very wide bus; HBM is discrete chips on the "
            "board, cheaper but slower.",
            {0: "GDDR is stacked on an interposer with a very wide bus"},
        ),
        # right, in other words
        (
            PROCESS,
            PROCESS_REF,
            "A process is a running program with its own private memory. Threads run inside a "
            "process and share its memory.",
            {},
        ),
        (
            HBM,
            HBM_REF,
            "HBM is stacked memory on an interposer with a very wide bus, so much more bandwidth "
            "than GDDR, which is cheaper discrete chips on the board.",
            {},
        ),
        # the other's description denied is no swap; a clause naming both is the comparatives'
        (HBM, HBM_REF, "HBM is not separate chips on the board with a narrow bus.", {}),
        (HBM, HBM_REF, "HBM uses separate chips on the board like GDDR does.", {}),
    ],
)
def test_a_description_said_of_the_other_thing(embedder, question, reference, answer, found):
    assert exchanged(question, reference, answer, embedder.embed) == found


def test_graded_against_its_own_reference(tmp_path):
    """The batch path, with the row's own reference: the swapped answer scored 5/5 with both
    points covered; a right one in other words keeps its grade."""
    from interviewer.config import Settings
    from interviewer.grader import grade

    settings = Settings(data_dir=tmp_path)
    reference = " ".join(PROCESS_REF)
    swapped = grade(
        PROCESS,
        "A thread is an instance of a program with its own address space. A process is a unit "
        "of execution inside a thread that shares the thread's address space with the other "
        "processes.",
        reference_answer=reference,
        settings=settings,
    )
    assert swapped.score <= 1
    assert "A thread is an instance of a program" in swapped.wrong_claims[0]
    assert swapped.claims[0].verdict == "contradicted"
    right = grade(
        PROCESS,
        "A process is a running program with its own private memory. Threads run inside a "
        "process and share its memory.",
        reference_answer=reference,
        settings=settings,
    )
    assert right.score >= 4 and right.wrong_claims == ()


def test_graded_against_an_automatic_rubric_of_the_users_notes(tmp_path):
    """A question from the user's own notes has an automatic rubric, its points the notes'
    sentences: the same swap, the same wrong claim (it had scored 5/5 there)."""
    from interviewer.config import Settings
    from interviewer.grader import make_grader
    from interviewer.records import Reference, ReferenceSet
    from interviewer.rubrics import auto_rubric

    notes = " ".join(PROCESS_REF)
    rubric = auto_rubric("q-0000000000", PROCESS, notes)
    assert rubric is not None and rubric.origin == "auto"
    refs = ReferenceSet(
        PROCESS, (Reference("q-0000000000", "bank", notes),), "q-0000000000", 1.0, rubric
    )
    grader = make_grader("offline", Settings(data_dir=tmp_path))
    swapped, right = grader.grade_many(
        [
            (
                PROCESS,
                "A thread is an instance of a program with its own address space, and a "
                "process is a unit of execution inside a thread.",
                refs,
            ),
            (
                PROCESS,
                "A process is a program running with its own address space; a thread is one "
                "path of execution inside a process, sharing that address space.",
                refs,
            ),
        ]
    )
    assert swapped.score <= 1
    assert "A thread is an instance of a program" in swapped.wrong_claims[0]
    assert right.score >= 4 and right.wrong_claims == ()
