"""The bank and the Chroma index, built from the shipped guides with the real model."""

from __future__ import annotations

import json

from interviewer.cli import main


def test_bank_merges_duplicates_and_keeps_every_variant(built_index):
    _, index = built_index
    bank = index.bank
    technical = bank.technical()
    raw = sum(len(q.variants) for q in technical)
    assert raw == 64 + 15 + 2 + 12 + 10  # every question the guides state
    assert 90 <= len(technical) <= raw - 5  # the known repeats merged
    core = [q for q in bank.questions if "CUDA core" in q.text and "Tensor Core" in q.text]
    assert len(core) == 1
    q = core[0]
    assert len(q.variants) == 3
    refs = " ".join(q.reference_answers)
    assert "4x4" in refs and "16×16" in refs and "4×4" in refs
    assert {v.source for v in q.variants} == {
        "ai-infrastructure-practice-questions.txt",
        "gpu-cuda-interview-questions.txt",
    }
    # Look-alikes with different answers stay apart.
    smi = [q for q in bank.questions if q.text.startswith("nvidia-smi shows")]
    assert len(smi) == 2


def test_bank_fields_and_stable_ids(built_index):
    _, index = built_index
    for q in index.bank.questions:
        assert q.id.startswith("q-") and q.difficulty in {"easy", "medium", "hard"}
        assert q.kind in {"concept", "scenario", "system design", "coding", "advice"}
        assert q.topics and q.source.endswith(".txt") and q.span[0] < q.span[1]
    answered = [q for q in index.bank.questions if q.reference_answers]
    unanswered = [q for q in index.bank.technical() if not q.reference_answers]
    assert all(q.key_points for q in answered)
    assert {q.source for q in unanswered} == {
        "ai-system-scalability-questions-1.txt",
        "ai-system-scalability-questions-2.txt",
        "ml-systems-interview-topics.txt",
    }


def test_search_ranks_hbm_gddr_first(built_index):
    _, index = built_index
    hits = index.search_questions("HBM vs GDDR bandwidth", k=5)
    assert hits[0].text == "What is the difference between HBM and GDDR?"
    assert hits[0].score > hits[1].score
    passages = index.search_passages("HBM vs GDDR bandwidth", k=3)
    assert "GDDR" in passages[0].text
    assert passages[0].metadata["source"] == "ai-infrastructure-practice-questions.txt"


def test_metadata_filters(built_index):
    _, index = built_index
    hard = index.search_questions("memory", k=10, difficulty="hard")
    assert hard and all(h.metadata["difficulty"] == "hard" for h in hard)
    design = index.search_questions("cluster", k=5, kind="system design")
    assert design and all(h.metadata["kind"] == "system design" for h in design)
    topic = index.search_questions("speed", k=5, topic="precision-quantization")
    assert topic and all(h.metadata["topic_precision-quantization"] for h in topic)
    src = index.search_passages("training", k=5, source="ml-systems-interview-topics.txt")
    assert src and all(h.metadata["source"] == "ml-systems-interview-topics.txt" for h in src)


def test_passages_carry_spans_and_question_ids(built_index):
    settings, index = built_index
    hits = index.search_passages("FlashAttention tiling softmax", k=3)
    text = (settings.corpus_dir / hits[0].metadata["source"]).read_text("utf-8")
    start, end = hits[0].metadata["start"], hits[0].metadata["end"]
    assert " ".join(text[start:end].split())[:50] == hits[0].text[:50]
    assert hits[0].metadata["question_id"].startswith("q-")
    for h in index.search_passages("Sign in to Continue unlock question bank", k=10):
        assert "Sign in to Continue" not in h.text and "0 practiced" not in h.text


def test_cli_bank_json_and_search(built_index, capsys):
    settings, _ = built_index
    assert main(["--data-dir", str(settings.data_dir), "bank", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["counts"]["kind"]["advice"] == 8
    q = data["questions"][0]
    assert {
        "id",
        "text",
        "reference_answers",
        "difficulty",
        "kind",
        "topics",
        "source",
        "span",
        "key_points",
        "variants",
        "graded_with",
    } <= set(q)
    # An advice question's rubric has no key points: grading uses the reference's sentences
    # (a batch trial read "authored" and found `rubric: auto` in the grades).
    advice = [x for x in data["questions"] if x["kind"] == "advice" and x["rubric"]]
    assert advice and all(
        x["graded_with"] == "auto" for x in advice if not x["rubric"].get("key_points")
    )
    # The table's "kps" counts the key points grading uses: the rubric's (trial G read 4 for
    # the BF16 question, whose rubric has 5).
    bf16 = next(
        x for x in data["questions"] if x["text"] == "Why use BF16 instead of FP16 for training?"
    )
    assert main(["--data-dir", str(settings.data_dir), "bank"]) == 0
    row = next(x for x in capsys.readouterr().out.splitlines() if x.startswith(bf16["id"]))
    assert int(row.split()[4]) == len(bf16["rubric"]["key_points"]) != len(bf16["key_points"])
    assert (
        main(
            [
                "--data-dir",
                str(settings.data_dir),
                "search",
                "HBM vs GDDR bandwidth",
                "--format",
                "json",
                "-k",
                "2",
            ]
        )
        == 0
    )
    res = json.loads(capsys.readouterr().out)
    assert res["questions"][0]["text"] == "What is the difference between HBM and GDDR?"


def test_cli_without_index_says_what_to_do(tmp_path, capsys):
    assert main(["--data-dir", str(tmp_path), "search", "x"]) == 2
    assert "interviewer ingest" in capsys.readouterr().err
