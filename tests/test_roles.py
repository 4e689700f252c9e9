"""Who a property belongs to (`roles.py`), as a browser trial found it misread (stop 40):
swapped answers scored 3-4 with both swapped points listed as covered."""

import pytest

from interviewer.clauses import clauses
from interviewer.disagreement import counterexample
from interviewer.order import turned_round
from interviewer.relations import compares_other
from interviewer.roles import (
    about_another,
    binds_like,
    contrasted,
    first_contradiction,
    swapped_binding,
    swapped_roles,
)
from interviewer.things import subject_of

PCIE = (
    "PCIe is the general-purpose expansion bus and is comparatively narrow, so GPU-to-GPU "
    "traffic over it bottlenecks collectives."
)
NVLINK = (
    "NVLink is a dedicated GPU-to-GPU interconnect with many times PCIe's bandwidth and direct "
    "peer-to-peer access, about 900 GB/s per H100."
)
FP8 = (
    "FP8 uses E4M3 for weights and activations in the forward pass and E5M2 for gradients, "
    "giving about twice BF16's Tensor-Core throughput on Hopper, Ada and Blackwell."
)
FP8_WRONG = (
    "E5M2 is used for weights and activations because it has more precision, while E4M3 is for "
    "gradients."
)


@pytest.mark.parametrize(
    "answer,found",
    [
        # What one key point says of PCIe and another of NVLink, each said of the other.
        (
            "NVLink is the general-purpose expansion bus every GPU plugs into, and it's "
            "comparatively narrow. PCIe is NVIDIA's dedicated high-bandwidth GPU interconnect, "
            "with many times more bandwidth and direct peer-to-peer access.",
            "exact:swapped",
        ),
        (
            "PCIe is the general-purpose bus every GPU plugs into and it is comparatively narrow. "
            "NVLink is NVIDIA's dedicated GPU-to-GPU interconnect with many times more bandwidth.",
            None,
        ),
        # One side only: no trade.
        ("PCIe is comparatively narrow, and NVLink is faster.", None),
    ],
)
def test_two_things_trade_what_two_key_points_say_of_them(answer, found):
    assert swapped_binding(PCIE, answer, [NVLINK]) == found


def test_what_a_clause_uses_goes_with_the_thing_used():
    """ "FP8 uses E4M3 for weights": the weights are E4M3's, not FP8's."""
    swapped = "You use E5M2 for the forward pass and weights and E4M3 for gradients."
    assert swapped_binding(FP8, swapped) == "exact:swapped"
    assert swapped_binding(FP8, "Use E4M3 for weights and activations, E5M2 for gradients.") is None


def test_a_misconception_that_swaps_its_points_roles_is_told_apart_by_the_bindings():
    swapped = "You use E5M2 for the forward pass and weights and E4M3 for gradients."
    right = "On Hopper you use E4M3 for weights and activations and E5M2 for gradients."
    assert binds_like(swapped, FP8, FP8_WRONG) == -1
    assert binds_like(right, FP8, FP8_WRONG) == 1
    # Not a swap of the point: the bindings decide nothing.
    assert binds_like(swapped, FP8, "FP8 needs no scaling factors.") == 0


VALIDATE = "You validate on a real downstream task set, not just perplexity."


@pytest.mark.parametrize(
    "sentence,found",
    [
        ("Check perplexity, not just task accuracy, since perplexity is all that matters.", True),
        ("Use pageable memory rather than a real downstream task set.", False),
        ("Check real task accuracy, not just perplexity.", False),
        ("Validate on downstream tasks rather than perplexity alone.", False),
    ],
)
def test_the_other_one_preferred_is_turned_round(sentence, found):
    assert turned_round(VALIDATE, sentence) is found


def test_not_just_adds_and_does_not_deny():
    """A sentence with "not just" is still read clause by clause (it had been read whole, as
    holding a negation, and its last clause's fallback went uncredited)."""
    sentence = (
        "Quantize with GPTQ using a calibration set, check real task accuracy, not just "
        "perplexity, falling back to INT8 or FP8 if it drops."
    )
    assert "falling back to INT8 or FP8 if it drops" in clauses(sentence)
    assert clauses("Use no calibration set, check perplexity, and ship it to users today.") == []


def test_a_check_that_finds_the_point_against_itself_is_not_used_for_it():
    point = (
        "Both support BF16 natively, a format that originated with TPUs, while H100 adds FP8 "
        "through its Transformer Engine."
    )
    assert first_contradiction(point, [point]) is None


@pytest.mark.parametrize(
    "question,wrong,right",
    [
        (
            "What is the difference between PCIe and NVLink for multi-GPU?",
            "NVLink is the general-purpose expansion bus that every GPU plugs into, and it's "
            "comparatively narrow, so GPU-to-GPU traffic over NVLink bottlenecks collectives. "
            "PCIe is NVIDIA's dedicated high-bandwidth GPU interconnect with the NVSwitch fabric, "
            "giving many times more bandwidth and direct peer-to-peer access. So for tensor "
            "parallelism you want PCIe, not NVLink.",
            "PCIe is the general-purpose bus every GPU plugs into and it is comparatively narrow, "
            "so collectives over it bottleneck. NVLink is NVIDIA's dedicated GPU-to-GPU "
            "interconnect with many times more bandwidth, about 900 GB/s on H100, and NVSwitch "
            "connects every GPU in the node at full speed. For tensor parallelism you want NVLink.",
        ),
        (
            "How would you serve or train under FP8, and what breaks?",
            "FP8 is supported on Hopper Tensor Cores. You use E5M2 for the forward pass and "
            "weights and E4M3 for gradients, because E4M3 has the wider dynamic range.",
            "On Hopper you use E4M3 for weights and activations in the forward pass and E5M2 for "
            "gradients, since E5M2 has the wider range. You need per-tensor or per-block scaling "
            "factors with amax history, keep norms, softmax and master weights in higher "
            "precision, watch for activation outliers, and validate on an eval set using "
            "Transformer Engine.",
        ),
        (
            "What is mixed-precision training?",
            "Mixed precision means running the matmuls in 16-bit on Tensor Cores while keeping "
            "the master weights in FP32. FP16 is the one that shares FP32's 8-bit exponent range, "
            "so FP16 never needs loss scaling, whereas BF16 has a narrow exponent and always "
            "needs a loss scaler to stop gradients underflowing.",
            None,
        ),
        (
            "Pick hardware to serve a 70B model. How do you size it?",
            "In FP16 the 70B weights take about 140 GB, so two 80 GB H100s with tensor "
            "parallelism. The KV cache is tiny and does not grow with context length or batch "
            "size, so you can ignore it.",
            "In FP16 70B parameters at 2 bytes each are about 140 GB, which does not fit one 80 "
            "GB GPU, so I'd use two H100s with tensor parallelism or quantize to FP8. The KV "
            "cache comes on top and grows with batch size and context length, so I size it for "
            "the target concurrency.",
        ),
        (
            "You need INT4 inference but must keep accuracy. What's your approach?",
            "Just round every weight to the nearest INT4 value, no calibration needed, quantize "
            "every layer including the first and last, and check perplexity, not just task "
            "accuracy, since perplexity is all that matters.",
            "Quantize weights with GPTQ or AWQ using a calibration set instead of "
            "round-to-nearest, keep the sensitive layers like the first and last in higher "
            "precision, and check real task accuracy, not just perplexity, falling back to INT8 "
            "or FP8 if it drops.",
        ),
    ],
)
def test_a_trials_swapped_and_denied_answers_are_wrong(bank_grader, question, wrong, right):
    """A browser trial (stop 40): the wrong answers scored 4, 2, 3 and 1-with-the-KV-point-
    covered, each swapped or denied point listed as covered; the right ones stay right."""
    answers = (wrong, right) if right else (wrong,)
    graded = bank_grader(question)(*answers)
    assert graded[0].score <= 1 and graded[0].wrong_claims
    # Neither half of a swap is credited ("PCIe is NVIDIA's dedicated GPU interconnect" had
    # covered the NVLink point, entailed at 0.94).
    assert not any(p.startswith(("PCIe is", "NVLink is")) for p in graded[0].covered)
    if right:
        assert graded[1].wrong_claims == () and graded[1].score >= 4


def test_a_compound_name_is_one_thing_not_a_swap():
    """ "The NVIDIA GPU Operator" had been read as NVIDIA and a GPU: an answer naming the device
    plugin and the GPU Operator in one sentence read as trading their roles (a right answer
    scored 1)."""
    operator = (
        "The NVIDIA GPU Operator installs and manages the GPU software stack on each node, "
        "including the driver, container toolkit, device plugin and DCGM monitoring."
    )
    plugin = (
        "The NVIDIA device plugin advertises each node's GPUs to Kubernetes as the "
        "nvidia.com/gpu resource so the scheduler can place pods that request them."
    )
    said = (
        "The NVIDIA device plugin advertises nvidia.com/gpu to the kubelet, the GPU Operator "
        "installs drivers, the container toolkit and DCGM, and a gang scheduler like Volcano "
        "or Kueue places multi-node jobs."
    )
    assert swapped_binding(operator, said) is None
    assert swapped_binding(operator, said, [plugin]) is None
    swapped = (
        "PCIe is the dedicated GPU-to-GPU interconnect, and NVLink is the general-purpose "
        "expansion bus, comparatively narrow."
    )
    assert swapped_binding(PCIE, swapped, [NVLINK])


@pytest.mark.parametrize(
    "sentence,found",
    [
        ("Most math runs in BF16 while master weights, the loss and reductions stay in FP32.", 1),
        ("Everything is kept in FP16; there is no FP32 copy at all.", 0),
        ("Everything stays in FP16, without any FP32 master weights.", 0),
        ("Everything, master weights included, is kept in FP16.", 0),
    ],
)
def test_a_format_the_point_keeps_is_a_counterexample_to_everything_in_one(sentence, found):
    wrong = (
        "In mixed precision everything, including the weight update and the master weights, "
        "is kept in FP16."
    )
    point = "Precision-sensitive parts stay in FP32, including a master copy of the weights."
    assert counterexample(wrong, point, sentence) == bool(found)


@pytest.mark.parametrize(
    "question,right",
    [
        (
            "Name three Kubernetes components needed for GPU workloads.",
            "The NVIDIA device plugin advertises nvidia.com/gpu to the kubelet, the GPU Operator "
            "installs drivers, the container toolkit and DCGM, and a gang scheduler like Volcano "
            "or Kueue places multi-node jobs.",
        ),
        (
            "What is mixed-precision training?",
            "Mixed precision runs most of the math in BF16 or FP16 on Tensor Cores while keeping "
            "master weights, the loss and reductions in FP32. With FP16 you also need loss "
            "scaling so small gradients don't underflow; BF16 has FP32's exponent range so it "
            "usually doesn't.",
        ),
    ],
)
def test_right_answers_the_checks_had_read_as_wrong(bank_grader, question, right):
    """Both scored 1 with a wrong claim (stop 41): a compound name read as two things
    swapping roles, and FP32 named for the master weights read as 'everything in FP16'."""
    graded = bank_grader(question)(right)[0]
    assert graded.wrong_claims == () and graded.score >= 4


def test_a_size_in_another_number_format_is_another_size():
    """ "INT4 brings it to about 35 GB" had contradicted "In FP16 ... about 140 GB" as a wrong
    number (a right answer's quantisation sentence named as a wrong claim)."""
    fp16 = "In FP16, 70B parameters at 2 bytes each take about 140 GB for the weights alone."
    assert first_contradiction(fp16, ["INT4 brings it to about 35 GB."]) is None
    assert first_contradiction(fp16, ["FP8 at about 35 GB fits easily on one card."]) is None
    assert first_contradiction(fp16, ["In FP16 the weights are about 35 GB."]) == "exact:number"
    assert first_contradiction(fp16, ["The weights are about 35 GB."]) == "exact:number"


def test_a_property_denied_is_not_the_property_in_a_swap():
    """ "BF16 ..., so you don't need loss scaling" had read as BF16 taking FP16's loss scaling."""
    point = (
        "Because of that range, BF16 training avoids the underflow of small gradients and "
        "overflow of large values that force loss scaling in FP16."
    )
    right = (
        "BF16 has the same exponent range as FP32, so you don't need loss scaling. It has "
        "fewer mantissa bits than FP16, which training tolerates."
    )
    assert swapped_binding(point, right) is None
    assert swapped_binding(FP8, FP8_WRONG, [])


@pytest.mark.parametrize(
    "sentence,other",
    [
        ("It has fewer mantissa bits than FP16, which training tolerates.", True),
        ("BF16 takes less memory than FP16.", False),
        ("BF16 weights are smaller than FP16 ones.", False),
        ("It is cheaper than FP16.", False),
    ],
)
def test_a_comparison_of_another_quantity_does_not_state_one(sentence, other):
    assert compares_other("BF16 uses less memory than FP16.", sentence) == other


def test_a_sentence_that_opens_on_a_condition_and_names_another_thing_is_about_it():
    wrong = "MPS gives each tenant hardware-isolated memory, so it is safer for untrusted tenants."
    mig = "If tenants aren't trusted, I'd go with MIG, since it gives hardware isolation."
    assert about_another(wrong, mig)
    assert not about_another(wrong, "If tenants share it, MPS gives each hardware isolation.")
    assert not about_another(wrong, "It gives each tenant hardware-isolated memory.")


def test_a_count_with_its_magnitude_is_no_named_thing():
    """ "A 70B model in FP16 needs about 70 GB" is about FP16 weights, as is a sentence that never
    says "70B" (fresh set, stop 46: the misconception was set aside as about another thing)."""
    from interviewer.things import names_in

    wrong = "A 70B model in FP16 needs about 70 GB, so it fits on a single 80 GB GPU."
    said = "At FP16 each parameter is one byte, so the weights are ~70 GB and fit on one H100."
    assert names_in("a 70B model, 4K context, 8x H100, a PCIe x16 slot") == ["h100", "pcie", "x16"]
    assert not about_another(wrong, said)


@pytest.mark.parametrize(
    "question,answer,scores,wrong_point",
    [
        (  # stated, with the misconception's own words in its first clause
            "Pick hardware to serve a 70B model. How do you size it?",
            "In FP16 the weights are about 140 GB, which is more than one 80 GB GPU, and the KV "
            "cache grows with batch and context length on top of that. So you either "
            "tensor-parallel across two or more H100s or you quantize. FP8 weights take half the "
            "memory of INT8 weights, so FP8 at about 35 GB fits easily on one card.",
            (2, 3),
            "INT8 or FP8 weights take about 70 GB",
        ),
        (
            "How do you choose between MIG and MPS for a multi-tenant inference box?",
            "If tenants are different customers, have strict SLAs or aren't trusted, I'd go with "
            "MIG, since it gives hardware isolation: on an A100 or H100 you get up to seven "
            "instances, each with its own SMs, L2 slice and memory, so QoS is predictable. The "
            "downside is the partition sizes are fixed, so you strand some capacity. If the "
            "workloads are cooperative, say my own models, MPS lets kernels from several "
            "processes run concurrently across the whole GPU and gets better utilization. But "
            "MPS has no hardware partitioning, so one client faulting or hogging the GPU can "
            "hurt the others.",
            (4, 5),
            None,
        ),
        (
            "Why use BF16 instead of FP16 for training?",
            "BF16 has the same exponent range as FP32, so you don't need loss scaling. It has "
            "fewer mantissa bits than FP16, which training tolerates.",
            (2, 4),
            None,
        ),
    ],
)
def test_a_second_trials_answers_name_only_the_wrong_claim_made(
    bank_grader, question, answer, scores, wrong_point
):
    """A helper's trial (stop 41): the 70B answer's FP8 claim went unnamed (4), while a right
    MIG/MPS answer (3) and a right terse BF16 answer (1) had false wrong claims: the MIG
    sentence read as the MPS misconception, a denied 'loss scaling' as a swap, 'fewer mantissa
    bits than FP16' as 'less memory than FP16'."""
    graded = bank_grader(question)(answer)[0]
    assert scores[0] <= graded.score <= scores[1]
    if wrong_point is None:
        assert graded.wrong_claims == ()
    else:
        assert len(graded.wrong_claims) == 1 and wrong_point in graded.wrong_claims[0]


@pytest.mark.parametrize(
    "sentence,found",
    [
        ("When threads take different branches, the GPU runs the two paths simultaneously.", 1),
        ("The two paths run at the same time on different lanes.", 1),
        ("All 32 threads of a warp execute the same instruction simultaneously.", 0),
        ("Divergent paths are not run in parallel; each path runs in turn.", 0),
    ],
)
def test_one_at_a_time_turned_into_all_at_once(sentence, found):
    """A helper's trial (stop 41): "the GPU runs the two paths simultaneously on separate lanes"
    had covered "executes each path serially" (scored 4)."""
    point = (
        "If threads in a warp take different branches, the hardware executes each path "
        "serially with the other threads masked off."
    )
    assert turned_round(point, sentence) == bool(found)


def test_what_both_pass_over_is_no_denial():
    """A fresh right answer (stop 41) scored 1: "... judged by cost per unit of goodput, not the
    hourly price" read as denying the point's "... rather than hourly price"."""
    point = (
        "Spot fits restartable, loosely coupled work such as hyperparameter sweeps, small and "
        "medium training runs, batch inference and preprocessing, while large tightly coupled "
        "pretraining with deadlines belongs on on-demand or reserved capacity, judged by cost "
        "per unit of goodput rather than hourly price."
    )
    right = (
        "Big tightly coupled pretraining with deadlines goes to on-demand or reserved, judged "
        "by cost per unit of goodput, not the hourly price."
    )
    wrong = (
        "Big tightly coupled pretraining with deadlines goes to spot, not on-demand or reserved "
        "capacity, judged by cost per unit of goodput."
    )
    assert first_contradiction(point, [right]) is None
    assert first_contradiction(point, [wrong]) == "exact:negation"


def test_what_a_text_does_without_is_no_assertion_of_it():
    """The BF16 question's own model answer was called wrong (`evals.correct_texts`): its
    "skips loss scaling" read as asserting the loss scaling its point says BF16 needs no
    more."""
    point = (
        "BF16 has the same exponent range as FP32, so it usually needs no loss scaling and is "
        "preferred on Ampere and newer GPUs."
    )
    for right in ("skips loss scaling", "avoids loss scaling", "gets rid of loss scaling"):
        sentence = f"BF16 has FP32's exponent range, so it usually {right} on Ampere and newer."
        assert first_contradiction(point, [sentence]) is None, right
    wrong = "BF16 has FP32's exponent range, so it usually needs loss scaling on Ampere and newer."
    assert first_contradiction(point, [wrong]) == "exact:negation"


@pytest.mark.parametrize(
    "sentence,apart",
    [
        ("Several times GDDR's bandwidth: 3+ TB/s on an H100 versus 1 TB/s on a GDDR6X card.", 1),
        ("The H100 uses GDDR6X, which is cheaper than HBM.", 0),
        ("The H100 ships with GDDR6X memory, while consumer cards get HBM.", 0),
    ],
)
def test_two_names_set_apart_by_a_contrast_are_not_tied_together(sentence, apart):
    """A fresh right HBM answer (stop 41) was read as stating "The H100 uses GDDR6X memory"."""
    assert contrasted("The H100 uses GDDR6X memory.", sentence) == bool(apart)


def test_a_clause_that_opens_on_an_instruction_names_no_thing():
    """An in-domain answer scored 1 (and 4 with a padding sentence after it): "Use mixed pools:
    keep coordinators ... on on-demand and put ... sweeps on spot" made "use" a thing that took
    spot's roles from the point."""
    point = (
        "Spot fits restartable, loosely coupled work such as hyperparameter sweeps, small and "
        "medium training runs, batch inference and preprocessing, while large tightly coupled "
        "pretraining with deadlines belongs on on-demand or reserved capacity."
    )
    answer = (
        "Spot instances cost far less, often 60-70% cheaper, but can be preempted at short "
        "notice, so you need frequent async checkpoints and elastic restarts. Use mixed pools: "
        "keep coordinators and short critical jobs on on-demand and put fault-tolerant, "
        "checkpointed training or sweeps on spot; watch the extra cost of restarts."
    )
    assert subject_of("Use mixed pools: keep coordinators on on-demand") == ""
    assert subject_of("NVLink is faster than PCIe") == "nvlink"
    assert swapped_roles(point, answer) is None


@pytest.mark.parametrize(
    "sentence,turned",
    [
        ("LLM decode is limited by compute, not memory.", True),
        ("Decode is bottlenecked by compute.", True),
        ("LLM decode is limited by memory bandwidth, not compute.", False),
        # Capacity is another limit than bandwidth.
        ("LLM decode is limited by memory capacity at long context.", False),
    ],
)
def test_limited_by_compute_is_compute_bound(sentence, turned):
    point = (
        "LLM decode is memory-bandwidth-bound, because each generated token must stream the "
        "weights from HBM."
    )
    assert (first_contradiction(point, [sentence]) is not None) is turned
