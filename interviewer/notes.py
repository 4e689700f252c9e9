"""Questions as people write their own notes: Markdown headings that ask something, or
`Q:` / `A:` lines, each with its answer below (trial H's "## What is a CUDA stream?" notes
had given no question at all: the guides' parsers want a difficulty word after it)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .parsing import Line, infer_kind, join_body
from .records import Difficulty, RawItem
from .sentences import key_points

# A difficulty word after the question is optional; the heading's marks are not its words.
_MD_HEADING = re.compile(r"^\s{0,3}(?P<level>#{1,6})\s+(?P<text>.+?)\s*#*\s*$")
_Q_LINE = re.compile(r"^\s*(?:Q|Question)\s*[:.)]\s*(?P<text>.+?)\s*$", re.IGNORECASE)
_A_LINE = re.compile(r"^\s*(?:A|Answer)\s*[:.)]\s*", re.IGNORECASE)
_DIFFICULTY_TAIL = re.compile(r"\s*[(\[]?\b(?P<d>easy|medium|hard)\b[)\]]?\s*$", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(?:```|~~~)")


def parse_markdown_qa(source: str, lines: list[Line]) -> Iterator[RawItem]:
    """Questions as people write notes: `## Question?` headings (any level, a difficulty word
    after it optional) or `Q:` lines, each with its answer up to the next heading or `Q:`."""
    section = ""
    i = 0
    while i < len(lines):
        head = lines[i]
        asked = _asked(head.stripped)
        if asked is None:
            if (m := _MD_HEADING.match(head.text)) and not m["text"].endswith("?"):
                section = m["text"].strip()
            i += 1
            continue
        q, difficulty = asked
        body: list[Line] = []
        j, fenced = i + 1, False
        while j < len(lines):
            text = lines[j].text
            if _FENCE.match(text):
                fenced = not fenced
                j += 1
                continue  # (the fence marks; the code inside stays the answer's)
            if not fenced and (_MD_HEADING.match(text) or _Q_LINE.match(text)):
                break
            body.append(Line(_A_LINE.sub("", text, count=1), lines[j].start, lines[j].end))
            j += 1
        reference = join_body(body)
        if reference:
            yield RawItem(
                text=q,
                source=source,
                start=head.start,
                end=body[-1].end,
                difficulty=difficulty or "medium",
                difficulty_inferred=difficulty is None,
                kind=infer_kind(q, section),
                reference=reference,
                key_points=key_points(reference),
                section=section,
            )
        i = j


def _asked(line: str) -> tuple[str, Difficulty | None] | None:
    """(the question, its difficulty if the line gives one) of a heading or `Q:` line that asks
    something; None for any other line."""
    m = _MD_HEADING.match(line) or _Q_LINE.match(line)
    if not m:
        return None
    text = m["text"].strip()
    d = _DIFFICULTY_TAIL.search(text)
    if d and text[: d.start()].rstrip().endswith("?"):
        text = text[: d.start()].rstrip()
    if not text.endswith("?") or len(text) < 8:
        return None
    difficulty: Difficulty | None = d["d"].lower() if d else None  # type: ignore[assignment]
    return text, difficulty
