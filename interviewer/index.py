"""The persistent retrieval index: Chroma collections of questions and passages.

Layout under `root`: `CURRENT` names the live generation folder; each generation holds
`chroma/`, `bank.json` and `manifest.json`. Ingest writes a new generation beside the live
one and swaps `CURRENT` atomically, so a crash mid-ingest leaves the previous index usable.
With INTERVIEWER_CHROMA_URL all of it lives on a Chroma server instead (see chroma.py).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .bank import Bank
from .chroma import Folder, Place, Server, collection
from .chroma import current_generation as current_generation
from .chroma import open_chroma as open_chroma
from .config import Settings
from .embeddings import Embedder
from .errors import IndexMissingError, InputError
from .records import Hit, Passage, Question

QUESTIONS, PASSAGES = "questions", "passages"
FILTERS = ("difficulty", "kind", "topic", "source", "question_id")


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


def place_for(settings: Settings) -> Place:
    """The Chroma server that INTERVIEWER_CHROMA_URL names, else the local index folder."""
    return Server(settings.chroma_url) if settings.chroma_url else Folder(settings.index_dir)


def open_index(settings: Settings, embedder: Embedder | None = None) -> Index:
    """The index in the Chroma server or folder the settings name; the default embedder unless
    one is shared."""
    from .embeddings import default_embedder

    return Index(place_for(settings), embedder or default_embedder())


def has_index(settings: Settings) -> bool:
    return place_for(settings).live() is not None


def load_bank(settings: Settings) -> Bank:
    """The live generation's bank, without opening Chroma's collections."""
    place = place_for(settings)
    gen = place.live()
    if gen is None:
        raise IndexMissingError(f"no index at {place}: run `interviewer ingest` first")
    return Bank.loads(place.read(gen, "bank.json"))


class Index:
    """Read side of the index. Opens lazily; follows the live generation when an ingest swaps
    it. `root` is the local index folder, or a Place (a Chroma server)."""

    def __init__(self, root: Path | Place, embedder: Embedder) -> None:
        self.place: Place = Folder(root) if isinstance(root, Path) else root
        self.embedder = embedder
        self._lock = threading.Lock()
        self._gen: str | None = None
        self._client: Any = None
        self._bank: Bank | None = None
        self._cols: dict[str, Any] = {}

    def generation(self) -> str | None:
        """The live generation's name, or None before the first ingest."""
        return self.place.live()

    def _refresh(self) -> str:
        gen = self.generation()
        if gen is None:
            raise IndexMissingError(f"no index at {self.place}: run `interviewer ingest` first")
        with self._lock:
            if gen != self._gen:
                bank = Bank.loads(self.place.read(gen, "bank.json"))
                self._gen, self._client, self._cols, self._bank = gen, None, {}, bank
        return gen

    @property
    def bank(self) -> Bank:
        self._refresh()
        assert self._bank is not None
        return self._bank

    def manifest(self) -> dict[str, Any]:
        gen = self._refresh()
        manifest: dict[str, Any] = json.loads(self.place.read(gen, "manifest.json"))
        return manifest

    def _collection(self, name: str) -> Any:
        gen = self._refresh()
        with self._lock:
            if self._client is None:
                self._client = self.place.client(gen)
            if name not in self._cols:
                self._cols[name] = collection(self._client, self.place.name(gen, name))
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
