from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from interviewer.config import Settings
from interviewer.embeddings import default_embedder
from interviewer.index import Index
from interviewer.ingest import ingest

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "corpus"


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
def corpus_copy(tmp_path) -> Path:
    dst = tmp_path / "corpus"
    shutil.copytree(CORPUS, dst)
    return dst
