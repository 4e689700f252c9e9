"""Cheap detectors that settle a grade before any model looks at the answer."""

from __future__ import annotations

import re

_FILLERS = re.compile(r"\b(um+|uh+|er+|like|you know|so|well|hmm+|okay|ok|basically)\b[,.]?", re.I)

_NON_ANSWER = re.compile(
    r"^\W*(?:(?:i|we)\s+(?:really\s+)?(?:do\s*n[o']?t|dont|have\s+no|am\s+not\s+sure|'m\s+not\s+sure)"
    r"(?:\s+\w+){0,4}|idk|no\s+(?:idea|clue)|not\s+sure|pass|skip|n/?a|none|nothing|\?+|-+|"
    r"no\s+comment|can'?t\s+remember|(?:i\s+)?forgot|dunno|sorry)\W*$",
    re.IGNORECASE,
)

_INJECTION = re.compile(
    r"(ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+|my\s+)?"
    r"(?:previous|prior|above|earlier|grading|system|these|those|all)?\s*"
    r"(instructions?|prompts?|rules?|rubric|guidelines)"
    r"|\byou\s+are\s+now\b|\bsystem\s*prompt\b|\bnew\s+instructions?\b"
    r"|\b(?:give|award|assign|grade|score|mark|rate)\s+(?:me|this(?:\s+answer)?|it|the\s+answer)\s+"
    r"(?:a\s+|an\s+|the\s+)?(?:full|perfect|maximum|max|top|5|five|10|100)"
    r"|\b(?:score|grade|rating)\s*(?:=|:|should\s+be|must\s+be|is)\s*(?:5|five|full|perfect|max)"
    r"|</?(?:answer|system|instructions?|rubric)>|\bas\s+(?:the|an?)\s+(?:ai\s+)?grader\b"
    r"|\bassistant\s*:|\bjailbreak\b|\bprompt\s+injection\b",
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
    return bool(_INJECTION.search(answer or ""))


def rule_flags(answer: str) -> tuple[str, ...]:
    """Flags that force a 0 whatever the rest of the answer says."""
    if is_empty(answer):
        return ("empty",)
    flags = []
    if is_injection(answer):
        flags.append("injection")
    if is_non_answer(answer):
        flags.append("non_answer")
    return tuple(flags)
