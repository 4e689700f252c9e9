"""Graders behind one interface, the LLM grader, and the `grade()` library entry point."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from .config import Settings
from .detectors import settled_by_rules
from .embeddings import Embedder, default_embedder
from .errors import InputError, LLMError
from .grade import FLAGS, Grade, Provenance, ReferenceSet
from .index import Index
from .llm import ChatModel, OpenAICompatible
from .prompts import render
from .references import gather

PROMPT_VERSION = "grade_v1"
Item = tuple[str, str, ReferenceSet]  # (question, answer, references)


class Grader(Protocol):
    name: str

    def grade_many(self, items: Sequence[Item]) -> list[Grade]: ...


class LLMGradeOut(BaseModel):
    """The LLM's reply, validated at the trust boundary; bounds are checked after parsing."""

    score: int
    covered: list[str]
    missed: list[str]
    wrong_claims: list[str]
    feedback: str
    reference_ids: list[str]
    flags: list[str]
    confidence: float


# Plain schema: no numeric bounds on score or confidence (backends differ on them; checked after
# parsing). Lists and strings are capped, and flags are an enum: with constrained decoding a small
# model otherwise loops inside an array until max_tokens, and the caps make every reply end.
_POINTS = {"type": "array", "items": {"type": "string", "maxLength": 300}, "maxItems": 12}
GRADE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "score": {"type": "integer"},
        "covered": _POINTS,
        "missed": _POINTS,
        "wrong_claims": _POINTS,
        "feedback": {"type": "string", "maxLength": 800},
        "reference_ids": {
            "type": "array",
            "items": {"type": "string", "maxLength": 60},
            "maxItems": 12,
        },
        "flags": {"type": "array", "items": {"type": "string", "enum": list(FLAGS)}, "maxItems": 4},
        "confidence": {"type": "number"},
    },
    "required": [
        "score",
        "covered",
        "missed",
        "wrong_claims",
        "feedback",
        "reference_ids",
        "flags",
        "confidence",
    ],
    "additionalProperties": False,
}


def parse_reply(text: str, refs: ReferenceSet) -> LLMGradeOut:
    """Parse and bound-check; raises ValueError with a reason the model can act on."""
    try:
        out = LLMGradeOut.model_validate(json.loads(text))
    except json.JSONDecodeError as e:
        raise ValueError(f"not valid JSON ({e.msg} at char {e.pos})") from e
    except ValidationError as e:
        raise ValueError(f"JSON does not match the schema: {e.errors()[0]['msg']}") from e
    if not 0 <= out.score <= 5:
        raise ValueError(f"score {out.score} is outside 0-5")
    if not 0.0 <= out.confidence <= 1.0:
        raise ValueError(f"confidence {out.confidence} is outside 0-1")
    if unknown := set(out.flags) - set(FLAGS):
        raise ValueError(f"unknown flags {sorted(unknown)}")
    known = {r.id for r in refs.references}
    out.reference_ids = [r for r in out.reference_ids if r in known]
    return out


class LLMGrader:
    name = "llm"

    def __init__(self, chat: ChatModel, settings: Settings) -> None:
        self.chat = chat
        self.settings = settings

    def provenance(self) -> Provenance:
        return Provenance(
            "llm",
            self.chat.name,
            PROMPT_VERSION,
            settings={
                "temperature": 0.0,
                "seed": self.settings.llm_seed,
                "max_tokens": self.settings.llm_max_tokens,
                "base_url": self.settings.llm_base_url,
            },
        )

    def messages(self, question: str, answer: str, refs: ReferenceSet) -> list[dict[str, str]]:
        # Fixed rubric first, then question and references, then the answer: requests for the
        # same question share the longest possible prefix (vLLM prefix caching).
        safe = answer.replace("</answer>", "&lt;/answer&gt;").replace("<answer>", "&lt;answer&gt;")
        return [
            {"role": "system", "content": render(PROMPT_VERSION)},
            {
                "role": "user",
                "content": render(
                    f"{PROMPT_VERSION}.user",
                    question=question,
                    references=refs.references,
                    answer=safe,
                ),
            },
        ]

    def grade(self, question: str, answer: str, refs: ReferenceSet) -> Grade:
        prov = self.provenance()
        if (settled := settled_by_rules(answer, refs, prov)) is not None:
            return settled
        messages = self.messages(question, answer, refs)
        max_tokens = self.settings.llm_max_tokens
        text = self.chat.complete_json(messages, GRADE_SCHEMA, max_tokens)
        try:
            out = parse_reply(text, refs)
        except ValueError as first:
            repair = [
                *messages,
                {"role": "assistant", "content": text[:4000]},
                {
                    "role": "user",
                    "content": f"That reply was invalid: {first}. Reply again "
                    "with only the JSON object, following the schema.",
                },
            ]
            text = self.chat.complete_json(repair, GRADE_SCHEMA, max_tokens)
            try:
                out = parse_reply(text, refs)
            except ValueError as second:
                raise LLMError(f"LLM reply invalid after one repair attempt: {second}") from second
        return Grade(
            out.score,
            tuple(out.covered),
            tuple(out.missed),
            tuple(out.wrong_claims),
            out.feedback.strip(),
            tuple(out.reference_ids),
            tuple(out.flags),
            round(out.confidence, 3),
            prov,
            None,
            refs.references,
        )

    def grade_many(self, items: Sequence[Item]) -> list[Grade]:
        return [self.grade(*item) for item in items]


def make_grader(
    kind: str,
    settings: Settings,
    embedder: Embedder | None = None,
    chat: ChatModel | None = None,
    index: Index | None = None,
) -> Grader:
    if kind == "offline":
        from .offline import OfflineGrader

        return OfflineGrader(
            embedder or (index.embedder if index else default_embedder()), index=index
        )
    if kind == "llm":
        return LLMGrader(chat or OpenAICompatible(settings), settings)
    raise InputError(f"unknown grader '{kind}' (use offline or llm)")


def grade(
    question: str,
    answer: str,
    *,
    reference_answer: str | None = None,
    question_id: str | None = None,
    grader: str | Grader | None = None,
    settings: Settings | None = None,
    index: Index | None = None,
) -> Grade:
    """Grade one answer from Python: `grade("What is NCCL?", "A collectives library...")`."""
    settings = settings or Settings()
    if len(answer) > settings.max_answer_chars:
        raise InputError(
            f"answer is {len(answer)} characters; the limit is {settings.max_answer_chars}"
        )
    if index is None and settings.index_dir.exists():
        index = Index(settings.index_dir, default_embedder())
    chosen = (
        grader
        if not isinstance(grader, str | None)
        else make_grader(grader or settings.grader, settings, index=index)
    )
    refs = gather(question, index, settings, reference_answer, question_id)
    return chosen.grade_many([(question, answer, refs)])[0]
