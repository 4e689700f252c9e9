"""A verb denied in the passive where the point asserts it in the active, or the other way:
"the parameters are never partitioned" against "ZeRO-3 partitions ... the parameters", "spot
instances are never preempted" against "spot instances can be preempted". `polarity.verb_flipped`
reads only a verb's active forms, whose subject is the doer; in the passive the subject is what
the verb is done to, so the two are compared by that: the active's object, the passive's subject.
"""

from __future__ import annotations

import re

from .actions import words_before
from .polarity import _CLAUSE_BREAK, _CONDITIONAL, _DENIED_BEFORE, _subject_before, reported
from .words import ENTITY, stem, terms

# The auxiliary of a passive, denied or not: "are never", "isn't", "can't be", "has not been".
_AUX = (
    r"(?:(?P<n1>isn't|aren't|wasn't|weren't)"
    r"|(?:is|are|was|were)(?:\s+(?P<n2>not|never|no\s+longer))?"
    r"|(?:(?P<n3>can't|cannot|won't|wouldn't|shouldn't|mustn't|couldn't)"
    r"|(?:can|could|will|would|should|must|may|might)(?:\s+(?P<n4>not|never))?)\s+be"
    r"|(?P<n5>hasn't|haven't)\s+been|(?:has|have)(?:\s+(?P<n6>not|never))?\s+been)"
)
_PASSIVE = re.compile(
    rf"\b{_AUX}(?:\s+(?:always|ever|really|actually|fully|even|also|still|automatically))*"
    r"\s+(?P<participle>[a-z]{3,}ed)\b",
    re.I,
)
# Participles that name a state more than a deed ("is based on", "are needed").
_STATES = {"based", "needed", "required", "used", "called", "named", "supposed", "limited"}
_PRONOUNS = {"it", "they", "them", "this", "that", "these", "those"}

Use = tuple[bool, frozenset[str], frozenset[str]]  # denied, what it is done to, the doer


def passive_flipped(point: str, sentence: str) -> str | None:
    """ "exact:negation" when the sentence denies in the passive, of the thing the point's verb
    acts on, what the point asserts (in either voice), or asserts what it denies, and nowhere
    says it the point's way."""
    if _CONDITIONAL.search(sentence) or reported(sentence) or _names_another(point, sentence):
        return None
    for participle, stems in _participles(sentence):
        said = _passives(sentence, participle) + _actives(sentence, stems)
        told = _passives(point, participle) + _actives(point, stems)
        for denied, patient, doer in told:
            same = [d for d, p, o in said if _same_thing(p, patient) and _same_doer(o, doer)]
            if same and all(d != denied for d in same):
                return "exact:negation"
    return None


def _participles(sentence: str) -> list[tuple[str, set[str]]]:
    """The participles of the sentence's passives, each with the forms its verb may take in
    the active ("partitioned": "partition", "partitione", "partitio"; the wrong ones match
    nothing)."""
    out = []
    for m in _PASSIVE.finditer(sentence):
        word = m.group("participle").lower()
        if word in _STATES:
            continue
        out.append((word, {word[:-2], word[:-1], word[:-3]} - {""}))
    return out


def _passives(text: str, participle: str) -> list[Use]:
    out = []
    for m in _PASSIVE.finditer(text):
        if m.group("participle").lower() != participle:
            continue
        denied = any(m.group(f"n{i}") for i in range(1, 7))
        before = words_before(text, m.start())
        if _CONDITIONAL.search(_CLAUSE_BREAK.split(before)[-1]):
            continue
        after = _CLAUSE_BREAK.split(text[m.end() : m.end() + 120])[0]
        by = re.match(r"\s+by\s+(.*)", after, re.I)
        doer = _stems(terms(by.group(1)) if by else [])
        out.append((denied, _stems(_subject_before(before)), doer))
    return out


def _actives(text: str, forms: set[str]) -> list[Use]:
    """Each active use of the verb, with its object read to the end of the sentence: a list
    runs on past its commas ("partitions all of the model state, meaning the parameters, ...")."""
    out = []
    for form in forms - {""}:
        if len(form) < 4:
            continue
        for m in re.finditer(rf"\b{re.escape(form)}(?:s|es)?\b", text, re.I):
            before = words_before(text, m.start())
            after = re.split(r"[;.]\s", text[m.end() : m.end() + 200])[0]
            denied = bool(_DENIED_BEFORE.search(before)) or after.lower().startswith(" no ")
            subject = _subject_before(_DENIED_BEFORE.sub("", before))
            out.append((denied, _stems(terms(after)), _stems(subject)))
    return out


def _names_another(point: str, sentence: str) -> bool:
    """The sentence names a thing the point does not ("in plain DDP the parameters are never
    partitioned"): what it denies may be that thing's."""
    named = {e.lower().rstrip("s") for e in ENTITY.findall(point)}
    return any(e.lower().rstrip("s") not in named for e in ENTITY.findall(sentence))


def _stems(words: frozenset[str] | list[str]) -> frozenset[str]:
    return frozenset(stem(w.lower()) for w in words if w.lower() not in _PRONOUNS)


def _same_thing(said: frozenset[str], told: frozenset[str]) -> bool:
    """What the verb acts on: the sentence's names something the point's does ("the
    parameters" in "the parameters, gradients and optimizer states"), not only a word of how
    much ("the full model is never materialized" against "one block's full parameters are")."""
    return bool((said & told) - _HOW_MUCH)


_HOW_MUCH = frozenset(
    stem(w) for w in ("full", "whole", "entire", "all", "each", "every", "only", "about", "own")
)


def _same_doer(said: frozenset[str], told: frozenset[str]) -> bool:
    """Another doer named on both sides is another claim; one left unnamed is not."""
    return not (said and told) or bool(said & told)
