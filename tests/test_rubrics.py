"""Every authored rubric is valid, complete and matches the bank; follow-ups and hints that the
interviewer says come from them and never give a key point away."""

from __future__ import annotations

import re

import pytest

from interviewer.rubric_review import GLUED, is_whole_sentence, lint, shares_run
from interviewer.rubrics import (
    auto_rubric,
    dump_file,
    load_authored,
    parse_file,
    whole_sentences,
)


@pytest.fixture(scope="module")
def bank(built_index):
    return built_index[1].bank


def test_every_bank_question_has_an_authored_rubric_and_every_rubric_a_question(bank):
    rubrics = load_authored()
    assert set(rubrics) == {q.id for q in bank.questions}
    for q in bank.questions:
        r = rubrics[q.id]
        assert r.question == q.text
        assert r.technical == q.technical, q.text  # advice/FAQ items are never asked
        if r.technical:
            assert r.origin == ("authored" if q.reference_answers else "passages"), q.text


def test_every_rubric_passes_review(bank):
    problems = {r.question_id: lint(r) for r in load_authored().values()}
    assert {k: v for k, v in problems.items() if v} == {}


def test_misconceptions_name_existing_key_points_and_are_not_key_points():
    for r in load_authored().values():
        ids = {k.id for k in r.key_points}
        for m in r.misconceptions:
            assert m.contradicts in ids
            assert all(m.text != k.text for k in r.key_points)
            # said in other words twice (terse, spoken): what the claim checker learns from
            assert len(m.paraphrases) == 2, m.text
            assert m.text not in m.paraphrases


def test_misconception_paraphrases_survive_a_round_trip(tmp_path):
    rubric = next(r for r in load_authored().values() if r.misconceptions)
    dump_file(tmp_path / "r.yaml", [rubric])
    (again,) = parse_file(tmp_path / "r.yaml")
    assert again.misconceptions == rubric.misconceptions
    assert again.misconceptions[0].paraphrases


def test_every_follow_up_and_hint_of_the_bank_renders_without_fragments_or_claims(bank):
    rubrics = load_authored()
    said = 0
    for q in bank.technical():
        r = rubrics[q.id]
        points = [k.text for k in r.key_points]
        for text in [k.probe for k in r.key_points] + list(r.hints):
            said += 1
            assert text.endswith(("?", ".")) and text[0].isupper(), text
            assert not GLUED.search(text), text
            assert not any(shares_run(p, text) for p in points), text
            assert re.search(r"\w{3,}", text)
    assert said > 5 * len(bank.technical())


def test_the_review_checks_catch_what_they_should():
    assert not is_whole_sentence("In rough order of cost/benefit")
    assert not is_whole_sentence("Fix fragmentationPYTORCH_CUDA_ALLOC_CONF now.")
    assert is_whole_sentence("FlashAttention fuses the attention kernel into one pass.")
    assert shares_run(
        "HBM is stacked memory on the GPU package", "so HBM is stacked memory on the GPU package?"
    )
    assert not shares_run("HBM is stacked memory on the GPU package", "Where does HBM sit?")


def test_auto_rubric_keeps_whole_sentences_only():
    ref = (
        "In rough order of cost/benefit: Fix fragmentationPYTORCH_CUDA_ALLOC_CONF. "
        "Gradient checkpointing trades compute for memory by recomputing activations. "
        "- Lower the micro-batch size and use gradient accumulation."
    )
    sentences = whole_sentences(ref)
    assert sentences == [
        "Gradient checkpointing trades compute for memory by recomputing activations.",
        "Lower the micro-batch size and use gradient accumulation.",
    ]
    r = auto_rubric("q-0123456789", "How do you fix OOM?", ref)
    assert r is not None and r.origin == "auto" and len(r.key_points) == 2
    assert all(not shares_run(k.text, k.probe) for k in r.key_points)


def test_a_question_in_the_material_is_no_key_point():
    """A guide's heading in a retrieved passage ("What is a CUDA graph and when does it help?
    medium") was a key point, and the feedback's "Work on"; a statement that quotes or ends on
    a question is still one."""
    passage = (
        "What is a CUDA graph and when does it help? medium. A CUDA graph captures a sequence "
        "of kernels once and replays it with a single launch. Start from "
        '"does the model + states fit on one GPU?" before you pick a parallelism.'
    )
    assert whole_sentences(passage) == [
        "A CUDA graph captures a sequence of kernels once and replays it with a single launch.",
        'Start from "does the model + states fit on one GPU?" before you pick a parallelism.',
    ]


def test_a_source_is_named_as_the_field_writes_it():
    """A browser trial (stop 36) read "(source: Ai system scalability questions 2)"."""
    from interviewer.references import readable_source

    assert readable_source("ai-system-scalability-questions-2.txt") == (
        "AI system scalability questions 2"
    )
    assert readable_source("gpu-cuda-interview-questions.txt", "Easy — fundamentals") == (
        'GPU CUDA interview questions, section "Easy — fundamentals"'
    )
    assert readable_source("my_team_notes.md") == "My team notes"
