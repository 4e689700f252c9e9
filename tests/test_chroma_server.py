"""INTERVIEWER_CHROMA_URL: the index on a real `chroma run` server, shared by every instance."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from interviewer.chroma import META, Server
from interviewer.config import Settings
from interviewer.grader import grade
from interviewer.index import has_index, load_bank, open_index
from interviewer.ingest import ingest
from tests.conftest import CORPUS, PowerCut

GUIDE = "ai-infrastructure-practice-questions.txt"
HBM = "What is the difference between HBM and GDDR?"
FULL = (
    "HBM is high bandwidth memory, 3D-stacked right on the GPU package, giving massive "
    "bandwidth, over 3 TB/s on an H100. GDDR is conventional memory with lower bandwidth, "
    "around 1 TB/s, but it is cheaper. Data center GPUs use HBM and consumer cards use GDDR."
)


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory):
    """A real Chroma server on a free local port, for the whole session."""
    exe = Path(sys.executable).with_name("chroma")
    if not exe.exists():
        pytest.skip(f"no chroma executable next to {sys.executable}")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    path = tmp_path_factory.mktemp("chroma-server")
    log = (path / "server.log").open("wb")
    proc = subprocess.Popen(
        [exe, "run", "--path", str(path / "db"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                Server(url).connect().heartbeat()
                break
            except Exception as e:
                if proc.poll() is not None or time.monotonic() > deadline:
                    msg = f"chroma run did not start: see {path / 'server.log'}"
                    raise RuntimeError(msg) from e
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture()
def chroma_url(chroma_server):
    """The server, emptied: each test starts without an index."""
    client = Server(chroma_server).connect()
    for col in client.list_collections():
        client.delete_collection(col.name)
    return chroma_server


@pytest.fixture()
def corpus(tmp_path) -> Path:
    """The shipped guide's first nine questions: a real document, small enough to be fast."""
    dst = tmp_path / "corpus"
    dst.mkdir()
    lines = (CORPUS / GUIDE).read_text("utf-8").splitlines(keepends=True)
    (dst / GUIDE).write_text("".join(lines[:20]), "utf-8")
    return dst


def instance(tmp_path, name: str, corpus: Path, url: str) -> Settings:
    """One app instance's settings: its own data folder (as on its own box), the shared server."""
    return Settings(data_dir=tmp_path / name, corpus_dir=corpus, chroma_url=url)


def collections(url: str) -> list[str]:
    return sorted(c.name for c in Server(url).connect().list_collections())


def generations(url: str) -> tuple[set[str], set[str]]:
    """The generations that have collections, and those that have files, on the server."""
    cols = {re.sub(r"^interviewer-(gen-.*)-[a-z]+$", r"\1", n) for n in collections(url)}
    metas = Server(url).meta().get(include=["metadatas"])["metadatas"]
    return cols - {META}, {str(m["gen"]) for m in metas if "gen" in m}


def other_process(settings: Settings) -> str:
    """The live generation and bank size, as a separate process with only the URL sees them."""
    code = (
        "from interviewer.config import Settings\n"
        "from interviewer.index import load_bank, place_for\n"
        "s = Settings()\n"
        "print(place_for(s).live(), len(load_bank(s)))\n"
    )
    env = os.environ | {
        "INTERVIEWER_CHROMA_URL": settings.chroma_url,
        "INTERVIEWER_DATA_DIR": str(settings.data_dir.parent / "third"),
    }
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=CORPUS.parent,  # this checkout's package first on sys.path
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def test_ingest_into_the_server_and_search_and_grade_from_another_instance(
    tmp_path, corpus, chroma_url, embedder
):
    first = instance(tmp_path, "a", corpus, chroma_url)
    assert not has_index(first)
    report = ingest(first, embedder)
    assert report.problems == [] and report.added == [GUIDE] and report.questions == 9
    assert not (first.data_dir / "index").exists()  # nothing of the index on this box
    gen = Server(chroma_url).live()
    assert collections(chroma_url) == [
        f"interviewer-{gen}-passages",
        f"interviewer-{gen}-questions",
        META,
    ]

    second = instance(tmp_path, "b", corpus, chroma_url)
    index = open_index(second, embedder)
    assert index.generation() == gen and len(index.bank) == report.questions
    hits = index.search_questions("HBM vs GDDR bandwidth", k=3)
    assert hits[0].text == HBM and hits[0].score > hits[1].score
    passage = index.search_passages("HBM vs GDDR bandwidth", k=1)[0]
    assert "GDDR" in passage.text and passage.metadata["source"] == GUIDE
    assert index.manifest()["files"][str((corpus / GUIDE).resolve())]["source"] == GUIDE
    filtered = index.search_questions("memory", k=5, source=GUIDE)
    assert filtered and all(h.metadata["source"] == GUIDE for h in filtered)
    assert index.search_passages("memory", k=3, source="elsewhere.txt") == []

    result = grade(HBM, FULL, settings=second)  # the grader finds the server's index itself
    assert f"{hits[0].id}#v0" in result.reference_ids and result.score >= 4
    assert other_process(second) == f"{gen} {report.questions}"


def test_a_reingest_swaps_the_generation_that_every_instance_sees(
    tmp_path, corpus, chroma_url, embedder
):
    first = instance(tmp_path, "a", corpus, chroma_url)
    ingest(first, embedder)
    reader = open_index(instance(tmp_path, "b", corpus, chroma_url), embedder)
    old_gen, old_size = reader.generation(), len(reader.bank)
    assert reader.search_questions("HBM vs GDDR", k=1)[0].text == HBM

    extra = corpus / "extra.md"
    extra.write_text(
        "What is NVLink-C2C? medium\n\nNVLink-C2C links a Grace CPU and a Hopper GPU "
        "coherently at 900 GB/s, so both share one address space.\n",
        "utf-8",
    )
    report = ingest(first, embedder)
    assert report.added == ["extra.md"] and GUIDE in report.unchanged
    new_gen = reader.generation()
    assert new_gen != old_gen and new_gen is not None
    assert new_gen.startswith("gen-000002-")
    assert reader.search_questions("NVLink-C2C Grace Hopper", k=1)[0].text == (
        "What is NVLink-C2C?"
    )
    assert len(reader.bank) == old_size + 1
    # The unchanged guide's passages came over from the previous generation.
    assert reader.search_passages("HBM vs GDDR bandwidth", k=1)[0].metadata["source"] == GUIDE
    assert other_process(first) == f"{new_gen} {old_size + 1}"
    assert generations(chroma_url) == ({old_gen, new_gen},) * 2  # the live and the previous

    extra.unlink()
    removed = ingest(first, embedder)
    assert removed.removed == ["extra.md"]
    assert all(
        h.metadata["source"] != "extra.md"
        for h in reader.search_passages("NVLink-C2C Grace Hopper", k=5)
    )
    assert "What is NVLink-C2C?" not in [q.text for q in load_bank(first).questions]
    live = reader.generation()
    assert live is not None and live.startswith("gen-000003-")
    assert generations(chroma_url) == ({new_gen, live},) * 2  # the first one is gone


def test_an_unchanged_corpus_does_not_rebuild(tmp_path, corpus, chroma_url, embedder):
    settings = instance(tmp_path, "a", corpus, chroma_url)
    first = ingest(settings, embedder)
    gen, names = Server(chroma_url).live(), collections(chroma_url)
    again = ingest(instance(tmp_path, "b", corpus, chroma_url), embedder)  # another instance
    assert not again.changed and again.unchanged == [GUIDE]
    assert (again.questions, again.passages) == (first.questions, first.passages)
    assert Server(chroma_url).live() == gen and collections(chroma_url) == names


def test_a_crash_mid_ingest_leaves_the_live_generation_usable(
    tmp_path, corpus, chroma_url, embedder
):
    settings = instance(tmp_path, "a", corpus, chroma_url)
    ingest(settings, embedder)
    gen = Server(chroma_url).live()
    (corpus / "extra.txt").write_text("NVLink-C2C links Grace and Hopper coherently.")

    with pytest.raises(RuntimeError, match="power cut"):
        ingest(settings, PowerCut(embedder, "NVLink-C2C"))
    index = open_index(settings, embedder)
    assert index.generation() == gen
    assert index.search_questions("HBM vs GDDR", k=1)[0].text == HBM
    crashed = generations(chroma_url)[0] - {gen}
    assert len(crashed) == 1  # its collections stay until a later ingest prunes them

    assert ingest(settings, embedder).added == ["extra.txt"]
    second = Server(chroma_url).live()
    assert second not in crashed and index.generation() == second
    (corpus / "extra.txt").unlink()
    assert ingest(settings, embedder).removed == ["extra.txt"]
    third = Server(chroma_url).live()
    assert generations(chroma_url) == ({second, third}, {second, third})


def test_a_bad_url_is_an_input_error(tmp_path, corpus):
    from interviewer.chroma import ChromaServerError
    from interviewer.errors import InputError

    with pytest.raises(InputError, match="CHROMA_URL"):
        load_bank(instance(tmp_path, "a", corpus, "127.0.0.1:8001"))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ChromaServerError, match="cannot reach"):
        load_bank(instance(tmp_path, "a", corpus, f"http://127.0.0.1:{port}"))
