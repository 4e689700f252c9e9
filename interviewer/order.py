"""Two things turned round, beside the comparatives of `exact.py`: a trade ("trades compute
for memory" against "memory for compute"), two steps in the other order, which of two things
is preferred ("A rather than B"), and which of two things is the multiple of the other."""

from __future__ import annotations

import re

from .words import ENTITY, terms


def turned_round(point: str, sentence: str) -> bool:
    """The sentence turns round the point's trade, order of steps or multiple."""
    p_trade, s_trade = _TRADE.search(point), _TRADE.search(sentence)
    if p_trade and s_trade and _traded(p_trade) == _traded(s_trade)[::-1]:
        return True
    return (
        _reordered(point, sentence)
        or _reordered(point, sentence, _RATHER)
        or _multiple_turned(point, sentence)
        or _serial_turned(point, sentence)
    )


# "trades compute for memory" turned round ("trades memory for compute").
_TRADE = re.compile(
    r"\btrad(?:es|e|ing|ed)\s+(?:off\s+)?(?:some\s+|extra\s+|more\s+)?([a-z-]+)\s+for\s+"
    r"(?:less\s+|lower\s+|more\s+|extra\s+)?([a-z-]+)",
    re.I,
)


def _traded(m: re.Match[str]) -> tuple[str, str]:
    return m.group(1).lower(), m.group(2).lower()


# "A followed by B", "A first, then B", "first A, then B": two steps in order.
_THEN = re.compile(r"\s+followed\s+by\s+|(?:\s+first)?,?\s+(?:and\s+)?then\s+", re.I)
_STEP_SKIP = {"first", "phase", "pass", "step", "stage", "does", "runs", "performs", "then"}


# "A rather than B", "A instead of B", "A, not just B": the one preferred to the other.
_RATHER = re.compile(r",?\s+(?:rather\s+than|instead\s+of|not\s+(?:just|only|merely))\s+", re.I)


def _steps(text: str, marker: re.Pattern[str] = _THEN) -> tuple[set[str], set[str]] | None:
    """The last three content words before the first marker ("then", "followed by") and the
    first three after it, within the clause."""
    m = marker.search(text)
    if m is None:
        return None
    before = re.split(r"[,;:.]\s", text[: m.start()])[-1]
    after = re.split(r"[,;:.]\s", text[m.end() :])[0]
    a = [t for t in terms(before) if t not in _STEP_SKIP][-3:]
    b = [t for t in terms(after) if t not in _STEP_SKIP][:3]
    return (set(a), set(b)) if a and b else None


def _reordered(point: str, sentence: str, marker: re.Pattern[str] = _THEN) -> bool:
    """Two steps in the opposite order ("an all-gather phase first, then a reduce-scatter"
    against "a reduce-scatter followed by an all-gather"), or, with `_RATHER`, the other one
    preferred ("check perplexity, not just task accuracy" against "validate on a real task
    set, not just perplexity")."""
    p, s = _steps(point, marker), _steps(sentence, marker)
    if p is None or s is None:
        return False
    (pa, pb), (sa, sb) = p, s
    # Crossed more than kept: "around the ring" may follow either step.
    crossed = len(pa & sb) + len(pb & sa)
    return bool(pa & sb and pb & sa and crossed > len(pa & sa) + len(pb & sb))


# "NVLink ... many times PCIe's bandwidth", "HBM gives 3x GDDR's": which thing is the multiple.
_MULTIPLE = re.compile(
    r"(?:\b(?:many|several|\d+(?:\.\d+)?)\s*(?:times|x|×)\s+(?:the\s+|that\s+of\s+)?)"
    r"([A-Za-z0-9+\-]+)(?:'s|’s)",
    re.I,
)


def _multiple_of(text: str) -> tuple[str, str] | None:
    """(the larger thing, the smaller) of the first "N times B's" in the text: the larger is
    the first named thing of its clause before it."""
    m = _MULTIPLE.search(text)
    if m is None:
        return None
    clause = re.split(r"[;.:]\s|,\s+(?:but|while|whereas)\s", text[: m.start()])[-1]
    names = [n.lower() for n in ENTITY.findall(clause)]
    small = m.group(1).lower()
    big = next((n for n in names if n != small), None)
    return (big, small) if big else None


def _multiple_turned(point: str, sentence: str) -> bool:
    """The point makes A a multiple of B, the sentence B a multiple of A."""
    p, s = _multiple_of(point), _multiple_of(sentence)
    return p is not None and s is not None and p == s[::-1]


# One at a time against all at once: "executes each path in turn" against "runs the two paths
# simultaneously". Not "serialized": "different banks are read in parallel" is said right
# beside "accesses to one bank are serialized".
_SERIAL = re.compile(
    r"\b(?:in turn|serially|one (?:after another|at a time|by one)|sequentially|in sequence)\b",
    re.I,
)
_PARALLEL = re.compile(
    r"\b(?:in parallel|simultaneous(?:ly)?|at the same time|all at once|concurrently)\b", re.I
)
_HEDGED = re.compile(
    r"\b(?:not|no|never|without|unless|only if|instead of|rather than)\b|n't", re.I
)
_SMALL = {"each", "every", "both", "the", "two", "all", "those", "these", "are", "is"}
_SMALL |= {"get", "gets"}


def _serial_turned(point: str, sentence: str) -> bool:
    """The point does a thing one at a time and the sentence does it at once, or the other way
    round: the point's word just before its cue ("each path in turn") is one of the two just
    before the sentence's ("runs the two paths simultaneously"). A sentence that says both, or
    denies or conditions either, is left alone."""
    for mine, other in ((_SERIAL, _PARALLEL), (_PARALLEL, _SERIAL)):
        p, s = mine.search(point), other.search(sentence)
        if not (p and s) or other.search(point) or mine.search(sentence):
            continue
        if _HEDGED.search(sentence):
            return False
        thing = _before(point[: p.start()], 1)
        return bool(thing) and thing <= _before(sentence[: s.start()], 2)
    return False


def _before(text: str, n: int) -> set[str]:
    """The last n content words of the text, by their first four letters."""
    words = [t[:4] for t in terms(text) if len(t) > 2 and t not in _SMALL]
    return set(words[-n:])
