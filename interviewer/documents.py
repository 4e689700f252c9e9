"""Reading the user's source documents (txt, md, html, pdf) into plain text."""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass
from pathlib import Path

from .errors import InputError

SUPPORTED = {".txt", ".md", ".markdown", ".html", ".htm", ".pdf"}
MAX_BYTES = 50 * 1024 * 1024


@dataclass(frozen=True)
class Document:
    source: str  # display name: the file name, unique within an ingest
    path: Path
    sha256: str
    text: str


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def discover(paths: list[Path]) -> tuple[list[Path], list[str]]:
    """Expand folders into supported files; return (files, problems)."""
    files: list[Path] = []
    problems: list[str] = []
    for p in paths:
        if not p.exists():
            problems.append(f"{p}: no such file or folder")
        elif p.is_dir():
            files.extend(
                sorted(f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in SUPPORTED)
            )
        elif p.suffix.lower() not in SUPPORTED:
            problems.append(
                f"{p}: unsupported file type '{p.suffix or '(none)'}' "
                f"(supported: {', '.join(sorted(SUPPORTED))})"
            )
        else:
            files.append(p)
    unique = list(dict.fromkeys(f.resolve() for f in files))
    return unique, problems


def read_document(path: Path, sha256: str | None = None) -> Document:
    """Extract text; raise InputError naming the file when it cannot be used."""
    try:
        size = path.stat().st_size
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})") from e
    if size == 0:
        raise InputError(f"{path}: file is empty")
    if size > MAX_BYTES:
        raise InputError(f"{path}: file is over the {MAX_BYTES // (1024 * 1024)} MiB limit")
    suffix = path.suffix.lower()
    try:
        if suffix == ".pdf":
            text = _read_pdf(path)
        else:
            raw = path.read_bytes()
            if b"\x00" in raw[:8192]:
                raise InputError(f"{path}: looks like a binary file, not text")
            try:
                decoded = raw.decode("utf-8-sig")
            except UnicodeDecodeError as e:
                raise InputError(f"{path}: not valid UTF-8 text ({e.reason})") from e
            text = _html_to_text(decoded) if suffix in {".html", ".htm"} else decoded
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})") from e
    text = text.replace("\r\n", "\n")
    if not text.strip():
        raise InputError(f"{path}: contains no text")
    return Document(source=path.name, path=path, sha256=sha256 or file_sha256(path), text=text)


def _html_to_text(html: str) -> str:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(["script", "style", "noscript", "nav", "header", "footer"]):
        tag.decompose()
    # A paragraph is one line: the source's own line breaks inside it, and the edges of inline
    # tags (<strong>, <code>, <a>), are spaces ("The\nprefill\nphase" had made passages and
    # key points of fragments, trial H); blocks, list items and <br> break lines, and a
    # <pre> keeps its lines.
    for text in soup.find_all(string=True):
        if not text.find_parent("pre"):
            text.replace_with(re.sub(r"\s+", " ", str(text)))
    for br in soup.find_all("br"):
        br.replace_with("\n")
    for tag in soup.find_all(_BLOCKS):
        tag.insert_before("\n")
        tag.insert_after("\n")
        if tag.name == "li":
            tag.insert(0, "- ")
    lines = (line.strip() for line in soup.get_text("").splitlines())
    return "\n".join(line for line in lines if line)


_BLOCKS = [
    *("p", "div", "li", "pre", "tr", "section", "article", "blockquote", "dt", "dd"),
    *("ul", "ol", "table", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "main", "figure"),
]


def _read_pdf(path: Path) -> str:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    # pypdf logs what it repairs without naming the file; keep it for this file's error.
    heard = _Collect()
    log = logging.getLogger("pypdf")
    log.addHandler(heard)
    propagate, log.propagate = log.propagate, False
    try:
        reader = PdfReader(path)
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError) as e:
        said = f"; pypdf: {heard.messages[0]}" if heard.messages else ""
        raise InputError(f"{path}: corrupt or unreadable PDF ({e}{said})") from e
    finally:
        log.removeHandler(heard)
        log.propagate = propagate
    return "\n\n".join(pages)


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())
