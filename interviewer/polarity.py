"""A property denied where the point asserts it, or asserted where the point denies it: "X is
not P" against "X is P", of the same subject. The negation check in `exact.py` reads a whole
sentence's words and its negations: "Atomics don't matter, because floating-point addition is
associative" holds one negation, as "Floating-point addition is not associative, so ..."
does, and shares too few of the long point's words. Here each "is/are P" is read on its own.
Sure only in a plain statement: a conditional, a reported belief ("people assume it is
associative") or a sentence that also says the point's side is no claim of the opposite.
"""

from __future__ import annotations

import re

from .actions import words_before

# "is (not) P", "isn't P", "are never P", adverbs skipped ("is not always better").
_COPULA = re.compile(
    r"\b(?:is|are|was|were)(?:\s+(not|never)\b|n't\b)?"
    r"((?:\s+(?:always|usually|often|generally|typically|really|very|truly|necessarily|fully"
    r"|strictly|also|still))*)"
    r"\s+([a-z][a-z\-]{3,})\b",
    re.I,
)
# Not properties: articles and the like start a noun phrase ("is a ...", "is the same ..."),
# and a participle before "by"/"to" is a passive or a purpose, read elsewhere.
_NOT_PROPERTY = {
    "that", "this", "what", "where", "when", "which", "there", "then", "more", "less", "much",
    "some", "about", "done", "just", "only", "both", "each", "either", "neither", "mostly",
    "even", "like", "used", "called", "known", "what's", "over", "into", "from", "with",
}  # fmt: skip
_CLAUSE_BREAK = re.compile(r"[,;:()]|\b(?:because|so|but|while|whereas|and|since|which)\b", re.I)
_CONDITIONAL = re.compile(r"\b(?:if|unless|when|whenever|until|once|whether)\b", re.I)
# The sentence reports a belief or names it a mistake: not the candidate's own claim.
_REPORTED = re.compile(
    r"\b(?:think|thinks|believe|believes|assume|assumes|assuming|myth|misconception|mistake"
    r"|wrong|false|untrue|incorrect|claim|claims|naive|naively|people|contrary)\b",
    re.I,
)
_SUBJECT_SKIP = {"the", "a", "an", "its", "their", "this", "that", "on", "in", "of", "for", "any"}
_WORD = re.compile(r"[a-z0-9]+")

Property = tuple[bool, str, frozenset[str]]  # denied, the property, the subject's words


def properties(text: str) -> list[Property]:
    """Each "subject is (not) property" in the text, read within its clause."""
    out = []
    for m in _COPULA.finditer(text):
        word = m.group(3).lower()
        if word in _NOT_PROPERTY:
            continue
        denied = bool(m.group(1)) or "n't" in m.group(0).lower()
        before = _CLAUSE_BREAK.split(words_before(text, m.start()))[-1]
        if _CONDITIONAL.search(before):
            continue
        subject = frozenset(
            w for w in _WORD.findall(before.lower()) if w not in _SUBJECT_SKIP and len(w) >= 3
        )
        out.append((denied, word, subject))
    return out


def property_flipped(point: str, sentence: str) -> str | None:
    """ "exact:negation" when the sentence asserts of the point's subject the property the
    point denies, or denies the one it asserts, and nowhere says it the point's way."""
    if _CONDITIONAL.search(sentence) or _REPORTED.search(sentence):
        return None
    said = properties(sentence)
    for denied, word, subject in properties(point):
        if not subject:
            continue
        same = [(d, s) for d, w, s in said if w == word and _same_subject(s, subject)]
        if same and all(d != denied for d, _ in same):
            return "exact:negation"
    return None


def _same_subject(a: frozenset[str], b: frozenset[str]) -> bool:
    """Most of the shorter subject's words in the other ("shared memory" is not "global
    memory")."""
    return bool(a and b) and len(a & b) * 3 >= 2 * min(len(a), len(b))
