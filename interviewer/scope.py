"""Where a thing lives: within one node or across nodes, inside each SM or across the whole
GPU. A fluent wrong answer keeps every word and moves the thing ("run tensor parallelism
across nodes over InfiniBand"; "L2 is a small private cache inside each SM"); the NLI model
reads the shared words, not which scope belongs to which thing."""

from __future__ import annotations

import re

from .things import bindings

# Each scope's two sides, written in the words candidates use.
_SCOPES: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "node": (
        re.compile(
            r"\b(?:within|inside|in)\s+(?:an?|the|one|each|every|single)\s+"
            r"(?:(?:NVLink|NVSwitch|DGX|HGX|single|one)\s+)?(?:node|server|box)\b"
            r"|\bintra-?node\b|\bsingle[- ]node\b|\b(?:on|over|via)\s+NVLink\b",
            re.I,
        ),
        re.compile(
            r"\b(?:across|between|spans?|spanning)\s+(?:the\s+|multiple\s+|many\s+)?nodes\b"
            r"|\binter-?node\b|\bcross-node\b|\bmulti-?node\b"
            r"|\b(?:over|via)\s+(?:InfiniBand|IB|RoCE|Ethernet|the\s+network)\b",
            re.I,
        ),
    ),
    "sm": (
        re.compile(
            r"\bper[- ](?:SM|block|thread[- ]block)\b"
            r"|\b(?:private|local)\s+to\s+(?:each|a|one|its)\s+(?:SM|block|thread\s+block)\b"
            r"|\b(?:inside|within|on)\s+(?:each|every|an?)\s+SM\b",
            re.I,
        ),
        re.compile(
            r"\bshared\s+(?:by|across|among)\s+(?:all|every|the\s+whole)\b"
            r"|\ball\s+(?:the\s+)?SMs\s+(?:on\s+the\s+(?:chip|GPU)\s+)?share\b"
            r"|\b(?:chip|device|GPU)-wide\b|\bacross\s+the\s+(?:whole\s+|entire\s+)?(?:GPU|chip)\b",
            re.I,
        ),
    ),
}


def _marked(text: str) -> str:
    """The text with each scope phrase written as one word ("scopenodein", "scopesmout")."""
    for name, (inside, outside) in _SCOPES.items():
        text = inside.sub(f" scope{name}in ", text)
        text = outside.sub(f" scope{name}out ", text)
    return text


def _scopes(text: str) -> dict[str, set[str]]:
    """Each named thing's scope words, as `roles.bindings` ties clauses to things."""
    return {
        thing: {w for w in words if w.startswith("scope")}
        for thing, words in bindings(_marked(text)).items()
    }


def scope_flipped(point: str, text: str) -> str | None:
    """ "exact:swapped" when the point keeps a thing on one side of a scope ("tensor
    parallelism ... stays within a node") and the text puts that thing only on the other
    ("tensor parallelism across nodes over InfiniBand")."""
    said = _scopes(point)
    if not any(said.values()):
        return None
    got = _scopes(text)
    for thing, marks in said.items():
        for mark in marks:
            other = mark[:-2] + "out" if mark.endswith("in") else mark[:-3] + "in"
            if other in marks:
                continue
            theirs = got.get(thing, set())
            if other in theirs and mark not in theirs:
                return "exact:swapped"
    return None
