"""An answer cut into the claims it makes: sentences, then clauses joined by "; ", ", and",
", but", ", while", ", whereas", ", though", ", where" or, in spoken answers, run together with
a comma."""

from __future__ import annotations

import re

from .sentences import split_sentences

_JOIN = re.compile(
    r";\s+|,\s+(?:and|but|while|whereas|though|although)\s+"
    # (not ", where it ...": that says more of the thing before, "RTX 4090, where it splits
    # the GPU into up to four instances", and its number is read against that thing's)
    r"|,\s+where\s+(?!(?:it|they|this|these)\b)"
    # Spoken answers run clauses together: "..., it's not free", "..., or your matmuls are in
    # FP32 so ..." (a comma, then a pronoun or a named subject and its verb).
    # ("that's", never "that are": "sub-units, that are easier to manipulate" is one claim)
    r"|(?P<splice>,\s+(?:or\s+)?(?=(?:(?:it|this|they|you|we)(?:'s|'re|\s+is|\s+are|\s+was"
    r"|\s+were)|that's)\b)|,\s+or\s+(?=(?:your|the|their|its|our)\s+(?:[\w-]+\s+)?"
    r"(?:are|is|were|was)\b))",
    re.I,
)
# ... but not after a clause that leads into the next one ("If it's low, you're memory-bound")
# or a phrase with no verb of its own ("Low intensity, you're memory-bound", "At the end of the
# day, it's all about ...").
_LEADS_IN = re.compile(
    r"^\W*(?:(?:so|and|but|um|uh|well)\W+)*(?:if|when|whenever|while|once|unless|because|since"
    r"|although|though|as|after|before|until|whether|where)\b",
    re.I,
)
_VERB = re.compile(
    r"\b(?:is|are|was|were|be|been|has|have|had|do|does|did|can|could|will|would|should|must"
    r"|may|might|need|needs|get|gets|go|goes|run|runs|take|takes|make|makes|let|lets|use|uses"
    r"|mean|means|hold|holds|keep|keeps|put|give|gives|share|shares|show|shows|fit|fits|cut"
    r"|cuts|add|adds|cost|costs|help|helps|work|works|move|moves|stay|stays|wait|waits|read"
    r"|reads|write|writes|send|sends|split|splits|\w+ed)\b|\w(?:'s|'re|n't)\b",
    re.I,
)


def segments(answer: str, limit: int | None = 12) -> list[str]:
    parts: list[str] = []
    for s in split_sentences(answer):
        # Not at ", so": a cause read apart from its consequence reads as a bare claim
        # ("CUDA launches are blocking" | "the CPU already waits on every kernel").
        parts.extend(c.strip() for c in _split(s) if c)
    return [p for p in parts if len(p.split()) >= 2][:limit]


def _split(sentence: str) -> list[str]:
    """At "; " and ", and/but/while", but not before the last item of a list: "its own SMs,
    its own chunk of memory and L2, and its own share of bandwidth" is one claim, and its last
    item read alone has lost what it is of."""
    out: list[str] = []
    start = 0
    for m in _JOIN.finditer(sentence):
        # The list's last item before the joiner, and the word after it (linear in the text).
        comma = sentence.rfind(", ", start, m.start())
        last = sentence[comma + 2 : m.start()].split()[:1] if comma >= 0 else []
        after = sentence[m.end() : m.end() + 64].split()[:1]
        listed = bool(last and after) and after[0].lower() == last[0].lower()
        if m.group().startswith(",") and listed:
            continue
        head = sentence[start : m.start()]
        if m.group("splice") and (
            len(head.split()) < 4 or _LEADS_IN.match(head) or not _VERB.search(head)
        ):
            continue
        out.append(head)
        start = m.end()
    out.append(sentence[start:])
    return out
