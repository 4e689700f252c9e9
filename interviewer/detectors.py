"""Cheap detectors that settle a grade before any model looks at the answer."""

from __future__ import annotations

import re
from dataclasses import replace

from . import injection
from .records import Grade, Provenance, ReferenceSet

_FILLERS = re.compile(
    r"\b(?:um+|uh+|er+|you know|hmm+|okay|ok|basically)\b[,.]?"
    # "so", "like" and "well" carry meaning before a word ("..., so use tensor parallelism", "ops
    # like bias", "as well as"): fillers only with a comma after them or opening a sentence.
    r"|\b(?:so|like|well)\b,|(?:^|(?<=[.!?]\s))(?:so|well)\b(?!-)",  # not "Well-known"
    re.I,
)

_NON_ANSWER = re.compile(
    r"^\W*(?:(?:i|we)\s+(?:really\s+)?(?:do\s*n[o']?t|dont|have\s+no|am\s+not\s+sure|'m\s+not\s+sure)"
    r"(?:\s+\w+){0,4}|idk|no\s+(?:idea|clue)|not\s+sure|pass|skip|n/?a|none|nothing|\?+|-+|"
    r"no\s+comment|can'?t\s+remember|(?:i\s+)?forgot|dunno|sorry)\W*$",
    re.IGNORECASE,
)


# A filler spoken with a capital after a lower-case word ("... take the same path So, uh,
# there was this one time") opens a new sentence: it leaves a full stop behind.
_OPENING = re.compile(r"(?<=[a-z0-9])\s+(?=(?:So|Um+|Uh+|Er+|You know|Well|Hmm+|Okay|Ok)\b)")


def strip_fillers(text: str) -> str:
    return " ".join(_FILLERS.sub(" ", _OPENING.sub(". ", text)).split())


def is_empty(answer: str) -> bool:
    return not re.search(r"\w", answer or "")


# What a candidate says instead of an answer, and what a spreadsheet holds where none was given
# ("not answered", "(blank)"): an answer made only of these, in any order, is a non-answer.
_NOTHING_SAID = re.compile(
    r"(?:honestly|sorry|sadly|unfortunately|so|and|also|really|i\s*think|to\s+be\s+honest)*\s*"
    r"(?:(?:i|we)\s*(?:'m|am|'re|are)\s+(?:really\s+|just\s+)?not\s+(?:sure|certain)"
    r"(?:\s+(?:about\s+|of\s+)?(?:this|that|it)(?:\s+(?:one|question|topic))?)?"
    r"|(?:i|we)\s+(?:do\s*n[o']?t|dont|really\s+don'?t|can\s*n?o?'?t|cannot|could\s*n[o']?t)\s+"
    r"(?:know|remember|recall|answer)(?:\s+(?:this|that|it|the\s+answer))?(?:\s+(?:one|question))?"
    r"|(?:i|we)\s*(?:have|'ve)\s+(?:no|not|never)\s+(?:idea|clue|studied|learned|learnt|covered|seen)"
    r"(?:\s+(?:this|that|it))?(?:\s+(?:topic|one|yet|before))?"
    r"|(?:i\s+)?(?:forgot|forget|dunno)(?:\s+(?:this|that|it))?"
    r"|no\s+(?:idea|clue|answer|response|comment)|not\s+(?:answered|sure|attempted)"
    r"|unanswered|\(?blank\)?|skip(?:ped)?|pass|n/?a|none|nothing|idk|sorry|honestly"
    r"|unfortunately)",
    re.IGNORECASE,
)


def is_non_answer(answer: str) -> bool:
    cleaned = strip_fillers(answer).strip()
    parts = [p.strip() for p in re.split(r"[,.;:!?\-]+", cleaned) if p.strip()]
    return (
        bool(_NON_ANSWER.match(cleaned))
        or (bool(parts) and all(_NOTHING_SAID.fullmatch(p) for p in parts))
        or (
            len(cleaned.split()) <= 12
            and bool(re.search(r"\b(?:don'?t|do not|no)\s+(?:know|idea|clue)\b", cleaned, re.I))
            and not re.search(r"\b(?:but|because|maybe|probably|think)\b", cleaned, re.I)
        )
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


def rule_grade(
    flag: str, refs: ReferenceSet, prov: Provenance, flags: tuple[str, ...] = ()
) -> Grade:
    """A grade a rule settles at 0 (empty, non-answer, injection, language, off-topic)."""
    return Grade(
        score=0,
        covered=(),
        missed=(),
        wrong_claims=(),
        feedback=rule_feedback(flag),
        reference_ids=tuple(r.id for r in refs.references),
        flags=flags or (flag,),
        confidence=0.95,
        provenance=replace(prov, decided_by=f"rule:{flag}"),
        expected_score=0.0,
        references=refs.references,
    )


def no_reference(refs: ReferenceSet, prov: Provenance) -> Grade:
    """No usable reference material: flagged, never guessed."""
    return Grade(
        score=0,
        covered=(),
        missed=(),
        wrong_claims=(),
        feedback="No usable reference material was found for this question, so this answer "
        "could not be graded; add a reference answer or a source document.",
        reference_ids=tuple(r.id for r in refs.references),
        flags=("no_reference",),
        confidence=0.05,
        provenance=replace(prov, decided_by="rule:no_reference"),
        references=refs.references,
    )


def settled_by_rules(answer: str, refs: ReferenceSet, prov: Provenance) -> Grade | None:
    """Empty, non-answers, injections and other languages score 0 without asking a model; so
    does a question with no reference material at all (flagged, not guessed)."""
    flags = rule_flags(answer)
    if flags:
        return rule_grade(flags[0], refs, prov, flags)
    if not refs.references:
        return no_reference(refs, prov)
    return None
