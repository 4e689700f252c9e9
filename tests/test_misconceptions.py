"""Misconceptions stated in the rubric's own words (stop 55): a sentence that echoes one is
stated whatever the NLI model reads, an acronym counts however it is written, and a belief
reported as someone else's is not the candidate's. Answers graded on the bank with them are in
`test_negation.py`."""

from interviewer.acronyms import contracted
from interviewer.claims import Claim, Wrong
from interviewer.polarity import attributed
from interviewer.stated import _says_what_it_adds


def test_an_acronym_spelled_out_is_the_acronym():
    assert contracted("TPUs have no high-bandwidth memory at all", ["TPUs use HBM."]) == (
        "TPUs have no HBM at all"
    )
    assert contracted("post-training quantization is cheap", ["PTQ is cheap"]) == "PTQ is cheap"
    # Only the others' acronyms, and three letters at least: "to process" is no "TP".
    assert contracted("the model is big", ["TPUs use HBM."]) == "the model is big"
    assert contracted("hand it to process zero", ["TP shards layers"]) == (
        "hand it to process zero"
    )


def test_a_belief_reported_or_named_a_mistake_is_attributed():
    assert attributed("People think MIG is time-slicing, but that's wrong.")
    assert attributed("It's a common myth that MIG time-shares the GPU.")
    assert attributed("Many engineers assume NVLink is just faster PCIe.")
    assert not attributed("I think MIG is software time-slicing.")
    assert not attributed("MIG is software time-slicing.")
    assert not attributed("Contrary to popular belief, each GPU core is faster than a CPU core.")
    # Not where the claim itself says so.
    assert not attributed("Loss scaling is a myth.", "Loss scaling is a myth.")


def test_what_a_misconception_adds_is_read_in_any_spelling_and_either_half():
    q = "Compare GPUs and TPUs for training."
    hbm = Claim("memory", "Both use HBM, but TPUs scale through inter-chip links.")
    no_hbm = Wrong("TPUs have no HBM; weights live solely in on-chip SRAM.", "memory")
    assert _says_what_it_adds(no_hbm, hbm, "TPUs have no high-bandwidth memory at all.", q)
    assert not _says_what_it_adds(no_hbm, hbm, "TPUs have lots of high-bandwidth memory.", q)
    # What it is about, in the premise's other half.
    q2 = "What is kernel fusion and why does it help?"
    trips = Claim("trips", "The main benefit is cutting memory round-trips over the data.")
    compute = Wrong(
        "Fusion helps compute-bound matmuls the most, while memory-bound elementwise ops gain "
        "little.",
        "trips",
    )
    premise = "Fusion helps compute-bound GEMMs most; memory-bound ops don't benefit."
    first = "Fusion helps compute-bound GEMMs most"
    assert _says_what_it_adds(compute, trips, premise, q2, first)
    # Or its subject, which the question names, opens both.
    q3 = "What is the difference between QAT and PTQ?"
    ptq = Claim("ptq", "Post-training quantization quantizes an already-trained model.")
    retrain = Wrong("PTQ requires retraining the model on the full training set.", "ptq")
    assert _says_what_it_adds(retrain, ptq, "PTQ needs full retraining but is accurate.", q3)
    assert not _says_what_it_adds(retrain, ptq, "QAT needs full retraining.", q3)


def test_a_count_the_question_gives_states_no_misconception():
    """Negation set 2 dev: a right answer read as stating a misconception through "eight"."""
    q = "Training scales from 1->8 GPUs but you only get ~3x speedup. Diagnose."
    point = Claim("link", "PCIe is far slower than NVLink for all-reduce.")
    same = Wrong(
        "Eight GPUs on PCIe all-reduce about as fast as eight GPUs on NVLink, so the "
        "interconnect doesn't matter.",
        "link",
    )
    eating = "Three x on eight GPUs, that's communication, the all-reduce is eating it."
    assert not _says_what_it_adds(same, point, eating, q)
    mig = Claim("what", "MIG partitions an A100 or H100 into up to 7 isolated instances.")
    sixteen = Wrong("MIG can split an A100 into as many as 16 instances.", "what")
    assert _says_what_it_adds(sixteen, mig, "On an A100 you can go up to 16 instances.", "MIG?")


def test_a_denial_through_a_pronoun_is_quoted_where_it_is_said(bank_grader):
    """The card quoted the true clause before it ("MIG splits an A100 or H100 into up to seven
    instances") as the wrong claim."""
    answer = (
        "MIG splits an A100 or H100 into up to seven instances, but they aren't isolated in "
        "hardware; it's basically scheduled time-slicing."
    )
    graded = bank_grader("What is MIG?")(answer)[0]
    quoted = [c.evidence for c in graded.claims if c.verdict == "contradicted"]
    assert quoted and all("isolated" in q or "time-slicing" in q for q in quoted)


def test_a_misconception_stated_across_one_sentences_clauses_holds_beside_more_sentences(
    bank_grader,
):
    """The inverted fusion answer states its misconception only read whole: its clauses apart
    do not. Read as the whole answer it scored 0; with any sentence beside it the whole no
    longer read that way (1-2, nothing wrong named). Each sentence cut into clauses is now also
    read whole, however many sentences the answer has."""
    inverted = (
        "Fusion helps compute-bound GEMMs most, because it adds more FLOPs per byte; "
        "memory-bound ops don't benefit much."
    )
    more = [
        " Frameworks such as PyTorch fuse operators automatically with torch.compile.",
        " A fused kernel also launches once instead of several times.",
    ]
    graded = bank_grader("What is kernel fusion and why does it help?")(
        inverted, *(inverted + m for m in more)
    )
    for got in graded:
        assert got.score <= 1
        assert any("compute-bound GEMMs" in w for w in got.wrong_claims)


def test_a_denied_verb_denies_its_manner_too(bank_grader):
    """Negation set 2 dev (negation2-0150): "Different addresses in the same bank from one
    warp don't proceed in parallel; they serialize." was read as stating "Conflicting accesses
    to one bank are handled in parallel at no extra cost" (0.93) and a right answer scored 1."""
    from interviewer.stated import _marked

    assert {"-proce", "-parall"} <= _marked("they don't proceed in parallel")
    assert "parall" in _marked("they don't wait, they proceed in parallel")
    right = (
        "Shared memory has 32 banks of 4-byte words, each serving one access per cycle. "
        "Different addresses in the same bank from one warp don't proceed in parallel; they "
        "serialize. Identical addresses aren't a conflict, since the word is broadcast."
    )
    (got,) = bank_grader("What are shared-memory bank conflicts?")(right)
    assert not got.wrong_claims
    assert got.score >= 3


def test_a_short_sentence_that_points_back_asserts_nothing_the_model_alone_may_call_wrong():
    """Negation set 2 dev: "BF16 doesn't need that." was read as stating that BF16 has more
    mantissa precision than FP16 (0.90). `asserts` reads only the answer's sentences."""
    from types import SimpleNamespace

    from interviewer.case import asserts

    answer = SimpleNamespace(
        sentences=["FP16 needs dynamic loss scaling.", "BF16 doesn't need that."]
    )
    assert asserts(answer, 0)  # type: ignore[arg-type]
    assert not asserts(answer, 1)  # type: ignore[arg-type]
    # A whole answer that short still may.
    assert asserts(SimpleNamespace(sentences=["BF16 doesn't need that."]), 0)  # type: ignore[arg-type]


def test_words_right_of_one_compared_thing_are_wrong_of_the_other():
    """ "One scalar multiply-add per clock" is right of a CUDA core, so it was taken as adding
    nothing to the Tensor-Core misconception: a Tensor Core said to do it went unnamed."""
    from interviewer.things import compared_apart

    q = "What is a CUDA core vs a Tensor Core?"
    cuda = "A CUDA core is a general-purpose scalar ALU that executes one operation per clock."
    wrong = "A Tensor Core does one scalar multiply-add per clock just like a CUDA core."
    assert compared_apart(cuda, wrong, q)
    assert not compared_apart("Tensor Cores work on reduced precision.", wrong, q)
    # Only between things the question names: a point that opens on a capitalised word is
    # not another thing ("Peak speed comes only when ...").
    assert not compared_apart("Peak speed comes only when shapes fit.", wrong, q)


def test_a_clause_whose_it_is_another_thing_covers_nothing_of_the_first(bank_grader):
    """Negation set 1 dev (a wrong answer, label 0, scored 2): the clause after the comma was
    read apart, its "it" bound to the CUDA core of the point it then covered; the Tensor-Core
    misconception it states went unnamed."""
    from interviewer.case import about_another_thing

    answer = (
        "Honestly a Tensor Core isn't really different from a CUDA core, it's still a single "
        "scalar fused multiply-add each clock, only in FP16."
    )
    part = "it's still a single scalar fused multiply-add each clock, only in FP16."
    q = "What is a CUDA core vs a Tensor Core?"
    assert about_another_thing(answer, part, "A CUDA core is a general-purpose scalar ALU.", q)
    assert not about_another_thing(answer, part, "A Tensor Core does a matrix multiply.", q)
    # Only between things the question names ("People" is not one; the "it" is MIG).
    mig = "People often think MIG is time-slicing, but it's hardware partitioning."
    assert not about_another_thing(
        mig, "it's hardware partitioning.", "MIG partitions the GPU.", "What is MIG?"
    )
    # The dev row itself (negation-0002). Reworded as above, the whole answer entails the
    # misconception at 0.78, under the 0.8 that states it, and still scores 2.
    dev_row = (
        "Honestly a Tensor Core doesn't do anything fundamentally different from a CUDA core, "
        "it's still one scalar fused multiply-add per clock, just in FP16 instead of FP32."
    )
    (got,) = bank_grader("What is a CUDA core vs a Tensor Core?")(dev_row)
    assert got.score <= 1 and got.wrong_claims
    cuda = next(c for c in got.claims if c.point.startswith("A CUDA core"))
    assert cuda.verdict != "covered"


WARP = "What is the cost of warp divergence and how do you mitigate it?"
VOLTA = (
    "Since Volta's independent thread scheduling, the divergent paths inside a warp execute "
    "simultaneously on separate lanes, so there's essentially no cost anymore on modern GPUs."
)


def test_a_misconception_said_in_one_of_its_paraphrases_words_is_asked_in_them(bank_grader):
    """Trial I: the Volta sentence was read against the misconception's own wording (entailed at
    0.67, below the bar) while its third paraphrase says the same in its words (0.85), and the
    confident wrong answer scored 2 with no wrong claim."""
    (wrong,) = bank_grader(WARP)(
        "Warp divergence is when different warps in the same block take different branches of "
        f"an if. {VOLTA} If you do see it, the fix is just to make the block bigger, like 1024 "
        "threads, so the scheduler can hide it."
    )
    assert wrong.score <= 1
    assert any(VOLTA[:60] in w for w in wrong.wrong_claims)


def test_a_change_said_of_another_thing_with_its_verb_left_out_is_denied():
    """Trial I: "the compute per GPU shrinks but that sync doesn't" was read as the misconception
    that the all-reduce share shrinks (0.83), a right answer named wrong and capped at 3."""
    from interviewer.disagreement import elided_denial

    wrong = (
        "Adding even more GPUs fixes communication-bound scaling, because each GPU's share of the "
        "gradient all-reduce shrinks."
    )
    question = "Adding GPUs raises cost but barely improves throughput. What's wrong?"
    assert elided_denial(
        wrong, "as you add GPUs the compute per GPU shrinks but that sync doesn't", question
    )
    assert elided_denial(wrong, "compute per GPU shrinks while the all-reduce does not.", question)
    # the misconception's own subject shrinking, the other one not: it is said
    assert not elided_denial(
        wrong, "each GPU's share of the all-reduce shrinks but the compute doesn't.", question
    )
    assert not elided_denial(wrong, "the all-reduce shrinks as you add GPUs.", question)


def test_the_right_scaling_answer_names_no_wrong_claim(bank_grader):
    (right,) = bank_grader("Adding GPUs raises cost but barely improves throughput. What's wrong?")(
        "The job has become communication-bound. Every step ends with a gradient all-reduce, and "
        "as you add GPUs the compute per GPU shrinks but that sync doesn't, so it ends up setting "
        "the step time."
    )
    assert right.wrong_claims == () and right.score >= 3


def test_a_number_said_of_formats_of_another_width_states_no_misconception_of_fp16():
    """Read on blind set 1's test split (so it is no longer held out for this): a right sizing
    answer's "INT8/FP8 is ~70 GB and fits one 80 GB card" was read, through a paraphrase, as
    "A 70B model in FP16 needs about 70 GB, so it fits on a single 80 GB GPU" (4 -> 1)."""
    from interviewer.stated import _other_formats

    wrong = "A 70B model in FP16 needs about 70 GB, so it fits on a single 80 GB GPU."
    assert _other_formats(wrong, "Quantized, INT8 or FP8 weights are ~70 GB and fit one card.")
    assert not _other_formats(wrong, "In BF16 it is about 70 GB.")  # the same width
    assert not _other_formats(wrong, "In half precision it is about 70 GB.")  # names none
    assert not _other_formats(wrong, "FP16 and INT8 weights both take about 70 GB.")


def test_the_right_sizing_answer_with_quantized_sizes_names_no_wrong_claim(bank_grader):
    """That answer (blind set 1, test split), as graded."""
    (right,) = bank_grader("Pick hardware to serve a 70B model. How do you size it?")(
        "Start from memory. 70B x 2 bytes in FP16/BF16 is about 140 GB of weights before KV "
        "cache, which grows with batch x context. So either 2x 80 GB H100/A100 with tensor "
        "parallel, or quantize: INT8/FP8 is ~70 GB and fits one 80 GB card, INT4 ~35 GB leaves "
        "room for KV. Size KV cache for target concurrency, use continuous batching with "
        "PagedAttention, then weigh accuracy, TP comms, latency SLA and budget."
    )
    assert right.wrong_claims == () and right.score >= 4
