"""The persistent retrieval index: Chroma collections of questions and passages.

Layout under `root`: `CURRENT` names the live generation folder; each generation holds
`chroma/`, `bank.json` and `manifest.json`. Ingest writes a new generation beside the live
one and swaps `CURRENT` atomically, so a crash mid-ingest leaves the previous index usable.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .bank import Bank
from .config import Settings
from .embeddings import Embedder
from .errors import IndexMissingError, InputError
from .records import Hit, Passage, Question

QUESTIONS, PASSAGES = "questions", "passages"
FILTERS = ("difficulty", "kind", "topic", "source", "question_id")


def open_chroma(path: Path) -> Any:
    """A Chroma client with telemetry off; collections get no embedding function, so Chroma's
    default (which downloads a model) can never run: every vector comes from our Embedder."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    return chromadb.PersistentClient(
        path=str(path), settings=ChromaSettings(anonymized_telemetry=False)
    )


def collection(client, name: str) -> Any:
    return client.get_or_create_collection(
        name, embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
    )


def question_rows(questions: Sequence[Question]) -> tuple[list[str], list[str], list[dict]]:
    """One row per variant, so an input question matches whichever wording is nearest."""
    ids, docs, metas = [], [], []
    for q in questions:
        for n, v in enumerate(q.variants):
            ids.append(f"{q.id}#{n}")
            docs.append(v.text)
            metas.append(
                {
                    "question_id": q.id,
                    "difficulty": q.difficulty,
                    "kind": q.kind,
                    "source": v.source,
                    "start": v.start,
                    "end": v.end,
                    "variant": n,
                    "has_reference": bool(v.reference),
                    "technical": q.technical,
                }
                | {f"topic_{t}": True for t in q.topics}
            )
    return ids, docs, metas


def passage_meta(p: Passage, path: str, bank_q: Question | None) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "source": p.source,
        "path": path,
        "start": p.start,
        "end": p.end,
        "question_id": p.question_id or "",
    }
    if bank_q is not None:
        meta |= {"difficulty": bank_q.difficulty, "kind": bank_q.kind}
        meta |= {f"topic_{t}": True for t in bank_q.topics}
    return meta


def where_clause(filters: dict[str, str | None]) -> dict[str, Any] | None:
    conds: list[dict[str, Any]] = []
    for key, value in filters.items():
        if value in (None, ""):
            continue
        if key not in FILTERS:
            raise InputError(f"unknown filter '{key}' (use one of {', '.join(FILTERS)})")
        conds.append({f"topic_{value}": True} if key == "topic" else {key: value})
    if not conds:
        return None
    return conds[0] if len(conds) == 1 else {"$and": conds}


class Index:
    """Read side of the index. Opens lazily; follows `CURRENT` when an ingest swaps it."""

    def __init__(self, root: Path, embedder: Embedder) -> None:
        self.root = root
        self.embedder = embedder
        self._lock = threading.Lock()
        self._gen: Path | None = None
        self._client: Any = None
        self._bank: Bank | None = None
        self._cols: dict[str, Any] = {}

    def generation(self) -> Path | None:
        return current_generation(self.root)

    def _refresh(self) -> Path:
        gen = self.generation()
        if gen is None or not gen.is_dir():
            raise IndexMissingError(f"no index at {self.root}: run `interviewer ingest` first")
        with self._lock:
            if gen != self._gen:
                self._gen, self._client, self._cols = gen, None, {}
                self._bank = Bank.load(gen / "bank.json")
        return gen

    @property
    def bank(self) -> Bank:
        self._refresh()
        assert self._bank is not None
        return self._bank

    def manifest(self) -> dict[str, Any]:
        return json.loads((self._refresh() / "manifest.json").read_text("utf-8"))

    def _collection(self, name: str) -> Any:
        gen = self._refresh()
        with self._lock:
            if self._client is None:
                self._client = open_chroma(gen / "chroma")
            if name not in self._cols:
                self._cols[name] = collection(self._client, name)
            return self._cols[name]

    def warm(self) -> None:
        """Load the model and open both collections now rather than on the first query."""
        self.search("warm up", k=1)

    def _vector(self, query: str, vector: np.ndarray | None) -> list[float]:
        vec = self.embedder.embed([query])[0] if vector is None else vector
        return [float(x) for x in vec]

    def search_questions(
        self, query: str, k: int = 5, vector: np.ndarray | None = None, **filters: str | None
    ) -> list[Hit]:
        where = where_clause(filters)
        vec = self._vector(query, vector)
        res = self._collection(QUESTIONS).query(
            query_embeddings=[vec],
            n_results=max(1, 3 * k),
            where=where,
            include=["documents", "metadatas", "distances"],
        )
        bank = self.bank  # one look at CURRENT per search
        hits: list[Hit] = []
        seen: set[str] = set()
        for doc, meta, dist in zip(
            res["documents"][0], res["metadatas"][0], res["distances"][0], strict=True
        ):
            qid = str(meta["question_id"])
            if qid in seen:
                continue
            seen.add(qid)
            q = bank.get(qid)
            meta = dict(meta) | {"matched_variant": doc}
            text = q.text if q else doc
            hits.append(
                Hit(id=qid, text=text, score=1.0 - float(dist), kind="question", metadata=meta)
            )
            if len(hits) == k:
                break
        return hits

    def search_passages(
        self, query: str, k: int = 5, vector: np.ndarray | None = None, **filters: str | None
    ) -> list[Hit]:
        where = where_clause(filters)
        vec = self._vector(query, vector)
        res = self._collection(PASSAGES).query(
            query_embeddings=[vec],
            n_results=max(1, k),
            where=where,
            include=["documents", "metadatas", "distances"],
        )
        return [
            Hit(id=pid, text=doc, score=1.0 - float(dist), kind="passage", metadata=dict(meta))
            for pid, doc, meta, dist in zip(
                res["ids"][0],
                res["documents"][0],
                res["metadatas"][0],
                res["distances"][0],
                strict=True,
            )
        ]

    def search(self, query: str, k: int = 5, **filters: str | None) -> dict[str, list[Hit]]:
        vec = self.embedder.embed([query])[0]
        return {
            "questions": self.search_questions(query, k, vec, **filters),
            "passages": self.search_passages(query, k, vec, **filters),
        }


def current_generation(root: Path) -> Path | None:
    """The live generation folder that `CURRENT` names, or None before the first ingest."""
    try:
        gen = root / (root / "CURRENT").read_text().strip()
    except FileNotFoundError:
        return None
    return gen if gen.is_dir() else None


def write_current(root: Path, gen_name: str) -> None:
    tmp = root / "CURRENT.tmp"
    tmp.write_text(gen_name)
    os.replace(tmp, root / "CURRENT")


def open_index(settings: Settings, embedder: Embedder | None = None) -> Index:
    """The index under settings.data_dir; the default embedder unless one is shared."""
    from .embeddings import default_embedder

    return Index(settings.index_dir, embedder or default_embedder())
