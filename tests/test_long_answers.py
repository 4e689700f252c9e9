"""A point made late in a long answer is found (stop 66): read, and compared as itself. The
sentence vectors the claim checker compares key points with were pooled inside the whole
answer, where a part of a 210-word answer takes on the whole answer's meaning: a trial's
warp-divergence answer made the predication point in its 13th part (0.37 from it pooled, 0.67
alone), it was marked missed, and "Work on: predication for small branches" followed."""

from pathlib import Path

WARP = "What is the cost of warp divergence and how do you mitigate it?"
ANSWER = (
    "A warp of 32 threads issues one instruction at a time for all its lanes, so when threads of "
    "the same warp take different branches the warp runs each path one after the other with the "
    "inactive lanes masked off. The cost is that an if/else costs the sum of both paths, and in "
    "the worst case, with many distinct paths inside a warp, throughput drops by the number of "
    "paths, up to 32x; divergence between different warps costs nothing, because each warp is "
    "scheduled independently. On Volta and later, independent thread scheduling lets diverged "
    "paths interleave and reconverge, but they still don't execute in parallel. Mitigation: make "
    "branch conditions uniform per warp, for example branch on warp index rather than thread "
    "index, or align data so the boundary falls on a multiple of 32; sort or bin the work items "
    "so that threads in the same warp follow the same path, e.g. group particles by type or rays "
    "by material; {predication}move rare slow paths to a separate kernel or a work queue; and use "
    "warp-level primitives like ballot or vote to handle the common case uniformly. I'd confirm "
    "it with Nsight Compute's branch efficiency and warp execution efficiency metrics before and "
    "after."
)
PREDICATION = (
    "replace short branches with arithmetic or selects so the compiler can use predication; "
)


def test_a_point_made_late_in_a_long_answer_is_covered(bank_grader):
    said, unsaid = bank_grader(WARP)(
        ANSWER.format(predication=PREDICATION), ANSWER.format(predication="")
    )
    assert len(ANSWER.split()) > 200
    assert "predication" in said.points("covered"), [(c.point_id, c.verdict) for c in said.claims]
    assert said.points("covered") >= {"serialize", "predication", "restructure"}
    assert not said.wrong_claims and said.score >= 4
    # Without that part the point is missed: it is the part that states it.
    assert "predication" in unsaid.points("missed")


LONG = (Path(__file__).parent / "data" / "warp_divergence_long.txt").read_text("utf-8")


def test_every_part_of_a_long_answer_is_read(bank_grader):
    """The claim checker read an answer's first 12 parts only. A trial's 282-word answer (its
    own words) made the predication and restructuring points in its 13th and 14th parts: both
    were marked missed, and "Work on: predication for small branches" followed."""
    from interviewer.segmenter import segments

    parts = segments(LONG, limit=None)
    assert len(parts) > 14 and "predication" in " ".join(parts[12:])
    (g,) = bank_grader(WARP)(LONG)
    assert g.points("covered") >= {"predication", "restructure"}, [
        (c.point_id, c.verdict) for c in g.claims
    ]
    assert "predication" not in g.feedback
