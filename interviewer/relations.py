"""How two quantities move together: the sign of a stated relation ("the more registers, the
fewer warps"), which way each change word moves what it qualifies, and comparisons of other
quantities or other things that only look like the claim's (`stated.py`, `disagreement.py`)."""

from __future__ import annotations

import re

from .comparatives import COMPARATIVE, OPPOSITE, attached, denied_before, has_than, mentions
from .things import SENTENCE_END, names_in
from .words import terms

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
    # A relation lives in one sentence: "More warps hide latency. Higher is not always
    # better." relates no two quantities.
    if len(sentences := [t for t in SENTENCE_END.split(text.strip()) if t]) > 1:
        per_sentence = {sign for t in sentences if (sign := relation_sign(t))}
        return per_sentence.pop() if len(per_sentence) == 1 else 0
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


def compares_other(claim: str, sentence: str) -> bool:
    """Both compare two things ("X-er than"), but of different quantities, and the sentence
    never names the claim's: "It has fewer mantissa bits than FP16" does not say "BF16 uses
    less memory than FP16", whatever the NLI model reads in "fewer ... than FP16"."""
    mine = [
        w for w in (m.group(1).lower() for m in COMPARATIVE.finditer(claim)) if has_than(claim, w)
    ]
    theirs = [
        w
        for w in (m.group(1).lower() for m in COMPARATIVE.finditer(sentence))
        if has_than(sentence, w)
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
    + "|".join(sorted(map(re.escape, {*OPPOSITE, "better", "worse"}), key=len, reverse=True))
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


_UP = r"increas\w*|grow\w*|grew|rais\w*|rises?|more|many|higher|larger"


_DOWN = r"decreas\w*|reduc\w*|shrink\w*|lower\w*|fewer|few|less|smaller"


MOVE = re.compile(rf"\b(?:(?P<up>{_UP})|(?P<down>{_DOWN}))\b", re.I)


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
    for m in MOVE.finditer(text):
        word = m.group(0).lower()
        if asserted and denied_before(text, m.start()):
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
