"""What an acronym stands for. A confident wrong answer often opens on a wrong expansion ("MIG
stands for Memory Interleaving on GPU") that the NLI model reads as near enough to the point's
("MIG, Multi-Instance GPU, is hardware partitioning ..."): the same acronym, the same last word.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_SMALL = {"of", "on", "for", "and", "the", "a", "an", "in", "to", "with"}
_WORDS = r"[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*){1,6}"
# "MIG, Multi-Instance GPU, is ...", "MIG (Multi-Instance GPU)": an expansion in apposition,
# its initials the acronym's letters; "MIG stands for ...", "short for ...": any words.
_APPOSED = re.compile(
    rf"\b([A-Z][A-Z0-9]{{1,6}}s?)\s*(?:,|\(|:|-|—)\s*(?:or\s+)?({_WORDS})\s*(?=[,)]|$)"
)
_STANDS = re.compile(
    rf"\b([A-Z][A-Z0-9]{{1,6}}s?)\s*(?:\)\s*)?(?:stands|is short|is an acronym)\s+for\s+"
    rf"(?:the\s+)?({_WORDS})",
    re.I,
)


def expansions(text: str) -> dict[str, list[str]]:
    """Each acronym the text expands, with the expansion's words (lower case, hyphens split)."""
    out: dict[str, list[str]] = {}
    for pattern, initials in ((_STANDS, False), (_APPOSED, True)):
        for m in pattern.finditer(text):
            acronym = m.group(1).rstrip("s").upper()
            words = [w.lower() for w in re.split(r"[\s\-]+", m.group(2)) if w]
            if pattern is _STANDS:  # up to the clause's end
                words = words[: _clause_end(m.group(2))]
            if initials and not _initials_match(acronym, words):
                continue
            if words and acronym not in out:
                out[acronym] = words
    return out


def _clause_end(words: str) -> int:
    """How many words of a "stands for" tail belong to the expansion: up to a verb-ish word
    ("Memory Interleaving on GPU. It's ..." is cut by the pattern; "... GPU and is used")."""
    parts = re.split(r"[\s\-]+", words)
    for n, w in enumerate(parts):
        if n and w.lower() in {"is", "are", "and", "which", "that", "it", "so", "but"}:
            return n
    return len(parts)


def _initials_match(acronym: str, words: list[str]) -> bool:
    letters = "".join(w[0] for w in words if w not in _SMALL)
    return letters.upper() == acronym


def _stem(word: str) -> str:
    return word[:5]


def expansion_differs(point: str, sentence: str) -> str | None:
    """ "exact:expansion" when the sentence expands an acronym of the point's into other words
    than the point does (fewer than half of the point's content words)."""
    said = expansions(point)
    if not said:
        return None
    for acronym, words in expansions(sentence).items():
        if acronym in said:
            mine = {_stem(w) for w in said[acronym] if w not in _SMALL}
            theirs = {_stem(w) for w in words if w not in _SMALL}
            if mine and 2 * len(mine & theirs) < len(mine):
                return "exact:expansion"
    return None


_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9]{1,5}\b")


def contracted(text: str, others: Sequence[str]) -> str:
    """The text with each spelled-out acronym of the others' written as the acronym ("TPUs have
    no high-bandwidth memory" against "TPUs do not use HBM": "TPUs have no HBM")."""
    # (three letters at least: "to process" is no "TP")
    for acronym in {a for t in others for a in _ACRONYM.findall(t) if a.isalpha() and len(a) > 2}:
        n = len(acronym)
        spelled = r"[\s\-]+".join([r"([A-Za-z])[A-Za-z]*"] * n)
        for m in reversed(list(re.finditer(rf"\b{spelled}\b", text))):
            if "".join(m.groups()).upper() == acronym:
                text = text[: m.start()] + acronym + text[m.end() :]
    return text
