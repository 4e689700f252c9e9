"""Wrong claims a fresh trial's answers (stop 42) made and the grader missed, and a right
answer it read as wrong: each check on its own, then the answers graded on the bank."""

import pytest

from interviewer.acronyms import expansion_differs, expansions
from interviewer.bound import format_kept, format_ratio, format_size
from interviewer.disagreement import denies
from interviewer.exact import exact_contradiction
from interviewer.polarity import location_flipped, ratio_inverted, trend_flipped
from interviewer.roles import (
    about_another,
    binds_like,
    first_contradiction,
    swapped_binding,
    swapped_kinds,
)
from interviewer.scope import scope_flipped
from interviewer.things import bindings

MIG = (
    "MIG, Multi-Instance GPU, is hardware partitioning of a single A100 or H100 into up to 7 "
    "isolated GPU instances."
)


@pytest.mark.parametrize(
    "sentence,other",
    [
        ("MIG stands for Memory Interleaving on GPU.", 1),
        ("MIG: Memory Interleaving GPU, a driver mode that pools cards.", 1),
        ("MIG (Multi Instance GPU) splits one card.", 0),
        ("MIG stands for Multi-Instance GPU and is used for tenants.", 0),
        ("MIG (on an A100 or H100) gives up to seven instances.", 0),
        ("HBM stands for Hybrid Buffer Memory.", 0),  # not an acronym the point expands
    ],
)
def test_an_acronym_expanded_into_other_words(sentence, other):
    assert expansions(MIG) == {"MIG": ["multi", "instance", "gpu"]}
    assert (expansion_differs(MIG, sentence) == "exact:expansion") == bool(other)


PINNED = (
    "Pinned memory is host memory locked in physical RAM so the OS cannot page it out, which "
    "lets the GPU read and write it directly by DMA."
)


@pytest.mark.parametrize(
    "sentence,elsewhere",
    [
        ("Pinned memory is a region of GPU memory reserved to one process.", 1),
        ("Pinned memory lives on the GPU, so copies are free.", 1),
        ("Pinned memory is page-locked host RAM.", 0),
        ("Pinned memory is not GPU memory, it is host memory.", 0),
        ("The KV cache is GPU memory.", 0),  # another subject
        ("People assume pinned memory is GPU memory.", 0),  # a belief reported
    ],
)
def test_memory_put_on_the_other_side(sentence, elsewhere):
    assert (location_flipped(PINNED, sentence) == "exact:swapped") == bool(elsewhere)


def test_a_consequence_denied_is_not_the_consequence_stated():
    wrong = (
        "MIG instances share one pool of memory bandwidth, so a busy tenant slows down the others."
    )
    assert denies(
        wrong, "its own share of memory bandwidth, so a tenant can't slow down its neighbour."
    )
    assert not denies(wrong, "All instances share the bandwidth, so a busy tenant slows the rest.")


@pytest.mark.parametrize(
    "sentence,tied",
    [
        ("It's cheaper, which is why NVIDIA puts GDDR6X on the H100 and HBM on gaming cards.", 1),
        ("3+ TB/s on an H100 versus roughly 1 TB/s on a GDDR6X card.", 0),  # set apart
        ("The H100 uses HBM3, not GDDR6X.", 0),  # with the point's memory, and denied
    ],
)
def test_a_clause_that_ties_the_misconceptions_two_names(sentence, tied):
    point = (
        "Datacenter training GPUs such as the A100 and H100 use HBM, while consumer graphics "
        "cards use GDDR."
    )
    assert (binds_like(sentence, point, "The H100 uses GDDR6X memory.") == -1) == bool(tied)


def test_a_thing_after_a_preposition_of_place_or_count_is_no_subject():
    """A right ZeRO-3 answer (stop 41's fresh set) scored 1: "across the data-parallel GPUs"
    and "so with N GPUs each holds 1/N" had read as ZeRO-3 and the GPUs trading roles."""
    point = (
        "ZeRO-3 partitions all of the model state, meaning the parameters, gradients and "
        "optimizer states, across the data-parallel GPUs."
    )
    right = (
        "ZeRO-3 is the stage of DeepSpeed's ZeRO that shards everything, parameters, gradients "
        "and optimizer states, across the data-parallel ranks, so with N GPUs each holds "
        "roughly 1/N of the model state."
    )
    assert swapped_binding(point, right) is None
    e4m3 = "E4M3 has more precision for weights and E5M2 has more range for gradients."
    assert swapped_binding(e4m3, "E4M3 has more range for gradients and E5M2 more precision.")


@pytest.mark.parametrize(
    "sentence,turned",
    [
        ("And the KV cache shrinks as you increase batch size and context length.", 1),
        ("The KV cache shrinks with batch size.", 1),
        ("The KV cache grows as the batch size increases.", 0),
        ("The KV cache shrinks as you reduce the batch size.", 0),
        ("Latency shrinks as batch size grows.", 0),  # another subject
    ],
)
def test_a_quantity_that_moves_the_other_way_with_the_same_driver(sentence, turned):
    point = (
        "The KV cache comes on top of the weights and grows with batch size times context length."
    )
    assert (trend_flipped(point, sentence) == "exact:comparative") == bool(turned)


@pytest.mark.parametrize(
    "sentence,other",
    [
        ("INT4 gets you to about 70 GB and INT8 to about 35 GB, so INT8 leaves headroom.", 1),
        ("INT8 is about 70 GB and INT4 about 35 GB.", 0),
        ("INT4 needs around 36 GB.", 0),  # near enough
        ("In FP16 the weights are 140 GB.", 0),  # a format the point gives no size
    ],
)
def test_a_format_given_another_size(sentence, other):
    point = (
        "INT8 or FP8 weights take about 70 GB and just fit one 80 GB GPU, while INT4 at about "
        "35 GB leaves real headroom for the KV cache."
    )
    assert (format_size(point, sentence) == "exact:number") == bool(other)


def test_a_count_of_bits_is_no_formats_size():
    point = (
        "BF16 has less precision than FP16, 7 mantissa bits against FP16's 10, because FP16 "
        "spends only 5 bits on its exponent."
    )
    assert format_size(point, "The tradeoff is the mantissa, 7 bits versus 10 for FP16.") is None


_MASTER = (
    "An FP32 master copy of the weights and FP32 optimizer states are kept because small "
    "updates (learning rate times gradient) are lost to rounding when added to FP16 weights."
)


@pytest.mark.parametrize(
    "point,sentence,other",
    [
        # blind dev: an inverted mixed-precision recipe scored 3 with this point covered
        (_MASTER, "Compute in FP32 and keep the master weights in FP16 to save memory.", 1),
        ("Keep the master weights in FP32.", "The master weights are stored as BF16.", 1),
        (_MASTER, "Keep an FP32 master copy of the weights and do the matmuls in FP16.", 0),
        (_MASTER, "Weights are stored in FP16 for the forward pass, with an FP32 master copy.", 0),
        # one thing in either of the point's formats, in a list, or with a size: no swap
        ("Reduce gradients in FP32 or BF16.", "Keep the gradient reductions in BF16.", 0),
        ("Tensor Cores take inputs such as FP16, BF16 or FP8.", "It takes FP8 inputs.", 0),
        ("INT8 weights take about 70 GB.", "FP16 weights are about 140 GB.", 0),
        # a manner, a preposition or an activity after a format is no thing kept in it
        (
            "Both support BF16 natively, while H100 adds FP8 through the Transformer Engine.",
            "TPUs are efficient for large dense matmuls in BF16 through XLA.",
            0,
        ),
        ("BF16 training avoids underflow.", "FP16 training needs loss scaling.", 0),
        # what a format's things include, and a list kept all in one (a fresh trial's wrong
        # recipe had this point listed as covered and as a strength)
        (
            "Precision-sensitive parts stay in FP32, including a master copy of the weights.",
            "It keeps the weights, the master copy and the optimizer update all in FP16.",
            1,
        ),
        (
            "Precision-sensitive parts stay in FP32, including a master copy of the weights.",
            "Weights and activations are both in BF16, with an FP32 master copy of the weights.",
            0,
        ),
    ],
)
def test_a_thing_kept_in_another_format(point, sentence, other):
    assert (format_kept(point, sentence) == "exact:format") == bool(other)


def test_master_weights_kept_in_fp16_are_wrong(bank_grader):
    question = (
        "Explain how mixed precision interacts with convergence and numerical stability for a "
        "large model. How do you detect and mitigate issues?"
    )
    inverted = (
        "The standard recipe is to compute forward and backward in FP32 and keep the master "
        "weights in FP16 to save memory. Softmax and layernorm are the stable ops, so run them "
        "in FP16, and keep the matmuls in FP32."
    )
    graded = bank_grader(question)(inverted)[0]
    assert graded.score <= 1
    assert any("FP32 master copy" in w for w in graded.wrong_claims)


@pytest.mark.parametrize(
    "sentence,upside_down",
    [
        ("Arithmetic intensity is bytes moved per FLOP.", 1),
        ("Arithmetic intensity is FLOPs per byte of memory traffic.", 0),
        ("It is FLOPs per byte, not bytes per FLOP.", 0),
        # Said the long way (fresh set, stop 46).
        ("It is the number of bytes a kernel moves per floating-point operation.", 1),
        ("It is the floating-point operations a kernel performs per byte it moves.", 0),
    ],
)
def test_a_rate_the_other_way_up(sentence, upside_down):
    point = "Arithmetic intensity is the number of FLOPs performed per byte moved from memory."
    assert (ratio_inverted(point, sentence) == "exact:swapped") == bool(upside_down)


def test_a_sentence_that_opens_on_a_thing_the_claim_names_is_not_about_another():
    """ "On an A100 you can go up to 16 instances" had read as about another thing than "MIG can
    split an A100 into as many as 16 instances" (the answer says "Multi-Instance GPU")."""
    wrong = "MIG can split an A100 into as many as 16 instances."
    assert not about_another(wrong, "On an A100 you can go up to 16 instances.")
    assert about_another(wrong, "If tenants aren't trusted, I'd go with MPS on the H100.")
    # A sentence that leads with the misconception's other name is still about that thing.
    h100 = "The H100 uses GDDR6X memory."
    assert about_another(h100, "GDDR6X is on consumer cards like the RTX 4090.")


def test_a_count_that_opens_a_sentence_names_no_thing():
    """A right benchmarking answer (a third fresh set, stop 42) scored 1: "One correct approach
    records CUDA events ..." and "Two correct ways: CUDA events, ..." had read as "one" and
    "two" trading roles."""
    point = (
        "One correct approach records CUDA events before and after the op, synchronizes, and "
        "reads the elapsed time between the two events."
    )
    answer = (
        "Two correct ways: CUDA events, meaning start.record(), the op, end.record(), then "
        "torch.cuda.synchronize() and start.elapsed_time(end). One caveat: a tiny op timed in "
        "isolation can look faster than in a real workload."
    )
    assert swapped_kinds(point, answer) is None  # (real swaps: test_claims' CUDA_CORE cases)


@pytest.mark.parametrize(
    "question,answer,scores,wrong_point",
    [
        (  # the misconception's own paraphrase is nearer than the point's text
            "What does a CUDA stream do?",
            "A CUDA stream is a pool the runtime uses to reorder independent operations, so even "
            "within one stream kernels run out of order when they don't depend on each other. "
            "Across streams everything still runs one after another, so streams are mostly about "
            "organization rather than overlap.",
            (0, 1),
            "ordered queue of GPU operations",
        ),
        (  # said in the sentence that names the H100, not the one nearest in words
            "What is the difference between HBM and GDDR?",
            "HBM is just the newer generation of GDDR with higher clocks, soldered around the "
            "board like any graphics memory. Its main selling point is that it's cheaper per "
            "gigabyte, which is why NVIDIA puts GDDR6X on the H100 and HBM on gaming cards to "
            "keep their price down.",
            (0, 1),
            "use HBM",
        ),
        (
            "What is pinned (page-locked) host memory?",
            "Pinned memory is a region of GPU memory that gets reserved, pinned, to one process "
            "so other processes can't evict it. You use it to keep your model weights resident "
            "on the device, and in PyTorch pin_memory=True reserves that VRAM up front.",
            (0, 1),
            "host memory locked",
        ),
        (
            "What is MIG?",
            "MIG stands for Memory Interleaving on GPU. It's a driver mode that stripes one "
            "model's memory across several GPUs so they look like one big device, and you turn it "
            "on when a model doesn't fit in a single card's HBM.",
            (0, 1),
            "Multi-Instance GPU",
        ),
        (
            "Pick hardware to serve a 70B model. How do you size it?",
            "FP16 weights are 140 GB, so you quantize. INT4 gets you to about 70 GB and INT8 to "
            "about 35 GB, so INT8 is the option that leaves real headroom on one card. And the KV "
            "cache shrinks as you increase batch size and context length, because it gets "
            "amortized across more tokens.",
            (0, 1),
            "grows with batch size",
        ),
        (
            "What is arithmetic intensity and how do you increase it?",
            "Arithmetic intensity is bytes moved per FLOP. If a kernel is above the ridge point "
            "it's memory-bound, and below it it's compute-bound. To increase it you split fused "
            "kernels apart and use smaller tiles, so each piece moves less data at a time.",
            (0, 1),
            "FLOPs performed per byte",
        ),
        (
            "What is MIG?",
            "Multi-Instance GPU: on A100 and H100 you carve one GPU into hardware partitions, each "
            "with dedicated SMs, memory and bandwidth, so noisy neighbours don't affect each "
            "other. Unlike MPS it's a hard partition, not processes sharing the full GPU. On an "
            "A100 you can go up to 16 instances.",
            (0, 3),
            "up to 7 isolated",
        ),
        (  # right: "a tenant can't slow down ... its neighbour" had read as the misconception
            "What is MIG?",
            "MIG is Multi-Instance GPU: on an A100 or H100 you can slice the physical card into "
            "as many as seven isolated GPU instances. Each one has its own SMs, its own chunk of "
            "memory and L2, and its own share of memory bandwidth, so a tenant can't slow down or "
            "crash its neighbour. That's unlike time-slicing or MPS, where all the processes run "
            "on the full GPU.",
            (4, 5),
            None,
        ),
        (  # right: the whole answer, read as one premise, had "stated" 900 Gb/s (0.84)
            "What is NVLink and what bandwidth does it provide on H100?",
            "NVLink is NVIDIA's direct GPU-to-GPU interconnect, so GPUs exchange data without "
            "going through PCIe and the CPU. On the H100 it gives 900 GB/s of bidirectional "
            "bandwidth per GPU, several times what PCIe Gen5 offers, from 18 links. In a DGX, "
            "NVSwitch connects all eight GPUs.",
            (4, 5),
            None,
        ),
        (  # ... and the same answer in bits is still wrong
            "What is NVLink and what bandwidth does it provide on H100?",
            "NVLink is NVIDIA's direct GPU-to-GPU interconnect, so GPUs exchange data without "
            "going through PCIe and the CPU. On the H100 it gives 900 Gb/s per GPU, from 18 "
            "links. In a DGX, NVSwitch connects all eight GPUs.",
            (0, 1),
            "900 GB/s",
        ),
    ],
)
def test_a_fresh_trials_answers(bank_grader, question, answer, scores, wrong_point):
    graded = bank_grader(question)(answer)[0]
    assert scores[0] <= graded.score <= scores[1]
    if wrong_point is None:
        assert graded.wrong_claims == ()
    else:
        assert any(wrong_point in w for w in graded.wrong_claims), graded.wrong_claims


SHARE_MIG = (
    "For hard isolation and predictable latency, such as different tenants or SLAs, MIG carves "
    "the GPU into separate instances with dedicated memory and compute."
)
SHARE_MPS = (
    "For cooperative workloads where you mainly want higher utilization, MPS lets both processes "
    "run their kernels concurrently on the shared GPU instead of time-slicing."
)
SHARING = (
    "NVIDIA gives you two mechanisms for this. {a} is the hardware-level one: it carves the GPU "
    "into isolated instances with their own SMs, L2 slices and HBM. {b} is the lighter software "
    "approach: a control daemon funnels both processes into a shared context so their kernels "
    "run concurrently."
)


def test_roles_traded_after_an_opening_phrase_and_through_a_pronoun():
    """A fresh set (stop 43): an answer that gave MPS MIG's hard partitions and MIG MPS's shared
    context scored 2 with no wrong claim. The points open on a phrase ("For hard isolation ...,
    MIG carves ..."), so neither had a lead thing, and "it carves ..." was bound to the GPU."""
    swapped = SHARING.format(a="MPS", b="MIG")
    right = SHARING.format(a="MIG", b="MPS")
    assert swapped_binding(SHARE_MIG, swapped, [SHARE_MPS]) == "exact:swapped"
    assert swapped_binding(SHARE_MPS, swapped, [SHARE_MIG]) == "exact:swapped"
    assert swapped_binding(SHARE_MIG, right, [SHARE_MPS]) is None
    assert swapped_binding(SHARE_MPS, right, [SHARE_MIG]) is None


def test_a_sentence_that_favours_the_thing_a_misconception_puts_second_does_not_state_it():
    """Stop 45's fresh set: "Probably QAT gives better accuracy" entailed "PTQ usually gives
    better low-bit accuracy than QAT" at 0.93, and two right answers were told it was wrong."""
    from interviewer.relations import favours_other

    wrong = "PTQ usually gives better low-bit accuracy than QAT."
    assert favours_other(wrong, "Probably QAT gives better accuracy, especially at 4-bit.")
    assert not favours_other(wrong, "PTQ gives better accuracy than QAT.")
    assert not favours_other(wrong, "QAT gives worse accuracy than PTQ.")


def test_what_happens_without_the_thing_is_no_claim_about_it():
    """Stop 45's fresh set: a right answer explained GPUDirect RDMA by the copy it avoids."""
    from interviewer.stated import _baseline

    wrong = "GPUDirect RDMA first copies the data into pinned host memory and the NIC sends it."
    assert _baseline(wrong, "Normally you'd have to copy the data into pinned host memory first.")
    assert not _baseline(wrong, "Normally GPUDirect RDMA copies the data into host memory first.")
    assert not _baseline(wrong, "It copies the data into pinned host memory first.")


def test_a_misconception_is_stated_only_with_a_word_it_adds_to_its_point():
    """The model read right sentences that share only the point's words as stating the
    misconception (fresh set, stop 46: 0.85 for "utilization is sampled ..." against "... an
    nvidia-smi bug"); a sentence that states one shares a word it adds, a direction word too."""
    from interviewer.claims import Claim, Wrong
    from interviewer.stated import _says_what_it_adds

    q = "nvidia-smi shows the GPU at 0% but your job is clearly running. Why?"
    point = Claim(
        "io", "The job is likely data-loading bound, so the GPU sits idle between batches."
    )
    bug = Wrong("If the job is running, the GPU must be busy, so 0% can only be a bug.", "io")
    sampled = "Utilization is sampled, so very short occasional kernels can show near 0%."
    assert not _says_what_it_adds(bug, point, sampled, q)
    assert _says_what_it_adds(bug, point, "A running job keeps the GPU busy; 0% is a bug.", q)
    bf16 = Claim("precision", "BF16 has less precision than FP16, 7 mantissa bits against 10.")
    more = Wrong("BF16 has more mantissa bits than FP16, so it is more precise.", "precision")
    assert _says_what_it_adds(more, bf16, "BF16 has more mantissa bits, so it's more precise.", q)
    # Words as said: a sentence naming the downside does not say there is none, and "only"
    # goes with what it qualifies (stop 47: 0.91 and 0.81 on right answers).
    pinned = Claim("limit", "Pinned memory is limited; pinning too much starves the OS.")
    free = Wrong("Pinning has no downside, so pin as much as possible.", "limit")
    q2 = "What is pinned host memory?"
    assert not _says_what_it_adds(free, pinned, "The downside is that it's slower to allocate.", q2)
    assert _says_what_it_adds(free, pinned, "There's really no downside to pinning.", q2)
    assert not _says_what_it_adds(bug, point, "It only says whether any kernel was running.", q)
    # Nor does a sentence that says the opposite of what it adds, or one that shares none of
    # the words of what it is about (the stop 47 misconceptions' false alarms on right answers).
    master = Claim(
        "master", "An FP32 master copy is kept because small updates are lost to rounding."
    )
    needless = Wrong(
        "With BF16, FP32 master weights are unnecessary: updates are never lost.", "master"
    )
    q3 = "How does mixed precision affect convergence?"
    kept = "BF16 has range but tiny updates get lost unless you keep FP32 master weights."
    assert not _says_what_it_adds(needless, master, kept, q3)
    ckpt = Claim("ckpt", "Activation checkpointing keeps some activations and recomputes the rest.")
    offload = Wrong("Activation checkpointing saves memory by offloading weights to CPU.", "ckpt")
    q4 = "You hit CUDA out-of-memory. How do you reduce memory?"
    states = "If it's the optimizer states, shard them with ZeRO or offload to CPU."
    assert not _says_what_it_adds(offload, ckpt, states, q4)
    assert _says_what_it_adds(offload, ckpt, "Activation checkpointing offloads to CPU.", q4)
    assert _says_what_it_adds(offload, ckpt, "It just offloads them to CPU.", q4)
    # A misconception that adds no word of its own is left to the other checks.
    same = Wrong("BF16 has 10 mantissa bits.", "precision")
    assert _says_what_it_adds(same, bf16, "Anything at all.", q)


def test_what_the_point_itself_says_of_another_thing_is_no_swap():
    """s48 dev: a right loss.item() answer was told it swapped the GPU's and the CPU's roles,
    through a capitalised adverb read as a name and the point's own words about the CPU."""
    point = (
        "GPU kernels launch asynchronously, so the CPU queues work and moves on without waiting "
        "for it to finish."
    )
    right = "Normally the CPU runs ahead, queuing kernels for upcoming work while the GPU is busy"
    assert first_contradiction(point, [right]) is None
    tensor = "Tensor Cores perform whole matrix multiply-accumulates in one instruction."
    swapped = "CUDA cores perform whole matrix multiply-accumulates, while Tensor Cores are scalar."
    assert first_contradiction(tensor, [swapped]) == "exact:swapped"


def test_a_comparative_about_a_thing_the_point_never_names_is_no_contradiction():
    point = (
        "Pinned memory makes host-device copies faster and, crucially, lets them be truly "
        "asynchronous so they overlap with compute."
    )
    other = (
        "Pageable copies get staged via driver's pinned bounce buffer (extra memcpy, slower, "
        "effectively sync)."
    )
    assert exact_contradiction(point, other) is None
    assert exact_contradiction(point, "Pinned memory makes host-device copies slower.")
    # a sentence that opens on a condition is still about the point's thing
    roofline = (
        "Below the ridge point the kernel is memory-bound and limited by bandwidth, and above it "
        "the kernel is compute-bound and limited by ALU or Tensor Core throughput."
    )
    inverted = "If the intensity is above the ridge point, the kernel is memory-bound."
    assert exact_contradiction(roofline, inverted) == "exact:comparative"


def test_within_an_nvlink_node_is_inside_the_node():
    point = "Tensor parallelism is kept within a node on NVLink."
    assert scope_flipped(point, "Keep tensor parallelism within an NVLink node.") is None
    assert scope_flipped(point, "Run tensor parallelism across nodes over InfiniBand.")


def test_a_thing_named_in_a_list_of_activities_takes_no_properties():
    """s48 dev: "the GPU is starved, waiting on data loading, CPU preprocessing, I/O" gave the
    CPU the idle periods and the GPU the data loading: a right answer read as the roles
    swapped, scored 1."""
    point = (
        "The job is likely CPU or data-loading bound, so the GPU sits idle waiting for the next "
        "batch from a slow dataloader, too few workers or CPU preprocessing."
    )
    right = (
        "Alternatively the GPU is starved, waiting on data loading, CPU preprocessing, I/O or "
        "startup, so samples land on idle periods."
    )
    assert swapped_binding(point, right) is None
    # a clause that gives the other thing a property still binds to it
    fp8 = "FP8 comes in two formats: E4M3 with more precision and E5M2 with more range."
    turned = "E4M3 has the wider range and E5M2 the extra precision."
    assert swapped_binding(fp8, turned) == "exact:swapped"


def test_a_phrase_that_qualifies_the_sentence_before_it_asserts_nothing(bank_grader):
    """s48 dev: "For models too big for one GPU." after a model-parallel sentence was read as
    denying that data parallelism needs the model to fit (0.96): a right answer scored 1."""
    from interviewer.case import _qualifier

    assert _qualifier("For models too big for one GPU.")
    assert not _qualifier("In FP16 the range is wider.")  # a verb of being: a claim
    assert not _qualifier("For inference, use FP8.")
    right = (
        "Data parallel: full model replica per GPU, batch split, each does fwd/bwd on its shard "
        "→ gradients all-reduced each step → identical updates. Scales throughput; model must "
        "fit per GPU (unless ZeRO/FSDP shards states). Model parallel: split the model itself — "
        "tensor parallel (slice layer matrices, comm per layer) or pipeline (layer groups per "
        "GPU, pass activations, micro-batches vs bubbles). For models too big for one GPU. "
        "Often combined."
    )
    graded = bank_grader("What is the difference between data parallelism and model parallelism?")(
        right
    )[0]
    assert graded.wrong_claims == () and graded.score >= 3


GDDR_COST = "GDDR is conventional board-mounted graphics memory that costs much less than HBM."


@pytest.mark.parametrize(
    "sentence,found",
    [
        ("HBM costs more.", None),  # the point's relation, from the other end
        ("HBM costs more, so it is used on datacenter GPUs while GDDR is on consumer cards.", None),
        ("GDDR costs more.", "exact:comparative"),
        ("GDDR costs more than HBM.", "exact:comparative"),
    ],
)
def test_the_thing_compared_with_given_the_opposite_word(sentence, found):
    assert exact_contradiction(GDDR_COST, sentence) == found


def test_it_in_a_comparison_is_the_thing_before_it(bank_grader):
    """A browser trial (stop 62): a right answer's "...; it costs more" was read as GDDR
    costing more ("Wrong: ... In fact: GDDR ... costs much less than HBM"), capped at 3."""
    right = (
        "HBM is stacked DRAM on the package with a very wide bus, giving over 3 TB/s on an H100, "
        "several times GDDR6X's ~1 TB/s; it costs more, so it's used on datacenter GPUs while "
        "GDDR is on consumer cards."
    )
    graded = bank_grader("What is the difference between HBM and GDDR?")(right)[0]
    assert not graded.wrong_claims and graded.score >= 4


HALVES = (
    "Switching to BF16 mixed precision roughly halves activation memory, and weight and "
    "gradient memory too where those are stored in 16-bit."
)


@pytest.mark.parametrize(
    "sentence,wrong",
    [
        ("I'd switch from bf16 to fp32, because fp32 uses half the memory of bf16.", 1),
        ("FP32 uses less memory than BF16.", 1),
        ("FP32 takes four times the memory of BF16.", 1),
        ("BF16 uses half the memory of FP32.", 0),
        ("FP32 weights take up twice the memory of BF16 weights.", 0),
        ("FP32 takes 4x the memory of FP8.", 0),
        ("FP16 has more mantissa bits than BF16.", 0),  # not memory
        # A clause after "and it" is not the format before it.
        ("it runs twice as fast as FP16 and it takes half the memory of FP16.", 0),
    ],
)
def test_a_format_given_another_share_of_anothers_memory(sentence, wrong):
    assert (format_ratio(HALVES, sentence) == "exact:format") == bool(wrong)
    assert format_ratio("BF16 keeps FP32's 8 exponent bits.", sentence) is None  # no memory


def test_fp32_said_to_take_half_of_bf16s_memory_is_wrong(bank_grader):
    """A browser trial (stop 62): this answer's first sentence was credited as the BF16 point
    and listed in the report's strengths."""
    wrong = (
        "First I would switch the model from bf16 to fp32, because fp32 uses half the memory of "
        "bf16. Then I'd turn off activation checkpointing, since checkpointing stores extra "
        "copies of activations and is the main cause of OOM."
    )
    question = (
        "You hit CUDA out-of-memory. Walk through how you'd reduce memory without changing the "
        "model."
    )
    graded = bank_grader(question)(wrong)[0]
    assert graded.score <= 1 and not any("BF16" in c for c in graded.covered)
    assert any("BF16 mixed precision" in w for w in graded.wrong_claims)


def test_a_sentence_about_another_point_does_not_cover_this_one(bank_grader):
    """Advice to turn off activation checkpointing was credited as the no_grad-for-eval point
    (the model entailed it at 0.65 from a sentence 0.33 nearer the checkpointing point)."""
    question = (
        "You hit CUDA out-of-memory. Walk through how you'd reduce memory without changing the "
        "model."
    )
    answer = (
        "Switch to bf16 mixed precision so activations take half the memory. Then I'd turn off "
        "activation checkpointing, since checkpointing stores extra copies of activations."
    )
    graded = bank_grader(question)(answer)[0]
    assert [c for c in graded.covered if "no_grad" in c] == []
    assert any("BF16" in c for c in graded.covered)


def test_two_names_joined_by_and_before_their_verb_are_one_subject():
    point = (
        "Datacenter training GPUs such as the A100 and H100 use HBM, while consumer graphics "
        "cards use GDDR."
    )
    assert bindings(point)["hbm"] >= {"datacenter"}
    assert bindings("FP16 and BF16 use two bytes and FP32 uses four.")["bf16"] == {"bytes"}
    # A verb that agrees with the second name alone ends the first clause.
    assert (
        "slower" not in bindings("Within a node it uses NVLink and PCIe is much slower.")["nvlink"]
    )
    swapped = "HBM is used on consumer cards while GDDR is used on datacenter GPUs like the H100."
    assert swapped_binding(point, swapped) == "exact:swapped"
    right = "HBM is used on datacenter GPUs like the H100 while GDDR is used on consumer cards."
    assert swapped_binding(point, right) is None


def test_hbm_said_to_be_on_consumer_cards_is_wrong(bank_grader):
    """Stop 62's known gap: the swap went unseen because the point names its GPUs first."""
    said = (
        "HBM is stacked DRAM next to the GPU die with a very wide bus, giving about 3 TB/s, much "
        "more than GDDR6X. HBM is used on {} while GDDR is used on {}."
    )
    graded = bank_grader("What is the difference between HBM and GDDR?")
    wrong = graded(said.format("consumer cards", "datacenter GPUs like the H100"))[0]
    assert any("use HBM" in w for w in wrong.wrong_claims) and wrong.score <= 3
    right = graded(said.format("datacenter GPUs like the H100", "consumer cards"))[0]
    assert not right.wrong_claims and right.score >= 4


@pytest.mark.parametrize(
    "question,answer,least",
    [
        (
            "What is occupancy and is higher always better?",
            "Occupancy is the number of active warps on an SM divided by the maximum number of "
            "warps the SM can hold. It is limited by registers per thread, shared memory per block "
            "and the block size. More resident warps give the scheduler other warps to issue while "
            "some wait on memory, which hides latency. But higher isn't always better: once "
            "latency is hidden or you're already saturating HBM bandwidth, extra warps don't help, "
            "and forcing occupancy up by capping registers can cause spills to local memory and "
            "less data reuse, slowing the kernel.",
            4,
        ),
        (
            "What is occupancy and is higher always better?",
            "Occupancy is active warps per SM over the maximum. More warps hide latency. Higher is "
            "not always better: once latency is hidden, extra warps don't help.",
            3,
        ),
        (
            "Why does loss.item() in the training loop hurt performance?",
            "CUDA ops are launched asynchronously: the Python loop enqueues kernels and races "
            "ahead while the GPU works through the queue. loss.item() needs the actual number on "
            "the host, so it has to wait for every queued kernel to finish, an implicit device "
            "synchronization. Keep a running loss on the GPU and call .item() every N steps.",
            4,
        ),
        (
            "Why use BF16 instead of FP16 for training?",
            "BF16 has FP32's 8-bit exponent, so its range avoids the overflow and underflow that "
            "make FP16 need loss scaling; it gives up some mantissa precision, which training "
            "tolerates.",
            3,
        ),
        (
            "Explain FlashAttention and why it's faster.",
            "FlashAttention tiles Q, K and V into on-chip SRAM blocks and uses an online softmax, "
            "so the N x N score matrix is never written to HBM. In the backward pass it recomputes "
            "the scores instead of storing them: more FLOPs, but far less memory traffic, so it is "
            "faster in wall-clock time.",
            3,
        ),
    ],
)
def test_a_fresh_trials_right_answers_have_no_wrong_claim(bank_grader, question, answer, least):
    """Stop 63's trial: each scored 1-3 through a right sentence read as wrong (a dismissal
    after a colon's condition, a relation read across two sentences, "CUDA" taking the GPU
    kernels' role, a relative clause's FP16 as the subject of "it", "less memory traffic"
    against "more FLOPs")."""
    graded = bank_grader(question)(answer)[0]
    assert graded.wrong_claims == () and graded.score >= least, graded


def test_a_sentence_found_wrong_covers_no_other_point():
    """The H100 said to use GDDR6X had covered the HBM bandwidth point (the model entailed it
    from that sentence); a restatement near word for word still covers."""
    from interviewer.claims import Claim, PointVerdict, Verdicts
    from interviewer.evidence import no_cover_from_wrong

    wrong = "the H100 itself uses GDDR6X."
    where, speed, stack = (Claim(n, n) for n in ("where", "speed", "stack"))
    v = no_cover_from_wrong(
        Verdicts(
            (
                PointVerdict(where, "contradicted", wrong, 0.0, 0.9, "exact:swapped"),
                PointVerdict(speed, "covered", "The H100 itself uses GDDR6X", 1.0),
                PointVerdict(stack, "covered", wrong, 1.0, 1.0, "verbatim"),
            )
        )
    )
    assert [p.verdict for p in v.points] == ["contradicted", "missed", "covered"]
    assert v.points[1].credit == 0.0
