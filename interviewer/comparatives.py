"""The words comparisons and denials are made of: antonym pairs, the comparative they give,
negation cues, and which word a comparative qualifies. Shared by `exact.py` and `relations.py`."""

from __future__ import annotations

import re

from .words import terms

_ANTONYMS = [
    ("higher", "lower"),
    ("faster", "slower"),
    ("more", "less"),
    ("more", "fewer"),
    ("larger", "smaller"),
    ("bigger", "smaller"),
    ("greater", "smaller"),
    ("wider", "narrower"),
    ("wider", "narrow"),
    ("wide", "narrow"),
    ("increases", "decreases"),
    ("increase", "decrease"),
    ("raises", "lowers"),
    ("cheaper", "costlier"),
    ("cheaper", "more expensive"),
    ("before", "after"),
    ("above", "below"),
    ("latency-bound", "throughput-bound"),
    ("memory-bound", "compute-bound"),
    ("bandwidth-bound", "compute-bound"),
    ("memory-bandwidth-bound", "compute-bound"),
    ("synchronous", "asynchronous"),
    ("synchronously", "asynchronously"),
    ("static", "dynamic"),
    ("always", "never"),
]


OPPOSITE: dict[str, set[str]] = {}


for _a, _b in _ANTONYMS:
    OPPOSITE.setdefault(_a, set()).add(_b)
    OPPOSITE.setdefault(_b, set()).add(_a)


COMPARATIVE = re.compile(
    r"\b(" + "|".join(sorted(map(re.escape, OPPOSITE), key=len, reverse=True)) + r")\b", re.I
)


NEGATION = re.compile(
    r"\b(not|no|never|cannot|can't|doesn't|don't|isn't|aren't|won't|without|neither|nor)\b", re.I
)


def has_than(text: str, word: str) -> bool:
    """The comparative compares two things: "than" within three words after it."""
    m = re.search(rf"\b{re.escape(word)}\b((?:\s+\S+){{0,3}})", text, re.I)
    return m is not None and "than" in m.group(1).lower().split()


_FILLER = {"on", "in", "at", "the", "a", "an", "way", "much", "far", "than", "to", "for", "by"}
# Words that open a clause: a comparative just before one qualifies what came before it.
_CLOSES = {"before", "after", "when", "while", "until", "because", "if", "so"}


def attached(text: str, word: str) -> str:
    """The content word a comparative qualifies: the first after it ("slower CUDA cores"),
    skipping small words ("faster on Tensor Cores"); "" when the clause ends first."""
    at = text.lower().find(word)
    for token in re.findall(r"[A-Za-z][A-Za-z0-9+\-]*|[,;.:]", text[at + len(word) :])[:4]:
        if token in ",;.:":
            return ""
        if token.lower() in _CLOSES:  # "reusing data more before evicting it": the data
            before = [t for t in terms(text[:at]) if t.lower() not in _FILLER]
            return before[-1].lower() if before else ""
        if token.lower() not in _FILLER:
            return token.lower()
    return ""


def qualified(text: str, word: str) -> set[str]:
    """The first two content words after a comparative, within its phrase ("more resident
    warps": resident, warps)."""
    at = text.lower().find(word)
    out: set[str] = set()
    for token in re.findall(r"[A-Za-z][A-Za-z0-9+\-]*|[,;.:]", text[at + len(word) :])[:5]:
        low = token.lower()
        if token in ",;.:" or low == "and" or low in OPPOSITE or len(out) == 2:
            break
        if low not in _FILLER:
            out.add(low)
    return out


def mentions(text: str, word: str) -> bool:
    """The text names this thing, allowing a speech-to-text slip ("tenser" for "tensor")."""
    return any(t[:4] == word[:4] for t in terms(text))


_DENIED_JUST_BEFORE = re.compile(r"(?:\b(?:not|never|no)|n't)\s+(?:\w+\s+)?$", re.I)


def denied_before(text: str, at: int) -> bool:
    return bool(_DENIED_JUST_BEFORE.search(text[max(0, at - 30) : at]))


# A denied equality compares, it denies nothing: "doesn't cost nearly as much" costs less.
EQUATIVE = re.compile(
    r"\s*(?:[\w'-]+\s+){0,2}?(?:(?:nearly|quite|anywhere\s+near|remotely)\s+as\s+\w+|as\s+\w+\s+as\b)",
    re.I,
)
