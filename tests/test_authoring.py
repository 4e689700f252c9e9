"""Rubrics for the user's own documents: automatic at ingest, LLM-written on request (against
the fake OpenAI-compatible server), cached, and a person's edit always kept."""

from __future__ import annotations

import json
from dataclasses import replace

from interviewer.authoring import LLM_FILE, build_llm, write_auto
from interviewer.bank import Bank
from interviewer.config import Settings
from interviewer.llm import OpenAICompatible
from interviewer.records import Question, RawItem
from interviewer.rubrics import dump_file, parse_file
from tests.fake_llm import FakeLLM, completion

REF = (
    "Gradient checkpointing trades compute for memory by recomputing activations in the "
    "backward pass. It cuts activation memory roughly to the square root of the layer count."
)


def user_bank() -> Bank:
    item = RawItem(
        "What does gradient checkpointing do?", "notes.md", 0, 10, "medium", True, "concept", REF
    )
    return Bank((Question("q-0123456789", item.text, "medium", "concept", ("memory",), (item,)),))


RUBRIC = {
    "key_points": [
        {
            "id": "trade",
            "label": "compute for memory",
            "weight": "core",
            "text": "Gradient checkpointing trades extra compute for less activation memory.",
            "probe": "What does it cost you, and what do you get back?",
            "paraphrases": ["It spends compute to save memory."],
        },
        {
            "id": "recompute",
            "label": "recomputes activations",
            "weight": "supporting",
            "text": "Activations are recomputed during the backward pass instead of being stored.",
            "probe": "When are the dropped values needed again?",
            "paraphrases": ["It recomputes activations in backward."],
        },
    ],
    "misconceptions": [
        {
            "text": "Checkpointing makes training faster.",
            "contradicts": "trade",
            "paraphrases": [
                "It speeds training up.",
                "You turn it on when you want each step to run quicker.",
            ],
        }
    ],
    "model_answer": "Gradient checkpointing keeps only some activations during the forward pass "
    "and recomputes the rest in the backward pass, so it spends roughly one extra forward pass "
    "of compute to cut activation memory, often to about the square root of the layer count.",
    "hints": ["Think about what the backward pass needs.", "What is stored, and what is redone?"],
}


def test_auto_rubrics_at_ingest_keep_a_persons_edit(tmp_path):
    bank = user_bank()
    assert write_auto(bank, tmp_path) == 1
    path = tmp_path / "rubrics" / "auto.yaml"
    (r,) = parse_file(path)
    assert r.origin == "auto" and r.key_points[0].text.startswith("Gradient")
    edited = r.__class__(**(r.__dict__ | {"model_answer": "My own model answer, written by me."}))
    dump_file(path, [edited])
    write_auto(bank, tmp_path)
    (kept,) = parse_file(path)
    assert kept.model_answer == "My own model answer, written by me." and kept.edited


def test_an_unedited_auto_rubric_follows_its_source(tmp_path):
    """Trial H changed a fact in its notes (8/32 -> 16/64) and was graded on the old one: the
    auto entry written at the first ingest was kept as if a person had edited it."""
    bank = user_bank()
    write_auto(bank, tmp_path)
    path = tmp_path / "rubrics" / "auto.yaml"
    (first,) = parse_file(path)
    assert first.made_as == first.fingerprint() and not first.edited
    (item,) = bank.questions[0].variants
    changed = replace(item, reference=REF.replace("square root", "cube root"))
    q = replace(bank.questions[0], variants=(changed,))
    write_auto(Bank((q,)), tmp_path)
    (again,) = parse_file(path)
    assert not again.edited and any("cube root" in k.text for k in again.key_points)
    # The labels name the point ("Work on: point 1" had told the candidate nothing).
    assert all(k.label != f"point {n}" for n, k in enumerate(again.key_points, 1))


def test_llm_rubrics_are_validated_cached_and_edits_win(tmp_path):
    bank = user_bank()
    settings = Settings(data_dir=tmp_path, llm_model="fake-model", llm_timeout_s=5.0)
    with FakeLLM(default=(200, completion(json.dumps(RUBRIC)))) as llm:
        chat = OpenAICompatible(settings.model_copy(update={"llm_base_url": llm.url}))
        counts = build_llm(bank, tmp_path, chat, lambda q: REF)
        assert counts == {"written": 1, "cached": 0, "kept_edited": 0, "failed": 0}
        req = llm.requests[0]
        assert req["response_format"]["json_schema"]["schema"]["properties"]["key_points"]
        again = build_llm(bank, tmp_path, chat, lambda q: REF)
        assert again["cached"] == 1 and len(llm.requests) == 1  # cached by content hash
    (r,) = parse_file(tmp_path / "rubrics" / LLM_FILE)
    assert r.origin == "llm" and r.key_points[0].probe.endswith("?")
    # The misconception in a candidate's own words is kept for the checker to match against.
    assert r.misconceptions[0].paraphrases == tuple(RUBRIC["misconceptions"][0]["paraphrases"])
    dump_file(tmp_path / "rubrics" / LLM_FILE, [r.__class__(**(r.__dict__ | {"edited": True}))])
    with FakeLLM() as llm:
        chat = OpenAICompatible(settings.model_copy(update={"llm_base_url": llm.url}))
        assert build_llm(bank, tmp_path, chat, lambda q: REF)["kept_edited"] == 1
        assert llm.requests == []


def test_an_llm_rubric_that_fails_review_is_dropped(tmp_path):
    bad = RUBRIC | {
        "hints": ["Gradient checkpointing trades extra compute for less activation memory."] * 2
    }
    settings = Settings(data_dir=tmp_path, llm_model="fake-model", llm_timeout_s=5.0)
    with FakeLLM(default=(200, completion(json.dumps(bad)))) as llm:
        chat = OpenAICompatible(settings.model_copy(update={"llm_base_url": llm.url}))
        assert build_llm(user_bank(), tmp_path, chat, lambda q: REF)["failed"] == 1
    assert not (tmp_path / "rubrics" / LLM_FILE).exists()
