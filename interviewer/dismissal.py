"""An answer that waves away what a key point recommends: "loss scaling isn't needed",
"collective order doesn't matter", "the input pipeline has nothing to do with utilization".
The NLI model does not read it as a denial: with the whole short answer as its premise it left
"If you must stay on FP16, you add dynamic loss scaling ..." covered by an answer that ended
"loss scaling isn't needed since it only affects speed" (3/5 with nothing wrong listed).
A dismissal contradicts the one key point that names the dismissed thing, where that point
asserts it (a point that itself says "without loss scaling" agrees)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from .comparatives import NEGATION
from .words import stem, terms

_HELPS = (
    r"(?:doesn't|does\s+not|don't|do\s+not|won't|will\s+not|wouldn't|would\s+not|can't|cannot)"
    r"\s+(?:really\s+|actually\s+)?(?:help|matter|fix|solve|change\s+anything)"
)
_NEEDED = (
    r"(?:isn't|is\s+not|aren't|are\s+not)\s+(?:really\s+|even\s+|actually\s+)?"
    r"(?:needed|necessary|required|relevant|the\s+(?:problem|issue|cause|fix))"
)
# "X isn't the problem" says X is not the cause: it denies only a point that gives X as one
# ("The divergence almost certainly comes from FP16's narrow dynamic range"), not one that
# merely names it ("... memory-bound, finishing the math before the data arrives" against
# "Low intensity, you're memory-bound, the math isn't the problem").
_NOT_THE_CAUSE = re.compile(
    r"\s+(?:isn't|is\s+not|aren't|are\s+not)\s+(?:really\s+|even\s+|actually\s+)?"
    r"the\s+(?:problem|issue|cause)\b",
    re.I,
)
_AS_CAUSE = re.compile(
    r"\b(?:caus\w*|comes?\s+from|due\s+to|because|bottleneck\w*|[\w-]*bound|limit\w*|problem"
    r"|issue|culprit|blame\w*|dominat\w*|slow\w*)\b",
    re.I,
)
_UNRELATED = r"(?:has|have)\s+nothing\s+to\s+do\s+with"
_DISMISSAL = re.compile(rf"([^,;:()]+?)\s+(?:{_HELPS}|{_NEEDED}|{_UNRELATED})\b", re.I)
# "no need for X", "you don't need X", "don't bother with X": the thing follows ("when there
# is no need for" is a condition; "BF16 doesn't need loss scaling" is about BF16, not a flat
# "you").
_NO_NEED = re.compile(
    r"(?<!when there is )(?<!if there is )\b(?:no\s+need\s+for|don't\s+bother\s+with"
    r"|(?:you|we|i)\s+(?:really\s+)?(?:don't|do\s+not|never)\s+need(?:\s+to\s+use)?)\s+"
    r"([^,;:.()]+)",
    re.I,
)
# "It has nothing to do with running work concurrently", "it doesn't involve the network card
# at all": said of what the question asks about (a pronoun), the thing after the verb is what
# is denied. A named subject ("BF16 doesn't involve loss scaling") may rightly deny it of
# itself, so only a pronoun opens these.
_DENIES_OBJECT = re.compile(
    r"\b(?:it|this|that|they|these|those)\s+(?:really\s+|actually\s+)?"
    r"(?:(?:has|have)\s+nothing\s+to\s+do\s+with"
    r"|(?:doesn't|does\s+not|don't|do\s+not|never)\s+(?:really\s+|actually\s+)?involves?)"
    r"\s+([^,;:.()]+)",
    re.I,
)
_LIMITED_WITHIN = re.compile(
    r"\b(?:with|for|on|in|when|if|unless|once|under|as\s+long\s+as"
    # ... or how often: "you don't need it every step" still needs it.
    r"|every|each|always)\b",
    re.I,
)
# A dismissal within limits is no dismissal: "X alone won't help", "isn't needed with BF16",
# "doesn't matter for inference", "won't help if the hang is in the loader".
_LIMITED_AFTER = re.compile(
    r"^\s*(?:with|for|on|in|at(?!\s+all)|to|when|if|unless|once|under|until|beyond|past|by\s+itself|"
    r"on\s+its\s+own|alone|much|as\s+much|yet|anymore|any\s+more|there)\b",
    re.I,
)
_LIMITED_BEFORE = re.compile(
    r"\b(?:alone|by\s+itself|on\s+its\s+own|only|just|always|if|when|unless|once)\s*$", re.I
)
# "if you're already at peak bandwidth it won't help": a condition, not a dismissal.
_CONDITION = re.compile(r"(?:if|when|whenever|unless|once|until|where)\b", re.I)
_CONDITION_BEFORE = re.compile(
    r"(?:^|[,;:\u2014]\s*|\s-\s)(?:(?:but|and|so|um|uh)\W+)*(?:if|when|whenever|unless|once)\b"
    r"[^.;]*,\s*$",
    re.I,
)
_LEADING = re.compile(
    r"^(?:(?:so|and|but|because|since|while|then|also|though|although|that|which|where|here|"
    r"now|and\s+so|in\s+fact|honestly|actually)\s+)+",
    re.I,
)
_VAGUE = {"it", "this", "that", "they", "these", "those", "there", "which", "what", "anything"}
# Words that say how much or how sure, not what: "any synchronization calls or special events".
_VAGUE |= {"any", "all", "some", "special", "extra", "actual", "real", "kind", "really", "much"}
_VAGUE |= {"work", "thing", "things", "stuff", "way"}


def _stems(text: str) -> set[str]:
    return {stem(w) for w in terms(text) if w not in _VAGUE}


def dismissed(sentence: str) -> list[str]:
    """The things a sentence says do not help, matter or relate, stated flatly (no question,
    no limiting "alone", "with BF16", "if ...")."""
    return list(_dismissed(sentence))


# Each answer sentence is read against every rubric a batch grades it by.
@lru_cache(maxsize=8192)
def _dismissed(sentence: str) -> tuple[str, ...]:
    if sentence.rstrip().endswith("?"):
        return ()
    out = []
    for m in _DISMISSAL.finditer(sentence):
        thing = _LEADING.sub("", m.group(1).strip())
        if thing.lower() in ("which", "that") and m.start(1) > 1:
            # "skip activation checkpointing, which won't help": the words before the comma.
            thing = " ".join(sentence[: m.start(1)].rstrip(" ,").split()[-3:])
        # (or a condition opens the sentence's clause before it: "once latency's hidden or
        # you're bandwidth-bound, more warps don't help")
        limited = (
            _LIMITED_BEFORE.search(thing)
            or _CONDITION.match(thing)
            or _CONDITION_BEFORE.search(sentence[: m.start(1)])
        )
        if limited or _LIMITED_AFTER.match(sentence[m.end() :]):
            continue
        out.append(thing)
    out += [
        m.group(1).strip()
        for pattern in (_NO_NEED, _DENIES_OBJECT)
        for m in pattern.finditer(sentence)
        if not _LIMITED_WITHIN.search(m.group(1)) and not _CONDITION.match(_before(sentence, m))
    ]
    return tuple(t for t in out if set(terms(t)) - _VAGUE)


def _before(sentence: str, m: re.Match[str]) -> str:
    """The clause a match sits in, up to the match: "if it doesn't involve ..." is a condition."""
    return re.split(r"[,;:]\s*|\s+(?:but|and|so)\s+", sentence[: m.start()])[-1].strip() + " "


def dismissed_points(
    points: Sequence[str], sentences: Sequence[str], question: str = ""
) -> dict[int, str]:
    """{index of a point: the sentence that dismisses what it asserts}. The dismissed thing's own
    words (beyond the question's) must be in the point, and the point must name more of the
    thing than any other point does: "NCCL_DEBUG won't help" is about the point that says to
    set NCCL_DEBUG, not every point that names NCCL; of several, the one naming it first."""
    asked = _stems(question)
    point_terms = [_stems(p) for p in points]
    found: dict[int, str] = {}
    for sentence in sentences:
        for thing in dismissed(sentence):
            words = _stems(thing)
            own = words - asked
            if not own:
                continue  # "mixed precision doesn't affect ..." to a question on mixed precision
            share = [
                len(words & pt) / len(words) if 3 * len(own & pt) >= 2 * len(own) else 0.0
                for pt in point_terms
            ]
            # Of the points naming most of it, not one that denies it too ("trains without loss
            # scaling", "self-clocking is not as necessary"), the one that names it soonest: what
            # a point names first is what it is about.
            best = max(share, default=0.0)
            as_cause = bool(re.search(re.escape(thing) + _NOT_THE_CAUSE.pattern, sentence, re.I))
            named = [
                n
                for n, got in enumerate(share)
                if got == best > 0
                and not _denies(points[n], own)
                and (not as_cause or _gives_as_cause(points[n], own))
            ]
            if named:
                n = min(named, key=lambda n: _first_at(points[n], own))
                found.setdefault(n, sentence)
    return found


def _gives_as_cause(point: str, words: set[str]) -> bool:
    """The point's clause naming the thing gives it as a cause or a limit."""
    return any(
        _AS_CAUSE.search(clause) and _stems(clause) & words for clause in _CLAUSES.split(point)
    )


def _first_at(text: str, words: set[str]) -> float:
    """Where in the text (0 at its start, 1 at its end) it first names one of the words."""
    said = [stem(t) for t in terms(text)]
    return next((i for i, t in enumerate(said) if t in words), len(said)) / max(1, len(said))


_CLAUSES = re.compile(r"[,;:]\s*|\s+(?:so|and|but|because|which|while|whereas)\s+", re.I)


# Anywhere in a point, these may say the thing is what is spared ("BF16 training avoids the
# underflow ... that forces loss scaling in FP16"): such a point is not contradicted.
_SPARES = re.compile(
    r"\b(?:except|unnecessary|optional|irrelevant|needless|rather\s+than|instead\s+of|avoids?"
    r"|avoiding|eliminates?|removes?\s+the\s+need|no\s+longer|spares?|unrelated"
    r"|nothing\s+to\s+do\s+with)\b",
    re.I,
)


def _denies(point: str, words: set[str]) -> bool:
    """The point's clause naming the thing has a negation of its own, or the point may say the
    thing is spared."""
    return bool(_SPARES.search(point)) or any(
        NEGATION.search(clause) and _stems(clause) & words for clause in _CLAUSES.split(point)
    )
