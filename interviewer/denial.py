"""A subject said not to do what the point says it does: "Gradient checkpointing doesn't
recompute anything" against "Gradient checkpointing keeps only some activations ... and
recomputes the rest". The models read the shared words and entailed the point; `polarity`
reads one verb or one "is P" at a time and needs the point's subject right before it."""

from __future__ import annotations

import re

from .disagreement import WIDENS
from .polarity import (
    _CLAUSE_BREAK,
    _CONDITIONAL,
    _NOT_NOUN,
    _NUMBER,
    _PRONOUNS,
    _SUBJECT_SKIP,
    _WORD,
    _same_subject,
    reported,
)
from .things import DENIED, SENTENCE_END, bound_clauses
from .words import distinctive, stem, terms

# "X doesn't VERB OBJ", "X is not OBJ": a denial and the content words it denies.
_DENIAL_OF = re.compile(
    r"\b(?:(?:does|do|did|will|would|can|could|is|are|was|were)\s+not|doesn't|don't|didn't"
    r"|won't|can't|cannot|isn't|aren't|wasn't|weren't|never|no\s+longer)\s+([^,;:.()]+)",
    re.I,
)
_FILLER = {"any", "anything", "all", "everything", "really", "actually", "even", "need", "use"}
_FILLER |= {"involve", "have", "get", "make", "care", "matter", "much"}
# A point that itself denies or limits something ("avoids ...", "without waiting", "too little
# parallel work") is not read for what it asserts.
_POINT_DENIES = re.compile(
    r"\b(?:not|no|never|nothing|none|cannot|without|neither|nor|instead|rather|avoids?|avoiding"
    r"|skips?|skipping|bypass\w*|barely|hardly|little|few)\b|n't\b",
    re.I,
)
_OWN_PART = re.compile(r",?\s+(?:because|since|whereas|while)\b|,\s*(?:so|which|but)\b|;", re.I)
_MODAL = {"must", "should", "can", "may", "might", "will", "would", "lets", "let"}


def subject_denied(point: str, sentence: str) -> str | None:
    """ "exact:denied" when the sentence's subject is the point's, named alike, and the
    sentence denies what the point asserts of it: two of the first three words it denies, or
    its one ("Gradient checkpointing doesn't recompute anything" against "Gradient
    checkpointing keeps only some activations ... and recomputes the rest"; "The pipeline
    bubble doesn't involve any idle time" against "The pipeline bubble is the idle time ...").
    The models read the shared words (the first was entailed), so it stands against their
    entailment, as a swap does. "It" is the sentence's subject;
    not in a condition or a reported belief, nor against a point that denies or limits
    anything itself."""
    if _POINT_DENIES.search(point) or _CONDITIONAL.search(sentence) or reported(sentence):
        return None
    p_subject = _first_subject(point)
    if not p_subject:
        return None
    # What the point says of its subject: not a clause about something else after it
    # ("..., because FP16 spends only 5 bits on its exponent").
    own = _OWN_PART.split(point, maxsplit=1)[0]
    p_stems = {stem(w) for t in terms(own) for w in (t, *t.split("-"))}
    for m in _DENIAL_OF.finditer(sentence):
        if WIDENS.match(m.group(1)) or _COMPARED.match(m.group(1)):
            continue
        denied = [t for t in terms(m.group(1)) if t not in _FILLER and len(t) > 2][:3]
        hit = [t for t in denied if stem(t) in p_stems]
        # One word denied is enough only if it is the field's ("recompute", "stacked"), not
        # everyday English: "it isn't free" against "... and frees them afterwards". A figure
        # denied ("doesn't sustain its ~989 TFLOP/s peak") is the number checks' to read.
        if len(hit) < min(2, len(denied)) or not hit or _NUMBER.search(m.group(1)):
            continue
        if len(hit) == 1 and not distinctive(hit[0]):
            continue
        # "A Tensor Core doesn't do single multiply-adds, it does a whole matrix
        # multiply-accumulate": what follows says the point, and the denial sets it off.
        rest = SENTENCE_END.split(sentence[m.end() :], maxsplit=1)[0]
        if sum(stem(t) in p_stems for t in set(terms(rest))) > len(hit):
            continue
        before = _CLAUSE_BREAK.split(sentence[: m.start()])[-1]
        subject = _first_subject(before)
        # "HBM is what the H100 uses, but it isn't stacked": "it" is the sentence's subject.
        if not subject and _PRONOUN_LEAD.match(before):
            subject = _first_subject(sentence)
        if subject and _same_subject(subject, p_subject):
            return "exact:denied"
    return None


# A comparison denied ("isn't faster than a CPU core") is the comparative checks' to read.
_COMPARED = re.compile(r"\s*(?:\w+\s+){0,2}(?:\w+er|more|less|fewer)\s+than\b", re.I)
_PRONOUN_LEAD = re.compile(r"\s*(?:it|they)\s*$", re.I)


def _first_subject(text: str) -> frozenset[str]:
    """The subject a text opens with, up to its verb: empty for a pronoun, an opening
    preposition or anything longer than four words."""
    words = _WORD.findall(_CLAUSE_BREAK.split(text, maxsplit=1)[0].lower())
    out: list[str] = []
    for w in words:
        if w in _NOT_NOUN or w in _MODAL or (out and w.endswith("s") and not w.endswith("ss")):
            break
        if w in _PRONOUNS or w in {"in", "on", "for", "with", "if", "when", "you", "i", "we"}:
            return frozenset()
        if w not in _SUBJECT_SKIP:
            out.append(w)
    return frozenset(w for w in out if len(w) >= 2) if 0 < len(out) <= 4 else frozenset()


def denial_asserted(point: str, sentence: str) -> str | None:
    """ "exact:denied" the other way round: the point denies two of the field's words of its
    named thing, and a clause of the sentence about the same thing asserts them, within a few
    words of each other ("MPS clients share the GPU without hardware partitions" against "MPS
    is the one that gives you hard isolation: it partitions the GPU in hardware", which the
    model entailed at 0.90). Not in a condition or a reported belief."""
    if reported(sentence) or _CONDITIONAL.search(sentence):
        return None
    said = [
        (thing, clause)
        for thing, clause in bound_clauses(sentence)
        # (a relative clause may be about the thing just named as an object: "no hardware
        # partitions, unlike MIG, which partitions the GPU in hardware")
        if not DENIED.search(clause) and not _RELATIVE.match(clause)
    ]
    for thing, clause in bound_clauses(point):
        for denied in _denied_words(clause):
            for other, asserting in said:
                words = [stem(t) for t in terms(asserting)] if other == thing else []
                at = [n for n, w in enumerate(words) if w in denied]
                if len({words[n] for n in at}) >= 2 and at[-1] - at[0] <= _NEAR:
                    return "exact:denied"
    return None


_RELATIVE = re.compile(r"\s*(?:which|that|who|whose)\b", re.I)
_NEAR = 5  # how far apart, in words, the two denied words may sit in the asserting clause
_DENIES = re.compile(r"\b(?:without|no|not|never|cannot|lacks?|lacking)\b|n't\b", re.I)


def _denied_words(clause: str) -> list[set[str]]:
    """The stems of the field's words among the first three each denial in the clause takes,
    where it takes two or more ("without hardware partitions")."""
    out = []
    for m in _DENIES.finditer(clause):
        rest = re.split(r"[,;:.()]", clause[m.end() :], maxsplit=1)[0]
        words = [t for t in terms(rest) if t not in _FILLER and len(t) > 2][:3]
        if len(found := {stem(t) for t in words if distinctive(t)}) >= 2:
            out.append(found)
    return out
