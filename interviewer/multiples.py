"""Which of two named things has more of a quantity: "HBM delivers several times GDDR's
bandwidth", "three times the bandwidth of GDDR", "more bandwidth than GDDR". The NLI model
reads these the same either way round ("GDDR has several times the bandwidth of HBM" entailed
the HBM point at 0.91), so an answer that turns one round is checked here."""

from __future__ import annotations

import re

from .things import names_in
from .words import stem

_NAME = r"[A-Z][\w+\-]*[A-Z0-9][\w+\-]*"
_MULTIPLE = r"(?:several|many|a\s+few|\d+(?:\.\d+)?|two|three|four|five|ten)\s*(?:x|×|times)\s+"
_THE = r"(?:an?\s+|the\s+)?"
# (the thing with more, the thing with less, the quantity): after the thing the clause leads
# with, "several times GDDR's bandwidth", "3x the bandwidth of GDDR", "more bandwidth than
# GDDR"; "less bandwidth than GDDR" the other way round.
_UP = (
    re.compile(rf"{_MULTIPLE}{_THE}(?P<other>{_NAME})'s?\s+(?P<what>\w+)"),
    re.compile(
        rf"{_MULTIPLE}{_THE}(?:as\s+much\s+)?(?:[\w-]+\s+)?(?P<what>\w+)\s+of\s+{_THE}(?P<other>{_NAME})"
    ),
    re.compile(
        rf"\b(?:more|higher|greater|larger)\s+(?P<what>\w+)\s+than\s+{_THE}(?P<other>{_NAME})"
    ),
)
_DOWN = (
    re.compile(rf"\b(?:less|lower|smaller)\s+(?P<what>\w+)\s+than\s+{_THE}(?P<other>{_NAME})"),
)
_CLAUSE_START = re.compile(
    r"[.;:!?]\s+|,\s*(?:while|whereas|but|and|since|because|so)\s+|\s+(?:while|whereas|since|because)\s+"
)


def orders(text: str) -> set[tuple[str, str, str]]:
    """(more, less, quantity) for each comparison of two named things in the text."""
    out = set()
    for patterns, up in ((_UP, True), (_DOWN, False)):
        for m in (m for p in patterns for m in p.finditer(text)):
            before = _CLAUSE_START.split(text[: m.start()])[-1]
            subject, other = next(iter(names_in(before)), ""), m.group("other").lower()
            if subject and subject != other:
                a, b = (subject, other) if up else (other, subject)
                out.add((a, b, stem(m.group("what").lower())))
    return out


def multiple_swapped(point: str, sentence: str) -> str | None:
    """The sentence gives the more of the point's quantity to the other thing, and never the
    point's way round."""
    said, got = orders(point), orders(sentence)
    if any((b, a, n) in got for a, b, n in said) and not said & got:
        return "exact:swapped"
    return None


# How many times the other's amount a comparison gives: "twice the BF16 throughput", "halves
# memory", "about the same throughput as BF16", "a quarter of the memory of FP16".
_RATIO_WORDS = (
    (r"twice|doubles?|doubled|doubling|two\s+times", 2.0),
    (r"half|halves|halved|halving", 0.5),
    (r"a\s+quarter|one\s+quarter|quarter", 0.25),
    (r"three\s+times|triples?|tripled", 3.0),
    (r"four\s+times|quadruples?|quadrupled", 4.0),
    (r"(?:about\s+|roughly\s+|nearly\s+)?the\s+same", 1.0),
)
_RATIO = re.compile(
    r"\b(?:" + "|".join(f"(?P<r{n}>{w})" for n, (w, _) in enumerate(_RATIO_WORDS)) + r")\b", re.I
)
# What a ratio is of: the first of these within a few words after it.
_MEASURES = {
    "throughput", "memory", "bandwidth", "speed", "flops", "latency", "size", "footprint",
    "traffic", "capacity", "compute", "cost", "time", "bytes", "performance", "storage",
}  # fmt: skip


def ratios(text: str) -> set[tuple[str, float]]:
    """(what is measured, the ratio) of each comparison by a multiple the text makes."""
    out = set()
    for m in _RATIO.finditer(text):
        value = next(v for n, (_, v) in enumerate(_RATIO_WORDS) if m.group(f"r{n}"))
        after = re.findall(r"[\w-]+", text[m.end() :])[:5]
        what = next((stem(w.lower()) for w in after if w.lower() in _MEASURES), "")
        if what:
            out.add((what, value))
    return out


def ratio_differs(claim: str, sentence: str) -> bool:
    """The sentence gives another multiple of a quantity the claim gives one of, and never the
    claim's: "twice the BF16 throughput" does not say "about the same throughput as BF16"."""
    said = ratios(sentence)
    return any(
        any(q == what and v != value for q, v in said) and (what, value) not in said
        for what, value in ratios(claim)
    )
