"""A point made late in a long answer is found (stop 66): read, and compared as itself. The
sentence vectors the claim checker compares key points with were pooled inside the whole
answer, where a part of a 210-word answer takes on the whole answer's meaning: a trial's
warp-divergence answer made the predication point in its 13th part (0.37 from it pooled, 0.67
alone), it was marked missed, and "Work on: predication for small branches" followed."""

from pathlib import Path

from interviewer.session import Plan

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


SMI = "nvidia-smi shows 95% GPU utilization but throughput is low. What's going on?"
SMI_LONG = (Path(__file__).parent / "data" / "nvidia_smi_long.txt").read_text("utf-8")
SMI_STATED = (
    "It only measures the fraction of the sample window in which at least one kernel was running "
    "on the device. It says nothing about how many SMs were busy or how well they were used."
)


def test_in_a_long_answer_more_sentences_are_asked_about_each_point(bank_grader):
    """A trial's 281-word answer (stop 66) said what nvidia-smi's utilization measures, but many
    of its sentences share the point's words: the two stating it were the 5th and 6th nearest
    (0.55 and 0.54 against 0.70), only the nearest two were asked about, and the point came
    back as missed."""
    assert SMI_STATED in SMI_LONG and len(SMI_LONG.split()) > 250
    said, unsaid = bank_grader(SMI)(SMI_LONG, SMI_LONG.replace(SMI_STATED, ""))
    assert "util-meaning" in said.points("covered"), [(c.point_id, c.verdict) for c in said.claims]
    assert not said.wrong_claims and said.score >= 4
    # Without those sentences the point is not covered: they are the ones that state it.
    assert "util-meaning" not in unsaid.points("covered")


BUDGET_Q = "Architect a distributed training system"
BUDGET_REPLY = (
    "Training costs about 6N FLOPs per token, so 6e9 for 1B params. At roughly 400 TFLOPS "
    "achieved per H100 (about 40% MFU) that's ~65k tokens/s per GPU, ~65M tokens/s for 1024 "
    "GPUs, so on the order of 5-6 trillion tokens a day. The limit is the global batch: even one "
    "2k-token sequence per GPU is a ~2M-token batch, near the critical batch size of a 1B model, "
    "so you can't grow it further without hurting convergence, and with a tiny per-GPU batch the "
    "step gets short and the all-reduce and launch overhead eat the efficiency."
)
BUDGET_WRONG = (
    "Training costs about 2N FLOPs per token, so 2e9 for 1B params. At roughly 50 TFLOPS "
    "achieved per H100 that's only ~25k tokens/s for the whole cluster, so on the order of 2 "
    "billion tokens a day. The limit is memory: each GPU can only hold a few sequences, so the "
    "global batch has to be at least 100 million tokens to keep all 1024 GPUs busy, and a bigger "
    "batch always converges faster, so communication never matters here."
)


def test_a_reply_that_builds_its_point_over_several_sentences_is_read_whole(engine):
    """A trial's 104-word reply (stop 66) to "How many tokens can you train in a day on this
    cluster, and what limits how you use all those GPUs?" worked it out in three sentences, each
    entailing the point at most 0.53, and scored 2/5 with the point missed. A reply of up to
    `REPLY_WHOLE_WORDS` is also read whole, as a short answer is."""
    from interviewer.features import REPLY_WHOLE_WORDS
    from interviewer.session import Prompt

    q = next(q for q in engine.bank.questions if q.text.startswith(BUDGET_Q))
    point = engine.rubric(q).point("budget-batch")
    grades = {}
    for name, reply in (("right", BUDGET_REPLY), ("wrong", BUDGET_WRONG)):
        s = engine.start(Plan((), "hard", 6, "deep dive"))
        s.current = engine._ask(q)
        engine.answer(s, "Data parallelism over 128 nodes of 8 GPUs, with async checkpoints.")
        s.current = Prompt(q.id, point.probe, "follow_up", "hard", focus=point.id)
        grades[name] = engine.answer(s, reply).turn.grade
    assert 60 < len(BUDGET_REPLY.split()) <= REPLY_WHOLE_WORDS
    right, wrong = grades["right"], grades["wrong"]
    assert right.claims[0].point_id == "budget-batch" and right.claims[0].verdict == "covered"
    assert right.score >= 4 and not right.wrong_claims
    assert wrong.claims[0].verdict != "covered" and wrong.score <= 1
