"""Text that is not about the question (pleasantries, appeals, self-praise, padding): found
so that an answer is graded on the rest and padding never earns a point."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from .features import Analysis, Cache, content_words
from .records import ReferenceSet

# A candidate segment whose own vector is less similar than this to each text of the question
# and its reference material is not about the question. On the dev parts (Mohler fold 0,
# in-domain dev) it set aside 26 segments of 585 answers (Mohler r 0.5394 -> 0.5401, in-domain
# unchanged); generic padding appended to the in-domain dev answers raised 8 of 480 scores,
# against 59 without it (evals/injection.py --padding; 15 while a segment that shared a word
# with the material was never a candidate, even one about the candidate).
ASIDE_SIM = 0.3
_POINTS_BACK = re.compile(
    r"\W*(?:it|its|it's|they|their|them|these|those|this|that|such|so|which)\b", re.I
)


_SELF = re.compile(r"\b(?:i|i'd|i'm|i've|my|me|we|our|us)\b", re.I)
_YOU = re.compile(r"\b(?:you|your|thanks|thank)\b", re.I)


def material(question: str, refs: ReferenceSet) -> list[str]:
    """The question and everything an answer to it is judged against: the reference texts and
    their key points, and the rubric's key points (a question the guides pose without an
    answer has only the rubric)."""
    rubric = [k.text for k in refs.rubric.key_points] if refs.rubric is not None else []
    return [question, *(t for r in refs.answer_keys for t in (r.text, *r.key_points)), *rubric]


def _segments(an: Analysis) -> list[str]:
    return [t for t in an.sentences if len(t.split()) >= 3]


def aside_candidates(question: str, refs: ReferenceSet, an: Analysis) -> list[str]:
    """The answer's segments that may not be about the question: those sharing no content
    word with the question, its reference texts or key points, and those that speak of the
    candidate or to the interviewer ("I think this is a really important topic", "Thanks for
    the question"), which share generic words with the material as often as not."""
    words = set().union(*map(content_words, material(question, refs)))
    segs = _segments(an)
    if not any(content_words(t) & words for t in segs):
        return []  # nothing shares a word with the material: graded as it is (off topic?)
    # A sentence that points back ("It has a very wide bus.") is about what came before it,
    # and read alone it loses that: never set aside, unless it speaks of the candidate ("This
    # is one of my favourite areas, and I would love to work on it full time.").
    return [
        t
        for t in segs
        if (_SELF.search(t) or _YOU.search(t) or not content_words(t) & words)
        and (not _POINTS_BACK.match(t) or _SELF.search(t))
    ]


def aside(
    question: str,
    refs: ReferenceSet,
    an: Analysis,
    candidates: list[str],
    vectors: np.ndarray,
    keep: Cache,
) -> tuple[str, ...]:
    """Of the candidates (embedded alone: a segment's vector pooled in its answer's context
    takes on the answer's topic), those not about the question either; none when that is
    every segment of the answer (it is then graded as it is). The material's vectors must be
    in `keep`."""
    if not candidates:
        return ()
    sims = (vectors @ np.stack([keep.vectors[t] for t in material(question, refs)]).T).max(axis=1)
    out = tuple(t for t, sim in zip(candidates, sims, strict=True) if sim < ASIDE_SIM)
    return out if len(out) < len(_segments(an)) else ()


def without(answer: str, parts: Sequence[str]) -> str:
    """The answer less these segments, with the commas and "and"s that joined them."""
    for part in parts:
        answer = answer.replace(part, "\0")
    answer = re.sub(r"(?:[,;]\s*(?:(?:and|but|so|while)\s+)?)?\0\s*", " ", answer)
    return re.sub(r"\s+([,;.])", r"\1", " ".join(answer.split()))
