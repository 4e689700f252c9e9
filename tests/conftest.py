from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from interviewer.config import Settings
from interviewer.embeddings import default_embedder
from interviewer.index import Index
from interviewer.ingest import ingest

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "corpus"


class Clock:
    """A clock the test moves (`clock.t += 66`)."""

    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


class PowerCut:
    """The real embedder, failing on the first batch that holds `marker`: a crash mid-ingest."""

    def __init__(self, embedder, marker: str) -> None:
        self.embedder, self.marker, self.name = embedder, marker, embedder.name

    def embed(self, texts):
        if any(self.marker in t for t in texts):
            raise RuntimeError("power cut")
        return self.embedder.embed(texts)


@pytest.fixture(scope="session")
def embedder():
    return default_embedder()


@pytest.fixture(scope="session")
def built_index(tmp_path_factory, embedder):
    """The shipped corpus ingested once into a real Chroma store on disk."""
    data = tmp_path_factory.mktemp("data")
    settings = Settings(data_dir=data, corpus_dir=CORPUS)
    report = ingest(settings, embedder)
    assert not report.problems
    return settings, Index(settings.index_dir, embedder)


@pytest.fixture()
def bank_grader(built_index):
    """Grades answers to one bank question with the offline grader, as a batch would."""
    from interviewer.grader import make_grader
    from interviewer.references import gather

    settings, index = built_index
    grader = make_grader("offline", settings, index=index)

    def grade(question):
        q = next(q for q in index.bank.technical() if q.text == question)
        refs = gather(q.text, index, settings, question_id=q.id)
        return lambda *answers: grader.grade_many([(q.text, a, refs) for a in answers])

    return grade


def _served(data: Path, built_index):
    from tests.test_app_browser import Server

    settings, _ = built_index
    shutil.copytree(settings.data_dir, data)  # the index is already built
    srv = Server(data).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory, built_index):
    """The real app on a copy of the built data dir, as `python app.py` serves it, one per test
    module: a start costs 30-50 s on two cores. Tests stay apart as users do: each opens its
    own browser contexts, and a session belongs to the browser that made it."""
    yield from _served(tmp_path_factory.mktemp("app") / "data", built_index)


@pytest.fixture()
def own_server(tmp_path, built_index):
    """An app of the test's own, for a test that stops and restarts it."""
    yield from _served(tmp_path / "data", built_index)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    from tests.test_app_browser import ARGS, CHROMIUM

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture()
def corpus_copy(tmp_path) -> Path:
    dst = tmp_path / "corpus"
    shutil.copytree(CORPUS, dst)
    return dst


@pytest.fixture()
def timed_controller(built_index, tmp_path):
    """The page's controller on the real engine, offline grader, index and a SQLite store, with
    a clock the test moves."""
    from interviewer.controller import Controller
    from interviewer.grader import make_grader
    from interviewer.interview import Engine
    from interviewer.store import Store

    settings, index = built_index
    clock = Clock()
    grader = make_grader("offline", settings, index=index)
    engine = Engine(index.bank, grader, index, settings, clock, random.Random(3))
    return Controller(settings, engine, Store(tmp_path / "s.sqlite3"), None, "offline"), clock


@pytest.fixture()
def engine(built_index):
    """The real engine and offline grader on the built index (fixed clock and seed)."""
    import random

    from interviewer.grader import make_grader
    from interviewer.interview import Engine

    settings, index = built_index
    grader = make_grader("offline", settings, index=index)
    return Engine(index.bank, grader, index, settings, Clock(), random.Random(7))
