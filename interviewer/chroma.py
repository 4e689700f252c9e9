"""Which Chroma holds the index, and where each generation's files live.

Two places, one interface (`Place`): `Folder` is the local layout (ROOT/CURRENT names the live
generation folder; each holds `chroma/`, `bank.json` and `manifest.json`), `Server` keeps all of
it on a Chroma server (`INTERVIEWER_CHROMA_URL`), so that every instance sees one index: the
generation's collections get generation-prefixed names, and the pointer and the generation's
files are records of a small `interviewer-meta` collection. In both, an ingest builds a new
generation beside the live one and one atomic step (a rename of CURRENT, one upsert of the
pointer record) makes it live; the live and the previous generation are kept.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import threading
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from .errors import InputError, InterviewerError

PREFIX = "interviewer"
META = f"{PREFIX}-meta"
POINTER = "CURRENT"
PART_CHARS = 256 * 1024  # one record per 256k characters: far below any proxy's body limit
_GEN = re.compile(rf"^{PREFIX}-(gen-(\d{{6}})-[0-9a-f]+)-[a-z]+$")


class ChromaServerError(InterviewerError):
    """The Chroma server named by INTERVIEWER_CHROMA_URL cannot be reached."""


def chroma_settings() -> Any:
    from chromadb.config import Settings as ChromaSettings

    return ChromaSettings(anonymized_telemetry=False)


def open_chroma(path: Path) -> Any:
    """A Chroma client with telemetry off; collections get no embedding function, so Chroma's
    default (which downloads a model) can never run: every vector comes from our Embedder."""
    import chromadb

    return chromadb.PersistentClient(path=str(path), settings=chroma_settings())


def collection(client: Any, name: str) -> Any:
    return client.get_or_create_collection(
        name, embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
    )


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


def gen_number(gen: str) -> int:
    return int(gen.split("-")[1])


class Place(Protocol):
    """Where the index lives. Generations are named `gen-NNNNNN[...]`."""

    def live(self) -> str | None: ...
    def client(self, gen: str) -> Any: ...
    def name(self, gen: str, kind: str) -> str: ...
    def read(self, gen: str, file: str) -> str: ...
    def write(self, gen: str, file: str, text: str) -> None: ...
    def prepare(self) -> None: ...
    def begin(self, live: str | None) -> str: ...
    def close(self, client: Any) -> None: ...
    def commit(self, work: str) -> str: ...
    def prune(self, previous: str | None, final: str) -> None: ...


class Folder:
    """The local layout under `root`, one Chroma folder per generation."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def __str__(self) -> str:
        return str(self.root)

    def live(self) -> str | None:
        gen = current_generation(self.root)
        return gen.name if gen else None

    def client(self, gen: str) -> Any:
        return open_chroma(self.root / gen / "chroma")

    def name(self, gen: str, kind: str) -> str:
        return kind

    def read(self, gen: str, file: str) -> str:
        return (self.root / gen / file).read_text("utf-8")

    def write(self, gen: str, file: str, text: str) -> None:
        path = self.root / gen / file
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(text, "utf-8")
        tmp.replace(path)

    def prepare(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        for stale in self.root.glob("*.tmp"):
            shutil.rmtree(stale, ignore_errors=True) if stale.is_dir() else stale.unlink()

    def begin(self, live: str | None) -> str:
        """A work folder `gen-N.tmp`, a copy of the live generation."""
        number = gen_number(live) + 1 if live else 1
        work = self.root / f"gen-{number:06d}.tmp"
        if live is not None:
            shutil.copytree(self.root / live, work)
        else:
            work.mkdir()
        return work.name

    def close(self, client: Any) -> None:
        from chromadb.api.shared_system_client import SharedSystemClient

        del client
        SharedSystemClient.clear_system_cache()

    def commit(self, work: str) -> str:
        final = (self.root / work).rename(self.root / work.removesuffix(".tmp"))
        write_current(self.root, final.name)
        return final.name

    def prune(self, previous: str | None, final: str) -> None:
        for older in sorted(self.root.glob("gen-*")):
            if older.is_dir() and older.name < (previous or final):
                shutil.rmtree(older, ignore_errors=True)  # keep the live and the previous one


_SHARED: dict[tuple[str, int, bool], Any] = {}  # one chromadb client per server
_SHARED_LOCK = threading.Lock()


class Server:
    """The index on a Chroma server, shared by every instance that names the same URL."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.path.strip("/"):
            raise InputError(f"INTERVIEWER_CHROMA_URL '{url}': use http(s)://HOST:PORT")
        self.url = url.rstrip("/")
        self.host, self.ssl = parts.hostname, parts.scheme == "https"
        self.port = parts.port or (443 if self.ssl else 8000)

    def __str__(self) -> str:
        return f"the Chroma server {self.url}"

    def connect(self) -> Any:
        """The process's one client for this server: every Server object naming it shares one
        HTTP connection pool, kept for the life of the process."""
        key = (self.host, self.port, self.ssl)
        with _SHARED_LOCK:
            if key not in _SHARED:
                import chromadb

                try:
                    client = chromadb.HttpClient(
                        host=self.host, port=self.port, ssl=self.ssl, settings=chroma_settings()
                    )
                    client.get_or_create_collection(META, embedding_function=None)
                except Exception as e:  # chromadb raises ValueError, httpx errors, ...
                    raise ChromaServerError(f"cannot reach {self}: {e}") from e
                _SHARED[key] = client
            return _SHARED[key]

    def meta(self) -> Any:
        """The collection of pointer and file records (vectors of one 0, never queried); looked
        up on each use, so a server that was reset is met with a fresh one, not a stale id."""
        return self.connect().get_or_create_collection(META, embedding_function=None)

    def _put(self, ids: list[str], docs: list[str], metas: list[dict[str, Any]]) -> None:
        self.meta().upsert(ids=ids, documents=docs, metadatas=metas, embeddings=[[0.0]] * len(ids))

    def live(self) -> str | None:
        docs = self.meta().get(ids=[POINTER], include=["documents"])["documents"]
        return str(docs[0]) if docs else None

    def client(self, gen: str) -> Any:
        return self.connect()

    def name(self, gen: str, kind: str) -> str:
        return f"{PREFIX}-{gen}-{kind}"

    def read(self, gen: str, file: str) -> str:
        """The file's parts, joined; read again if a rewrite swapped them meanwhile."""
        for _ in range(3):
            head = self.meta().get(ids=[f"{gen}/{file}"], include=["metadatas"])["metadatas"]
            if not head:
                raise FileNotFoundError(f"{self}: no {file} for {gen}")
            rev, n = head[0]["rev"], int(head[0]["parts"])
            ids = [f"{gen}/{file}@{rev}/{i}" for i in range(n)]
            got = self.meta().get(ids=ids, include=["documents"])
            if len(got["ids"]) == n:
                text = dict(zip(got["ids"], got["documents"], strict=True))
                return "".join(text[i] for i in ids)
        raise ChromaServerError(f"{self}: {gen}/{file} keeps changing while read")

    def write(self, gen: str, file: str, text: str) -> None:
        """Parts under a new revision first, then the head record that names it (one upsert,
        so readers see the old file or the new one), then the old revision's parts go."""
        rev = secrets.token_hex(4)
        chunks = [text[i : i + PART_CHARS] for i in range(0, len(text), PART_CHARS)] or [""]
        for i, part in enumerate(chunks):
            meta = {"gen": gen, "file": file, "rev": rev, "part": i}
            self._put([f"{gen}/{file}@{rev}/{i}"], [part], [meta])
        head = {"gen": gen, "file": file, "rev": rev, "parts": len(chunks)}
        self._put([f"{gen}/{file}"], [""], [head])
        self.meta().delete(where={"$and": [{"gen": gen}, {"file": file}, {"rev": {"$ne": rev}}]})

    def prepare(self) -> None:
        self.meta()

    def begin(self, live: str | None) -> str:
        """Fresh collections for a new generation (a random suffix keeps two concurrent ingests
        apart), holding a copy of the live generation's passages; questions are rebuilt."""
        number = gen_number(live) + 1 if live else 1
        work = f"gen-{number:06d}-{secrets.token_hex(3)}"
        if live is not None:
            from .index import PASSAGES

            client = self.connect()
            src = client.get_collection(self.name(live, PASSAGES), embedding_function=None)
            dst = collection(client, self.name(work, PASSAGES))
            page = min(client.get_max_batch_size(), 1024)
            for offset in range(0, src.count(), page):
                rows = src.get(
                    limit=page, offset=offset, include=["documents", "metadatas", "embeddings"]
                )
                dst.add(
                    ids=rows["ids"],
                    documents=rows["documents"],
                    metadatas=rows["metadatas"],
                    embeddings=rows["embeddings"],
                )
        return work

    def close(self, client: Any) -> None:
        pass  # one client for the life of this object

    def commit(self, work: str) -> str:
        self._put([POINTER], [work], [{"kind": "pointer"}])
        return work

    def generations(self) -> set[str]:
        metas = self.meta().get(include=["metadatas"])["metadatas"]
        gens = {m["gen"] for m in metas if m and "gen" in m}
        for col in self.connect().list_collections():
            if found := _GEN.match(col.name):
                gens.add(found[1])
        return {str(g) for g in gens if g}

    def prune(self, previous: str | None, final: str) -> None:
        """Delete every generation up to the previous one's number but the live and the
        previous one; newer ones may be another instance's ingest in progress."""
        limit = gen_number(previous) if previous else gen_number(final) - 1
        client = self.connect()
        names = {c.name for c in client.list_collections()}
        for gen in self.generations() - {previous, final}:
            if gen_number(gen) > limit:
                continue
            for name in (n for n in names if n.startswith(f"{PREFIX}-{gen}-")):
                client.delete_collection(name)
            self.meta().delete(where={"gen": gen})
