"""Exact checks beside the NLI model, where they are sure: inverted comparatives, swapped
entities, things turned round (`order.py`: trades, steps, multiples), negation (of what follows
it), numbers with the same unit. Each names the check that found a contradiction between a key
point and one answer sentence."""

from __future__ import annotations

import re

from .order import turned_round
from .quantities import number_off
from .things import OPENERS, names_in, subject_of
from .words import ENTITY, stem, terms

_ANTONYMS = [
    ("higher", "lower"),
    ("faster", "slower"),
    ("more", "less"),
    ("more", "fewer"),
    ("larger", "smaller"),
    ("bigger", "smaller"),
    ("greater", "smaller"),
    ("wider", "narrower"),
    ("wider", "narrow"),
    ("wide", "narrow"),
    ("increases", "decreases"),
    ("increase", "decrease"),
    ("raises", "lowers"),
    ("cheaper", "costlier"),
    ("cheaper", "more expensive"),
    ("before", "after"),
    ("above", "below"),
    ("latency-bound", "throughput-bound"),
    ("memory-bound", "compute-bound"),
    ("bandwidth-bound", "compute-bound"),
    ("memory-bandwidth-bound", "compute-bound"),
    ("synchronous", "asynchronous"),
    ("static", "dynamic"),
    ("always", "never"),
]
_OPPOSITE: dict[str, set[str]] = {}
for _a, _b in _ANTONYMS:
    _OPPOSITE.setdefault(_a, set()).add(_b)
    _OPPOSITE.setdefault(_b, set()).add(_a)
_COMPARATIVE = re.compile(
    r"\b(" + "|".join(sorted(map(re.escape, _OPPOSITE), key=len, reverse=True)) + r")\b", re.I
)
_NEGATION = re.compile(
    r"\b(not|no|never|cannot|can't|doesn't|don't|isn't|aren't|won't|without|neither|nor)\b", re.I
)


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
    pc = [m.group(1).lower() for m in _COMPARATIVE.finditer(point)]
    sc = [m.group(1).lower() for m in _COMPARATIVE.finditer(sentence)]
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
            and _than(point, p_cmp)
            and not (s_cmp == p_cmp or s_cmp in _OPPOSITE[p_cmp])
        ):
            s_cmp = next((w for w in sc if w in _OPPOSITE[p_cmp] and _than(sentence, w)), s_cmp)
        p_left, p_right = _sides(point, p_cmp)
        s_left, s_right = _sides(sentence, s_cmp)
        same_side = bool(p_left & s_left) or bool(p_right & s_right)
        swapped = bool(p_left & s_right) and bool(p_right & s_left) and not same_side
        # "slower CUDA cores" and "faster on Tensor Cores" agree: each word is about its own
        # thing. Opposite words are a contradiction only about the same thing.
        p_of, s_of = attached(point, p_cmp), attached(sentence, s_cmp)
        same_thing = not (
            p_of and s_of and p_of != s_of and mentions(sentence, p_of) and mentions(point, s_of)
        )
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
        agrees = (p_cmp in sc and bool(_qualified(point, p_cmp) & _qualified(sentence, p_cmp))) or (
            s_cmp in pc and bool(_qualified(point, s_cmp) & _qualified(sentence, s_cmp))
        )
        # Nor where the sentence turns a condition round too ("faster at lower occupancy"
        # against "raising occupancy ... making the kernel slower"), or puts the point's thing
        # on the other side of a converse ("the dot sits below the roof" against "the roof
        # above it"): both say the same relation from the other end.
        # (A comparative that itself moves a quantity, "higher bandwidth and lower capacity",
        # is a property like the other: both turned round are both wrong.)
        turned_condition = not _MOVE.fullmatch(p_cmp) and opposed(
            _less(point, p_cmp), _less(sentence, s_cmp)
        )
        converse = turned_condition or _converse(point, p_cmp, sentence, s_cmp)
        # A point that orders two events says both words ("gathers them just before they are
        # used ... and frees them afterwards"): "freed after use" is its second event.
        both_orders = p_cmp in ("before", "after") and bool(
            _led_by(point, s_cmp) & _led_by(sentence, s_cmp)
        )
        if (
            s_cmp in _OPPOSITE.get(p_cmp, set())
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
    p_neg = bool(_NEGATION.search(point))
    s_neg = bool(_NEGATION.search(sentence))
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
        if (
            len(pw & sw) >= 0.8 * max(1, min(len(pw), len(sw)))
            and len(pw & sw) >= 3
            and denied & asserted
        ):
            return "exact:negation"
    if number_off(point, sentence):
        return "exact:number"
    return None


# Which way each word moves a quantity, for relations between two quantities. Adjectives a
# comparison of lengths, sizes, distances or amounts uses; "close" (a verb) and "light" (a
# noun) left out.
_UP_WORDS = (
    "higher high more many larger large bigger big greater longer long tighter tight farther "
    "further far heavier heavy faster hotter hot warmer wider stronger louder thicker deeper "
    "taller"
)
_DOWN_WORDS = (
    "lower low less fewer few smaller small little shorter short looser loose closer nearer "
    "near lighter slower colder cold cooler narrower weaker quieter softer thinner shallower"
)
_GRADE = {w: 1 for w in _UP_WORDS.split()} | {w: -1 for w in _DOWN_WORDS.split()}
_GRADED = re.compile(r"\b(" + "|".join(_GRADE) + r")\b", re.I)
# The point must state a relation ("if", "when", "so", "as X grows", "the more X, the less
# Y"); an answer may put it any way ("a short string is a higher pitch than a long one"). A
# bare "as" is no such word: "such as small and medium runs" relates nothing.
_RELATION = re.compile(
    r"\b(?:if|when|whenever|so|because|therefore)\b"
    r"|\bas\s+(?:\S+\s+){0,4}?(?:grows?|increases?|rises?|falls?|drops?|decreases?|shrinks?"
    r"|gets?|becomes?)\b"
    r"|^\s*the\s+\w+\b.*,\s*the\s+\w+",
    re.I,
)
_PARTS = re.compile(r",?\s+(?:but|and|whereas|while|because)\s+|;\s*", re.I)
_NOT_BEFORE = re.compile(r"\b(?:not|no|never|n't)\s+(?:\w+\s+)?$", re.I)


def relation_sign(text: str, stated: bool = False) -> int:
    """+1 when the text relates two quantities that rise together, -1 when one rises as the
    other falls ("the more blocks, the less distance"), 0 when it states no such relation
    (with `stated`, none without a word that states one). Read from the whole text when it has
    two graded words, else from its clauses that do (all agreeing); a word after "not"/"no"
    counts turned round."""
    if stated and not _RELATION.search(text):
        return 0
    whole = _sign(text)
    if whole is not None:
        return whole
    signs = {x for part in _PARTS.split(text) if (x := _sign(part)) is not None}
    return signs.pop() if len(signs) == 1 else 0


# Not a quantity's change: an intensifier before a graded word ("far fewer bytes"), and set
# phrases ("no longer", "as long as", "so far").
_NOT_GRADED = re.compile(
    r"\b(?:no\s+longer|as\s+long\s+as|(?:so|as)\s+far(?:\s+as)?|far\s+from|more\s+or\s+less)\b",
    re.I,
)


def _sign(text: str) -> int | None:
    text = _NOT_GRADED.sub(" ", text)
    found = [
        m
        for m in _GRADED.finditer(text)
        if not _GRADED.match(text, m.end() + 1 if text[m.end() : m.end() + 1] == " " else m.end())
    ]
    if len(found) != 2:
        return None
    a, b = (
        _GRADE[m.group(1).lower()] * (-1 if _NOT_BEFORE.search(text[: m.start()]) else 1)
        for m in found
    )
    return a * b


def same_quantities(point: str, sentence: str) -> bool:
    """Each graded word of the sentence is near a word the point's graded words are near: "more
    resident warps ..., so higher occupancy" relates warps and occupancy, not the registers and
    warps of "the more registers each thread uses, the fewer warps fit"."""
    said = set().union(*_near_graded(point))
    return all(near & said for near in _near_graded(sentence) if near)


_LINKS = {"when", "whenever", "if", "then", "because", "therefore", "than", "while", "also"}


def _near_graded(text: str) -> list[set[str]]:
    """The content words within three words of each graded word."""
    text = _NOT_GRADED.sub(" ", text)
    tokens = [m.group().lower() for m in re.finditer(r"[A-Za-z][\w\-]*", text)]
    out = []
    for at, word in enumerate(tokens):
        if word in _GRADE:
            window = [w for w in tokens[max(0, at - 3) : at + 4] if w not in _GRADE]
            out.append(set(terms(" ".join(window))) - _LINKS)
    return out


def _than(text: str, word: str) -> bool:
    """The comparative compares two things: "than" within three words after it."""
    m = re.search(rf"\b{re.escape(word)}\b((?:\s+\S+){{0,3}})", text, re.I)
    return m is not None and "than" in m.group(1).lower().split()


def compares_other(claim: str, sentence: str) -> bool:
    """Both compare two things ("X-er than"), but of different quantities, and the sentence
    never names the claim's: "It has fewer mantissa bits than FP16" does not say "BF16 uses
    less memory than FP16", whatever the NLI model reads in "fewer ... than FP16"."""
    mine = [
        w for w in (m.group(1).lower() for m in _COMPARATIVE.finditer(claim)) if _than(claim, w)
    ]
    theirs = [
        w
        for w in (m.group(1).lower() for m in _COMPARATIVE.finditer(sentence))
        if _than(sentence, w)
    ]
    if len(mine) != 1 or not theirs:
        return False
    of = attached(claim, mine[0])
    # Each of the sentence's is of a quantity the claim never names ("smaller than FP16 ones"
    # is of the things compared).
    return (
        bool(of)
        and not mentions(sentence, of)
        and all((o := attached(sentence, w)) and not mentions(claim, o) for w in theirs)
    )


_FAVOURS = re.compile(
    r"\b("
    + "|".join(sorted(map(re.escape, {*_OPPOSITE, "better", "worse"}), key=len, reverse=True))
    + r")\b[^.;]*?\bthan\s+(?:the\s+|a\s+|an\s+)?([A-Za-z0-9][\w+\-]*)",
    re.I,
)


def favours_other(claim: str, sentence: str) -> bool:
    """The claim says one named thing beats another ("PTQ usually gives better low-bit
    accuracy than QAT"); the sentence gives the other the same word and never names the first
    ("Probably QAT gives better accuracy"). The NLI model reads the two as one claim."""
    m = _FAVOURS.search(claim)
    mine, theirs = names_in(claim), names_in(sentence)
    if not m or not mine or not theirs:
        return False
    word, beaten = m.group(1).lower(), m.group(2).lower()
    return (
        beaten in mine[1:]
        and theirs[0] == beaten
        and mine[0] not in theirs
        and re.search(rf"\b{word}\b", sentence, re.I) is not None
    )


_FILLER = {"on", "in", "at", "the", "a", "an", "way", "much", "far", "than", "to", "for", "by"}


def attached(text: str, word: str) -> str:
    """The content word a comparative qualifies: the first after it ("slower CUDA cores"),
    skipping small words ("faster on Tensor Cores"); "" when the clause ends first."""
    at = text.lower().find(word)
    for token in re.findall(r"[A-Za-z][A-Za-z0-9+\-]*|[,;.:]", text[at + len(word) :])[:4]:
        if token in ",;.:":
            return ""
        if token.lower() not in _FILLER:
            return token.lower()
    return ""


def _qualified(text: str, word: str) -> set[str]:
    """The first two content words after a comparative, within its phrase ("more resident
    warps": resident, warps)."""
    at = text.lower().find(word)
    out: set[str] = set()
    for token in re.findall(r"[A-Za-z][A-Za-z0-9+\-]*|[,;.:]", text[at + len(word) :])[:5]:
        low = token.lower()
        if token in ",;.:" or low == "and" or low in _OPPOSITE or len(out) == 2:
            break
        if low not in _FILLER:
            out.add(low)
    return out


def mentions(text: str, word: str) -> bool:
    """The text names this thing, allowing a speech-to-text slip ("tenser" for "tensor")."""
    return any(t[:4] == word[:4] for t in terms(text))


_PASSED_OVER = re.compile(r"\b(?:rather than|instead of)\b", re.I)


def _negated_terms(text: str, cue: re.Pattern[str] = _NEGATION) -> set[str]:
    """Content words within three words after each negation cue: what the text denies."""
    out: set[str] = set()
    for m in cue.finditer(text):
        # Within its clause: "PCIe doesn't come close, often the difference ..." denies no
        # "often".
        clause = _CLAUSE_END.split(text[m.end() :], maxsplit=1)[0]
        out.update(terms(" ".join(clause.split()[:3])))
    return out


_CLAUSE_END = re.compile(r"[,;:.!?](?=\s|$)")


_DENIED_JUST_BEFORE = re.compile(r"(?:\b(?:not|never|no)|n't)\s+(?:\w+\s+)?$", re.I)


def _negated_at(text: str, word: str) -> bool:
    """The word's first use is denied ("isn't faster", "not much faster")."""
    m = re.search(rf"\b{re.escape(word)}\b", text, re.I)
    return bool(m and _denied_before(text, m.start()))


def _denied_before(text: str, at: int) -> bool:
    return bool(_DENIED_JUST_BEFORE.search(text[max(0, at - 30) : at]))


def _led_by(text: str, word: str) -> set[str]:
    """The stems of the three words before the word's first use ("frees them afterwards")."""
    m = re.search(rf"\b{word}", text, re.I)
    return {stem(t) for t in terms(" ".join(text[: m.start()].split()[-3:]))} if m else set()


def _asserted_terms(text: str) -> set[str]:
    """Content words outside the three words after each negation cue."""
    return set(terms(_NEGATED.sub(" ", text)))


_NEGATED = re.compile(_NEGATION.pattern + r"(?:\s+(?:[^\s,;:.!?]|[,;:.!?](?!\s|$))+){0,3}", re.I)


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


_UP = r"increas\w*|grow\w*|grew|rais\w*|rises?|more|many|higher|larger"
_DOWN = r"decreas\w*|reduc\w*|shrink\w*|lower\w*|fewer|few|less|smaller"
_MOVE = re.compile(rf"\b(?:(?P<up>{_UP})|(?P<down>{_DOWN}))\b", re.I)


def opposed(claim: str, sentence: str) -> bool:
    """The sentence moves the quantities the claim names in a relation of the other sign
    ("lower occupancy with more registers" against "more registers raise occupancy"), or the
    one it shares the other way: it says the opposite of the claim, whatever words they share."""
    said: dict[str, str] = {}
    got: dict[str, str] = {}
    for found, text in ((said, claim), (got, sentence)):
        for d, of in moves(text):
            if of:  # a thing's first change is what the text says of it
                found.setdefault(of[:4], d)
    shared = [k for k in said if k in got]

    def sign(found: dict[str, str]) -> int:
        return 1 if sum(found[k] == "down" for k in shared) % 2 == 0 else -1

    return bool(shared) and sign(said) != sign(got)


# "fewer, larger micro-batches": the first of two comparatives qualifies the same thing.
_NEXT_COMPARATIVE = re.compile(r"\s*,\s*([a-z]+er)\b", re.I)


# A verb of change with no object after it changes its subject: "the bubble grows as ...".
_CHANGE_VERB = re.compile(r"(?:increas|grow|grew|rais|rise|decreas|reduc|shrink)\w*", re.I)
_NO_OBJECT = re.compile(
    r"\s*(?:[,.;:!?)]|$|(?:as|when|with|because|if|since|so|and|but|by|linearly|quickly|over|"
    r"during|until|once|too|accordingly|proportionally)\b)",
    re.I,
)


_NOT_THINGS = frozenset({"it", "its", "they", "this", "that", "which", "also", "only", "then"})


def moves(text: str, asserted: bool = False) -> list[tuple[str, str]]:
    """Each change word's direction ("up", "down") and the content word it qualifies; with
    `asserted`, not one denied ("memory doesn't shrink with more GPUs" moves nothing down)."""
    out = []
    for m in _MOVE.finditer(text):
        word = m.group(0).lower()
        if asserted and _denied_before(text, m.start()):
            continue
        if _CHANGE_VERB.fullmatch(word) and _NO_OBJECT.match(text, m.end()):
            before = [t for t in terms(text[: m.start()]) if t not in _NOT_THINGS]
            of = before[-1] if before else ""
        else:
            of = attached(text[m.start() :], word)
        if not of and (nxt := _NEXT_COMPARATIVE.match(text, m.end())):
            of = attached(text[nxt.start(1) :], nxt.group(1).lower())
        out.append(("up" if m.group("up") else "down", of))
    return out


def _less(text: str, word: str) -> str:
    """The text without its first use of a word (a comparative is no condition of itself)."""
    return re.sub(rf"\b{re.escape(word)}\b", " ", text, count=1, flags=re.I)


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
