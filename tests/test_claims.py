"""Claim verdicts into scores by the grading scale, and the exact checks beside the NLI model."""

from __future__ import annotations

import pytest

from interviewer.bound import bound_number
from interviewer.claims import (
    Claim,
    PointVerdict,
    StatedMisconception,
    Verdicts,
    Wrong,
)
from interviewer.config import Settings
from interviewer.disagreement import disagree, opening
from interviewer.exact import exact_contradiction
from interviewer.records import Provenance, ReferenceSet
from interviewer.roles import swapped_binding, swapped_kinds, swapped_roles
from interviewer.scoring import confidence, from_verdicts, score

CORE = Claim("bw", "HBM has far higher bandwidth than GDDR.", "bandwidth", 2.0)
CORE2 = Claim("stack", "HBM is 3D-stacked on the GPU package.", "stacking", 2.0)
SUPPORT = Claim("cost", "GDDR is cheaper than HBM.", "cost", 1.0)


def v(claim, verdict, credit=None):
    return PointVerdict(claim, verdict, "evidence", 1.0 if verdict == "covered" else 0.0)


def test_all_covered_is_5_and_nothing_covered_is_0():
    assert score(Verdicts((v(CORE, "covered"), v(CORE2, "covered"), v(SUPPORT, "covered"))))[0] == 5
    assert score(Verdicts((v(CORE, "missed"), v(CORE2, "missed"), v(SUPPORT, "missed"))))[0] == 0


def test_a_contradicted_core_point_caps_at_1_whatever_else_is_right():
    wrong = Verdicts((v(CORE, "contradicted"), v(CORE2, "covered"), v(SUPPORT, "covered")))
    assert score(wrong)[0] == 1
    assert score(wrong, estimate=4.6)[0] == 1  # a similarity estimate cannot lift it
    alone = Verdicts((v(CORE, "contradicted"), v(CORE2, "missed"), v(SUPPORT, "missed")))
    assert score(alone, estimate=3.0)[0] == 0


def test_a_stated_misconception_counts_as_a_wrong_claim_on_its_point():
    verdicts = Verdicts(
        (v(CORE, "covered"), v(CORE2, "covered"), v(SUPPORT, "covered")),
        (StatedMisconception(Wrong("HBM is slower than GDDR.", "bw"), "HBM is slower."),),
    )
    assert score(verdicts)[0] <= 1


def test_a_wrong_supporting_point_is_one_notable_error():
    verdicts = Verdicts((v(CORE, "covered"), v(CORE2, "covered"), v(SUPPORT, "contradicted")))
    assert score(verdicts)[0] == 3


def test_a_wrong_point_with_nothing_right_is_mostly_incorrect():
    """A row's own two-sentence reference has no core point: "A stack is first-in first-out."
    contradicted one and scored 3, the cap for one notable error beside right content."""
    one, two = Claim("s1", "A stack is LIFO."), Claim("s2", "A queue is FIFO.")
    alone = Verdicts((v(one, "contradicted"), v(two, "missed")))
    assert score(alone, estimate=4.0)[0] == 1
    beside = Verdicts((v(one, "contradicted"), v(two, "covered")))
    assert score(beside, estimate=4.0)[0] == 3


def test_covered_never_lists_a_contradicted_point_and_feedback_names_the_wrong_claim_first():
    verdicts = Verdicts(
        (
            PointVerdict(CORE, "contradicted", "HBM has lower bandwidth than GDDR."),
            v(CORE2, "covered"),
            v(SUPPORT, "missed"),
        )
    )
    g = from_verdicts(verdicts, None, Provenance("offline", "m"), ReferenceSet("Q?", ()))
    assert CORE.text not in g.covered and g.covered == (CORE2.text,)
    assert g.wrong_claims == ('"HBM has lower bandwidth than GDDR." contradicts: ' + CORE.text,)
    assert g.feedback.startswith('Wrong: "HBM has lower bandwidth than GDDR". In fact: HBM has far')
    assert [c.verdict for c in g.claims] == ["contradicted", "covered", "missed"]


@pytest.mark.parametrize(
    "question,n",
    [
        ("What are the objectives of IPv6? Please state at least 4 objectives.", 4),
        ("Please NAME and DESCRIBE two challenges.", 2),
        ("State at least 4 of the differences between the UDP and TCP headers.", 4),
        ("Which MAC procedure? Give 2 reasons and 1 potential weakness in 2-6 sentences.", 3),
        ("Describe two benefits and two drawbacks in 1-2 sentences each.", 4),
        # A closed set the reference lists whole, one item (maybe one of several asks), a count
        # that is no ask, sentences: not a count of options.
        ("What are the two main functions defined by a stack?", 0),
        ("Name the 2 phases of congestion control and explain how cwnd changes.", 0),
        ("How is the table used, and what is one benefit of it?", 0),
        ("Beth made 2 solutions of citric acid. Which is more concentrated?", 0),
        ("Explain in 2-4 sentences why pinned memory is faster.", 0),
    ],
)
def test_how_many_of_the_listed_points_a_question_asks_for(question, n):
    from interviewer.asks import asked_for

    assert asked_for(question) == n


def test_a_question_that_asks_for_fewer_points_than_its_reference_lists_is_complete_at_that():
    """A marking scheme lists five challenges; "Name two" is answered in full by two (SAF's
    right answers had scored 3-4: "You covered 2 of 5 key points")."""
    from dataclasses import replace

    from interviewer.scoring import asking

    points = [Claim(f"s{n}", f"Challenge {n} is a real challenge.") for n in range(1, 6)]
    two = Verdicts(tuple(v(c, "covered" if n < 2 else "missed") for n, c in enumerate(points)))
    asked = asking(two, "Name and describe two challenges.", "input")
    assert asked.asked == 2 and asked.coverage == 1.0 and asked.complete
    assert score(two, estimate=4.8)[0] == 4  # every listed point: a missed one holds it at 4
    assert score(asked, estimate=4.8)[0] == 5
    g = from_verdicts(asked, None, Provenance("offline", "m"), ReferenceSet("Q?", ()))
    assert g.score == 5 and "2 of the 2 key points asked for (5 listed)" in g.feedback
    assert "Work on" not in g.feedback
    firsts = tuple(v(c, "covered" if n < 1 else "missed") for n, c in enumerate(points))
    one = replace(asked, points=firsts)
    assert one.coverage == 0.5 and not one.complete and score(one, estimate=4.8)[0] == 4
    # A wrong claim still caps it; a curated rubric's points all make a complete answer.
    turned = replace(asked.points[0], verdict="contradicted")
    wrong = replace(asked, points=(turned, *asked.points[1:]))
    assert score(wrong, estimate=4.8)[0] == 3  # (a supporting point: one notable error)
    assert asking(two, "Name and describe two challenges.", "authored").asked == 0


def test_confidence_is_lower_near_a_rounding_boundary_for_weak_margins_and_mid_scale():
    sure = Verdicts((v(CORE, "covered"),))
    unsure = Verdicts((PointVerdict(CORE, "covered", "e", 1.0, margin=0.05),))
    assert confidence(sure, 5.0) > confidence(unsure, 5.0) > confidence(unsure, 4.5)
    # Partial credit is where grades disagree most: the middle of the scale is least sure.
    assert confidence(sure, 0.0) == confidence(sure, 5.0) == 1.0
    assert confidence(sure, 5.0) > confidence(sure, 4.0) > confidence(sure, 3.0)
    assert confidence(sure, 0.0) > confidence(sure, 1.0) > confidence(sure, 2.0)


@pytest.mark.parametrize(
    "point,sentence,found",
    [
        (
            "HBM has higher bandwidth than GDDR.",
            "HBM has lower bandwidth than GDDR.",
            "exact:comparative",
        ),
        (
            "HBM has higher bandwidth than GDDR.",
            "GDDR has higher bandwidth than HBM.",
            "exact:swapped",
        ),
        ("HBM has higher bandwidth than GDDR.", "GDDR has lower bandwidth than HBM.", None),
        (
            "BF16 keeps the exponent range of FP32.",
            "BF16 does not keep the exponent range of FP32.",
            "exact:negation",
        ),
        (
            "An H100 SXM reaches about 3.35 TB/s of HBM bandwidth.",
            "An H100 SXM reaches about 0.9 TB/s of HBM bandwidth.",
            "exact:number",
        ),
        (
            "An H100 SXM reaches about 3.35 TB/s of HBM bandwidth.",
            "An H100 SXM reaches about 3 TB/s of HBM bandwidth.",
            None,
        ),
        # Units are converted (the browser trial's "only about 20 MB/s" was credited), and a
        # point that gives both sides' numbers is wrong only far from each of them.
        (
            "HBM delivers over 3 TB/s on an H100 SXM against roughly 1 TB/s for GDDR6X.",
            "HBM bandwidth on an H100 is only about 20 MB/s.",
            "exact:number",
        ),
        (
            "HBM delivers over 3 TB/s on an H100 SXM against roughly 1 TB/s for GDDR6X.",
            "HBM on an H100 gives around 3000 GB/s.",
            None,
        ),
        (
            "HBM delivers over 3 TB/s on an H100 SXM against roughly 1 TB/s for GDDR6X.",
            "HBM on an H100 is about 24 Tbps.",
            None,
        ),
        # A clause per named thing: "... and CUDA cores ..." starts one.
        (
            "A CUDA core is a general-purpose scalar ALU that executes one operation per clock.",
            "Tensor Cores are the general-purpose scalar units and CUDA cores are the matrix "
            "units for FP16.",
            None,  # exact_contradiction does not read roles; swapped_roles does (below)
        ),
        (
            "HBM has higher bandwidth than GDDR.",
            "Kubernetes schedules pods with lower priority.",
            None,
        ),
        # A negation denies only what follows it: these sentences never assert that.
        (
            "At batch 1 the time goes to kernel-launch overhead and memory traffic, not compute.",
            "The time goes to kernel-launch overhead and to streaming the weights from memory.",
            None,
        ),
        (
            "BF16 keeps FP32's 8 exponent bits, so it has the same dynamic range as FP32.",
            "BF16 keeps FP32's 8-bit exponent: the same range as FP32, so it trains without "
            "loss scaling.",
            None,
        ),
        # Opposite words about two different things agree (a speech-to-text slip included).
        (
            "Peak speed needs Tensor Cores; otherwise work falls back to the slower CUDA cores.",
            "a cuda core does one operation per clock and the gemms run way faster on tenser cores",
            None,
        ),
        (
            "Tensor Cores are faster than CUDA cores.",
            "Tensor Cores are slower than CUDA cores.",
            "exact:comparative",
        ),
        # A multiple of a named thing is its own quantity: the training-FLOPs rule of thumb.
        (
            "Training compute is about 6 × parameters × tokens, here 6 × 7B × 1T FLOPs.",
            "Training compute is roughly 2 x parameters x tokens.",
            "exact:number",
        ),
        (
            "The cost is about 1.5x the traffic of plain data parallelism.",
            "The cost is roughly 1.5x the traffic of plain DDP, because of the all-gathers.",
            None,
        ),
        (
            "The cost is about 1.5x the traffic of plain data parallelism.",
            "The cost is 10x the parameters of plain data parallelism.",
            None,  # another named thing: no common quantity
        ),
        # Numbers of other quantities beside the wrong one do not hide it (blind set, dev).
        (
            "Training compute is about 6 × parameters × tokens, here 6 × 7B × 1T FLOPs.",
            "Training compute is about 2 x parameters x tokens 2 x 7B x 1T = 14 zettaFLOPs, "
            "which at ~500 TFLOPS per H100 is roughly 7,800 GPU-hours.",
            "exact:number",
        ),
        (
            "An H100 SXM reaches about 3.35 TB/s of HBM bandwidth.",
            "An H100 SXM has 80 GB of HBM at about 3.35 TB/s.",
            None,
        ),
        # A count of hardware pieces is exact (a warp of 64 threads is no rounding of 32), and
        # a second count in the sentence may be another thing's ("a block up to 1024").
        (
            "A warp is a group of 32 threads that execute the same instruction in lockstep.",
            "A warp is a group of 64 threads.",
            "exact:number",
        ),
        (
            "A warp is a group of 32 threads that execute the same instruction in lockstep.",
            "A warp is a block of 1024 threads that share memory.",
            "exact:number",
        ),
        (
            "A warp is a group of 32 threads that execute the same instruction in lockstep.",
            "A warp is 32 threads, and a block holds up to 1024 threads.",
            None,
        ),
        (
            "Shared memory is divided into 32 banks of 4-byte words.",
            "Shared memory has 16 banks, so a stride of 16 words conflicts.",
            "exact:number",
        ),
        (
            "Spread over 125 nodes, 5 TB is only about 40 GB per node, which fits in host RAM.",
            "Demand: 200k samples/s at ~100 KB is ~20 GB/s, so plan the node's I/O for that.",
            None,  # a size beside other numbers: another size (100 KB per image)
        ),
        (
            "HBM delivers over 3 TB/s on an H100 SXM against roughly 1 TB/s for GDDR6X.",
            "HBM gives 3 TB/s and GDDR 1 TB/s, with 80 GB on an H100.",
            None,
        ),
        (  # "0 marbles" is "no marbles" (a right SciEntsBank answer was read as denying it)
            "The boat with 0 marbles is the standard in this experiment.",
            "The boat with no marbles is the standard.",
            None,
        ),
        (
            "A warp has no independent program counter per thread before Volta.",
            "Before Volta, each thread in a warp had its own independent program counter.",
            "exact:negation",
        ),
    ],
)
def test_exact_checks(point, sentence, found):
    assert exact_contradiction(point, sentence) == found


@pytest.mark.parametrize(
    "point,sentence,found",
    [
        # Inverted answers from a blind set (evals/data/claims_blind.jsonl, dev split) that
        # were read as covering the point they invert.
        (
            "It trades compute for memory, cutting activation memory by around 60%.",
            "It trades memory for compute: you store extra copies of the activations.",
            "exact:swapped",
        ),
        (
            "It trades compute for memory, cutting activation memory by around 60%.",
            "Checkpointing trades extra compute for less memory.",
            None,
        ),
        (
            "The divergence comes from FP16's narrow dynamic range, whose 5-bit exponent "
            "overflows.",
            "FP16's range is actually wider than BF16's, so switching to BF16 would make "
            "overflow worse.",
            "exact:comparative",
        ),
        # The sentence's first comparative ("the more micro-batches") is not the one that
        # answers the point's ("much smaller than" against "much larger than"; blind set, dev).
        (
            "The bubble is reduced by using many micro-batches, with M much larger than P.",
            "The bubble gets worse the more micro-batches you split the batch into, so you keep "
            "the number of micro-batches much smaller than the number of stages.",
            "exact:comparative",
        ),
        (
            "The bubble is reduced by using many micro-batches, with M much larger than P.",
            "Use more micro-batches than stages, M much larger than P, and the bubble shrinks.",
            None,
        ),
        # A chain of two comparisons: the sentence's second link is not the first turned round
        # (Mohler, a binary search tree; found on a report fold).
        (
            "The left child is smaller than the parent, which in turn is smaller than the right "
            "child.",
            "The node on the left is less than the root and the node on the right is greater "
            "than the root.",
            None,
        ),
        # Two steps in the opposite order (blind set, dev).
        (
            "Ring AllReduce performs a reduce-scatter followed by an all-gather around a ring.",
            "The ring runs an all-gather phase first, then a reduce-scatter phase.",
            "exact:swapped",
        ),
        (  # tried in the CLI: a word after both steps ("around the ring") hid the swap
            "Ring AllReduce performs a reduce-scatter followed by an all-gather around a ring.",
            "Ring AllReduce runs an all-gather phase first, then a reduce-scatter phase around "
            "the ring of GPUs.",
            "exact:swapped",
        ),
        (
            "Ring AllReduce performs a reduce-scatter followed by an all-gather around a ring.",
            "You do a reduce-scatter pass and then an all-gather pass around the ring.",
            None,
        ),
        # Which thing is the multiple of the other, turned round (blind set, dev).
        (
            "NVLink is a dedicated GPU-to-GPU interconnect with many times PCIe's bandwidth.",
            "But PCIe Gen5 is actually the faster path, roughly 14 times NVLink's bandwidth.",
            "exact:swapped",
        ),
        (
            "NVLink is a dedicated GPU-to-GPU interconnect with many times PCIe's bandwidth.",
            "NVLink on H100 gives about 900 GB/s, roughly 7 times PCIe Gen5's bandwidth.",
            None,
        ),
    ],
)
def test_turned_round_trades_and_wide_against_narrow(point, sentence, found):
    assert exact_contradiction(point, sentence) == found


BUBBLE = "The more micro-batches per step, the smaller the pipeline bubble."
TIGHT = "When the string is tighter, the pitch is higher."


@pytest.mark.parametrize(
    "point,sentence,found",
    [
        # A relation between two quantities said from the other end agrees with the point,
        # though its first comparative is the point's opposite (SciEntsBank's train part: 19
        # right answers were told they were wrong this way).
        (BUBBLE, "With fewer micro-batches the bubble gets bigger.", None),
        (BUBBLE, "A small number of micro-batches leaves a large bubble, so use many.", None),
        (TIGHT, "A looser string gives a lower pitch.", None),
        (TIGHT, "The pitch is lower when looser, and higher when it is tighter.", None),
        # ... and turned round it is wrong, whichever end it starts from.
        (BUBBLE, "The more micro-batches you use, the bigger the bubble.", "exact:comparative"),
        (BUBBLE, "Fewer micro-batches give a smaller bubble.", "exact:comparative"),
        (TIGHT, "A tighter string gives a lower pitch.", "exact:comparative"),
        (TIGHT, "The pitch is higher when the string is not tighter.", "exact:comparative"),
        # A point that states no relation keeps its first-comparative reading: two properties
        # of one thing both turned round are both wrong.
        (
            "HBM has higher bandwidth and lower capacity than GDDR.",
            "HBM has lower bandwidth and higher capacity than GDDR.",
            "exact:comparative",
        ),
    ],
)
def test_a_relation_read_from_either_end_is_the_same_relation(point, sentence, found):
    assert exact_contradiction(point, sentence) == found


BF16_PRECISION = (
    "BF16 has less precision than FP16, 7 mantissa bits against FP16's 10, because FP16 spends "
    "only 5 bits on its exponent."
)


@pytest.mark.parametrize(
    "sentence,found",
    [
        # Trial G: a complete right answer scored 1, its "more stable" read against the
        # point's "less precision", though the sentence names precision apart.
        (
            "The price is precision: BF16 has only 7 mantissa bits versus FP16's 10, but "
            "training tolerates that well, so BF16 is simpler and more stable.",
            None,
        ),
        # The point's own thing turned round, or another word for it, is still wrong.
        ("BF16 has more precision than FP16.", "exact:comparative"),
        ("BF16 is more precise than FP16, so it is more stable.", "exact:comparative"),
    ],
)
def test_a_comparative_about_another_thing_than_the_one_the_sentence_names(sentence, found):
    assert exact_contradiction(BF16_PRECISION, sentence) == found


ROOF = (
    "The vertical gap between your kernel's point and the roof above it shows how much headroom "
    "remains and which roof you are chasing."
)
SPILLS = (
    "Raising occupancy by cutting registers or shared memory per thread can force register "
    "spills to local memory and reduce data reuse, making the kernel slower."
)


@pytest.mark.parametrize(
    "point,sentence,found",
    [
        # Right answers of a fresh set (stop 46) told they were wrong: the roof's converse, and
        # the condition turned round with the comparative.
        (ROOF, "How far the dot sits below the roof shows how much room is left.", None),
        (
            SPILLS,
            "Often a kernel is faster at lower occupancy because each thread uses more registers "
            "or shared memory to reuse data.",
            None,
        ),
        # ... while the comparative turned round alone is still wrong.
        (
            SPILLS,
            "Raising occupancy by cutting registers makes the kernel faster.",
            "exact:comparative",
        ),
        (
            "HBM has higher bandwidth than GDDR.",
            "HBM has lower bandwidth than GDDR.",
            "exact:comparative",
        ),
    ],
)
def test_a_converse_or_a_turned_condition_says_the_same(point, sentence, found):
    assert exact_contradiction(point, sentence) == found


FP8_FORMATS = "There are two FP8 formats, E4M3 with more precision and E5M2 with more range."


@pytest.mark.parametrize(
    "answer,found",
    [
        (
            "On Hopper you get two FP8 flavours: E4M3 has the wider range and E5M2 the extra "
            "precision. You still need scaling factors.",
            "exact:swapped",
        ),
        ("E4M3 has more precision and less range; E5M2 has more range and less precision.", None),
        ("E4M3 keeps 3 mantissa bits for precision, E5M2 5 exponent bits for range.", None),
    ],
)
def test_two_named_things_that_trade_properties_are_swapped(answer, found):
    assert swapped_binding(FP8_FORMATS, answer) == found


CUDA_CORE = "A CUDA core is a general-purpose scalar ALU that executes one operation per clock."


@pytest.mark.parametrize(
    "answer,found",
    [
        # The swap spans two sentences: each alone says nothing wrong about its subject.
        (
            "Tensor Cores are the general-purpose units: each one handles a single thread's "
            "scalar operation per clock. CUDA cores are the specialized ones that perform a "
            "whole matrix multiply-accumulate per instruction.",
            "exact:swapped",
        ),
        (
            "CUDA cores are general-purpose scalar ALUs, one operation per clock. Tensor Cores "
            "do a whole matrix multiply-accumulate per instruction.",
            None,
        ),
    ],
)
def test_roles_swapped_across_sentences_between_things_of_one_kind(answer, found):
    assert swapped_kinds(CUDA_CORE, answer) == found


def test_a_list_of_headings_is_not_a_set_of_subjects():
    """A correct, list-like answer (blind set, dev) had "Hardware: more NICs, ..." read as
    another subject doing what the point says NCCL tuning does."""
    point = (
        "NCCL tuning covers the algorithm (ring or tree), protocol, channel count, NIC "
        "selection and in-network reduction with SHARP, while hardware upgrades such as one "
        "400 Gb/s NIC per GPU, a non-blocking fat-tree or larger NVLink domains cost money."
    )
    answer = (
        "Topology-aware placement keeps jobs under one leaf switch. NCCL: confirm IB and "
        "GPUDirect RDMA are used, tune algorithm and channels. Hardware: more NICs, faster IB, "
        "non-blocking fabric, costly but no accuracy risk."
    )
    assert swapped_roles(point, answer) == "exact:swapped"  # what the unguarded check said
    assert swapped_kinds(point, answer) is None
    assert swapped_binding(point, answer) is None


@pytest.mark.parametrize(
    "sentence,found",
    [
        (
            "Tensor Cores are the general-purpose scalar units and CUDA cores are the matrix "
            "units for FP16.",
            "exact:swapped",
        ),
        (
            "CUDA cores are general-purpose scalar ALUs and Tensor Cores do the matrix math.",
            None,
        ),
    ],
)
def test_swapped_roles_read_a_bare_and_before_a_named_thing(sentence, found):
    point = "A CUDA core is a general-purpose scalar ALU that executes one operation per clock."
    assert swapped_roles(point, sentence) == found


def test_a_clause_that_points_back_is_not_another_entity():
    """A correct answer scored 1 (in-domain test, pinned memory): "That gives faster
    transfers" was read as another entity doing what the point says pinned memory does."""
    point = (
        "Pinned memory makes host-device copies faster and, crucially, lets them be truly "
        "asynchronous so they overlap with compute."
    )
    answer = (
        "Pinned memory is host memory the OS cannot page out. That gives faster host-to-device "
        "transfers and is required for truly asynchronous copies that overlap with compute."
    )
    assert swapped_roles(point, answer) is None
    assert swapped_roles(point, answer.replace("That gives", "Pageable memory gives")) == (
        "exact:swapped"
    )


def test_the_model_contradicts_only_what_it_finds_contradictory_both_ways(embedder):
    """With the shipped NLI model: a sentence that says less than the point (it reads as a
    contradiction one way only) is not a wrong claim; a real denial is."""
    from interviewer.checker import Case, check_many
    from interviewer.nli import default_nli

    point = Claim(
        "where",
        "At batch 1 the time goes to kernel-launch overhead and memory traffic, not compute.",
        weight=2.0,
    )
    checkpoint = Claim(
        "name",
        "Despite the name, gradient checkpointing has nothing to do with saving model "
        "checkpoints to disk.",
        weight=2.0,
    )

    def case(claim, sentence):
        vecs = embedder.embed([sentence, claim.text])
        return Case((sentence,), vecs[:1], (claim,), vecs[1:])

    shortfall, denial = check_many(
        [
            case(point, "The time goes to kernel-launch overhead and to streaming the weights."),
            case(checkpoint, "It's saving model checkpoints to disk every few steps."),
        ],
        default_nli(),
    )
    assert shortfall.points[0].verdict != "contradicted"
    assert denial.points[0].verdict == "contradicted"


def test_a_premise_reads_the_same_with_or_without_its_full_stop():
    """The model learnt from premises that end in a full stop: a transcript typed without one
    read "... you save bandwidth and launch overhead" as stating launch overhead at 0.36, and
    the same words with a full stop at 0.57, so cutting a padding sentence off its end (which
    leaves the stop behind) moved the verdict. Each premise and claim is now read as a sentence."""
    from interviewer.nli import default_nli

    said = "fused ops keep the intermediates in registers so you save bandwidth and launch overhead"
    point = "Fusion also cuts kernel-launch overhead because fewer kernels are launched."
    bare, ended = default_nli().probabilities([(said, point), (said + ".", point)])
    assert bare.tolist() == ended.tolist()


@pytest.mark.parametrize(
    "point,sentence,visible",
    [
        # The same quantity's change decides, not the first change word: "lower occupancy
        # with more registers" agrees with "the more registers ..., the fewer warps fit"
        # (a right answer in the app scored 1 on this).
        (
            "Occupancy is bounded by registers per thread, so the more registers each thread "
            "uses, the fewer warps fit.",
            "Sometimes lower occupancy with more registers per thread runs faster.",
            False,
        ),
        (
            "Occupancy is bounded by registers per thread, so the more registers each thread "
            "uses, the fewer warps fit.",
            "Using fewer registers per thread means fewer warps fit, and lower occupancy.",
            True,
        ),
        # One side denies what the other asserts.
        (
            "Despite the name, it has nothing to do with saving model checkpoints to disk.",
            "It's saving model checkpoints to disk every few steps.",
            True,
        ),
        # The same thing moved opposite ways.
        (
            "The bubble is reduced by using many micro-batches.",
            "The bubble grows as you add micro-batches.",
            True,
        ),
        # Units are read: 900 GB/s is another number, 3350 GB/s the same one.
        ("HBM3 on an H100 gives 3.35 TB/s.", "HBM3 on an H100 gives 900 GB/s.", True),
        ("HBM3 on an H100 gives 3.35 TB/s.", "HBM3 on an H100 gives 3350 GB/s.", False),
        ("HBM3 on an H100 gives 3.35 TB/s.", "HBM3 on an H100 gives 2 TB/s.", True),
        # A contrast the other side never takes up ("not the individual thread").
        (
            "The warp, not the individual thread, is the real unit that the SM schedules.",
            "Per warp: the scheduler issues one instruction for a whole warp of 32 threads.",
            False,
        ),
        # Both sides deny the same thing, in other words.
        (
            "Flash Attention computes attention in tiles so the N×N matrix is never materialized.",
            "FlashAttention is linear in memory instead of materializing the score matrix.",
            False,
        ),
        (
            "BF16 has the same exponent range as FP32, so it usually needs no loss scaling.",
            "BF16 keeps the exponent of FP32, so you skip the loss scaler.",
            False,
        ),
    ],
)
def test_the_model_may_contradict_only_where_the_texts_visibly_disagree(point, sentence, visible):
    assert disagree(point, sentence) is visible


def test_correct_replies_the_model_misreads_as_denials_are_not_wrong_claims(embedder):
    """The shipped NLI model reads both of these as contradictions, both ways (P >= 0.68);
    nothing in the texts disagrees, so neither is a wrong claim."""
    from interviewer.checker import Case, check_many
    from interviewer.nli import default_nli

    pairs = [
        (
            "The warp, not the individual thread, is the real unit that the SM schedules and "
            "issues instructions for.",
            "Per warp: the warp scheduler issues one instruction for a whole warp of 32 threads "
            "at a time.",
        ),
        (
            "Flash Attention computes attention in tiles so the full N×N score matrix is never "
            "materialized.",
            "Use FlashAttention so attention memory is linear in sequence length instead of "
            "materializing the quadratic score matrix.",
        ),
    ]
    cases = []
    for point, sentence in pairs:
        vecs = embedder.embed([sentence, point])
        cases.append(Case((sentence,), vecs[:1], (Claim("p", point, weight=2.0),), vecs[1:]))
    assert all(v.points[0].verdict != "contradicted" for v in check_many(cases, default_nli()))


def test_a_terse_reply_is_read_after_the_follow_up_question(embedder):
    """Read after the question it answers, "Warps of 32 threads, not single threads." covers
    the point (the checker of 2026-11-24 did not read it so alone; the retrained one does); a
    wrong reply read the same way still covers nothing."""
    from interviewer.checker import Case, check_many
    from interviewer.nli import default_nli

    point = Claim(
        "unit",
        "The warp, not the individual thread, is the real unit that the SM schedules and "
        "issues instructions for.",
        weight=2.0,
    )
    probe = "Does the SM schedule individual threads, or something larger?"

    def case(reply, context):
        vecs = embedder.embed([reply, point.text])
        return Case((reply,), vecs[:1], (point,), vecs[1:], context=context)

    right, wrong = "Warps of 32 threads, not single threads.", "Single threads, one at a time."
    alone, after, after_wrong = check_many(
        [case(right, None), case(right, (probe, right)), case(wrong, (probe, wrong))],
        default_nli(),
    )
    assert alone.points[0].verdict != "contradicted"  # a right reply is never called wrong
    assert after.points[0].verdict == "covered" and after.points[0].evidence == right
    assert after_wrong.points[0].verdict != "covered"


def test_a_two_word_fragment_of_a_longer_answer_states_no_misconception(built_index):
    """The rubric's own model answer for kernel profiling lists "... and Tensor-Core
    utilization." The segmenter splits that off, and the NLI model read the two words as
    stating "If a kernel is memory-bound, the fix is to make it use Tensor Cores more": the
    expert answer scored 1. A fragment that short asserts nothing the model alone may call
    wrong (a two-word answer on its own still may)."""
    from interviewer.grader import make_grader
    from interviewer.references import gather

    settings, index = built_index
    q = next(q for q in index.bank.technical() if q.text == "How do you profile a slow kernel?")
    refs = gather(q.text, index, settings, question_id=q.id)
    grade = make_grader("offline", settings, index=index).grade_many(
        [(q.text, refs.rubric.model_answer, refs)]
    )[0]
    assert grade.wrong_claims == () and grade.score >= 4


def test_an_answer_that_swaps_two_things_across_sentences_is_wrong(bank_grader):
    """Blind set, dev split: this inverted answer scored 3, with both definitions it swaps
    listed as covered. Roles are now read across the whole answer."""
    grade_pair = bank_grader("What is a CUDA core vs a Tensor Core?")
    inverted = (
        "Tensor Cores are the general-purpose units: each one handles a single thread's scalar "
        "FP32 or INT operation per clock and can run arbitrary branchy code. CUDA cores are the "
        "specialized ones that perform a whole small matrix multiply-accumulate per instruction "
        "in FP16 or BF16, and they supply most of a modern GPU's deep-learning FLOPs."
    )
    right = (
        "CUDA cores are general-purpose scalar ALUs, one FP32 or INT operation per clock. Tensor "
        "Cores are specialized units that do a whole small matrix multiply-accumulate per "
        "instruction in FP16 or BF16, so they supply most of the deep-learning FLOPs."
    )
    wrong, ok = grade_pair(inverted, right)
    assert wrong.score <= 1 and wrong.wrong_claims
    assert not any("CUDA core is a general-purpose" in c for c in wrong.covered)
    assert ok.wrong_claims == () and ok.score >= 3


def test_a_misconception_in_the_candidates_own_words_is_named(bank_grader):
    """Blind set, dev split: this answer states the rubric's "ZeRO-3 only shards the optimizer
    states while the parameters stay replicated on every GPU" in other words and scored 2 with
    nothing wrong listed: the checker had only ever seen a misconception entail itself. Stage 2
    now trains on each misconception's paraphrases."""
    grade_pair = bank_grader("What is DeepSpeed ZeRO-3?")
    wrong = (
        "ZeRO-3 is the lightest of the ZeRO stages: it only shards the optimizer states and "
        "keeps parameters and gradients fully replicated."
    )
    right = (
        "ZeRO-3 shards everything, parameters, gradients and optimizer states, across the "
        "data-parallel GPUs, so each holds about one Nth, and it all-gathers each layer's "
        "parameters just before using them."
    )
    bad, good = grade_pair(wrong, right)
    assert bad.score <= 1
    assert any(c.misconception.startswith("ZeRO-3 only shards") for c in bad.claims)
    assert good.wrong_claims == () and good.score >= 3


def test_a_misconception_the_model_cannot_tell_from_its_point_needs_the_nearer_sentence(
    bank_grader,
):
    """A browser trial (stop 36): this right answer scored 1 with "A 1B-parameter model needs
    tensor and pipeline parallelism" named as what it said. The model reads the key point
    itself ("... plain data parallelism ... with no tensor or pipeline parallelism") as
    entailing that misconception at 0.90; such a misconception is now stated only by a
    sentence at least as near its texts as the point's."""
    grade_pair = bank_grader(
        "Architect a distributed training system to run a single 1B-parameter transformer on "
        "1024 GPUs across multiple racks and finish within 24 hours. Requirements include "
        "efficient inter-GPU communication, spot-instance friendliness, checkpoint/resume, "
        "multi-tenant scheduler, and cost tracking. Describe compute topology, communication "
        "strategy, checkpoint staging, scheduler behavior, and cost-accounting approaches.",
    )
    (right,) = grade_pair(
        "A 1B-parameter model fits comfortably on one GPU, so I'd use plain data parallelism "
        "(DDP) across all 1024 GPUs, 8 GPUs per node over NVLink and InfiniBand between nodes, "
        "with NCCL all-reduce of gradients overlapped with backward."
    )
    assert right.wrong_claims == ()
    assert any(c.point_id == "sizing" and c.verdict == "covered" for c in right.claims)


def test_a_trade_turned_round_is_wrong_however_sure_the_model_is(bank_grader):
    """Blind set, dev split: the model entailed "trades compute for memory" from "trades memory
    for compute" at 0.91, and a sure entailment overruled the exact check, so this inverted
    answer scored 3 with the point covered. Two things turned round inside one clause now
    stand against the model; the sentence that turns them is the one quoted."""
    grade_pair = bank_grader("What is gradient checkpointing?")
    inverted = (
        "It trades memory for compute: you store extra copies of the activations at every "
        "layer so the backward pass never has to redo any forward work. That makes backward "
        "roughly 30% faster but pushes activation memory up, so you use it when you have spare "
        "GPU memory."
    )
    right = (
        "It trades compute for memory: you keep only some activations in the forward pass and "
        "recompute the rest during backward, so activation memory drops a lot for roughly a "
        "third more compute."
    )
    wrong, ok = grade_pair(inverted, right)
    assert wrong.score <= 1
    assert any(c.startswith('"It trades memory for compute') for c in wrong.wrong_claims)
    assert not any(c.startswith("It trades compute for memory") for c in wrong.covered)
    assert ok.wrong_claims == () and ok.score >= 3


BF16_RANGE = "BF16 keeps FP32's 8 exponent bits, so it has the same dynamic range as FP32."


@pytest.mark.parametrize(
    "answer,found",
    [
        # The formats turned round (blind set, dev): the model read it as the point at 0.79.
        (
            "FP16 is the one with the wide range, it has 8 exponent bits like FP32, while BF16 "
            "only gets 5 exponent bits but 10 bits of mantissa.",
            "exact:number",
        ),
        ("BF16 has a 5-bit exponent, so it overflows like FP16.", "exact:number"),
        # Right: each count is its own format's ("it" points back to FP16; "like FP32").
        (
            "FP16 is 5 exponent and 10 mantissa bits: a narrow range. BF16 is 8 exponent bits "
            "like FP32 and 7 mantissa bits: coarser, but the same range as FP32.",
            None,
        ),
        ("BF16 has an 8-bit exponent and a 7-bit mantissa; FP16 has 5 exponent bits.", None),
        ("FP16 has 5 exponent bits; it overflows where BF16 does not.", None),
    ],
)
def test_a_count_given_to_the_wrong_format_is_a_wrong_number(answer, found):
    assert bound_number(BF16_RANGE, answer) == found


@pytest.mark.parametrize(
    "text,said",
    [
        ("No, because a GPU runs one context at a time.", "no"),
        ("Yes: MIG splits an A100 into up to seven instances.", "yes"),
        ("Um, no because the links are too slow.", "no"),
        ("I agree, it is memory-bound.", "agree"),
        ("B. because it has the higher bandwidth", "B"),
        ("c)", "C"),
        ("Yes and no, it depends on the kernel.", ""),  # no verdict given
        ("A warp is 32 threads.", ""),  # an article, not option A
        ("No single GPU can hold the model.", ""),
    ],
)
def test_the_verdict_an_answer_opens_with(text, said):
    assert opening(text) == said


MIG_REFERENCE = (
    "Yes, MIG splits an A100 into up to seven isolated instances, each with its own memory "
    "and compute, so two models can run side by side."
)


def test_a_closed_question_answered_the_other_way_is_wrong_on_its_core_claim(embedder):
    """SciEntsBank's train part: of the answers that open with the other verdict than their
    reference (64), every one is labelled contradictory; they had scored as missing content."""
    from interviewer.grader import make_grader
    from interviewer.references import gather

    settings = Settings()
    question = "Can two different models run on one A100 at the same time, isolated?"
    refs = gather(question, None, settings, MIG_REFERENCE)
    grader = make_grader("offline", settings, embedder=embedder)
    wrong, right, hedged = grader.grade_many(
        [
            (question, a, refs)
            for a in (
                "No, because the GPU can only run one CUDA context with its own memory at once.",
                "Yes, with MIG you split the A100 into isolated instances with their own memory.",
                "Yes and no: MPS shares the GPU but gives no memory isolation.",
            )
        ]
    )
    assert wrong.score <= 1
    assert wrong.wrong_claims[0].startswith('"No, because the GPU')
    assert [c.weight for c in wrong.claims if c.verdict == "contradicted"] == ["core"]
    assert right.wrong_claims == () and right.score >= 3
    assert hedged.wrong_claims == ()
    # A bare "No." is no sentence of its own: the point it opened is shown with it.
    question = "Does a larger batch always cut the time to converge?"
    refs = gather(
        question,
        None,
        settings,
        "No. Past the critical batch size, more samples per step stop cutting the steps needed.",
    )
    (turned,) = grader.grade_many([(question, "Yes, more samples always mean fewer steps.", refs)])
    assert turned.score <= 1
    assert turned.wrong_claims[0].endswith(
        "contradicts: No. Past the critical batch size, more "
        "samples per step stop cutting the steps needed."
    )


def test_a_list_is_not_a_relation():
    """ "such as" relates nothing: a point listing small and large things keeps the plain
    comparative reading (five rubric points read as relations through a bare "as")."""
    from interviewer.relations import relation_sign

    assert relation_sign("Spot fits restartable work such as small and medium runs.", True) == 0
    assert (
        relation_sign("As the batch gets larger, the overhead per sample gets smaller.", True) == -1
    )


def test_a_relation_lives_in_one_sentence():
    """Two graded words in two sentences relate nothing: "More warps hide latency. Higher is not
    always better." was read as "the more, the higher" against the point's "the more registers,
    the fewer warps fit", and a right answer lost its point."""
    from interviewer.relations import relation_sign

    assert relation_sign("More warps hide latency. Higher is not always better.") == 0
    assert relation_sign("A longer string gives a lower pitch. That is all.") == -1
    point = (
        "Occupancy is bounded by registers per thread, shared memory per block, and block size, "
        "so the more registers or shared memory each thread or block uses, the fewer warps fit."
    )
    assert (
        exact_contradiction(point, "More warps hide latency. Higher is not always better.") is None
    )
    assert exact_contradiction(point, "The more registers each thread uses, the more warps fit.")


WARPS = "More resident warps let the scheduler switch to ready warps, which hides latency."
MORE_REGISTERS = "Giving each thread more registers raises occupancy."


def test_two_comparatives_before_a_noun_both_qualify_it():
    """ "fewer, larger micro-batches" makes micro-batches fewer: a sentence that says to use as
    few as possible moves them the same way (fresh set, stop 46: the misconception was set
    aside as said the opposite way)."""
    from interviewer.relations import moves, opposed

    wrong = "Using fewer, larger micro-batches reduces the bubble."
    said = "Use as few micro-batches as possible, since deeper pipelines have smaller bubbles."
    assert moves(wrong)[0] == ("down", "micro-batches")
    assert not opposed(wrong, said)
    assert opposed(wrong, "Using more micro-batches reduces the bubble.")
    # A change verb with no object changes its subject (in-domain dev: "The bubble grows as you
    # add more micro-batches" states the misconception, not its opposite).
    grows = "The bubble grows as you add more micro-batches, so use as few as possible."
    assert moves(grows)[0] == ("up", "bubble")
    assert not opposed(wrong, grows)


def test_opposite_words_about_another_thing_are_no_contradiction():
    """Found in the app: a right occupancy answer scored 1. "The fewer registers each thread
    uses, the more warps fit" says "more warps" as the point does; its "fewer" is about
    registers. And "lower occupancy with more registers" states the opposite of the
    misconception "more registers raise occupancy", not the misconception."""
    from interviewer.relations import opposed

    fewer_registers = (
        "It is limited by registers: the fewer registers each thread uses, the more warps fit."
    )
    assert exact_contradiction(WARPS, fewer_registers) is None
    assert exact_contradiction(WARPS, "Fewer resident warps hide latency better.") == (
        "exact:comparative"
    )
    assert opposed(MORE_REGISTERS, "Sometimes lower occupancy with more registers runs faster.")
    assert not opposed(MORE_REGISTERS, "More registers per thread means higher occupancy.")
    assert not opposed(MORE_REGISTERS, "Fewer registers give lower occupancy.")


def test_a_right_occupancy_answer_is_not_called_wrong(bank_grader):
    """Tried in the app: this right answer scored 1/5, with two wrong claims (its "fewer
    registers" read against "more resident warps", and "lower occupancy with more registers"
    read as the misconception that more registers raise occupancy)."""
    grade_pair = bank_grader("What is occupancy and is higher always better?")
    right, wrong = grade_pair(
        "Occupancy is active warps on an SM over the most it can hold. Higher is not always "
        "better: once there are enough warps to hide latency, or HBM bandwidth is saturated, "
        "more warps add nothing. It is limited by registers and shared memory: the fewer "
        "registers each thread uses, the more warps fit, and sometimes lower occupancy with "
        "more registers per thread runs faster.",
        "Occupancy is active warps on an SM over the most it can hold. Fewer resident warps "
        "hide latency better, so you want occupancy as low as possible, and giving each thread "
        "more registers raises occupancy.",
    )
    assert right.wrong_claims == () and right.score >= 3
    assert wrong.score <= 1 and wrong.wrong_claims


def test_an_answer_that_gets_the_questions_point_wrong_is_not_off_topic(bank_grader):
    """A browser trial (stop 37): this misconception, given to the out-of-memory question, was
    flagged as answering another bank question (gradient checkpointing's), so it scored 0 with
    nothing wrong named. Getting one of the question's points wrong is about the question."""
    grade = bank_grader(
        "You hit CUDA out-of-memory. Walk through how you'd reduce memory without changing the "
        "model.",
    )
    (wrong,) = grade("Activation checkpointing saves memory at no extra compute cost.")
    assert "off_topic" not in wrong.flags and wrong.score <= 1
    assert any(c.point_id == "checkpointing" and c.misconception for c in wrong.claims)
    assert any("no extra compute cost" in w for w in wrong.wrong_claims)


def test_a_thousands_separator_is_part_of_the_number():
    """ "1,024 threads" was read as 24 threads: a right answer contradicted a 1024 point."""
    from interviewer.quantities import quantities

    assert quantities("up to 1,024 threads") == {("thread", 1024.0)}
    assert (
        exact_contradiction("A block has at most 1024 threads.", "A block holds 1,024 threads.")
        is None
    )
    assert quantities("roughly 23,300 H100-hours, about 15 days") == {
        ("gpu-hours", 23300.0),
        ("s", 15 * 86400.0),
    }
    assert (
        exact_contradiction(
            "Training takes roughly 23,300 H100-hours.", "Training takes roughly 23 GPU-hours."
        )
        == "exact:number"
    )


def test_the_second_of_two_ordered_events_and_a_word_denied_of_another_thing_agree():
    """Right sentences read as contradictions on the fresh set (stop 47): "freed after use"
    against a point that gathers parameters "just before they are used" and frees them
    "afterwards"; "needs dynamic loss scaling" of FP16 against a point that gives FP16 dynamic
    loss scaling and says BF16 "needs no loss scaling"."""
    zero3 = (
        "ZeRO-3 all-gathers each layer's parameters on demand just before they are used in the "
        "forward and backward passes and frees them afterwards."
    )
    right = "Parameters are all-gathered per layer just in time (prefetched, freed after use)."
    assert exact_contradiction(zero3, right) is None
    wrong = "ZeRO-3 all-gathers each layer's parameters after they are used in the backward pass."
    assert exact_contradiction(zero3, wrong) == "exact:comparative"
    fp16 = (
        "FP16 has a narrow range so small gradients underflow, which dynamic loss scaling "
        "handles by multiplying the loss; BF16 keeps FP32's exponent range and usually needs no "
        "loss scaling."
    )
    said = "FP16: narrow exponent, so gradients underflow and it needs dynamic loss scaling."
    assert exact_contradiction(fp16, said) is None
    # Denied and not asserted elsewhere, still a contradiction.
    assert (
        exact_contradiction(
            "Shared memory is not slower than global memory; it sits on the chip.",
            "Shared memory is slower than global memory because it sits on the chip.",
        )
        == "exact:negation"
    )


def test_the_other_side_of_a_contrast_said_of_its_own_thing_agrees():
    """Negation set 2 dev: "High intensity, compute-bound." was read as contradicting a point
    that says exactly that in its second clause (its first says "memory-bound" of low
    intensity); a right spoken answer scored 1."""
    roofline = (
        "Low arithmetic intensity makes a kernel memory-bound, finishing the math before the "
        "data arrives, while high intensity makes it compute-bound with the ALUs saturated."
    )
    assert exact_contradiction(roofline, "High intensity, compute-bound.") is None
    assert exact_contradiction(roofline, "With high intensity it is compute-bound.") is None
    # Said of the other side, still a contradiction.
    wrong = "Low intensity makes it compute-bound."
    assert exact_contradiction(roofline, wrong) == "exact:comparative"


def test_against_a_rows_own_reference_only_a_wrong_number_is_read_as_a_sure_contradiction(
    embedder,
):
    """A row's own reference is prose the structural checks misread (SAF's train part: of 25
    answers they found wrong, humans gave 22 more than half marks); a wrong number stands."""
    from interviewer.grader import make_grader
    from interviewer.references import gather

    settings = Settings()
    grader = make_grader("offline", settings, embedder=embedder)
    question = "What happens to the collision domain diameter if the network speed rises 10x?"
    refs = gather(
        question, None, settings, "Diameter decreases by a factor of 10, e.g 300m to 30m."
    )
    (right,) = grader.grade_many(
        [
            (
                question,
                "If the speed of the network increases by a factor of 10 the collision domain "
                "diameter shrinks by a factor of 10.",
                refs,
            )
        ]
    )
    assert right.wrong_claims == ()
    question = "How much NVLink bandwidth does an H100 SXM have?"
    refs = gather(question, None, settings, "An H100 SXM has 900 GB/s of NVLink bandwidth per GPU.")
    (wrong,) = grader.grade_many(
        [(question, "An H100 SXM has 300 GB/s of NVLink bandwidth per GPU.", refs)]
    )
    assert wrong.score <= 1
    assert wrong.wrong_claims[0].startswith('"An H100 SXM has 300 GB/s')
