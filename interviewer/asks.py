"""How many of the points its reference lists a question asks for: "State at least 4
objectives", "Name and describe two challenges", "Give two reasons ... and one weakness". A
reference that lists more than that (a marking scheme's "Possible challenges: 1. ... 2. ...
3. ...") is answered completely by that many of them."""

from __future__ import annotations

import re
from functools import lru_cache

from .numerals import NUMBER_WORDS

_WORDS = {w: n for w, n in NUMBER_WORDS.items() if 1 <= n <= 10}
_N = r"(\d{1,2}|" + "|".join(_WORDS) + r")"
_KINDS = (
    r"reasons?|objectives?|challenges?|differences?|advantages?|disadvantages?|benefits?"
    r"|drawbacks?|downsides?|weakness(?:es)?|strengths?|examples?|ways?|properties|features?"
    r"|methods?|techniques?|goals?|problems?|factors?|types?|kinds?|approaches|strategies"
    r"|causes?|uses?|applications?|characteristics?|limitations?|risks?|options?|solutions?"
)
_AT_LEAST = re.compile(rf"\bat\s+least\s+{_N}\b", re.I)
# "two challenges", "2 potential weaknesses", "four of the differences"
_ITEMS = re.compile(rf"\b{_N}\s+(?:(?:of\s+the|[a-z-]+)\s+)?(?:{_KINDS})\b", re.I)
# "the two phases", "the 3 service classes": a closed set, which the reference lists whole.
_CLOSED = re.compile(rf"\b(?:the|its|their|these|those)\s+{_N}\b", re.I)
_ASIDE = re.compile(r"\([^)]*\)")
# ... asked for, by a verb before it in its sentence ("Beth made 2 solutions" asks nothing).
_ASK = re.compile(
    r"\b(?:name|state|give|list|describe|explain|mention|provide|identify|discuss|outline"
    r"|suggest|propose|what\s+are)\b",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.?!])\s+")


@lru_cache(maxsize=4096)  # a batch asks it of every row of the same question
def asked_for(question: str) -> int:
    """The number of listed points the question asks for (0: not a count of options, or one
    item only, which may be one of several asks: "... and what is one benefit?")."""
    text = _ASIDE.sub(" ", question)
    if _CLOSED.search(text):
        return 0
    total = 0
    for sentence in _SENTENCE.split(text):
        found: dict[int, int] = {}
        for pattern in (_AT_LEAST, _ITEMS):
            for m in pattern.finditer(sentence):
                if _ASK.search(sentence, 0, m.start()):
                    word = m.group(1).lower()
                    found.setdefault(m.start(1), _WORDS.get(word) or int(word))
        total += sum(found.values())
    return total if total >= 2 else 0
