"""Whether two texts visibly disagree, beyond the sure checks of `exact.py`: what the NLI
model's contradictions must show, a misconception said the opposite way, and a closed question
answered the other way."""

from __future__ import annotations

import re

from .comparatives import mentions
from .quantities import quantities
from .relations import moves, relation_sign, same_quantities
from .words import FORMAT, formats, stem, terms

# The NLI model reads a sentence that says less, says it another way, or is about a
# neighbouring thing as a denial ("Per warp: the scheduler issues one instruction for a whole
# warp" against "The warp, not the individual thread, is the unit the SM schedules"). Its
# contradiction stands only where the two texts visibly disagree.
_DENIAL = re.compile(
    r"\b(not|no|never|nothing|none|cannot|can't|doesn't|don't|isn't|aren't|won't|without|"
    r"neither|nor|instead of|rather than|avoids?|avoiding|skips?|skipping|no longer|barely|"
    r"hardly|rarely|seldom)\b",
    re.I,
)


def disagree(point: str, sentence: str) -> bool:
    """Whether the texts visibly disagree: one denies what the other asserts (two or more of
    the words it denies), their first change goes opposite ways, or the same unit gets
    different numbers."""
    if denies(point, sentence):
        return True
    p_sign, s_sign = relation_sign(point, stated=True), relation_sign(sentence)
    if p_sign and s_sign and same_quantities(point, sentence):  # its sign (exact_contradiction)
        if p_sign != s_sign:
            return True
    elif _changed_apart(point, sentence):
        return True
    pn, sn = quantities(point), quantities(sentence)
    return any(pu == su and pv != sv for pu, pv in pn for su, sv in sn)


def denies(a: str, b: str) -> bool:
    """One text denies what the other asserts: two or more of the words it denies ("a tenant
    can't slow down or crash its neighbour" against "a busy tenant slows down the others")."""
    a_neg, b_neg = bool(_DENIAL.search(a)), bool(_DENIAL.search(b))
    if a_neg == b_neg:
        return False
    denier, other = (a, b) if a_neg else (b, a)
    return sum(mentions(other, t) for t in _denied(denier)) >= 2


# "the compute per GPU shrinks but that sync doesn't": the second subject does not do what the
# first does, the verb left out.
_ELIDED = re.compile(
    # (the subject within 12 words of its verb: unbounded, a long unpunctuated answer took
    # seconds, the search quadratic in its length)
    r"(?P<first>(?:[^\s,;.:]+\s+){0,11}?[^\s,;.:]+)\s+(?P<verb>[a-z]+s)(?:\s+(?:too|much|fast|quickly))?,?\s+"
    r"(?:but|while|whereas)\s+(?P<other>(?:[\w'-]+\s+){1,4}?)"
    r"(?:doesn't|does\s+not|don't|do\s+not|won't|will\s+not|can't|cannot)"
    r"(?=\s*(?:[,;.]|$|(?:so|and|which|because)\b))",
    re.I,
)


def elided_denial(claim: str, sentence: str, question: str = "") -> bool:
    """The sentence says the claim's change happens to another thing and not to the one it
    names, the verb left out: "as you add GPUs the compute per GPU shrinks but that sync
    doesn't" against "... because each GPU's share of the gradient all-reduce shrinks", which
    the NLI model read as saying it (0.83). The first subject is not the claim's (none of its
    words, beyond the question's, is one of the claim's)."""
    said, setting = _stems(claim), _stems(question)
    for m in _ELIDED.finditer(sentence):
        verb = m.group("verb").lower()
        if not mentions(claim, verb):
            continue
        subject = _stems(m.group("first")) - setting - {stem(verb)}
        if subject and not subject & said:
            return True
    return False


def _stems(text: str) -> set[str]:
    return {stem(t) for t in terms(text) if len(t) > 3}


def _changed_apart(point: str, sentence: str) -> bool:
    """The point's first change and the sentence's go opposite ways: the sentence's change of
    the same thing where it names one ("lower occupancy with more registers" against "the more
    registers ..., the fewer warps fit"), else its first."""
    p_moves, s_moves = moves(point, asserted=True), moves(sentence, asserted=True)
    if not p_moves or not s_moves:
        return False
    p_dir, p_of = p_moves[0]
    same = [d for d, of in s_moves if p_of and of and of[:4] == p_of[:4]]
    return p_dir != (same[0] if same else s_moves[0][0])


def _denied(text: str) -> set[str]:
    """Up to three content words after each denial, within its clause."""
    out: set[str] = set()
    for m in _DENIAL.finditer(text):
        clause = re.split(r"[,;:.]", text[m.end() :], maxsplit=1)[0]
        if not WIDENS.match(clause):
            out.update(t for t in terms(clause)[:3] if len(t) > 3)
    return out


# A denial that widens or denies a limit asserts what follows: "doesn't just save memory",
# "doesn't leave the NVLink node" (it stays inside it).
WIDENS = re.compile(
    r"\s*(?:really\s+|actually\s+|even\s+)?(?:just|only|merely|simply|necessarily|always|all"
    r"|quite|exactly|much|the\s+only|stop|end|limit|leave|exceed|go\s+beyond|cross)\b",
    re.I,
)


# A yes/no (agree, true) verdict, or a lettered option, at the start of a text: the answer to a
# closed question, which a reply opening with the other one turns round ("No, because ..."
# to "Yes, all metals conduct"). A bare "Yes and no" gives no verdict.
_VERDICT = re.compile(
    r"^\W*(?:(?:um|uh|well|so|i\s+think|i\s+would\s+say|i'd\s+say)\W+)?(?:i\s+)?"
    r"(yes|no|agree|disagree|true|false)(?=\s*[,.;:!\-]|\s*$|\s+(?:because|since|as)\b)",
    re.I,
)
_OPTION = re.compile(r"^\W*(?:option\s+|answer\s+)?([A-Ea-e])(?=\s*[.)]|\s*,?\s*because\b|\s*$)")
_OTHER_VERDICT = {"yes": "no", "no": "yes", "agree": "disagree", "disagree": "agree"} | {
    "true": "false",
    "false": "true",
}


def opening(text: str) -> str:
    """The verdict ("yes", "disagree") or option letter a text opens with, else ""."""
    if m := _VERDICT.match(text):
        return m.group(1).lower()
    if m := _OPTION.match(text):
        return m.group(1).upper()
    return ""


def turned_verdict(verdict: str, answer: str) -> bool:
    """The answer opens with another verdict or option than this one ("yes", "B")."""
    said = opening(answer)
    if not verdict or not said:
        return False
    if len(verdict) == 1 or len(said) == 1:  # option letters: any other letter
        return len(verdict) == len(said) == 1 and verdict != said
    return _OTHER_VERDICT.get(verdict) == said


_ALL = re.compile(r"\b(?:everything|all|every|entire|entirely|whole|only)\b", re.I)
_CLAUSE_START = re.compile(r"[,;:.]|\b(?:while|whereas|but)\b", re.I)


def counterexample(wrong: str, point: str, sentence: str) -> bool:
    """A misconception that puts everything (or only) in one number format ("In mixed
    precision everything ... is kept in FP16") against a sentence that names a format of the
    point's for part of it ("... keeping master weights, the loss and reductions in FP32"),
    not denied: the sentence says the point, whatever the NLI model reads in its shared
    words."""
    kept = formats(wrong)
    if len(kept) != 1 or not _ALL.search(wrong):
        return False
    others = formats(point) - kept
    for m in FORMAT.finditer(sentence):
        if m.group().lower() in others:
            clause = _CLAUSE_START.split(sentence[: m.start()])[-1]
            if not _DENIAL.search(clause):
                return True
    return False
