"""Cheap detectors that settle a grade before any model looks at the answer."""

from __future__ import annotations

import re
from dataclasses import replace

from . import injection
from .grade import Grade, Provenance, ReferenceSet

_FILLERS = re.compile(r"\b(um+|uh+|er+|like|you know|so|well|hmm+|okay|ok|basically)\b[,.]?", re.I)

_NON_ANSWER = re.compile(
    r"^\W*(?:(?:i|we)\s+(?:really\s+)?(?:do\s*n[o']?t|dont|have\s+no|am\s+not\s+sure|'m\s+not\s+sure)"
    r"(?:\s+\w+){0,4}|idk|no\s+(?:idea|clue)|not\s+sure|pass|skip|n/?a|none|nothing|\?+|-+|"
    r"no\s+comment|can'?t\s+remember|(?:i\s+)?forgot|dunno|sorry)\W*$",
    re.IGNORECASE,
)


def strip_fillers(text: str) -> str:
    return " ".join(_FILLERS.sub(" ", text).split())


def is_empty(answer: str) -> bool:
    return not re.search(r"\w", answer or "")


def is_non_answer(answer: str) -> bool:
    cleaned = strip_fillers(answer).strip()
    return bool(_NON_ANSWER.match(cleaned)) or (
        len(cleaned.split()) <= 12
        and bool(re.search(r"\b(?:don'?t|do not|no)\s+(?:know|idea|clue)\b", cleaned, re.I))
        and not re.search(r"\b(?:but|because|maybe|probably|think)\b", cleaned, re.I)
    )


def is_injection(answer: str) -> bool:
    return injection.is_injection(answer)


def rule_flags(answer: str) -> tuple[str, ...]:
    """Flags that force a 0 whatever the rest of the answer says."""
    if is_empty(answer):
        return ("empty",)
    flags = []
    if is_injection(answer):
        flags.append("injection")
    if is_non_answer(answer):
        flags.append("non_answer")
    if not flags and injection.language(answer) != "en":
        flags.append("language")
    return tuple(flags)


def rule_feedback(flag: str) -> str:
    return {
        "empty": "No answer was given, so there is nothing to grade.",
        "non_answer": "The answer says you don't know. Try reasoning from what you do know: "
        "partial, correct content earns partial credit.",
        "injection": "The answer contains instructions aimed at the grader; it is scored 0. "
        "Answer the question itself.",
        "off_topic": "The answer does not address the question that was asked.",
        "language": "The answer is not in English, the language of the questions and their "
        "reference material, so it was not graded. Answer in English.",
    }[flag]


def settled_by_rules(answer: str, refs: ReferenceSet, prov: Provenance) -> Grade | None:
    """Empty, non-answers and injections score 0 without asking a model; so does a question
    with no reference material at all (flagged, not guessed)."""
    flags = rule_flags(answer)
    used = tuple(r.id for r in refs.references)
    if flags:
        return Grade(
            0,
            (),
            (),
            (),
            rule_feedback(flags[0]),
            used,
            flags,
            0.95,
            replace(prov, decided_by=f"rule:{flags[0]}"),
            0.0,
            refs.references,
        )
    if not refs.references:
        return Grade(
            0,
            (),
            (),
            (),
            "No reference material for this question was found, so "
            "this answer could not be graded; add a reference answer or a source "
            "document.",
            (),
            ("no_reference",),
            0.05,
            replace(prov, decided_by="rule:no_reference"),
            None,
            (),
        )
    return None
