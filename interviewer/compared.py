"""The two things a question compares ("the difference between data parallelism and tensor
parallelism", "a stack and a queue"), and which of them a text is about. A key point about one
of them, said of the other, is the two swapped: "in tensor parallelism each GPU holds a full
copy of the model" entailed the data-parallel point at 0.94, as the model reads past which
thing a clause is about; the roles checks only see named things ("HBM", "FP16"), not "data
parallelism"."""

from __future__ import annotations

import re
from functools import lru_cache

from .things import names_in
from .words import stem, terms

_PAIR = (
    re.compile(
        r"\b(?:between|compare|comparing|contrast)\s+(?:the\s+|an?\s+)?(.+?)\s+"
        r"(?:and|with|to|vs\.?|versus)\s+(?:the\s+|an?\s+)?(.+?)(?:[?.,;:]|\s+(?:in|for|on|when)\s|$)",
        re.I,
    ),
    re.compile(
        r"(?:^|\b(?:is|are)\s+(?:an?\s+|the\s+)?)([\w+\-]+(?:\s+[\w+\-()]+){0,2}?)\s+(?:vs\.?|versus)"
        r"\s+(?:an?\s+|the\s+)?([\w+\-]+(?:\s+[\w+\-()]+){0,2}?)(?:[?.,;:]|$)",
        re.I,
    ),
)


@lru_cache(maxsize=4096)
def compared(question: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """The words that tell the question's two things apart (the words they share dropped:
    "data" and "tensor" of "data parallelism" and "tensor (model) parallelism"); None for
    named things."""
    for pattern in _PAIR:
        # (named things are the roles checks': "HBM" and "GDDR", "NVLink versus PCIe")
        if (m := pattern.search(question)) and not names_in(m.group(1) + " " + m.group(2)):
            # (not an alias in brackets: "tensor (model) parallelism")
            a, b = (
                {stem(t) for t in terms(re.sub(r"\([^)]*\)", " ", g))}
                for g in (m.group(1), m.group(2))
            )
            a, b = a - b, b - a
            if a and b:
                return frozenset(a), frozenset(b)
    return None


_CLAUSE = re.compile(r"[;:,]\s*|\s+(?:while|whereas|but|and)\s+|\.\s+", re.I)


def about(text: str, pair: tuple[frozenset[str], frozenset[str]]) -> int | None:
    """0 or 1: the one of the two things the text's clauses lead with (named in their first
    three words: "In data parallelism each GPU ..."); None when none does, or they lead with
    both. A thing named later is an object ("... at the current depth")."""
    found = set()
    for clause in _CLAUSE.split(text):
        words = {stem(t) for t in terms(" ".join(clause.split()[:3]))}
        found |= {n for n, thing in enumerate(pair) if words & thing}
    return found.pop() if len(found) == 1 else None


def topic_swapped(question: str, point: str, text: str) -> str | None:
    """The point is about one of the question's two things; the text says it of the other."""
    pair = compared(question)
    if pair is None:
        return None
    # (a point that names both compares them: "Spot fits restartable work ..., while large
    # pretraining with deadlines belongs on on-demand")
    said = {stem(t) for t in terms(point)}
    if all(said & thing for thing in pair):
        return None
    mine, theirs = about(point, pair), about(text, pair)
    if mine is None or theirs is None or mine == theirs:
        return None
    return "exact:compared"
