"""Numbers bound to named things: a count of a format's parts ("BF16 keeps FP32's 8 exponent
bits") or a format's size ("INT4 at about 35 GB"), given to the thing in the point and another
number in the answer. The NLI model reads "70 GB" and "35 GB" as near enough, and never sees
which format a number belongs to."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .quantities import quantities
from .things import BIND_SPLIT, POINTS_BACK, SENTENCE_END, names_in, subject_of
from .words import FORMAT_NAME, formats, stem

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


# A thing kept in a number format: "an FP32 master copy", "FP16 or BF16 matmuls" (the format
# before its noun) or "keep the master weights in FP16", "stored as BF16" (after it); a
# group of formats ("FP16, BF16 or FP8") binds as one.
_GROUP = rf"{FORMAT_NAME}(?:\s*(?:,\s*or|,\s*and|,|or|and|/)\s*{FORMAT_NAME})*"
_BEFORE = re.compile(rf"\b({_GROUP})\s+([a-z]+)(?:\s+([a-z]+))?", re.I)
_AFTER = re.compile(
    rf"((?:[a-z]+\s+){{1,2}})(?:(?:is|are|was|were|be)\s+)?"
    rf"(?:(?:stored|kept|held|computed|accumulated|done|run)\s+)?(?<!such\s)(?:in|as)\s+({_GROUP})\b",
    re.I,
)
# Not a thing: function words, verbs that follow a format, and a format's own parts (every
# format has a range, bits and a mantissa: "FP16 range" and "BF16 range" are two things).
_NOT_THINGS = {
    "the", "and", "for", "with", "has", "have", "had", "are", "was", "were", "can", "does",
    "did", "will", "would", "gives", "keeps", "uses", "than", "that", "this", "which", "from",
    "into", "only", "also", "both", "just", "then", "when", "while", "each", "all", "its",
    "their", "keep", "kept", "store", "stored", "hold", "held", "run", "runs", "done", "compute",
    "computed", "format", "formats", "precision", "range", "bits", "bit", "exponent",
    "mantissa", "values", "value", "numbers", "number", "math", "arithmetic", "mode", "type",
    "support", "tensor", "tensors", "data", "version", "even", "instead", "mixed", "full",
    "half", "lower", "higher", "more", "less", "much", "such", "through", "across", "over",
    "under", "onto", "within", "without", "plus", "versus", "since", "because", "like",
    "unlike", "among", "between", "after", "before", "where", "there",
}  # fmt: skip


def _kept_in(clause: str, before: bool = True) -> dict[str, set[str]]:
    """The things of a clause, each with the formats it is kept in; with `before` False, only
    those said to be kept in one ("the master weights in FP16", not "FP16 weights")."""
    out: dict[str, set[str]] = {}

    def bind(words: Sequence[str], fmts: set[str]) -> None:
        for w in words:
            if _thing(w):
                # "reductions" and "reducing" are one thing to a reader
                out.setdefault(stem(w.lower())[:5], set()).update(fmts)

    for m in _BEFORE.finditer(clause) if before else ():
        first, second = m.group(2), m.group(3)
        # Not a purpose, a preposition or an activity: "FP16 training" and "BF16 training" are
        # two ways to train, not one thing kept in two formats.
        if not _thing(first) or first.lower().endswith("ing"):
            continue
        bind([first, second] if second and _thing(second) else [first], formats(m.group(1)))
    for m in _AFTER.finditer(clause):
        bind(m.group(1).split()[-2:], formats(m.group(2)))
    return out


def _lists_kept(text: str) -> dict[str, set[str]]:
    """Read before the text is split into clauses: a list kept in one format ("keeps the
    weights, the master copy and the update all in FP16"), and what a format's things include
    ("... stay in FP32, including a master copy of the weights")."""
    out: dict[str, set[str]] = {}
    for sentence in SENTENCE_END.split(text):
        if _SIZE.search(sentence):
            continue
        found = [(m.group(1), m.group(2)) for m in _ALL_IN.finditer(sentence)]
        # (the thing itself, not what it is of: "a master copy", not "the weights")
        found += [
            (re.split(r"\s+of\s+", m.group(2))[0], m.group(1))
            for m in _INCLUDING.finditer(sentence)
        ]
        for words, fmt in found:
            for w in re.findall(r"[a-z]+", words, re.I):
                if _thing(w):
                    out.setdefault(stem(w.lower())[:5], set()).update(formats(fmt))
    return out


_ALL_IN = re.compile(
    rf"([^.;:]*?)\s+(?:all|both)\s+(?:(?:kept|stored|held)\s+)?in\s+({_GROUP})\b", re.I
)
_INCLUDING = re.compile(rf"\bin\s+({_GROUP})\s*,?\s+(?:including|such\s+as)\s+([^.;:]+)", re.I)


def format_kept(point: str, text: str) -> str | None:
    """The point keeps a thing in one format ("an FP32 master copy of the weights"); the
    answer keeps it only in another ("keep the master weights in FP16"). Both read whole: a
    thing the point keeps in two formats, or the answer in either of the point's, is no
    contradiction."""
    # The answer must say where it keeps the thing ("... in FP16", "stored as BF16"); all it
    # says of the thing counts against that ("an FP32 master copy" elsewhere: no swap). A
    # clause that gives a size compares formats of one thing ("FP16 weights are about 140 GB"):
    # format_size reads it.
    said, kept = _kept_in(_unsized(text)), _kept_in(_unsized(text), before=False)
    for thing, fmts in _lists_kept(text).items():
        said.setdefault(thing, set()).update(fmts)
        kept.setdefault(thing, set()).update(fmts)
    claimed = _kept_in(_unsized(point))
    for thing, fmts in _lists_kept(point).items():
        claimed.setdefault(thing, set()).update(fmts)
    for thing, fmts in claimed.items():
        if thing in kept and not fmts & said[thing]:
            return "exact:format"
    return None


def _thing(word: str) -> bool:
    w = word.lower()
    return len(w) > 3 and w not in _NOT_THINGS and not w.endswith("ly")  # "natively"


def _unsized(text: str) -> str:
    return ". ".join(c for c in BIND_SPLIT.split(text) if not _SIZE.search(c))


# Bytes per value of each number format: a format said to take half, twice or less memory than
# another is checked against these, whatever the point says ("fp32 uses half the memory of
# bf16" was read as stating that BF16 halves memory).
_WIDTH: dict[str, float] = {"fp64": 8, "fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2}
_WIDTH |= {"fp8": 1, "int8": 1, "uint8": 1, "e4m3": 1, "e5m2": 1, "mxfp8": 1}
_WIDTH |= {"fp4": 0.5, "int4": 0.5, "nf4": 0.5}
_LESS, _MORE = {"less", "fewer", "smaller"}, {"more", "larger", "bigger"}
# A share by its first word ("a quarter", "four times") or digit ("2x", "4 times").
_SHARE = {"half": 0.5, "a": 0.25, "quarter": 0.25, "twice": 2.0, "double": 2.0, "the": 1.0}
_SHARE |= {"two": 2.0, "2": 2.0, "four": 4.0, "4": 4.0}
_MEMORY = r"(?:memory|bytes|space|storage|size|footprint)"
_RELATION = re.compile(
    rf"\b({FORMAT_NAME})\b(?:\s+(?!(?:and|but|while|which|so|it)\b)[\w-]+){{0,4}}?\s+"
    r"(half|a\s+quarter|quarter|twice|double|(?:two|four|2|4)\s*(?:x|times)"
    r"|less|fewer|smaller|more|larger|bigger|the\s+same)\s+"
    rf"(?:of\s+)?(?:as\s+much(?:\s+{_MEMORY})?|(?:the\s+|its\s+)?{_MEMORY})"
    rf"(?:\s+[\w-]+){{0,2}}?\s+(?:of|than|as)\s+(?:an?\s+|the\s+)?({FORMAT_NAME})\b",
    re.I,
)
_POINT_MEMORY = re.compile(rf"\b(?:{_MEMORY}|halves|halve|GB)\b", re.I)


def format_ratio(point: str, text: str) -> str | None:
    """The answer says one number format takes a share of another's memory that their widths
    deny ("FP32 uses half the memory of BF16", "BF16 uses less memory than FP16"), and the
    point speaks of the memory of one of them."""
    if not _POINT_MEMORY.search(point):
        return None
    named = formats(point)
    for m in _RELATION.finditer(text):
        a, said, b = m.group(1).lower(), " ".join(m.group(2).lower().split()), m.group(3).lower()
        if a not in _WIDTH or b not in _WIDTH or not {a, b} & named:
            continue
        ratio = _WIDTH[a] / _WIDTH[b]
        if said in _LESS:
            right = ratio < 1
        elif said in _MORE:
            right = ratio > 1
        else:  # a share said outright: "half", "twice", "2x", "four times", "the same"
            right = _SHARE[said[0] if said[0].isdigit() else said.split()[0]] == ratio
        if not right:
            return "exact:format"
    return None


def format_wrong(point: str, text: str) -> str | None:
    """A number format given another size ("INT4 gets you to about 70 GB"), a thing kept in
    another format ("keep the master weights in FP16"), or a format another share of
    another's memory ("FP32 uses half the memory of BF16")."""
    return format_size(point, text) or format_kept(point, text) or format_ratio(point, text)
