"""Exact checks beside the NLI model, where they are sure: inverted comparatives, swapped
entities, things turned round (`order.py`: trades, steps, multiples), negation (of what follows
it), numbers with the same unit. Each names the check that found a contradiction between a key
point and one answer sentence."""

from __future__ import annotations

import re

from .comparatives import (
    COMPARATIVE,
    EQUATIVE,
    NEGATION,
    OPPOSITE,
    attached,
    denied_before,
    has_than,
    mentions,
    qualified,
)
from .order import turned_round
from .quantities import number_off
from .relations import MOVE, opposed, relation_sign, same_quantities
from .things import OPENERS, subject_of
from .words import ENTITY, stem, terms

_NONE = re.compile(r"\b(?:0|zero)\s+(?=[a-z])", re.I)

# A sentence that opens on a condition is about the point's thing ("If the intensity is above
# the ridge point, the kernel is memory-bound").
_CONDITIONS = OPENERS | {"", "whenever", "unless", "without", "there"}


def exact_contradiction(point: str, sentence: str) -> str | None:
    """A sure contradiction between a key point and one answer sentence on the same subject,
    by name of the check that found it, else None."""
    p_words = set(terms(point))
    s_words = set(terms(sentence))
    if len(p_words & s_words) < 2:
        return None
    pc = [m.group(1).lower() for m in COMPARATIVE.finditer(point)]
    sc = [m.group(1).lower() for m in COMPARATIVE.finditer(sentence)]
    if pc and sc and not _negated_at(point, pc[0]) and not _negated_at(sentence, sc[0]):
        # (A comparative denied, "isn't faster than a CPU core", asserts neither way.)
        # The point's first comparative against the sentence's first, or, where the point makes
        # one comparison of two things ("X-er than") and the sentence one too, against the
        # sentence's first such one that answers it ("the more micro-batches ... much smaller
        # than" against "much larger than"). A chain ("left child smaller than the parent,
        # which is smaller than the right child") is read as before: "the right is greater
        # than the root" is its second link, not the first turned round.
        p_cmp, s_cmp = pc[0], sc[0]
        if (
            len(pc) == 1
            and has_than(point, p_cmp)
            and not (s_cmp == p_cmp or s_cmp in OPPOSITE[p_cmp])
        ):
            s_cmp = next((w for w in sc if w in OPPOSITE[p_cmp] and has_than(sentence, w)), s_cmp)
        p_left, p_right = _sides(point, p_cmp)
        s_left, s_right = _sides(sentence, s_cmp)
        same_side = bool(p_left & s_left) or bool(p_right & s_right)
        swapped = bool(p_left & s_right) and bool(p_right & s_left) and not same_side
        # "slower CUDA cores" and "faster on Tensor Cores" agree: each word is about its own
        # thing. Opposite words are a contradiction only about the same thing.
        # Nor where the sentence names the point's thing apart from its own word: "The price is
        # precision: BF16 has only 7 mantissa bits ..., so BF16 is simpler and more stable" says
        # nothing against "BF16 has less precision than FP16" (a right answer had scored 1).
        p_of, s_of = attached(point, p_cmp), attached(sentence, s_cmp)
        same_thing = not (p_of and s_of and p_of[:4] != s_of[:4] and mentions(sentence, p_of))
        # Nor about a thing the sentence leads with and the point never names: "Pageable
        # copies get staged via a pinned bounce buffer (slower ...)" says nothing against
        # "Pinned memory makes copies faster".
        lead = subject_of(sentence)
        if (
            lead not in _CONDITIONS
            and lead not in sc  # "Fewer resident warps ..." leads with its comparative
            and lead != subject_of(point)
            and not mentions(point, lead)
        ):
            same_thing = False
        # A relation between two quantities ("if the string is longer, the pitch is lower")
        # reads the same from either end ("a shorter string gives a higher pitch"): two
        # opposite words there agree. Its sign, not its first word, decides.
        p_sign, s_sign = relation_sign(point, stated=True), relation_sign(sentence)
        if p_sign and s_sign and same_quantities(point, sentence):
            return "exact:comparative" if p_sign != s_sign else None
        # ... nor where the sentence says the point's own word about the point's thing ("the
        # fewer registers each thread uses, the more warps fit" against "more resident warps
        # hide latency"): its opposite word is about something else.
        # Nor where the point says the sentence's word of the sentence's thing too ("It recomputes
        # ..., doing more FLOPs, but ... moves far fewer bytes" against "... moves far fewer
        # bytes").
        agrees = (
            (p_cmp in sc and bool(qualified(point, p_cmp) & qualified(sentence, p_cmp)))
            or (s_cmp in pc and bool(qualified(point, s_cmp) & qualified(sentence, s_cmp)))
            or (s_cmp in pc and _said_of_same(point, sentence, s_cmp))
            # a point that trades one thing for another ("doing more FLOPs, but ... moves far
            # fewer bytes") against its second half alone ("far less memory traffic, so ...")
            or (
                bool(_ALIKE.get(s_cmp, {s_cmp}) & set(pc[1:]))
                and bool(p_of)
                and not mentions(sentence, p_of)
            )
        )
        # Nor where the sentence turns a condition round too ("faster at lower occupancy"
        # against "raising occupancy ... making the kernel slower"), or puts the point's thing
        # on the other side of a converse ("the dot sits below the roof" against "the roof
        # above it"): both say the same relation from the other end.
        # (A comparative that itself moves a quantity, "higher bandwidth and lower capacity",
        # is a property like the other: both turned round are both wrong.)
        turned_condition = not MOVE.fullmatch(p_cmp) and opposed(
            _less(point, p_cmp), _less(sentence, s_cmp)
        )
        converse = (
            turned_condition
            or _converse(point, p_cmp, sentence, s_cmp)
            or _of_the_other(point, p_cmp, sentence, s_cmp)
        )
        # A point that orders two events says both words ("gathers them just before they are
        # used ... and frees them afterwards"): "freed after use" is its second event.
        both_orders = p_cmp in ("before", "after") and bool(
            _led_by(point, s_cmp) & _led_by(sentence, s_cmp)
        )
        if (
            s_cmp in OPPOSITE.get(p_cmp, set())
            and same_side
            and not swapped
            and same_thing
            and not agrees
            and not converse
            and not both_orders
        ):
            return "exact:comparative"
        if s_cmp == p_cmp and swapped:
            return "exact:swapped"
    if turned_round(point, sentence):
        return "exact:swapped"
    # "the boat with 0 marbles" is "the boat with no marbles" (SciEntsBank's right answer).
    p_neg = bool(NEGATION.search(_NONE.sub("no ", point)))
    s_neg = bool(NEGATION.search(_NONE.sub("no ", sentence)))
    if p_neg != s_neg:
        pw, sw = p_words, s_words
        # What is denied must be what the other side asserts: "memory traffic, not compute"
        # against a sentence that never mentions compute denies nothing it says. Nor is it
        # denied where the denying side asserts it too, of another thing ("dynamic loss scaling
        # handles [FP16's range] ...; BF16 ... needs no loss scaling").
        negating = point if p_neg else sentence
        denied = _negated_terms(negating) - _asserted_terms(negating)
        # ... and not what it too passes over: "judged by goodput, not the hourly price"
        # against "judged by goodput rather than hourly price".
        other = sentence if p_neg else point
        asserted = (sw if p_neg else pw) - _negated_terms(other, _PASSED_OVER)
        # The word a negation takes first is what it denies; the rest are its objects ("Data
        # parallelism doesn't split the model" denies no "model" the point asserts).
        heads = {stem(t) for t in _negated_terms(negating, first=True)}
        if (
            len(pw & sw) >= 0.8 * max(1, min(len(pw), len(sw)))
            and len(pw & sw) >= 3
            and denied & asserted
            and heads & {stem(t) for t in asserted}
        ):
            return "exact:negation"
    if number_off(point, sentence):
        return "exact:number"
    return None


# What a text passes over, or does without ("skips loss scaling" says "needs no loss scaling").
_PASSED_OVER = re.compile(
    r"\b(?:rather than|instead of|skip(?:s|ped|ping)?|avoid(?:s|ed|ing)?|omit(?:s|ted|ting)?"
    r"|eliminat(?:es|ed|ing)|gets? rid of|does away with|dispenses? with)\b",
    re.I,
)


def _negated_terms(text: str, cue: re.Pattern[str] = NEGATION, first: bool = False) -> set[str]:
    """Content words within three words after each negation cue: what the text denies (with
    `first`, the first of them). A denied equality compares ("doesn't cost nearly as much"),
    and a second denial in the clause turns the first round ("can't train a model whose
    weights don't fit"): neither denies a word."""
    out: set[str] = set()
    for m in cue.finditer(text):
        # Within its clause: "PCIe doesn't come close, often the difference ..." denies no
        # "often".
        clause = _CLAUSE_END.split(text[m.end() :], maxsplit=1)[0]
        before = _CLAUSE_END.split(text[: m.start()])[-1]
        if cue is NEGATION and (
            EQUATIVE.match(clause) or NEGATION.search(clause) or NEGATION.search(before)
        ):
            continue
        words = terms(" ".join(clause.split()[:3]))
        out.update(words[:1] if first else words)
    return out


_CLAUSE_END = re.compile(r"[,;:.!?](?=\s|$)")


def _negated_at(text: str, word: str) -> bool:
    """The word's first use is denied ("isn't faster", "not much faster")."""
    m = re.search(rf"\b{re.escape(word)}\b", text, re.I)
    return bool(m and denied_before(text, m.start()))


def _led_by(text: str, word: str) -> set[str]:
    """The stems of the three words before the word's first use ("frees them afterwards")."""
    m = re.search(rf"\b{word}", text, re.I)
    return {stem(t) for t in terms(" ".join(text[: m.start()].split()[-3:]))} if m else set()


def _asserted_terms(text: str) -> set[str]:
    """Content words outside the three words after each negation cue."""
    return set(terms(_NEGATED.sub(" ", text)))


_NEGATED = re.compile(NEGATION.pattern + r"(?:\s+(?:[^\s,;:.!?]|[,;:.!?](?!\s|$))+){0,3}", re.I)


def _sides(text: str, word: str) -> tuple[set[str], set[str]]:
    """The named things (HBM, GDDR, FP32, H100) before and after a comparative: which of two
    things has the property. Without names, every content word."""
    at = text.lower().find(word)
    # The clause around the comparative only: a long sentence names other things too.
    before, after = text[max(0, at - 60) : at], text[at + len(word) : at + len(word) + 60]
    left = {t.lower() for t in ENTITY.findall(before)}
    right = {t.lower() for t in ENTITY.findall(after)}
    if left and right:
        return left, right
    return set(terms(before)), set(terms(after))


def _said_of_same(point: str, sentence: str, word: str) -> bool:
    """The point says the sentence's word too, in another clause of a contrast ("Low
    arithmetic intensity makes a kernel memory-bound, ..., while high intensity makes it
    compute-bound"), and the sentence says it of the same thing: the words before it share a
    content word and none is the opposite of the point's ("High intensity, compute-bound."
    agrees; "Low intensity makes it compute-bound." does not)."""
    p_at = re.search(rf"\b{re.escape(word)}\b", point, re.I)
    s_at = re.search(rf"\b{re.escape(word)}\b", sentence, re.I)
    if not p_at or not s_at:
        return False
    clauses = _CONTRAST.split(point[: p_at.start()])
    if len(clauses) < 2:  # one clause, one thing: "higher bandwidth and lower capacity"
        return False
    p_clause = clauses[-1]
    p_before, s_before = (
        set(terms(" ".join(t.split()[-5:]))) for t in (p_clause, sentence[: s_at.start()])
    )
    if any(_POLE.get(w, "") in p_before for w in s_before):
        return False
    return bool(p_before & s_before)


_CONTRAST = re.compile(r"[,;:]\s*(?:while|whereas|but)\s+|\s+(?:while|whereas)\s+", re.I)
_POLES = (
    *(("high", "low"), ("large", "small"), ("big", "small"), ("many", "few")),
    *(("long", "short"), ("wide", "narrow"), ("fast", "slow"), ("more", "less")),
)
_POLE = {a: b for x, y in _POLES for a, b in ((x, y), (y, x))}


_ALIKE = {"less": {"less", "fewer"}, "fewer": {"less", "fewer"}}


def _less(text: str, word: str) -> str:
    """The text without its first use of a word (a comparative is no condition of itself)."""
    return re.sub(rf"\b{re.escape(word)}\b", " ", text, count=1, flags=re.I)


def _than(text: str, word: str) -> str:
    """The named thing a comparative compares with ("costs much less than HBM": hbm)."""
    m = re.search(
        rf"\b{re.escape(word)}\b(?:\s+[\w-]+){{0,3}}?\s+than\s+(?:the\s+|an?\s+)?([\w+\-]+)",
        text,
        re.I,
    )
    return m.group(1).lower() if m and ENTITY.fullmatch(m.group(1)) else ""


def _of_the_other(point: str, p_cmp: str, sentence: str, s_cmp: str) -> bool:
    """The sentence gives the opposite word to the thing the point compares with, and names
    no other: "HBM costs more" says what "GDDR ... costs much less than HBM" says."""
    other = _than(point, p_cmp)
    lead = subject_of(sentence)
    return (
        bool(other and lead)
        and stem(lead) == stem(other)
        and stem(lead) != stem(subject_of(point))
        and s_cmp in OPPOSITE.get(p_cmp, set())
        and not _than(sentence, s_cmp)
    )


_DETERMINER = re.compile(r"^(?:the|a|an|it|its|this|that|your|my|our|their)$", re.I)


def _converse(point: str, p_cmp: str, sentence: str, s_cmp: str) -> bool:
    """The thing just before one text's comparative is the thing just after the other's:
    "the roof above it" and "the dot sits below the roof" relate the roof the same way."""

    def around(text: str, word: str) -> tuple[str, str]:
        m = re.search(rf"\b{re.escape(word)}\b", text, re.I)
        if m is None:
            return "", ""
        before = re.findall(r"[\w-]+", text[: m.start()].lower())[-2:]
        after = re.findall(r"[\w-]+", text[m.end() :].lower())[:3]
        noun = next((w for w in after if not _DETERMINER.match(w)), "")
        return (before[-1] if before and not _DETERMINER.match(before[-1]) else ""), noun

    p_before, p_after = around(point, p_cmp)
    s_before, s_after = around(sentence, s_cmp)
    return bool(p_before and p_before == s_after) or bool(s_before and s_before == p_after)
