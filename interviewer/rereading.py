"""The padding pass: an answer read again without the segments that decide no verdict (and
praise the padding model calls padding), keeping the lowest grade of the readings that stand,
so that no such text can raise a grade (issue 13)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from . import claims as cl
from .asides import praising, undecided, without
from .features import Analysis
from .records import Grade, ReferenceSet
from .references import claims_for
from .rubrics import CURATED
from .segmenter import segments
from .sentences import split_sentences
from .words import content_words, distinctive

if TYPE_CHECKING:
    from .offline import OfflineGrader

# Off topic for a reading of parts that decide no verdict (padding pass 3): the model's wider
# margin keeps whole right answers that suit a neighbouring question, not remarks read alone.
PART_MARGIN = 0.15


def _rank(g: Grade) -> tuple[int, float]:
    return g.score, g.expected_score or 0.0


def padding_earns_nothing(
    grader: OfflineGrader,
    items: Sequence[tuple[str, str, ReferenceSet]],
    analyses: Sequence[Analysis],
    checked: Sequence[tuple[cl.Verdicts, str] | None],
    grades: list[Grade],
) -> list[Grade]:
    """No sentence that decides no verdict can raise a grade, whatever the fitted model
    makes of its words: the answer is read again without such sentences (`rereadings`) and
    keeps the lowest grade of those readings that stand."""
    found = {}
    for n, (an, ch, (_, _, refs)) in enumerate(zip(analyses, checked, items, strict=True)):
        if ch is not None:
            vecs = grader.claim_vectors(refs)
            drop = undecided(an, ch[0], vecs, grader.embedder.embed, True)
            said = praising(an, ch[0])
            if drop or said:
                found[n] = (drop, said, ch)
    whole = {n: _whole_sentences(analyses[n].text, drop) for n, (drop, _, _) in found.items()}
    texts = list(
        dict.fromkeys(
            t for n, (drop, said, _) in found.items() for t in (*drop, *said, *whole[n].values())
        )
    )
    if not texts:
        return grades
    judged = dict(zip(texts, grader.padding.is_padding(grader.embedder.embed(texts)), strict=True))
    # answer -> (groups of readings, the best of each stands; readings that must cover as much)
    readings = {}
    left_out: dict[int, tuple[str, ...]] = {}
    for n, (drop, said, (verdicts, origin)) in found.items():
        # A segment is padding, too, where the sentence it was cut from is, all of whose parts
        # decide nothing: "..., and making models run well at scale." read apart lost the
        # "It's an incredible time for anyone who cares about ..." that makes it padding.
        padding = {t: judged[t] or judged.get(whole[n].get(t, ""), False) for t in (*drop, *said)}
        # Praise the padding model rules padding earns nothing, even where it states a
        # point: it is left out of the reading without padding.
        drop = (*drop, *(t for t in said if padding[t] and t not in drop))
        left_out[n] = drop
        decided = bool(verdicts.of("covered") or verdicts.wrong_points())
        if any(ways := rereadings(analyses[n].text, drop, padding, decided, origin in CURATED)):
            readings[n] = ways
    if not readings:
        return grades
    # Each reading, with the answer it is of.
    whose, again = [], []
    for n, (groups, keeps) in readings.items():
        for t in (*(x for group in groups for x in group), *keeps):
            whose.append(n)
            again.append((items[n][0], t, items[n][2]))
    # (quoted from the answer as written: a reading is of its normalised text)
    regraded = iter(
        grader.grade_reading(refs, an, float(p), text, ch, PART_MARGIN, items[n][1])
        for (_, text, refs), an, p, ch, n in zip(
            again, *grader.read_again(again), whose, strict=True
        )
    )
    for n, (groups, keeps) in readings.items():
        # At the same score, the reading that names every wrong claim the answer made.
        candidates = [max((next(regraded) for _ in group), key=_rank) for group in groups]
        wrong = grades[n].points("contradicted")
        # Without content that decided nothing, the rest is read apart: it may earn less,
        # but a wrong claim it alone shows is one the sentences left out had answered (a
        # right "In FP16 the weights are about 140 GB" the model misread, left out, and
        # "FP8 at about 35 GB" read against that point in its place).
        candidates += [
            g
            for g in (next(regraded) for _ in keeps)
            if (g.covers_as_much(grades[n]) or not _owes(g, grades[n], left_out[n], items[n][2]))
            and g.points("contradicted") <= wrong
        ]
        for g in candidates:
            if _rank(g) < _rank(grades[n]) and (
                g.score < grades[n].score or g.points("contradicted") >= wrong
            ):
                grades[n] = g
    return grades


def rereadings(
    text: str, drop: Sequence[str], padding: Mapping[str, bool], decided: bool, curated: bool
) -> tuple[list[list[str]], list[str]]:
    """How an answer with segments that decide no verdict (`drop`) is read again: (groups of
    readings, of each of which the best stands; readings that stand only where what they leave
    out cannot have stated a point they lose, and they name no wrong claim the answer did not:
    `padding_earns_nothing`). The answer without its padding always stands. One that decides
    nothing at all: also each segment alone that is not padding (the best of them). Else,
    against a curated rubric, also without every such segment (which may have been a terse
    answer's context). A row's own reference answer or an automatic rubric has too few key
    points to say what else is content: there, a right elaboration the reference does not
    spell out decides nothing (dropped there too, it cost Mohler dev r 0.5601 -> 0.5551)."""
    parts = [t for t in drop if content_words(t)]
    pads = [t for t in drop if padding[t]]
    sure = [[left]] if pads and content_words(left := without(text, pads)) else []
    if not decided and len(parts) > 1:
        # The segments read apart may each score more than they do together. The whole without
        # its padding stands apart from them: padding read with a wrong answer as one premise
        # had hidden the misconception it states ("Fusion helps compute-bound GEMMs most ...;
        # memory-bound ops don't benefit. Kernels, tensors, throughput: fascinating stuff.").
        return [[t for t in parts if not padding[t]] or parts, *sure], []
    rest = without(text, drop)
    return sure, [rest] if curated and len(pads) < len(drop) and content_words(rest) else []


def _whole_sentences(text: str, drop: Sequence[str]) -> dict[str, str]:
    """Each segment of `drop` -> the sentence it was cut from, where that sentence has other
    segments and every one of them is in `drop`."""
    out: dict[str, str] = {}
    for sentence in split_sentences(text):
        parts = segments(sentence)
        if len(parts) > 1 and all(p in drop for p in parts):
            out |= dict.fromkeys(parts, sentence)
    return out


def _owes(reading: Grade, whole: Grade, left_out: Sequence[str], refs: ReferenceSet) -> bool:
    """Whether the text left out of `reading` may be what stated a point it no longer covers:
    it shares a word that is not everyday English with such a point ("GDDR: ~1 TB/s" after
    "HBM: ~3 TB/s"), or three with the question's key points (shorthand that sets the scene:
    "MIG on a100/h100 = hard partition (SMs/L2/HBM)" before "no MIG -> MPS ... + mem limit").
    Field talk that shares none ("Ultimately the bottleneck moves around, so you have to keep
    profiling") only tipped the model's reading of a short answer read whole (1 -> 4 on
    "Because it copies the value from GPU to CPU, which is slow.")."""
    words = distinctive(" ".join(left_out))
    texts = {c.id: " ".join(c.texts) for c in claims_for(refs)[0]}
    if len(words & distinctive(" ".join(texts.values()))) >= 3:
        return True
    kept = {c.point_id for c in reading.claims if c.verdict == "covered"}
    return any(
        words & distinctive(texts.get(c.point_id, c.point))
        for c in whole.claims
        if c.verdict == "covered" and c.point_id not in kept
    )
