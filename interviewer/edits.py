"""A key point copied with a word turned: "... raising throughput but also raising average
latency" for "... raising throughput and lowering average latency", "... making it
memory-bandwidth bound" and "... making it compute bound" for the reference's two sentences
the other way round.

The NLI model reads such a sentence as the point itself (0.98 on a team lead's reference with
its two bounds exchanged), and against a row's own reference the comparative and negation
checks are not trusted, since they misread prose. A copy leaves nothing to misread: aligned
word by word with the point, the sentence differs only where it was turned. It contradicts the
point when every content word it changed is the opposite of the one it replaced (higher/lower,
raising/lowering), a denial added or taken away, or one of two words exchanged between two
copied sentences; any other change ("uses less memory than pipeline parallelism") is a
sentence of its own, left to the other checks.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from difflib import SequenceMatcher
from functools import lru_cache

from .comparatives import OPPOSITE
from .words import STOP, stem

COPIED = 0.7  # of the sentence's words, at least this share copied from the point, in order
MIN_COPIED = 6

_TOKEN = re.compile(r"[a-z0-9][a-z0-9'./-]*", re.I)
_DENIAL = {"not", "no", "never", "cannot", "can't", "doesn't", "don't", "isn't", "aren't", "won't"}
_UP = {"rais", "increa", "grow", "boost", "improv", "higher", "larger", "bigger", "more"}
_UP |= {"faster", "greate", "wider"}
_DOWN = {"lower", "reduc", "decrea", "shrink", "cut", "smalle", "less", "fewer", "slower"}
_DOWN |= {"narrow", "worse"}
# Opposites beside the comparatives' (`comparatives.OPPOSITE`): safe only here, where the rest of
# the sentence is the point's own words.
_PAIRS = (
    ("busy", "idle"),
    ("same", "different"),
    ("inside", "outside"),
    ("within", "across"),
    ("enabled", "disabled"),
    ("enable", "disable"),
    ("true", "false"),
    ("private", "shared"),
    ("serial", "parallel"),
    ("sequential", "parallel"),
    ("serialized", "parallel"),
    ("blocking", "non-blocking"),
    ("first", "last"),
    ("minimum", "maximum"),
    ("min", "max"),
    ("lossless", "lossy"),
    ("early", "late"),
    ("long", "short"),
    ("strong", "weak"),
    ("input", "output"),
    ("increasing", "decreasing"),
    ("linear", "quadratic"),
    ("linearly", "quadratically"),
    ("constant", "variable"),
    ("fixed", "variable"),
    ("all", "none"),
    ("every", "no"),
    ("many", "few"),
    ("high", "low"),
    ("up", "down"),
    ("host", "device"),
    ("cpu", "gpu"),
    ("read", "write"),
    ("reads", "writes"),
)
_OPPOSITE = {a: {b} for a, b in _PAIRS} | {b: {a} for a, b in _PAIRS}
# (not "not just" or "not only": they add to what follows)
_NOT_A_DENIAL = re.compile(r"\bnot\s+(?:just|only|merely)\b", re.I)

Edit = tuple[tuple[str, ...], tuple[str, ...]]  # (the point's words, the sentence's), changed


@lru_cache(maxsize=8192)  # each point's texts are read against every sentence of every answer
def _tokens(text: str) -> tuple[tuple[str, ...], tuple[str, ...], Counter[str]]:
    """The text's words, their stems, and how often each stem comes."""
    words = tuple(t.lower().rstrip(".") for t in _TOKEN.findall(_NOT_A_DENIAL.sub(" ", text)))
    stems = tuple(stem(w) for w in words)
    return words, stems, Counter(stems)


def _content(words: Sequence[str]) -> tuple[str, ...]:
    return tuple(w for w in words if w not in STOP or w in _DENIAL or w in _UP | _DOWN)


def _way(word: str) -> int:
    s = stem(word)[:6]
    return 1 if s in _UP or word in _UP else -1 if s in _DOWN or word in _DOWN else 0


def copied_edits(point: str, sentence: str) -> list[Edit] | None:
    """The content words changed, where the sentence is copied from the point (None when it
    is not): each change as (the point's words, the sentence's)."""
    (p, ps, p_count), (s, ss, s_count) = _tokens(point), _tokens(sentence)
    if not p or not s:
        return None
    # (matched by stem: "raises" for "raising" is no change)
    # The words shared at all bound the words copied in order: most pairs end here, cheaply.
    shared = sum((p_count & s_count).values())
    if shared < MIN_COPIED or shared < COPIED * len(s):
        return None
    match = SequenceMatcher(None, ps, ss, autojunk=False)
    same = sum(b.size for b in match.get_matching_blocks())
    if same < MIN_COPIED or same < COPIED * len(s):
        return None
    edits = []
    for op, i1, i2, j1, j2 in match.get_opcodes():
        if op == "equal":
            continue
        # (what the point says beyond the part copied is not changed: only inside the copy)
        if op == "delete" and ((i1 == 0 and j1 == 0) or (i2 == len(p) and j2 == len(s))):
            continue
        old, new = _content(p[i1:i2]), _content(s[j1:j2])
        if old or new:
            edits.append((old, new))
    return edits


def turned(edit: Edit) -> bool:
    """The change says the opposite: a word for its opposite, or a denial added or dropped."""
    old, new = edit
    denials = sum(w in _DENIAL for w in new) - sum(w in _DENIAL for w in old)
    rest_old = [w for w in old if w not in _DENIAL]
    rest_new = [w for w in new if w not in _DENIAL]
    if not rest_old and not rest_new:
        return denials % 2 == 1
    if denials or len(rest_old) != 1 or len(rest_new) != 1:
        return False
    a, b = rest_old[0], rest_new[0]
    return b in OPPOSITE.get(a, set()) | _OPPOSITE.get(a, set()) or _way(a) * _way(b) == -1


def edited(points: Sequence[Sequence[str]], sentences: Sequence[str]) -> dict[int, int]:
    """Key point index -> the index of the sentence copied from one of its texts (`points`:
    each point's texts, the point first) and turned, or in which one of two words exchanged
    with another copied sentence ("compute bound" and "memory-bandwidth bound" the other way
    round)."""
    found: dict[int, int] = {}
    changes: list[tuple[int, int, Edit]] = []  # (point, sentence, the one change)
    for i, sentence in enumerate(sentences):
        for n, texts in enumerate(points):
            for text in texts:
                edits = copied_edits(text, sentence)
                if not edits:
                    continue
                if all(turned(e) for e in edits):
                    found.setdefault(n, i)
                elif len(edits) == 1:
                    changes.append((n, i, edits[0]))
                break
    for n, i, (old, new) in changes:
        if any((o, w) == (new, old) and i != j for m, j, (o, w) in changes):
            found.setdefault(n, i)
    return found
