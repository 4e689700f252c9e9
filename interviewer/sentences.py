"""Sentences and key points of a reference answer or a note: where a sentence ends, which
line breaks are only a wrapped line's, and the atomic claims a reference makes."""

from __future__ import annotations

import re

ABBREV = re.compile(r"\b(?:e\.g|i\.e|vs|etc|approx|cf|incl)\.$", re.IGNORECASE)
BULLET = re.compile(r"^\s*(?:[•\-*▪●◦]|\d{1,2}[.)])\s+")


# A sentence ends at . ! ? before a capital, a digit or a quote; or before a lower-case word
# when a lower-case letter, a digit or a bracket comes before the stop (hastily typed answers:
# "it's 32 threads. they run in lockstep."), so not after an ellipsis; abbreviations ("e.g.
# the") are joined again below.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(“\"~])|(?<=[a-z0-9)][.!?])\s+(?=[a-z])")


def split_sentences(text: str) -> list[str]:
    parts = _SENTENCE_END.split(text.strip())
    out: list[str] = []
    for part in parts:
        if out and ABBREV.search(out[-1]):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return [s.strip() for s in out if s.strip()]


# A line break inside a sentence: the line ends on no full stop and the next goes on in lower
# case (or code, a bracket, a sign, a quote), or the line ends on a word no sentence ends
# with ("in", "the"). Notes and PDFs are wrapped at a fixed width, and each line
# read as a sentence made key points of "The result is in." (trial H); the guides' own lines
# ("HardTechnical" / "0 practiced" / "Discuss ...") stay apart.
_WRAP = re.compile(r"(?<=[A-Za-z0-9,:;`)\]])[ \t]*\n[ \t]*(?=\S)")
_GOES_ON = re.compile(r"[a-z(`\-\"'“]")
_NEVER_LAST = frozenset(
    [
        "a",
        "an",
        "the",
        "in",
        "on",
        "of",
        "to",
        "and",
        "or",
        "with",
        "for",
        "from",
        "by",
        "as",
        "is",
        "are",
        "at",
        "into",
        "than",
        "that",
        "which",
        "per",
        "via",
        "its",
        "their",
        "this",
        "these",
        "those",
        "be",
        "was",
        "were",
        "has",
        "have",
    ]
)


def unwrap(text: str) -> str:
    """The text with the line breaks inside its sentences read as spaces."""

    # (a few characters either side, not the text before and after: a long document has
    # many line breaks)
    def join(m: re.Match[str]) -> str:
        last = text[max(0, m.start() - 64) : m.start()].rsplit(None, 1)[-1].lower()
        after = text[m.end() : m.end() + 8]
        goes_on = bool(_GOES_ON.match(after)) and not BULLET.match(after)
        return " " if goes_on or last in _NEVER_LAST else m.group()

    return _WRAP.sub(join, text)


def key_points(reference: str) -> tuple[str, ...]:
    """Split a reference answer into atomic claims: bullets, then sentences, then clauses."""
    points: list[str] = []
    for raw in unwrap(reference).split("\n"):
        line = raw.strip()
        if not line:
            continue
        if BULLET.match(raw):
            points.append(BULLET.sub("", raw).strip())
            continue
        for sentence in split_sentences(line):
            clauses = [c.strip() for c in sentence.split("; ") if c.strip()]
            points.extend(clauses)
    merged: list[str] = []
    for p in points:
        p = p.rstrip(":").strip()
        if merged and (len(p.split()) < 4 or len(merged[-1].split()) < 3):
            merged[-1] = f"{merged[-1]} {p}"
        elif p:
            merged.append(p)
    return tuple(m for m in merged if len(m.split()) >= 3)
