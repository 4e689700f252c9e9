"""Numbers bound to named things: a count of a format's parts ("BF16 keeps FP32's 8 exponent
bits") or a format's size ("INT4 at about 35 GB"), given to the thing in the point and another
number in the answer. The NLI model reads "70 GB" and "35 GB" as near enough, and never sees
which format a number belongs to."""

from __future__ import annotations

import re

from .quantities import quantities
from .things import BIND_SPLIT, POINTS_BACK, names_in, subject_of
from .words import formats

# "8 exponent bits", "8-bit exponent", "10 bits of mantissa": a count of bits or bytes of a
# named part. Counts of a format's parts are exact: 5 exponent bits is not 8.
_PART_COUNT = re.compile(
    r"(?<![\w.])(\d+)(?:\s+([a-z]{3,})\s+(?:bits?|bytes?)\b|\s*-?\s*(?:bits?|bytes?)\s+(?:of\s+)?"
    r"([a-z]{3,}))",
    re.I,
)
_NOT_PARTS = {"each", "per", "and", "the", "for", "with", "wide", "long", "total", "only", "more"}


def _part_counts(clause: str) -> dict[str, int]:
    out = {}
    for n, before, after in _PART_COUNT.findall(clause):
        part = (before or after).lower()
        if part not in _NOT_PARTS:
            out[part] = int(n)
    return out


def bound_number(point: str, text: str) -> str | None:
    """The point gives its subject a count of some part ("BF16 keeps FP32's 8 exponent
    bits"); a clause of the answer about that subject gives it another count of the same part
    ("..., while BF16 only gets 5 exponent bits"). A clause that points back ("it has ...") is
    about the thing before it."""
    names = names_in(point)
    if not names:
        return None
    subject = names[0]
    first = BIND_SPLIT.split(point)[0]
    if subject not in names_in(first):
        return None
    claimed = _part_counts(first)
    if not claimed:
        return None
    current = None
    for clause in BIND_SPLIT.split(text):
        lead = subject_of(clause)
        if lead:
            current = lead
        elif not _points_back(clause) and names_in(clause):
            current = names_in(clause)[0]
        if current != subject:
            continue
        for part, n in _part_counts(clause).items():
            if part in claimed and claimed[part] != n:
                return "exact:number"
    return None


def format_size(point: str, text: str) -> str | None:
    """The point gives a number format a size ("INT8 or FP8 weights take about 70 GB, ...
    while INT4 at about 35 GB ..."); a clause of the answer gives that one format, alone, a
    clearly other size of the same quantity ("INT4 gets you to about 70 GB")."""
    sizes: dict[str, float] = {}
    for clause in BIND_SPLIT.split(point):
        for f, size in _sized(clause).items():
            sizes.setdefault(f, size)
    if not sizes:
        return None
    for clause in BIND_SPLIT.split(text):
        said = _sized(clause)
        if len(said) == 1 and (f := next(iter(said))) in sizes:
            a, b = sorted((said[f], sizes[f]))
            if a > 0 and b > 1.3 * a:
                return "exact:number"
    return None


_SIZE = re.compile(r"\d[\d,.]*\s*(?:[KMGTP]i?B|bytes?)\b")


def _sized(clause: str) -> dict[str, float]:
    """The formats a clause names before its one size in bytes ("INT8 or FP8 weights take
    about 70 GB"), with that size; a count of bits is a part of a format, not its size."""
    found = [v for q, v in quantities(clause) if q == "bytes"]
    at = _SIZE.search(clause)
    if len(found) != 1 or not at:
        return {}
    return {f: found[0] for f in formats(clause[: at.start()])}


def _points_back(clause: str) -> bool:
    first = re.findall(r"[A-Za-z]+", clause)[:1]
    return bool(first) and first[0].lower() in POINTS_BACK
