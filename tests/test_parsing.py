"""Each guide's structure is parsed into the questions it holds, and nothing else."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from interviewer.bank import Bank, topics_for
from interviewer.parsing import is_chrome, parse_text
from interviewer.records import Question, RawItem
from interviewer.sentences import key_points, split_sentences
from tests.conftest import CORPUS


def parse(name: str):
    return parse_text(name, (CORPUS / name).read_text("utf-8"))


def test_headed_questions_with_difficulty_and_answers():
    items = parse("gpu-cuda-interview-questions.txt")
    assert len(items) == 64
    assert Counter(i.difficulty for i in items) == {"easy": 16, "medium": 23, "hard": 25}
    assert all(i.reference and i.key_points for i in items)
    first = items[0]
    assert first.text == "Why are GPUs faster than CPUs for deep learning?"
    assert first.reference.startswith("GPUs are throughput machines")
    # Bullets become key points, and section headings never leak into an answer.
    spiky = next(i for i in items if i.text.startswith("My GPU utilization is low"))
    assert any(kp.startswith("Batch too small") for kp in spiky.key_points)
    assert all("Medium — applied" not in (i.reference or "") for i in items)
    last = items[-1]
    assert "what industry actually asks" not in last.reference
    assert last.reference.endswith("MPS for utilization/flexibility.")
    assert Counter(i.kind for i in items)["scenario"] >= 20


def test_rapid_fire_rows_split_into_question_and_answer():
    items = [
        i
        for i in parse("ai-infrastructure-practice-questions.txt")
        if i.section == "Rapid-Fire Questions"
    ]
    assert len(items) == 15
    assert items[0].text == "What is the difference between HBM and GDDR?"
    assert items[0].reference.startswith("HBM (High Bandwidth Memory)")
    # A question that ends with a full stop, not a question mark:
    assert items[12].text == "Name three Kubernetes components needed for GPU workloads."
    assert items[12].reference.startswith("NVIDIA Device Plugin")
    assert items[14].text.startswith("How do you estimate the cost")
    assert items[14].reference.startswith("~6 x 7B x 1T")


def test_design_prompts_have_numbered_model_answers_as_key_points():
    items = [
        i for i in parse("ai-infrastructure-practice-questions.txt") if i.kind == "system design"
    ]
    assert len(items) == 2
    assert items[0].text.startswith("Your company wants to train a 30B parameter LLM")
    assert len(items[0].key_points) == 7 and len(items[1].key_points) == 6
    assert items[0].key_points[0].startswith("Compute estimate")
    assert items[1].difficulty == "hard"


def test_faq_is_advice_and_tips_and_checklist_are_not_questions():
    items = parse("ai-infrastructure-practice-questions.txt")
    advice = [i for i in items if i.kind == "advice"]
    assert len(advice) == 8
    assert advice[0].text.startswith("Do I need to know CUDA programming")
    texts = " ".join(i.text for i in items)
    assert "Know Your Numbers" not in texts and "Explain GPU architecture" not in texts
    assert len(items) == 15 + 2 + 8


@pytest.mark.parametrize(
    "name", ["ai-system-scalability-questions-1.txt", "ai-system-scalability-questions-2.txt"]
)
def test_labelled_lists_without_answers_and_without_chrome(name):
    items = parse(name)
    assert len(items) == 5
    assert all(i.reference is None and not i.key_points for i in items)
    assert all(not i.difficulty_inferred for i in items)
    for i in items:
        assert "practiced" not in i.text and "Unlock" not in i.text and "Sign in" not in i.text
    kinds = Counter(i.kind for i in items)
    assert kinds["system design"] >= 1


def test_label_drives_difficulty_and_kind():
    items = parse("ai-system-scalability-questions-2.txt")
    assert (items[0].difficulty, items[0].kind) == ("hard", "system design")
    assert items[1].difficulty == "medium"


def test_quoted_example_questions_from_topic_outline():
    items = parse("ml-systems-interview-topics.txt")
    assert len(items) == 12
    assert items[0].text.startswith("Design a reproducible benchmark")
    assert items[0].section == "ML Foundations and GPU Acceleration"
    assert all(i.reference is None and i.difficulty_inferred for i in items)
    assert any(i.kind == "coding" for i in items)


def test_site_chrome_is_recognised():
    for line in [
        "Unlock Full Question Bank",
        "Sign in to Continue",
        "0 practiced",
        "← Interview Prep",
        "InterviewStack.io LogoInterviewStack.io",
    ]:
        assert is_chrome(line)
    assert not is_chrome("What is NCCL?")


def test_key_points_are_atomic_claims():
    kps = key_points(
        "Both formats use 16 bits. BF16 keeps the FP32 exponent (e.g. 8 bits); FP16 "
        "has a narrower range.\n  • Loss scaling is needed for FP16.\n  • BF16 "
        "rarely overflows in training.\n  • Fast."
    )
    assert kps == (
        "Both formats use 16 bits.",
        "BF16 keeps the FP32 exponent (e.g. 8 bits)",
        "FP16 has a narrower range.",
        "Loss scaling is needed for FP16.",
        "BF16 rarely overflows in training. Fast.",  # a fragment joins the claim before it
    )


def test_a_sentence_typed_in_lower_case_is_a_sentence():
    """Hastily typed and transcribed answers start sentences in lower case; abbreviations,
    ellipses and dotted names are not sentence ends."""
    assert split_sentences(
        "a warp is 32 threads. they run in lockstep, e.g. the same instruction. "
        "do.. while loops. torch.compile fuses them. Done."
    ) == [
        "a warp is 32 threads.",
        "they run in lockstep, e.g. the same instruction.",
        "do.. while loops.",
        "torch.compile fuses them.",
        "Done.",
    ]


def test_text_without_structure_yields_no_questions():
    assert parse_text("notes.md", "# My notes\n\nNCCL uses rings and trees.\n") == []


def test_topics_come_from_the_question_and_its_answer_only_when_it_names_none():
    # A reference mentions memory or clusters in passing; the question says what it is about.
    warp = (
        "A warp is 32 threads; divergence serialises them, and a cluster scheduler never sees it."
    )
    assert topics_for("What is a warp and why does it matter?", warp) == ("gpu-architecture",)
    linux = "Comfortable with processes, memory, networking and the shell."
    assert topics_for("How much Linux systems knowledge is expected?", linux) == ("general",)
    sim = "Outline a sim-to-real pipeline for humanoid loco\u2011manipulation."
    assert topics_for(sim) == ("robotics-simulation",)  # was "general" (a trial, stop 65)
    overlap = "Use CUDA streams and pinned memory so copies overlap kernels; profile the timeline."
    assert set(topics_for("How do you overlap the two?", overlap)) >= {"kernels-performance"}
    assert "memory" in topics_for("How do you hide the copies?", overlap)


def test_topic_words_match_whole_words_and_a_kernels_cost_is_not_a_cluster_question():
    divergence = "What is the cost of warp divergence and how do you mitigate it?"
    assert "cluster-infrastructure" not in topics_for(divergence)
    assert "cluster-infrastructure" in topics_for(
        "How do you estimate the cost of training a 7B model?"
    )
    assert "cluster-infrastructure" in topics_for("When do you use MIG on an A100?")
    # "mig" inside "migrate", "mps" inside "jumps": neither names MIG or MPS
    assert topics_for("Why would you migrate when latency jumps?") == ("inference-serving",)


def test_a_bank_saved_under_an_older_topic_rule_reads_with_todays():
    item = RawItem(
        text="How much Linux systems knowledge is expected?",
        source="faq.txt",
        start=0,
        end=40,
        difficulty="easy",
        difficulty_inferred=True,
        kind="advice",
        reference="Processes, memory, networking and the shell.",
        key_points=("Processes, memory, networking and the shell.",),
    )
    question = Question("q-1", item.text, "easy", "advice", ("memory",), (item,))
    saved = json.dumps({"questions": [question.to_dict()]})
    assert Bank.loads(saved).questions[0].topics == ("general",)
