"""What a reviewer would reject in a rubric: fragments for sentences, probes and hints that
give a key point's claim away."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .rubrics import Rubric

# Words run together by a page dump ("fragmentationPYTORCH_CUDA", "GPUs.Next"); product names
# in camel case (FlashAttention, InfiniBand, vLLM, cuDNN) are fine.
GLUED = re.compile(r"[a-z]{3}[A-Z]{2}[A-Z_]+|[a-z]{2}[.;][A-Z][a-z]")


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+(?:[.'][a-z0-9]+)*", text.lower())


def shares_run(a: str, b: str, n: int = 6) -> bool:
    """Whether `a` and `b` share a run of `n` consecutive words."""
    wa, wb = _words(a), _words(b)
    runs = {tuple(wa[i : i + n]) for i in range(len(wa) - n + 1)}
    return any(tuple(wb[i : i + n]) in runs for i in range(len(wb) - n + 1))


def is_whole_sentence(text: str, min_words: int = 4) -> bool:
    return (
        len(text.split()) >= min_words
        and (text[0].isupper() or text[0].isdigit())
        and text[-1] in ".!?"
        and not GLUED.search(text)
    )


def lint(r: Rubric) -> list[str]:
    """What a reviewer would reject in an authored rubric (empty when it is fine)."""
    if not r.technical:
        return []
    problems = []
    if not 2 <= len(r.key_points) <= 6:
        problems.append(f"{len(r.key_points)} key points (want 2-6)")
    if not any(k.weight == "core" for k in r.key_points):
        problems.append("no core key point")
    # Each misconception a rubric knows is a wrong answer the grader can name (stop 47 took the
    # built-in rubrics from 3-4 to 5-7).
    if not 1 <= len(r.misconceptions) <= 8:
        problems.append(f"{len(r.misconceptions)} misconceptions (want 1-8)")
    if not 2 <= len(r.hints) <= 3:
        problems.append(f"{len(r.hints)} hints (want 2-3)")
    if len(set(r.hints)) != len(r.hints):
        problems.append("hints repeat")
    n = len(r.model_answer.split())
    if not 30 <= n <= 260:
        problems.append(f"model answer is {n} words (want 40-200)")
    texts = [k.text for k in r.key_points]
    for k in r.key_points:
        for field, text in [("text", k.text), *(("paraphrase", p) for p in k.paraphrases)]:
            if not is_whole_sentence(text, 4 if field == "text" else 2):
                problems.append(f"{k.id}: {field} is not a whole sentence: {text!r}")
        if not k.probe.endswith("?"):
            problems.append(f"{k.id}: probe is not a question")
    for m in r.misconceptions:
        if not is_whole_sentence(m.text):
            problems.append(f"misconception is not a whole sentence: {m.text!r}")
        for p in m.paraphrases:
            if not is_whole_sentence(p, 2):
                problems.append(f"misconception paraphrase is not a whole sentence: {p!r}")
    for label, text in [
        *((f"probe {k.id}", k.probe) for k in r.key_points),
        *((f"hint {i + 1}", h) for i, h in enumerate(r.hints)),
    ]:
        for kp in texts:
            if shares_run(kp, text):
                problems.append(f"{label} states a key point's claim: {text!r}")
    return problems
