"""Terms that exclude each other: a thing that is one is not the other ("last-in first-out"
against "first-in first-out", "row-major" against "column-major", "over UDP" against "over
TCP"). An answer that gives the point's thing the other term states the opposite, in any
prose; unlike a comparative, it needs no reading of which side of a sentence is which."""

from __future__ import annotations

import re

from .comparatives import denied_before
from .things import names_in
from .words import stem, terms


def _term(pattern: str) -> re.Pattern[str]:
    # (not inside a compound: "non-blocking" is not "blocking"; a list's "-connection" is)
    return re.compile(rf"(?<!\w)(?<!\w-){pattern}(?![\w-])", re.I)


_PAIRS = [
    (_term(a), _term(b))
    for a, b in (
        (r"(?:last[- ]in,?\s+first[- ]out|LIFO)", r"(?:first[- ]in,?\s+first[- ]out|FIFO)"),
        (r"row[- ]major", r"col(?:umn)?[- ]major"),
        (r"big[- ]endian", r"little[- ]endian"),
        (r"min[- ]heap", r"max[- ]heap"),
        (r"pre[- ]?order", r"post[- ]?order"),
        (
            r"(?:passe[sd]|pass|call(?:ed|s)?)\s+(?:\w+\s+){0,2}by\s+value",
            r"(?:passe[sd]|pass|call(?:ed|s)?)\s+(?:\w+\s+){0,2}by\s+reference",
        ),
        (r"write[- ]back", r"write[- ]through"),
        (r"connection[- ]oriented", r"connection[- ]?less"),
        (r"lossy", r"lossless"),
        (r"stateful", r"stateless"),
        (r"(?<!non )blocking", r"non[- ]?blocking"),
        (r"(?<!non )volatile", r"non[- ]?volatile"),
        (r"half[- ]duplex", r"full[- ]duplex"),
        (r"breadth[- ]first", r"depth[- ]first"),
        (r"strong scaling", r"weak scaling"),
        (r"at compile[- ]time", r"at run[- ]?time"),
        (r"(?:over|via|uses?|using|on top of)\s+TCP", r"(?:over|via|uses?|using|on top of)\s+UDP"),
        (r"(?:memory[- ](?:bandwidth[- ])?|bandwidth[- ])bound", r"(?:compute|math)[- ]bound"),
        # (as verbs: "ZeRO replicates the optimizer state" against "... shards optimizer
        # states"; not a GPU's "shard" of the data)
        (
            r"(?:shard(?:s|ed)|shard(?=\s+(?:the|its|their)\b))",
            r"(?:replicat(?:es|ed)|replicate(?=\s+(?:the|its|their)\b))",
        ),
    )
]


def other_term(point: str, sentence: str) -> str | None:
    """The point calls its thing one of two exclusive terms; a clause of the sentence says the
    same thing (or, opening on "it", the answer's subject) is the other, and does not say the
    first. The term must be said of something ("A stack is a first-in first-out structure"),
    not name a kind ("Connection-oriented service: ..." in a list of service classes). Read
    clause by clause: "A stack is first-in first-out and a queue is last-in first-out" swaps
    the two."""
    for a, b in _PAIRS:
        for mine, other in ((a, b), (b, a)):
            said = mine.search(point)
            if not said or other.search(point):
                continue
            for clause in _CLAUSES.split(sentence):
                turned = other.search(clause)
                if not turned or mine.search(clause) or denied_before(clause, turned.start()):
                    continue
                head = clause[: turned.start()]
                subject = _subject(head, turned.group())
                # (another named thing's: "Fortran arrays are column-major" beside NumPy's)
                if subject is None or set(names_in(head)) - set(names_in(point)):
                    continue
                if subject & _stems(point[: said.start()]) or (
                    not subject and _POINTS_BACK.match(head)
                ):
                    return "exact:exclusive"
    return None


def _subject(head: str, term: str) -> set[str] | None:
    """The stems of what the term is said of (its verb just before it, or in it: "passes
    arguments by value", "over TCP"), or None when it is said of nothing."""
    if _SAID_OF.match(term):
        return _stems(head)
    tie = next(reversed(list(_SAID_OF.finditer(head))), None)
    after = head[tie.end() :] if tie else ""
    if not tie or len(after.split()) > 2 or _NEW_CLAUSE.search(after):
        return None
    return _stems(head[: tie.start()])


def _stems(text: str) -> set[str]:
    return {stem(t) for t in terms(text)} - _PRONOUNS


_CLAUSES = re.compile(r"[.;:!?]\s+|,(?!\s*first[- ]out\b)\s*|\s+(?:and|while|whereas|but)\s+", re.I)
# What ties a term to the thing before it.
_SAID_OF = re.compile(
    r"\b(?:is|are|was|were|be|works?|operates?|behaves?|follows?|stores?|stored|sends?|sent"
    r"|passe[sd]|pass|runs?|uses?|using|called|over|via|shard(?:s|ed)?|replicat(?:e|es|ed))\b"
    r"|(?<=\w)'(?:s|re)\b",
    re.I,
)
# "This is because the connection-oriented service would ...": the term is in a clause of its own.
_NEW_CLAUSE = re.compile(r"\b(?:because|since|why|that|if|when|as|where)\b", re.I)
_PRONOUNS = {"it", "this", "that", "they", "which", "these", "those"}
# ("which" is the noun just before it: "a queue, which is FIFO")
_POINTS_BACK = re.compile(r"\s*(?:it|it's|this|that|they|they're)\b", re.I)
