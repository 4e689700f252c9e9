"""Answers typed in a hurry are graded on what they say (GRADING_SCALE: brevity does not
matter), and a right answer that also fits a neighbouring bank question is on topic."""

import pytest

from interviewer.shorthand import expand

SHARING = "Two models must share one GPU without interfering. How do you set that up?"


@pytest.mark.parametrize(
    "typed,read",
    [
        ("no MIG -> MPS w/ mem limit", "no MIG, so MPS with memory limit"),
        ("MIG = hard partition", "MIG is hard partition"),
        (
            "bf16 autocast + flash attn, act ckpt",
            "bf16 autocast and flash attention, activation checkpointing",
        ),
        ("~3.35 TB/s w/o bw issues", "about 3.35 TB/s without bandwidth issues"),
        ("send x 0->1", "send x 0 to 1"),
        (
            "Perf and util; mem-bound = limited by bytes/s",
            "Performance and utilization; memory-bound is limited by bytes/s",
        ),
        ("ab" + " " * 50_000 + "= cd", "ab is cd"),  # a long run of spaces: once 10 s
        # Code, formulas and names keep their symbols.
        ("D = A×B + C, bubble (P-1)/(M+P-1)", "D = A×B + C, bubble (P-1)/(M+P-1)"),
        ("y_r=x@W_r, C++ and H100+", "y_r=x@W_r, C++ and H100+"),
        ("cudaMemcpyAsync from a pinned buf", "cudaMemcpyAsync from a pinned buffer"),
        ("torch.cuda.mem_get_info", "torch.cuda.mem_get_info"),
        # Slashed lists and the parallelisms' initials (a right dense answer scored 1/5).
        (
            "ZeRO-3/FSDP for params/grads/optim, TP inside the node, PP across nodes",
            "ZeRO-3/FSDP for parameters, gradients and optimizer, tensor parallelism inside "
            "the node, pipeline parallelism across nodes",
        ),
        (
            "16 bytes/param, 3 tokens/param and CPU/NVMe",
            "16 bytes/param, 3 tokens/param and CPU/NVMe",
        ),
        ("fwd/bwd at 8-way TP", "forward and backward at 8-way tensor parallelism"),
    ],
)
def test_typed_shorthand_is_read_as_words(typed, read):
    assert expand(typed) == read


def test_a_terse_typed_answer_is_graded_on_what_it_says(bank_grader):
    """A fresh answer set (stop 43): this right answer, typed in shorthand, was set aside as
    answering another bank question ("What is MIG?", 0.17 nearer than its own) and scored 0;
    with the margin at 0.15 a right answer that suits a neighbouring question was off topic."""
    grade = bank_grader(SHARING)
    terse, fusion = grade(
        "MIG on a100/h100 = hard partition (SMs/L2/HBM), one instance per model. no MIG -> MPS "
        "w/ active thread % + mem limit, plus cap framework mem fraction",
        "Kernel fusion combines several operations, say bias add, activation and dropout, into "
        "one kernel, so the intermediate results stay in registers instead of going to HBM.",
    )
    assert "off_topic" not in terse.flags and terse.covered and terse.score >= 2
    assert not terse.wrong_claims
    assert "off_topic" in fusion.flags and fusion.score == 0  # another question's answer


@pytest.mark.parametrize(
    "said,read",
    [
        ("a warp is, uh, thirty-two threads", "a warp is, 32 threads"),
        ("like sixteen days on five hundred twelve GPUs", "like 16 days on 512 GPUs"),
        ("about three point six times ten to the twenty-three FLOPs", "about 3.6 × 10^23 FLOPs"),
        # Large runs stay words for the models; so do an article, a bare count and ZeRO's stage.
        (
            "six times thirty billion times two trillion",
            "6 times thirty billion times two trillion",
        ),
        ("only a few thousand GPU-hours", "only a few thousand GPU-hours"),
        ("one correct approach is two passes", "one correct approach is two passes"),
        ("ZeRO three shards everything", "ZeRO three shards everything"),
        # Spoken hundreds (read as sums: 54, 29 and 58), but not across "and".
        ("about four fifty each way", "about 450 each way"),
        ("a PCIe slot is one twenty eight gigs", "a PCIe slot is 128 gigs"),
        ("two fifty six threads per block", "256 threads per block"),
        ("a hundred and twenty GB", "120 GB"),
        # "and" joins number words only after a scale: a range is no sum ("between one and
        # twenty" was 21, "five and ten nodes" 15).
        ("two hundred and fifty six threads", "256 threads"),
        ("between one and twenty GPUs", "between one and twenty GPUs"),
        # Units stay as said for the model (the number checks read them: below).
        ("nine hundred gigabytes per second total", "900 gigabytes per second total"),
    ],
)
def test_numbers_said_in_words_are_read_in_digits(said, read):
    from interviewer.features import as_read

    assert as_read(said) == read


@pytest.mark.parametrize(
    "said,read",
    [
        ("nine hundred gigabytes per second total", {("bytes/s", 9e11)}),
        ("about eighty gigs of HBM", {("bytes", 8e10)}),
        ("a launch costs two microseconds", {("s", 2e-6)}),
        ("GDDR6X is around one terabyte per second", {("bytes/s", 1e12)}),
        ("about 3 TB a second", {("bytes/s", 3e12)}),
        ("fifty gigabits per second", {("bytes/s", 50e9 / 8)}),
        ("cuts it by about sixty percent, or 30 per cent", {("%", 60.0), ("%", 30.0)}),
        ("one instance per model and the gigabytes of memory it holds", set()),
        ("between two and four milliseconds", {("s", 4e-3)}),  # not six
        ("between five and ten gigs", {("bytes", 1e10)}),
    ],
)
def test_units_said_or_spelled_out_are_read_by_the_number_checks(said, read):
    """The number checks never saw "nine hundred gigabytes per second" as a bandwidth: a wrong
    spoken number was the NLI model's alone to catch, and it reads 300 GB/s as 900."""
    from interviewer.quantities import quantities

    assert quantities(said) == read


def test_a_wrong_bandwidth_said_in_words_is_a_wrong_claim(bank_grader):
    grade = bank_grader("What is the difference between HBM and GDDR?")
    (wrong,) = grade(
        "HBM is 3D-stacked next to the die with a very wide interface, and H100's HBM3 tops out "
        "around three hundred gigs a second, while GDDR is cheaper board memory on consumer cards."
    )
    assert wrong.score <= 1, wrong.score  # 3 when "three hundred gigs a second" was no number
    assert any("3 TB/s" in w for w in wrong.wrong_claims), wrong.wrong_claims


def test_a_spoken_count_meets_the_key_points_digits(bank_grader):
    """The NLI model did not read "thirty-two threads" as the definition's "32 threads": a
    right spoken warp answer covered only its divergence point (2 where the label was 4)."""
    grade = bank_grader("What is a warp and why does it matter for performance?")
    (got,) = grade(
        "so a warp is, uh, thirty-two threads that all run the same instruction at once, and if "
        "they branch apart the two paths run one after the other"
    )
    assert any("group of 32 threads" in c for c in got.covered), got.covered
    assert len(got.covered) >= 2 and not got.wrong_claims
