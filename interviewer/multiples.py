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
