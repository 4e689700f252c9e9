"""What a thing does to another, turned: "tiling and larger batches don't change it" against
"Larger tiles and larger batches raise intensity", "adding micro-batches doesn't shrink it"
against "The bubble is reduced by using many micro-batches". The NLI model reads the shared
words and calls such a denial the point; `polarity.trend_flipped` reads only "X grows with Y".
An effect is read as its driver (the doer), its sign (up, down, none) and what it acts on.
"""

from __future__ import annotations

import re

from .actions import words_before
from .polarity import _CLAUSE_BREAK, _CONDITIONAL, _lead, _subject_before, reported
from .words import stem, terms

_UP = r"rais(?:e|es|ed)|increas(?:e|es|ed)|boost(?:s|ed)?|improv(?:e|es|ed)"
_DOWN = r"lower(?:s|ed)?|reduc(?:e|es|ed)|cuts?|shrinks?|decreas(?:e|es|ed)"
_NONE = r"change|affect|alter"
_NEG = r"(?:does|do|did)\s+not|doesn't|don't|didn't|can't|cannot|won't|never"
_EFFECT = re.compile(
    rf"\b(?:(?P<neg>{_NEG})\s+(?:really\s+|actually\s+|even\s+)?)?"
    rf"(?:(?P<up>{_UP})|(?P<down>{_DOWN})|(?P<none>{_NONE}))\b",
    re.I,
)
_PASSIVE_BY = re.compile(
    rf"\b(?:(?:is|are)\s+(?:(?P<neg>not|never)\s+)?|(?P<negated>isn't|aren't)\s+)"
    rf"(?:(?P<up>{_UP})|(?P<down>{_DOWN})|"
    r"(?P<none>changed|affected|altered))\s+by\s+(?P<by>[^,;.]+)",
    re.I,
)
_NO_EFFECT = re.compile(
    r"\b(?:ha(?:s|ve)\s+no\s+effect\s+on|makes?\s+no\s+difference\s+to)\b", re.I
)
# Modifiers a driver shares with any other ("larger", "using"): what it is made of must meet.
_GENERIC = {stem(w) for w in ("larger", "bigger", "more", "many", "adding", "using", "higher")}
_UNRESOLVED = frozenset({"*"})
_CLAUSES = re.compile(r"[,;:()]|\b(?:because|so|but|while|whereas|since|which)\b", re.I)
_PRONOUNS = {"it", "they", "them", "this", "that", "these", "those", "its"}

Effect = tuple[int, bool, frozenset[str], frozenset[str]]  # sign, denied, driver, acted on


def effect_flipped(point: str, sentence: str) -> str | None:
    """ "exact:comparative" when the sentence has the point's driver not move, or move the
    other way, what the point has it move ("raise", "is reduced by"), and nowhere the point's
    way."""
    if reported(sentence) or _CONDITIONAL.search(sentence):
        return None
    said = _effects(sentence)
    for sign, denied, driver, target in _effects(point):
        if denied or not sign:
            continue
        # The opposite driver's effect is the point's driver's the other way round: "smaller
        # batches raise it" says larger ones lower it ("fewer registers raise occupancy"
        # agrees with "more registers lower it").
        same = [
            (-s if _opposite(dr, driver) else s, d)
            for s, d, dr, t in said
            if (t & target or t == _UNRESOLVED) and (dr - _GENERIC) & (driver - _GENERIC)
        ]
        if same and all(_turned(sign, s, d) for s, d in same):
            return "exact:comparative"
    return None


def _turned(sign: int, said: int, denied: bool) -> bool:
    """The point's effect denied ("doesn't shrink it"), none claimed ("doesn't change it"),
    or the other sign asserted."""
    return (said == sign and denied) or (said != sign and not (denied and said))


def _opposite(a: frozenset[str], b: frozenset[str]) -> bool:
    """One driver is "more" of something, the other "fewer": another claim."""
    return bool((a & _MORE and b & _FEWER) or (a & _FEWER and b & _MORE))


_MORE = {stem(w) for w in ("more", "many", "larger", "bigger", "higher", "increas", "rais", "add")}
_FEWER = {stem(w) for w in ("few", "fewer", "less", "smaller", "lower", "reduc", "cut", "shorter")}


def _effects(text: str) -> list[Effect]:
    out = []
    for m in _EFFECT.finditer(text):
        sign = 1 if m.group("up") else -1 if m.group("down") else 0
        denied = bool(m.group("neg"))
        if not sign and not denied:
            continue  # "change" asserted is no direction
        before = words_before(text, m.start())
        if _CONDITIONAL.search(_CLAUSE_BREAK.split(before)[-1]):
            continue
        after = _CLAUSE_BREAK.split(text[m.end() : m.end() + 120])[0]
        if re.match(r"\s+by\b", after, re.I) or not after.strip():
            continue  # a passive, read below, or no object
        target = _target(after, before)
        out.append((sign, denied and bool(sign), _stems(_subject_before(before)), target))
    for m in _NO_EFFECT.finditer(text):
        before = words_before(text, m.start())
        after = _CLAUSE_BREAK.split(text[m.end() : m.end() + 120])[0]
        out.append((0, False, _stems(_subject_before(before)), _target(after, before)))
    for m in _PASSIVE_BY.finditer(text):
        sign = 1 if m.group("up") else -1 if m.group("down") else 0
        denied = bool(m.group("neg") or m.group("negated"))
        if not sign and not denied:
            continue  # "is affected by" asserts an effect of no known direction
        before = words_before(text, m.start())
        target = _stems(_subject_before(before))
        out.append((sign, denied and bool(sign), _stems(terms(m.group("by"))), target))
    return [(s, d, dr, t) for s, d, dr, t in out if dr and t]


def _target(after: str, before: str) -> frozenset[str]:
    """What the effect acts on: its object, or for a pronoun the clause before's subject
    ("Arithmetic intensity is ..., but tiling doesn't change it")."""
    words = terms(after)
    if words and words[0].lower() not in _PRONOUNS:
        return _stems(words)
    if re.match(r"\s*(?:it|them|this|that)\b", after, re.I):
        # Any clause before may hold it: "The bubble is the idle time while stages fill and
        # drain, but adding micro-batches doesn't shrink it". A clause read alone, as the
        # checker reads the one nearest the point, leaves it to that point.
        return _stems({w for piece in _CLAUSES.split(before)[:-1] for w in _lead(piece)}) or (
            _UNRESOLVED
        )
    return frozenset()


def _stems(words: frozenset[str] | set[str] | list[str]) -> frozenset[str]:
    return frozenset(stem(w.lower()) for w in words if w.lower() not in _PRONOUNS | _SMALL)


_SMALL = {"and", "or", "the", "a", "an", "of"}
