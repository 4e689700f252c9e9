"""A property denied where the point asserts it, or asserted where the point denies it: "X is
not P" against "X is P", or "X does not grow with Y" against "X grows with Y", of the same
subject. The negation check in `exact.py` reads a whole sentence's words and its negations:
"Atomics don't matter, because floating-point addition is associative" holds one negation, as
"Floating-point addition is not associative, so ..." does, and shares too few of the long
point's words. Here each "is/are P" is read on its own. Sure only in a plain statement: a
conditional, a reported belief ("people assume it is associative") or a sentence that also
says the point's side is no claim of the opposite.
"""

from __future__ import annotations

import re

from .actions import words_before
from .comparatives import EQUATIVE, NEGATION
from .words import terms

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
# ("at once" and "only once" are no condition)
_CONDITIONAL = re.compile(
    r"\b(?:if|unless|when|whenever|until|(?<!\bat )(?<!\bonly )once|whether)\b", re.I
)
# Any hint of a belief keeps the exact checks silent (`reported`); stating a misconception asks
# for the narrower `attributed`, since a missed wrong claim there costs as much as a false one.
_BELIEF = re.compile(
    r"\b(?:think|thinks|believe|believes|assume|assumes|assuming|myth|misconception|mistake"
    r"|wrong|false|untrue|incorrect|claim|claims|naive|naively|people|contrary)\b",
    re.I,
)
# "Contrary to what people assume, NVLink doesn't bypass PCIe": the candidate's own claim, set
# against the belief it names.
_CONTRARY = re.compile(r"^\W*contrary\s+to\b[^,;:]*[,;:]", re.I)


def reported(sentence: str) -> bool:
    """The sentence reports a belief or names it a mistake: not the candidate's own claim."""
    return bool(_BELIEF.search(_CONTRARY.sub("", sentence)))


# Someone else's belief, or one named a mistake: "people think ...", "it's a myth that ...",
# "..., but that's wrong". ("I think ..." and "contrary to popular belief, ..." are the
# candidate's own claim.)
_ATTRIBUTED = re.compile(
    r"\b(?:(?:people|many|some|others|folks|everyone|beginners|newcomers|juniors)"
    r"\s+(?:\w+\s+)?(?:think|believe|assume|say|claim|expect|confuse)"
    r"|myths?|misconceptions?|mistaken(?:ly)?|misconceived"
    r"|(?:is|are|that's|that\s+is|it's|this\s+is)\s+(?:\w+\s+)?(?:wrong|false|untrue|incorrect"
    r"|not\s+true|a\s+mistake|a\s+myth))\b",
    re.I,
)


def attributed(sentence: str, claim: str = "") -> bool:
    """The sentence reports its claim as someone else's belief or names it a mistake, where
    the claim itself does not."""
    return bool(_ATTRIBUTED.search(sentence)) and not _ATTRIBUTED.search(claim)


def hedged(sentence: str, claim: str = "") -> bool:
    """As `attributed`, or the sentence puts its claim under a condition the claim has not."""
    return attributed(sentence, claim) or bool(
        _CONDITIONAL.search(sentence) and not _CONDITIONAL.search(claim)
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
    if _CONDITIONAL.search(sentence) or reported(sentence):
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


# A verb denied: "does not grow", "doesn't need", "never recomputes", "no longer fits".
_DENIED_VERB = re.compile(
    r"\b(?:(?:does|do|did)\s+not|doesn't|don't|didn't|never|no\s+longer)"
    r"\s+(?:really\s+|even\s+|actually\s+)?([a-z]{3,})\b",
    re.I,
)
_NEEDS_NO = re.compile(r"\b([a-z]{3,}s)\s+no\s+[a-z]", re.I)  # "needs no loss scaling"
_DENIED_BEFORE = re.compile(
    r"(?:\b(?:(?:does|do|did)\s+not|not|never|no\s+longer)|\w+n't)"
    r"\s+(?:really\s+|even\s+|actually\s+)?$",
    re.I,
)
_LIGHT = {"have", "has", "had", "get", "make", "mean", "know", "think", "say", "see", "want"}
_PRONOUNS = {"you", "we", "it", "its", "they", "this", "that", "these", "those", "one", "them"}
# Words that end a subject noun phrase: the verb or an adverb before it.
_NOT_NOUN = {
    "is", "are", "was", "were", "be", "has", "have", "had", "does", "do", "did", "can", "could",
    "will", "would", "should", "must", "may", "might", "never", "not", "always", "usually",
    "often", "also", "only", "just",
}  # fmt: skip
_ANY = {"anything", "everything", "any"}

VerbUse = tuple[bool, frozenset[str], frozenset[str]]  # denied, subject's words, object's words


def verb_flipped(point: str, sentence: str) -> str | None:
    """ "exact:negation" when the sentence denies, of the point's subject and object, the verb
    the point asserts ("The KV cache ... does not grow with context length" against "... grows
    with batch size times context length"), or asserts the one it denies."""
    if _CONDITIONAL.search(sentence) or reported(sentence):
        return None
    stems = {
        _stem(m.group(1))
        for t in (point, sentence)
        for pattern in (_DENIED_VERB, _NEEDS_NO)
        for m in pattern.finditer(t)
    }
    for stem in stems - _LIGHT:
        for denied, subject, obj in _uses(point, stem):
            same = [
                d
                for d, s, o in _uses(sentence, stem)
                if _same_subject(s, subject)
                and (obj & o or not obj or o & _ANY)
                and not _other_numbers(obj, o)
            ]
            if same and all(d != denied for d in same):
                return "exact:negation"
    return None


def _stem(verb: str) -> str:
    verb = verb.lower()
    return verb[:-1] if verb.endswith("s") and not verb.endswith("ss") else verb


def _uses(text: str, stem: str) -> list[VerbUse]:
    """Each use of the verb in the text, denied or not, with its subject and object."""
    out = []
    for m in re.finditer(rf"\b{re.escape(stem)}(?:s|es)?\b", text, re.I):
        before = words_before(text, m.start())
        after = _CLAUSE_BREAK.split(text[m.end() : m.end() + 120])[0]
        denied = bool(_DENIED_BEFORE.search(before)) or after.lower().startswith(" no ")
        if denied and (EQUATIVE.match(after) or _TURNED_ROUND.search(text[: m.start()])):
            continue
        subject = _subject_before(_DENIED_BEFORE.sub("", before))
        numbers = {"#" + n for n in _NUMBER.findall(after)}
        out.append((denied, subject, (frozenset(terms(after)) | numbers) - _PRONOUNS))
    return out


_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# A denial inside a relative clause of another denial is turned round by it: "it can't train a
# model whose weights ... don't fit on one GPU" says they must fit.
_TURNED_ROUND = re.compile(
    r"(?:\b(?:not|never|no|cannot)\b|n't\b)[^.;!?]*\b(?:whose|which|that|who|where)\b[^.;!?]*$",
    re.I,
)


def _other_numbers(a: frozenset[str], b: frozenset[str]) -> bool:
    """Both objects give numbers, and none the same: "doesn't sustain its ~989 TFLOP/s peak"
    denies another figure than "sustains about 500 TFLOP/s"."""
    na, nb = {w for w in a if w[0] == "#"}, {w for w in b if w[0] == "#"}
    return bool(na and nb and not na & nb)


def _subject_before(before: str) -> frozenset[str]:
    """The subject of a verb from the words before it: its clause's, or for an elided or
    pronoun subject ("... comes on top of the weights and grows with"), the clause's before."""
    pieces = _CLAUSE_BREAK.split(before)
    subject = _words(pieces[-1]) - _PRONOUNS - _NOT_NOUN
    for piece in reversed(pieces[:-1]):
        if subject:
            break
        subject = _lead(piece)
    return frozenset(subject)


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _SUBJECT_SKIP and len(w) >= 3}


def _lead(piece: str) -> set[str]:
    """A clause's subject: its words up to the verb ("Activation checkpointing stores ...")."""
    out: set[str] = set()
    for w in _WORD.findall(piece.lower()):
        if w in _NOT_NOUN or (out and w.endswith("s") and not w.endswith("ss")):
            break
        if w not in _SUBJECT_SKIP and len(w) >= 2:
            out.add(w)
    return out - _PRONOUNS


# Where memory lives: on the host (the CPU's RAM) or on the device. "Pinned memory is host
# memory ..." against "Pinned memory is a region of GPU memory ...": the models read the shared
# words and not which side they name.
_HOST = re.compile(
    r"\b(?:(?:host|cpu|system)(?:[- ]side)?\s+(?:memory|ram|dram)|on the (?:host|cpu))\b", re.I
)
_DEVICE = re.compile(
    r"\b(?:(?:gpu|device)(?:[- ]side)?\s+(?:memory|ram|dram)|vram|on the (?:gpu|device))\b",
    re.I,
)
_LIVES = re.compile(r"\b(?:is|are|lives?|sits?|resides?|stays?)\b", re.I)


def _location(text: str) -> tuple[frozenset[str], str] | None:
    """The subject and side ("host", "device") of the text's first "X is/lives ... memory"."""
    clause = _CLAUSE_BREAK.split(text, maxsplit=1)[0]
    m = _LIVES.search(clause)
    if not m or NEGATION.search(clause) or _CONDITIONAL.search(clause):
        return None
    rest = clause[m.end() :]
    host, device = bool(_HOST.search(rest)), bool(_DEVICE.search(rest))
    if host == device:
        return None
    return frozenset(_words(clause[: m.start()])), "host" if host else "device"


def location_flipped(point: str, sentence: str) -> str | None:
    """ "exact:swapped" when the point puts its subject's memory on one side (host or device)
    and the sentence puts the same subject's on the other."""
    if reported(sentence):
        return None
    said, got = _location(point), _location(sentence)
    if said and got and said[1] != got[1] and _same_subject(said[0], got[0]):
        return "exact:swapped"
    return None


# How a quantity moves with another: "grows with batch size" (+1) against "shrinks as you
# increase batch size" (-1). The NLI model reads the shared words; the comparative check needs
# two graded words ("the more X, the less Y").
_RISE = r"grows?|grew|increases?|rises?|scales?(?:\s+up)?|goes\s+up|gets\s+(?:larger|bigger)"
_FALL = r"shrinks?|shrank|decreases?|falls?|drops?|goes\s+down|gets\s+smaller"
# ... or stays put: "barely changes when you raise the batch size", "doesn't depend on it".
_FLAT = (
    r"(?:barely|hardly)\s+(?:changes?|moves?|grows?)|stays?\s+(?:the\s+same|flat|constant|fixed)"
    r"|(?:does\s+not|doesn't|don't|do\s+not)\s+(?:really\s+)?(?:change|grow|depend)"
    r"|(?:is|are)\s+(?:fixed|constant|independent)(?:\s+regardless)?"
)
_TREND = re.compile(
    rf"\b(?:(?P<rise>{_RISE})|(?P<fall>{_FALL})|(?P<flat>{_FLAT}))\s+(?:(?:roughly|linearly|"
    r"quickly|proportionally|too)\s+)*(?:(?P<with>with|on|of)\s+(?P<of>[^,;.]+)"
    r"|(?:as|when)\s+(?:you\s+)?(?P<as>[^,;.]+))",
    re.I,
)
_DRIVER_UP = re.compile(
    rf"\b(?:{_RISE}|increas\w*|rais\w*|add\w*|more|longer|larger|bigger)\b", re.I
)
_DRIVER_DOWN = re.compile(
    rf"\b(?:{_FALL}|reduc\w*|cut\w*|lower\w*|fewer|less|shorter|smaller)\b", re.I
)

Trend = tuple[int, frozenset[str], frozenset[str]]  # sign, subject's words, the driver's words


def _trends(text: str) -> list[Trend]:
    out = []
    for m in _TREND.finditer(text):
        sign = 1 if m.group("rise") else 0 if m.group("flat") else -1
        if m.group("flat") and m.group("with") and m.group("flat").lower().startswith("stay"):
            continue  # "stays the same with FP16" is a condition, not a trend
        if m.group("with"):
            driver = m.group("of")
        else:
            driver = m.group("as")
            up, down = _DRIVER_UP.search(driver), _DRIVER_DOWN.search(driver)
            if bool(up) == bool(down):
                continue
            sign *= 1 if up else -1
        before = words_before(text, m.start())
        if _DENIED_BEFORE.search(before) or _CONDITIONAL.search(_CLAUSE_BREAK.split(before)[-1]):
            continue
        out.append((sign, _subject_before(before), frozenset(terms(driver))))
    return out


def trend_flipped(point: str, sentence: str) -> str | None:
    """ "exact:comparative" when the sentence has the point's subject move the other way with
    the same driver ("The KV cache ... grows with batch size" against "the KV cache shrinks as
    you increase batch size")."""
    if reported(sentence):
        return None
    got = _trends(sentence)
    for sign, subject, driver in _trends(point):
        same = [s for s, subj, d in got if _same_subject(subj, subject) and d & driver]
        if same and all(s != sign for s in same):
            return "exact:comparative"
    return None


# "FLOPs per byte" turned into "bytes per FLOP": a rate the other way up.
_PER = re.compile(
    r"\b([A-Za-z][\w\-]*?)s?(?:\s+(?:moved|transferred|read|written|loaded|stored|computed|"
    r"executed|performed|processed|generated))?\s+per\s+([A-Za-z][\w\-]*?)s?\b",
    re.I,
)
_NOT_UNITS = {"the", "a", "an", "each", "every", "one", "cent", "unit", "second", "token"}


# Said the long way: "bytes a kernel moves per floating-point operation" is bytes per FLOP.
_LONG_WAY = (
    (re.compile(r"\bfloating[- ]point operations?\b", re.I), "FLOP"),
    (
        re.compile(
            r"\b(?:a|the|each|your)\s+(?:kernel|program|model|layer|GPU)\s+(?:moves|transfers|"
            r"reads|writes|loads|stores|computes|executes|performs|processes|generates)\b",
            re.I,
        ),
        "moved",
    ),
)


def _rates(text: str) -> set[tuple[str, str]]:
    for pattern, short in _LONG_WAY:
        text = pattern.sub(short, text)
    return {
        (a.lower(), b.lower())
        for a, b in _PER.findall(text)
        if a.lower() not in _NOT_UNITS and b.lower() not in _NOT_UNITS and a.lower() != b.lower()
    }


def ratio_inverted(point: str, sentence: str) -> str | None:
    """ "exact:swapped" when the sentence gives the point's rate the other way up
    ("Arithmetic intensity is bytes moved per FLOP" against "... FLOPs per byte ...") and
    nowhere the point's way: the two quantities trade places."""
    said, got = _rates(point), _rates(sentence)
    if any((b, a) in got for a, b in said) and not said & got:
        return "exact:swapped"
    return None
