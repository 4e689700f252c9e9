"""Building and updating the index from source documents, incrementally and atomically."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .authoring import write_auto
from .bank import Bank
from .chroma import Place, collection
from .config import Settings
from .documents import Document, discover, file_sha256, read_document
from .embeddings import Embedder
from .errors import InputError
from .index import PASSAGES, QUESTIONS, passage_meta, place_for, question_rows
from .parsing import blank_chrome, parse_text
from .records import Passage, RawItem

MANIFEST_VERSION = 1
Progress = Callable[[str, int], Callable[[int], object]]  # (step, total) -> advance(n)


@dataclass
class IngestReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # known-bad files, reported before
    # The user's files that gave passages but no question (prose, or questions not written as
    # headings or "Q:" lines that end in "?"): said, since trial H's notes gave none unseen.
    no_questions: list[str] = field(default_factory=list)
    questions: int = 0
    passages: int = 0
    seconds: float = 0.0
    auto_rubrics: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed)


def chunk(doc: Document, settings: Settings) -> list[Passage]:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(
        chunk_size=settings.chunk_size, chunk_overlap=settings.chunk_overlap, add_start_index=True
    )
    # Chrome is blanked (not removed) so that start_index still points into the original text.
    pieces = splitter.create_documents([blank_chrome(doc.text)])
    prefix = hashlib.sha1(f"{doc.path}:{doc.sha256}".encode()).hexdigest()[:12]
    out = []
    for n, piece in enumerate(pieces):
        text = (
            " ".join(piece.page_content.split())
            if "  " in piece.page_content
            else (piece.page_content.strip())
        )
        if len(text) < 20:
            continue
        start = int(piece.metadata["start_index"])
        out.append(
            Passage(
                id=f"{prefix}-{n}",
                text=text,
                source=doc.source,
                start=start,
                end=start + len(piece.page_content),
            )
        )
    return out


def _load_manifest(place: Place, gen: str | None) -> dict[str, Any]:
    try:
        text = place.read(gen, "manifest.json") if gen is not None else None
    except FileNotFoundError:
        text = None
    if text is None:
        return {"version": MANIFEST_VERSION, "roots": [], "files": {}}
    manifest: dict[str, Any] = json.loads(text)
    return manifest


def ingest(
    settings: Settings,
    embedder: Embedder,
    paths: list[Path] | None = None,
    progress: Progress | None = None,
) -> IngestReport:
    """Bring the index in line with the corpus folder, every root given before, and `paths`."""
    started = time.perf_counter()
    report = IngestReport()
    place = place_for(settings)  # the local index folder or a Chroma server
    place.prepare()
    gen = place.live()
    manifest = _load_manifest(place, gen)

    roots = [Path(settings.corpus_dir).resolve(), *(Path(r) for r in manifest["roots"])]
    for p in paths or []:
        roots.append(p.expanduser().resolve())
    roots = list(dict.fromkeys(roots))
    live_roots = [r for r in roots if r.exists()]
    for gone in (r for r in roots if not r.exists()):
        report.problems.append(f"{gone}: no such file or folder")
    files, problems = discover(live_roots)
    report.problems.extend(problems)

    old: dict[str, Any] = manifest["files"]
    # Files found unusable before, by content hash: reported once, then skipped quietly
    # until they change, so that one bad file neither fails nor rebuilds every later ingest.
    bad: dict[str, Any] = dict(manifest.get("bad", {}))
    hashes = {str(f): file_sha256(f) for f in files}
    known_bad = {p for p, h in hashes.items() if bad.get(p, {}).get("sha256") == h}
    report.skipped = [f"{Path(p).name}: {bad[p]['reason']}" for p in sorted(known_bad)]
    todo = [
        f
        for f in files
        if old.get(str(f), {}).get("sha256") != hashes[str(f)] and str(f) not in known_bad
    ]
    removed = [p for p in old if p not in hashes]
    report.unchanged = [
        Path(p).name for p in hashes if p not in {str(t) for t in todo} and p not in known_bad
    ]
    for vanished in [p for p in bad if p not in hashes]:
        del bad[vanished]

    # Read and parse the changed files first: a bad file is reported (once) and skipped.
    docs: list[Document] = []
    for f in todo:
        try:
            docs.append(read_document(f, hashes[str(f)]))
        except InputError as e:
            report.problems.append(str(e))
            bad[str(f)] = {"sha256": hashes[str(f)], "reason": _reason(e, f)}
            if str(f) in old:
                removed.append(str(f))

    new_roots = [str(r) for r in live_roots if r != Path(settings.corpus_dir).resolve()]
    if not docs and not removed and gen is not None:
        if new_roots != manifest["roots"] or manifest.get("bad", {}) != bad:
            manifest["roots"] = new_roots
            manifest["bad"] = bad
            place.write(gen, "manifest.json", json.dumps(manifest, ensure_ascii=False))
        report.questions = manifest.get("questions", 0)
        report.passages = sum(f["passages"] for f in old.values())
        report.seconds = time.perf_counter() - started
        return report

    work = place.begin(gen)  # a copy of the live generation, not yet live
    client = place.client(work)
    try:
        passages_col = collection(client, place.name(work, PASSAGES))
        for gone_path in removed:
            passages_col.delete(where={"path": gone_path})
            report.removed.append(Path(gone_path).name)
            old.pop(gone_path, None)
        parsed: dict[str, tuple[Document, list[RawItem], list[Passage]]] = {}
        guides = settings.corpus_dir.resolve()
        for doc in docs:
            items = parse_text(doc.source, doc.text)
            parsed[str(doc.path)] = (doc, items, chunk(doc, settings))
        # The user's own files, not the guides'.
        mine = {p for p in set(old) | set(parsed) if not Path(p).resolve().is_relative_to(guides)}
        report.no_questions = [
            d.source for p, (d, items, _) in parsed.items() if p in mine and not items
        ]
        # The bank is rebuilt from every file's parsed items, so duplicates merge across files.
        # The guides' own files first: a question merged with one from the user's notes keeps
        # the guide's wording, id and so its authored rubric (trial H's notes had replaced two
        # with automatic ones).
        all_items: list[RawItem] = []
        for path in sorted(set(old) | set(parsed), key=lambda p: (p in mine, Path(p).name)):
            if path in parsed:
                all_items.extend(parsed[path][1])
            elif path in old:
                all_items.extend(
                    RawItem(**(d | {"key_points": tuple(d["key_points"])}))
                    for d in old[path]["items"]
                )
        bank = Bank.from_items(all_items, embedder, own=frozenset(Path(p).name for p in mine))
        owner = {(v.source, v.start): q for q in bank.questions for v in q.variants}

        # Chroma refuses a write larger than its batch limit (5,461 rows here).
        limit = min(client.get_max_batch_size(), 1024)
        questions_col = collection(client, place.name(work, QUESTIONS))
        existing = questions_col.get(include=[])["ids"]
        for i in range(0, len(existing), limit):
            questions_col.delete(ids=existing[i : i + limit])
        ids, qdocs, metas = question_rows(bank.questions)
        tick = progress("embedding questions", len(ids)) if progress else None
        for i in range(0, len(ids), limit):
            part = slice(i, i + limit)
            questions_col.add(
                ids=ids[part],
                documents=qdocs[part],
                metadatas=metas[part],
                embeddings=embedder.embed(qdocs[part]),
            )
            if tick:
                tick(len(ids[part]))

        total = sum(len(p) for _, _, p in parsed.values())
        tick = progress("embedding passages", total) if progress else None
        for path, (doc, items, passages) in parsed.items():
            passages_col.delete(where={"path": path})
            spans = sorted((it.start, it.end, owner.get((it.source, it.start))) for it in items)
            rows = []
            for piece in passages:
                q = next((q for s, e, q in spans if s <= piece.start < e), None)
                owned = Passage(
                    piece.id, piece.text, piece.source, piece.start, piece.end, q.id if q else None
                )
                rows.append((owned, passage_meta(owned, path, q)))
            for i in range(0, len(rows), 64):
                batch = rows[i : i + 64]
                texts = [p.text for p, _ in batch]
                passages_col.add(
                    ids=[p.id for p, _ in batch],
                    documents=texts,
                    metadatas=[m for _, m in batch],
                    embeddings=embedder.embed(texts),
                )
                if tick:
                    tick(len(batch))
            (report.updated if path in old else report.added).append(doc.source)
            old[path] = {
                "sha256": doc.sha256,
                "source": doc.source,
                "passages": len(passages),
                "items": [asdict(it) for it in items],
            }
        place.write(work, "bank.json", bank.dumps())
        manifest = {
            "version": MANIFEST_VERSION,
            "embedder": embedder.name,
            "roots": new_roots,
            "files": old,
            "bad": bad,
            "questions": len(bank),
        }
        place.write(work, "manifest.json", json.dumps(manifest, ensure_ascii=False))
        report.questions = len(bank)
        report.passages = sum(f["passages"] for f in old.values())
    finally:
        place.close(client)
    final = place.commit(work)  # the one atomic step that makes the new generation live
    # Questions from the user's documents get an automatic rubric (DATA_DIR/rubrics/auto.yaml).
    report.auto_rubrics = write_auto(bank, settings.data_dir)
    place.prune(gen, final)  # keep the live and the previous one
    report.seconds = time.perf_counter() - started
    return report


def _reason(error: InputError, path: Path) -> str:
    """The error without its path, which the report names anyway."""
    text = str(error)
    return text.split(": ", 1)[1] if text.startswith(str(path)) else text
