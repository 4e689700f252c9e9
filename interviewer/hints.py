"""A question's hints: the ladder shown one step at a time, ordered on a follow-up by the point
it probes, and the key points a hint already pointed at (a follow-up on one would ask twice)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .rubrics import KeyPoint, Rubric
from .session import Prompt, Turn
from .words import STOP, stem


def _words(text: str) -> list[str]:
    """Content words' stems ("steps" meets "step"; "what" and "about" match nothing)."""
    return [stem(w) for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 3 and w not in STOP]


def _point_words(point: KeyPoint) -> set[str]:
    """What a key point is about, for matching hints to it: its texts, probe and label (the
    OOM question's "trading compute or steps for memory" shares only "memory" with the
    gradient-accumulation point, and "steps" with its paraphrase "accumulate over two steps")."""
    return set(_words(" ".join((point.text, *point.paraphrases, point.probe, point.label))))


def ladder(rubric: Rubric | None, prompt: Prompt, before: Sequence[Turn] = ()) -> tuple[str, ...]:
    """The question's hints, each more specific; on a follow-up, those nearest to the point
    it probes first (they are the authored ones, which never state a key point), and none
    that an earlier turn of the question (in `before`) showed already."""
    hints = rubric.hints if rubric else ()
    probed = rubric and next((k for k in rubric.key_points if k.id == prompt.focus), None)
    if prompt.kind == "follow_up" and probed:
        about = _point_words(probed)
        hints = tuple(sorted(hints, key=lambda h: -len(about & set(_words(h)))))
    shown = {
        h
        for n, t in enumerate(before)
        if t.prompt.question_id == prompt.question_id and t.hints
        for h in ladder(rubric, t.prompt, before[:n])[: t.hints]
    }
    return tuple(h for h in hints if h not in shown)


def hinted(rubric: Rubric, turns: Sequence[Turn]) -> set[str]:
    """Key points a hint shown in these turns of one question already pointed at (the one
    point it shares the most words with, two at least)."""
    about = {k.id: _point_words(k) for k in rubric.key_points}
    out = set()
    for n, turn in enumerate(turns):
        for hint in ladder(rubric, turn.prompt, turns[:n])[: turn.hints]:
            said = set(_words(hint))
            shared = {pid: len(words & said) for pid, words in about.items()}
            most = max(shared.values(), default=0)
            top = [pid for pid, n in shared.items() if n == most]
            if most >= 2 and len(top) == 1:
                out.add(top[0])
    return out
