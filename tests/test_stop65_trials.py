"""Stop 65's trials (175 written answers to 25 more bank questions in the batch CLI; three
mock interviews in the app): a right answer told it was wrong, wrong numbers, swaps and
clauses credited, and quotes that were not the candidate's words. Each check alone, then the
answer that found it, graded whole."""

import pytest

from interviewer.evidence import in_their_words
from interviewer.multiples import ratio_differs, ratios
from interviewer.numerals import in_digits
from interviewer.quantities import number_off, quantities
from interviewer.segmenter import segments

FP8 = "When and why would you use FP8?"
NVLINK = "What is NVLink and what bandwidth does it provide on H100?"
LINKS = "The H100's 900 GB/s comes from 18 NVLink links of about 50 GB/s each."


def test_a_ratio_of_one_quantity_is_no_ratio_of_another():
    said = "FP8 Tensor Cores run at about twice the BF16 throughput, and FP8 takes half the memory."
    assert ratios(said) == {("throug", 2.0), ("memory", 0.5)}
    same = "On an H100, FP8 matmuls run at about the same Tensor-Core throughput as BF16."
    assert ratio_differs(same, said)
    assert ratio_differs("FP8 uses about a quarter of the memory of FP16.", said)
    assert not ratio_differs(
        "FP8 uses about a quarter of the memory of FP16.", "A quarter of the memory."
    )
    assert not ratio_differs(same, "FP8 is faster.")  # no ratio said: the model decides


def test_twice_the_throughput_and_half_the_memory_is_right(bank_grader):
    """It was read as "about the same throughput" and "a quarter of the memory": a right
    sentence scored 0 and a complete spoken answer 1, each told a right claim was wrong."""
    written, spoken = bank_grader(FP8)(
        "On H100, FP8 Tensor Cores run at about twice the BF16 throughput, and FP8 takes half "
        "the memory of FP16.",
        "so fp8, you'd use it on hopper like h100 and newer cause the tensor cores do fp8 at "
        "about twice the bf16 throughput, and it's half the memory of fp16, so weights "
        "activations kv cache all shrink. there's two formats, e4m3 has more precision and e5m2 "
        "has more range. the catch is um the range is tiny so you need scaling factors, per "
        "tensor or finer, to keep values in range. and you'd use it for inference and more and "
        "more training, where the speed is worth the small accuracy hit, but you gotta validate "
        "on real tasks",
    )
    for g in (written, spoken):
        assert not g.wrong_claims, g.wrong_claims
        assert g.points("covered") >= {"throughput", "memory"}
    assert spoken.score >= 4


def test_a_count_of_links_is_a_number_to_check():
    assert ("link", 18.0) in quantities(LINKS)
    assert number_off(LINKS, "The H100's 900 GB/s comes from 12 NVLink links.")
    assert not number_off(LINKS, "It has eighteen NVLink links.")
    assert not number_off(LINKS, "The H100's 900 GB/s comes from 18 links.")


def test_a_wrong_count_beside_the_right_bandwidth_is_wrong(bank_grader):
    """The near-verbatim rule covered the 18-links point from "12 NVLink links": the right
    900 GB/s in the sentence had set the wrong count aside as a number of something else."""
    wrong, right = bank_grader(NVLINK)(
        "The H100's 900 GB/s comes from 12 NVLink links.",
        "The H100's 900 GB/s comes from 18 NVLink links.",
    )
    assert "links" in wrong.points("contradicted") and wrong.wrong_claims
    assert "links" in right.points("covered") and not right.wrong_claims


def test_a_clause_after_though_or_where_is_a_claim_of_its_own():
    assert segments("Warm up first, though with torch.compile no warm-up is needed.") == [
        "Warm up first",
        "with torch.compile no warm-up is needed.",
    ]
    assert len(segments("It's the standard, where a DGX H100 has a single NDR port.")) == 2
    assert segments("Use MIG where you need isolation.") == ["Use MIG where you need isolation."]


def test_a_wrong_clause_joined_to_a_right_one_is_caught(bank_grader):
    """Caught alone, each passed joined to a right clause, and covered the point instead."""
    (warmup,) = bank_grader("How do you correctly benchmark the runtime of a GPU operation?")(
        "Warm up first to get lazy initialization and cuDNN autotuning out of the way, though "
        "with torch.compile no warm-up is needed because compilation happens when the model is "
        "wrapped."
    )
    (ports,) = bank_grader("What is InfiniBand NDR bandwidth?")(
        "It's the standard for H100-era AI clusters, where a DGX H100 has a single 400 Gb/s NDR "
        "port that all eight GPUs share."
    )
    for g in (warmup, ports):
        assert g.wrong_claims and g.score <= 1 and not g.covered


@pytest.mark.parametrize(
    "said,digits",
    [
        ("one or two one twenty eight byte transactions", "one or 2 128 byte transactions"),
        ("four fifty an hour", "450 an hour"),
        ("two fifty six threads", "256 threads"),
        ("one two three four", "1 2 3 4"),
    ],
)
def test_two_digits_in_a_row_are_two_numbers(said, digits):
    assert in_digits(said) == digits


def test_a_quote_from_a_second_reading_is_in_the_candidates_words(bank_grader):
    """The padding pass reads an answer again from its normalised text: its quotes gave "450 an
    hour" for "four fifty an hour" and "64 cards" for "sixty-four cards"."""
    answer = (
        "okay so the rule of thumb is six times parameters times tokens for training flops so "
        "six times seven billion times a trillion, that's uh four point two times ten to the "
        "twenty two, forty two zettaflops. an h100 in practice sustains like five hundred "
        "teraflops, about half of peak. so you divide, that's eight point four times ten to the "
        "seven gpu seconds which is um around twenty three thousand gpu hours. at like four "
        "fifty an hour that's about a hundred and five k, at spot a dollar fifty more like "
        "thirty five k. and on sixty four gpus it's about fifteen days"
    )
    (g,) = bank_grader("How do you estimate the cost of training a 7B model on 1T tokens?")(answer)
    quotes = [c.evidence for c in g.claims if c.evidence]
    assert quotes and all("450" not in q and "64 gpus" not in q for q in quotes), quotes
    assert in_their_words(answer, "and on 64 gpus it's about 15 days") == (
        "and on sixty four gpus it's about fifteen days"
    )


def test_the_roofline_regions_swapped_are_wrong(bank_grader):
    """Memory-bound and compute-bound are things a sentence can trade properties between:
    the swapped regions covered the roofline point."""
    from interviewer.roles import swapped_binding

    point = (
        "On a roofline plot a memory-bound kernel sits under the sloped bandwidth line and a "
        "compute-bound kernel sits under the flat compute ceiling."
    )
    swapped = (
        "On a roofline plot, memory-bound kernels sit under the flat horizontal ceiling and "
        "compute-bound ones under the sloped bandwidth line."
    )
    right = (
        "On a roofline plot, memory-bound kernels sit under the sloped bandwidth line and "
        "compute-bound ones under the flat compute ceiling."
    )
    assert swapped_binding(point, swapped) == "exact:swapped"
    assert swapped_binding(point, right) is None
    question = "Explain memory-bound vs compute-bound and how you'd identify each."
    wrong, good = bank_grader(question)(swapped, right)
    assert wrong.wrong_claims and wrong.score <= 1 and "roofline" not in wrong.points("covered")
    assert "roofline" in good.points("covered") and not good.wrong_claims


def test_clauses_cut_at_whereas_or_where_keep_their_wrong_claims(bank_grader):
    """Read apart, "LLM decode is compute-bound" was named a comparative, which yields to a
    sure entailment (the exclusive pair holds against one); and "..., where it splits the GPU
    into up to four instances" read apart lost the thing its number is of."""
    (decode,) = bank_grader("What is HBM and why is its bandwidth so important?")(
        "HBM is the stacked memory on the GPU package, giving about 3 TB/s. Its bandwidth matters "
        "mainly for training, which is memory-bound, whereas LLM decode is compute-bound because "
        "it does lots of arithmetic per byte of weights read."
    )
    assert decode.score <= 1 and decode.wrong_claims
    question = "Two models must share one GPU without interfering. How do you set that up?"
    (mig,) = bank_grader(question)(
        "For hard isolation, e.g. different tenants with SLAs, use MIG on an A100/H100 to split "
        "the GPU into isolated instances with their own memory and compute. For cooperative "
        "workloads use MPS so kernels from both processes run concurrently. Cap each process's "
        "memory so one can't starve the other, and monitor latency per model. MIG is also "
        "available on consumer cards like the RTX 4090, where it splits the GPU into up to four "
        "instances."
    )
    assert mig.score == 3 and len(mig.wrong_claims) == 1
    assert segments("MIG runs on an RTX 4090, where it splits the GPU in four.") == [
        "MIG runs on an RTX 4090, where it splits the GPU in four."
    ]


def test_replicated_is_not_sharded(bank_grader):
    """Stop 65's app trial: "ZeRO and FSDP replicate the optimizer state on every GPU" covered
    the point that they shard it, and the report listed it under Strengths."""
    from interviewer.exclusive import other_term

    point = "If it doesn't fit, FSDP or ZeRO shards optimizer states in stage 1."
    assert other_term(point, "ZeRO and FSDP replicate the optimizer state on every GPU.")
    assert not other_term(point, "Data parallelism replicates the model while ZeRO shards it.")
    assert not other_term(point, "Each GPU gets a shard of the data.")
    question = (
        "How do you decide between data, tensor, pipeline, and ZeRO/FSDP parallelism for a "
        "given model?"
    )
    (g,) = bank_grader(question)(
        "Use data parallelism when it fits. ZeRO and FSDP replicate the optimizer state on every "
        "GPU, which increases memory, so avoid them for big models."
    )
    assert "zero-stages" not in g.points("covered") and g.wrong_claims
