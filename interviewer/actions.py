"""An action turned round: the point says to raise, enable or add a thing, the sentence to cut,
disable or remove the same thing (or the other way), said of the same subject. The NLI model
reads the shared words: "Cut num_workers and turn off pin_memory." entailed "... fixed by
raising num_workers, setting pin_memory=True, ..." at 0.64. Sure only in a plain statement: a
negated or conditional action ("don't cut it", "if RAM runs out, reduce it") is no claim of
the opposite, and nor is an action on another subject ("unfused kernels increase traffic"
against "fusion reduces traffic": both true).
"""

from __future__ import annotations

import re

from .words import terms

_UP = (
    "raise raises raising raised increase increases increasing increased boost boosts boosting "
    "boosted enable enables enabling enabled add adds adding added"
)
# "lower" alone is also an adjective ("lower precision"): a verb only before a determiner, an
# identifier or "to <number>" (`_lowered`), or after a subject, a modal or a prescription ("the
# fix is to lower occupancy", "you should lower it"); the comparative check reads the adjective.
_DOWN = (
    "cut cuts cutting reduce reduces reducing reduced decrease decreases decreasing decreased "
    "lowers lowering lowered disable disables disabling disabled remove removes removing removed"
)
_DIRECTION = {w: 1 for w in _UP.split()} | {w: -1 for w in _DOWN.split()} | {"lower": -1}
# Not inside "all-reduce" or "reduce-scatter"; "turn on/off X" as one verb.
_VERB = re.compile(
    r"(?<![\w-])(?:(" + "|".join(_DIRECTION) + r")|(?:turn|turns|turning|switch|switches"
    r"|switching)\s+(on|off))(?![\w-])",
    re.I,
)
# A flag set ("setting pin_memory=True", "pin_memory = False") enables or disables it.
_FLAG = re.compile(r"(?<![\w.])([A-Za-z_][\w.]*)\s*=\s*(True|False|true|false)\b")
_WORD = re.compile(r"[A-Za-z][\w.+\-]*[\w+]|[A-Za-z]|[,;:]")
_ENDS_OBJECT = {",", ";", ":", "and", "or", "so", "if", "to", "until", "because", "since"}
_DETERMINERS = {"the", "a", "an", "its", "their", "your", "our", "my", "this", "that", "some"}
# An intransitive use ("latency increases with batch size") has no object.
_PREPOSITIONS = {"with", "as", "by", "when", "in", "at", "to", "for", "from", "of", "on", "over"}
_CLAUSE = re.compile(r"[,;:]\s*|\s+(?:and|but|while|whereas|so|then)\s+", re.I)
_NEGATED = re.compile(r"(?:\b(?:not|no|never|without|avoid|instead\s+of)|n't)\s*$")
# ("at once" is no condition)
_CONDITIONAL = re.compile(r"\b(?:if|unless|when|whenever|only|until|(?<!\bat )once)\b", re.I)
# Who speaks or is told: an imperative's "you", a plan's "I'd" are no subject.
_NO_SUBJECT = {
    "you", "we", "i", "i'd", "i'll", "we'd", "just", "then", "also", "first", "should", "would",
    "could", "can", "try", "want", "need", "needs", "will", "simply", "instead", "let", "lets",
}  # fmt: skip

# "The fix is to lower occupancy": a prescription, said as an imperative is.
_PRESCRIBED = re.compile(
    r"\b(?:fix|solution|remedy|cure|answer|approach|trick|way|goal|plan|idea|step|move)"
    r"\s+(?:here\s+|then\s+)?(?:is|was|would\s+be|'s)\s+(?:to\s+)?$",
    re.I,
)

# A confidently wrong trial answer (stop 66), "the fix is to lower occupancy", covered "You raise
# occupancy or ILP ...": "lower" was read as an adjective. Not after "and" ("higher bandwidth
# and lower latency") nor after "lead to" ("more registers lead to lower occupancy").
_LOWER_AFTER = re.compile(
    r"(?:\b(?:you|we|i|i'd|we'd|you'd|should|must|can|could|would|will)"
    r"|\b(?:need|needs|want|wants|try|tries|have|has)\s+to)\s+$",
    re.I,
)

LOOK = 200  # characters read either side of an action: its negation, subject and object
Action = tuple[int, str, frozenset[str]]  # direction, object, subject's words


def actions(text: str) -> list[Action]:
    """Each plain action in the text: its direction, its object and its clause's subject."""
    out: list[Action] = [
        (1 if m.group(2).lower() == "true" else -1, m.group(1).lower(), frozenset())
        for m in _FLAG.finditer(text)
        if not _NEGATED.search(words_before(text, m.start()).lower())
    ]
    for m in _VERB.finditer(text):
        after = text[m.end() : m.end() + LOOK]
        before = words_before(text, m.start())
        if (m.group(1) or "").lower() == "lower" and not (
            _lowered(after) or _LOWER_AFTER.search(before) or _PRESCRIBED.search(before)
        ):
            continue
        direction = (
            _DIRECTION[m.group(1).lower()]
            if m.group(1)
            else (1 if m.group(2).lower() == "on" else -1)
        )
        if _NEGATED.search(before.lower()):
            continue
        thing = _object(after)
        if not thing:
            continue
        # A gerund names the action itself ("fixed by raising num_workers"), as an imperative does.
        verb = (m.group(1) or m.group(0).split()[0]).lower()
        clause = "" if verb.endswith("ing") else _CLAUSE.split(before)[-1]
        subject = frozenset(t.lower() for t in terms(clause)) - _NO_SUBJECT
        if _PRESCRIBED.search(before):
            subject = frozenset()
        out.append((direction, thing, subject))
    return out


def words_before(text: str, at: int) -> str:
    """The words just before a match: its clause, negation and subject sit there, and reading
    no further keeps a long run-on answer linear."""
    return text[max(0, at - LOOK) : at]


# "lower it to 0", "lower occupancy to one block per SM"
_TO_A_NUMBER = re.compile(
    r"\s*[\w.\-]+(?:\s+[\w.\-]+)?\s+to\s+(?:\d|(?:one|two|three|four|eight|half|a\s+single)\b)",
    re.I,
)


def _lowered(after: str) -> bool:
    """ "lower" is a verb here: "lower the batch size", "lower it to one", "lower num_workers"
    (an identifier the clause ends after; "lower num_workers values" is an adjective)."""
    words = _WORD.findall(after)[:2]
    if not words:
        return False
    if words[0].lower() in _DETERMINERS or _TO_A_NUMBER.match(after):
        return True
    ends = len(words) == 1 or words[1].lower() in _ENDS_OBJECT
    return ends and bool(re.search(r"[_.\d]", words[0]))


def _object(after: str) -> str:
    for word in _WORD.findall(after)[:3]:
        low = word.lower()
        if low in ",;:" or low in _PREPOSITIONS:
            return ""
        if low not in _DETERMINERS:
            return low
    return ""


def _same(a: str, b: str) -> bool:
    return a == b or (len(a) >= 5 and len(b) >= 5 and a[:5] == b[:5])


def action_turned(point: str, sentence: str) -> str | None:
    """ "exact:action" when the sentence does to the point's object the opposite of what the
    point does, of the same subject (both imperative, or sharing a word), and nowhere the same."""
    if _CONDITIONAL.search(sentence) or _CONDITIONAL.search(point):
        return None
    said = actions(sentence)
    for direction, thing, subject in actions(point):
        on_thing = [(d, s) for d, t, s in said if _same(t, thing)]
        if any(d == direction for d, _ in on_thing):
            continue
        for d, s in on_thing:
            if d == -direction and (s & subject or not (s or subject)):
                return "exact:action"
    return None
