"""Users' own documents: formats, bad files, incremental re-ingest and crash safety."""

from __future__ import annotations

import pytest

from interviewer.config import Settings
from interviewer.index import Index
from interviewer.ingest import ingest
from tests.conftest import PowerCut


def make_pdf(text: str) -> bytes:
    """A minimal one-page PDF with real text, written by hand."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for n, obj in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


@pytest.fixture()
def user_docs(tmp_path):
    d = tmp_path / "docs"
    d.mkdir()
    (d / "notes.md").write_text(
        "# Triton notes\n\nWhat is a Triton program instance? medium\n\n"
        "A program instance processes one block of data. Triton compiles it to PTX.\n",
        "utf-8",
    )
    (d / "page.html").write_text(
        "<html><head><script>var x=1;</script><style>p{}</style></head><body>"
        "<h1>NVSwitch</h1><p>NVSwitch connects every GPU in a node at full NVLink bandwidth."
        "</p></body></html>",
        "utf-8",
    )
    (d / "paper.pdf").write_bytes(make_pdf("Speculative decoding drafts tokens with a small model"))
    return d


def settings_for(tmp_path, corpus) -> Settings:
    return Settings(data_dir=tmp_path / "data", corpus_dir=corpus)


def test_user_documents_in_every_format(tmp_path, corpus_copy, user_docs, embedder):
    settings = settings_for(tmp_path, corpus_copy)
    report = ingest(settings, embedder, [user_docs])
    assert not report.problems
    assert {"notes.md", "page.html", "paper.pdf"} <= set(report.added)
    index = Index(settings.index_dir, embedder)
    assert (
        index.search_passages("speculative decoding draft model", k=1)[0].metadata["source"]
        == "paper.pdf"
    )
    html_hit = index.search_passages("NVSwitch full NVLink bandwidth", k=1)[0]
    assert html_hit.metadata["source"] == "page.html" and "var x" not in html_hit.text
    triton = index.search_questions("Triton program instance", k=1)[0]
    assert triton.text == "What is a Triton program instance?"
    assert index.bank.get(triton.id).reference_answers


def test_bad_files_are_reported_and_the_rest_is_ingested(tmp_path, corpus_copy, embedder):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "empty.txt").write_text("")
    (bad / "binary.txt").write_bytes(b"\x00\x01\x02garbage" * 100)
    (bad / "latin1.md").write_bytes("caf\xe9 na\xefve".encode("latin-1"))
    (bad / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is not really a pdf")
    (bad / "slides.pptx").write_bytes(b"PK")
    good = bad / "good.txt"
    good.write_text("Warp specialization splits producer and consumer warps in a kernel.")
    settings = settings_for(tmp_path, corpus_copy)
    report = ingest(settings, embedder, [bad, tmp_path / "missing.md", bad / "slides.pptx"])
    problems = "\n".join(report.problems)
    for name in ("empty.txt", "binary.txt", "latin1.md", "broken.pdf", "slides.pptx", "missing.md"):
        assert name in problems, name
    assert "good.txt" in report.added
    assert "gpu-cuda-interview-questions.txt" in report.added
    hit = Index(settings.index_dir, embedder).search_passages("warp specialization", k=1)[0]
    assert hit.metadata["source"] == "good.txt"


def test_reingest_is_incremental_and_idempotent(tmp_path, corpus_copy, user_docs, embedder):
    settings = settings_for(tmp_path, corpus_copy)
    first = ingest(settings, embedder, [user_docs])
    again = ingest(settings, embedder)  # roots are remembered
    assert not again.changed and again.questions == first.questions
    assert again.passages == first.passages

    notes = user_docs / "notes.md"
    notes.write_text(
        "What is a Triton autotuner? easy\n\nIt benchmarks configs and keeps the "
        "fastest one for each input shape.\n",
        "utf-8",
    )
    (user_docs / "page.html").unlink()
    changed = ingest(settings, embedder)
    assert changed.updated == ["notes.md"] and changed.removed == ["page.html"]
    assert set(changed.unchanged) >= {"paper.pdf", "gpu-cuda-interview-questions.txt"}
    index = Index(settings.index_dir, embedder)
    texts = [q.text for q in index.bank.questions]
    assert "What is a Triton autotuner?" in texts
    assert "What is a Triton program instance?" not in texts
    hits = index.search_passages("NVSwitch full NVLink bandwidth", k=5)
    assert all(h.metadata["source"] != "page.html" for h in hits)
    assert sorted(p.name for p in settings.index_dir.glob("gen-*")) == ["gen-000001", "gen-000002"]


def test_crash_mid_ingest_leaves_previous_index_usable(tmp_path, corpus_copy, embedder):
    settings = settings_for(tmp_path, corpus_copy)
    ingest(settings, embedder)
    (corpus_copy / "extra.txt").write_text("NVLink-C2C links Grace and Hopper coherently.")

    with pytest.raises(RuntimeError, match="power cut"):
        ingest(settings, PowerCut(embedder, "NVLink-C2C"))
    index = Index(settings.index_dir, embedder)
    assert index.search_questions("HBM vs GDDR", k=1)[0].text.startswith("What is the diff")
    assert not any(
        h.metadata["source"] == "extra.txt"
        for h in index.search_passages("NVLink-C2C Grace Hopper", k=5)
    )
    report = ingest(settings, embedder)
    assert report.added == ["extra.txt"]
    assert not list(settings.index_dir.glob("*.tmp"))


def test_chroma_default_embedding_function_is_never_used(
    tmp_path, corpus_copy, embedder, monkeypatch
):
    from chromadb.utils import embedding_functions

    def refuse(self, *a, **k):
        raise AssertionError("Chroma's default embedding function would download a model")

    monkeypatch.setattr(embedding_functions.DefaultEmbeddingFunction, "__call__", refuse)
    monkeypatch.setattr(embedding_functions.ONNXMiniLM_L6_V2, "__call__", refuse)
    settings = settings_for(tmp_path, corpus_copy)
    ingest(settings, embedder)
    assert Index(settings.index_dir, embedder).search("NCCL ring", k=2)["questions"]


def test_a_bad_file_is_reported_once_and_does_not_rebuild_the_index(
    tmp_path, corpus_copy, embedder
):
    from interviewer.index import current_generation

    docs = tmp_path / "docs"
    docs.mkdir()
    broken = docs / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\nthis is not really a pdf")
    settings = settings_for(tmp_path, corpus_copy)
    first = ingest(settings, embedder, [docs])
    assert any("broken.pdf" in p and "PDF" in p for p in first.problems)
    live = current_generation(settings.index_dir)

    again = ingest(settings, embedder)
    assert again.problems == [] and not again.changed
    assert again.skipped and again.skipped[0].startswith("broken.pdf: ")
    assert current_generation(settings.index_dir) == live  # nothing rebuilt

    broken.write_bytes(make_pdf("Warp specialization splits producer and consumer warps"))
    fixed = ingest(settings, embedder)
    assert fixed.added == ["broken.pdf"] and fixed.problems == [] and fixed.skipped == []


def test_a_corpus_larger_than_one_chroma_write_is_ingested(tmp_path, embedder):
    import random

    from benchmarks.ingest_scale import questions_doc

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "big.md").write_text(questions_doc(1400, random.Random(7)), "utf-8")
    settings = settings_for(tmp_path, corpus)
    report = ingest(settings, embedder)
    assert report.problems == []
    assert report.questions > 1024  # more than one write (the ingest's batch) holds
    index = Index(settings.index_dir, embedder)
    hit = index.search_questions("why does the warp scheduler hurt latency", k=3)
    assert hit and index.bank.get(hit[0].id) is not None


def test_notes_give_questions_keep_the_guides_rubrics_and_follow_edits(
    tmp_path, corpus_copy, embedder, capsys
):
    """Trial H: "## What is a CUDA stream?" notes gave no question, unseen; once they did, the
    guide's "What does a CUDA stream do?" was merged into the note's question and lost its
    authored rubric; and an edited answer left the automatic rubric on the old one."""
    from interviewer.cli import main
    from interviewer.references import load_rubrics, rubric_of

    settings = settings_for(tmp_path, corpus_copy)
    docs = tmp_path / "notes"
    docs.mkdir()
    (docs / "prose.md").write_text("Streams overlap copies with compute on the GPU.\n", "utf-8")
    notes = docs / "a_streams.md"
    notes.write_text(
        "## What does a CUDA stream do?\n\nA stream is an ordered queue of GPU work; work in\n"
        "different streams may run concurrently.\n\n## What sets the number of hardware "
        "queues?\n\nThe number of hardware work queues is set by\nCUDA_DEVICE_MAX_CONNECTIONS, "
        "which defaults to 8.\n",
        "utf-8",
    )
    args = ["--data-dir", str(settings.data_dir), "ingest", str(docs), "-q"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("INTERVIEWER_CORPUS_DIR", str(corpus_copy))
        assert main(args) == 0
    assert "no questions found in prose.md" in capsys.readouterr().err
    index = Index(settings.index_dir, embedder)
    rubrics = load_rubrics(settings.data_dir)
    stream = next(q for q in index.bank.questions if q.text == "What does a CUDA stream do?")
    assert any(v.source == "a_streams.md" for v in stream.variants)  # merged, the guide's id
    assert rubric_of(stream, rubrics).origin == "authored"
    queues = next(q for q in index.bank.questions if q.text.startswith("What sets the number"))
    # The topic picker's "my-documents" draws the notes' questions and only those.
    mine = [q.text for q in index.bank.questions if "my-documents" in q.topics]
    assert sorted(mine) == sorted([stream.text, queues.text])
    assert "my-documents" in index.bank.topics()
    (point,) = [k for k in rubric_of(queues, rubrics).key_points if "defaults to" in k.text]
    assert point.text.endswith("CUDA_DEVICE_MAX_CONNECTIONS, which defaults to 8.")
    notes.write_text(notes.read_text("utf-8").replace("defaults to 8", "defaults to 16"), "utf-8")
    ingest(settings, embedder, [docs])
    index = Index(settings.index_dir, embedder)
    queues = next(q for q in index.bank.questions if q.text.startswith("What sets the number"))
    texts = [k.text for k in rubric_of(queues, load_rubrics(settings.data_dir)).key_points]
    assert any(t.endswith("defaults to 16.") for t in texts)
