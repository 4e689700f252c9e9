"""Graders behind one interface, the LLM grader, and the `grade()` library entry point."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ValidationError

from .config import Settings
from .detectors import settled_by_rules
from .embeddings import Embedder, default_embedder
from .errors import InputError, LLMError
from .grade import FLAGS, Grade, Provenance, ReferenceSet
from .index import Index
from .llm import ChatModel, make_chat
from .prompts import render
from .references import gather

PROMPT_VERSION = "grade_v2"
Item = tuple[str, str, ReferenceSet]  # (question, answer, references)


class Grader(Protocol):
    name: str
    # True: hand it many items per call (it batches them itself); False: one item per call,
    # and the batch runner keeps several calls in flight.
    batched: bool

    def grade_many(self, items: Sequence[Item]) -> list[Grade]: ...


Confidence = Literal["low", "medium", "high"]
# A verbal level: models state it more consistently than a number, and it maps onto the scale
# the offline grader's confidence uses.
CONFIDENCE = {"low": 0.3, "medium": 0.6, "high": 0.9}


class LLMGradeOut(BaseModel):
    """The LLM's reply, validated at the trust boundary; bounds are checked after parsing."""

    covered: list[str]
    missed: list[str]
    wrong_claims: list[str]
    score: int
    feedback: str
    reference_ids: list[str]
    flags: list[str]
    confidence: Confidence


def grade_schema(max_tokens: int, reference_ids: Sequence[str] = ()) -> dict[str, Any]:
    """The reply schema, sized so that the longest reply it allows fits in `max_tokens`.

    Under constrained decoding a weak model does not stop by itself: it fills each string and
    list to its cap and emits digits of an unbounded integer forever. So the score is an enum
    (a list of values, not a numeric bound), and the caps share the token budget out (about three
    characters per token after ~130 tokens of keys, punctuation, ids and flags), so every reply
    can close. The evidence lists come before the score: a model that has listed them first
    scores better.
    """
    chars = max(0, max_tokens - 130) * 3
    items = min(6, max(1, chars // 500))
    point = {"type": "string", "maxLength": min(240, max(30, chars // 5 // items))}
    points = {"type": "array", "items": point, "maxItems": items}
    known = list(dict.fromkeys(reference_ids))
    ids: dict[str, Any] = {"type": "string", "enum": known} if known else {"type": "string"}
    return {
        "type": "object",
        "properties": {
            "covered": points,
            "missed": points,
            "wrong_claims": points,
            "score": {"type": "integer", "enum": [0, 1, 2, 3, 4, 5]},
            "feedback": {"type": "string", "maxLength": min(800, max(60, chars * 3 // 10))},
            "reference_ids": {"type": "array", "items": ids, "maxItems": min(6, len(known))},
            "flags": {
                "type": "array",
                "items": {"type": "string", "enum": list(FLAGS)},
                "maxItems": 4,
            },
            "confidence": {"type": "string", "enum": list(CONFIDENCE)},
        },
        "required": list(LLMGradeOut.model_fields),
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
        self.batched = chat.batched

    def provenance(self) -> Provenance:
        s = self.settings
        where = (
            {"engine": "inprocess"} if s.llm_engine == "inprocess" else {"base_url": s.llm_base_url}
        )
        return Provenance(
            "llm",
            self.chat.name,
            PROMPT_VERSION,
            settings={"temperature": 0.0, "seed": s.llm_seed, "max_tokens": s.llm_max_tokens}
            | where,
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
        return self.grade_many([(question, answer, refs)])[0]

    def grade_many(self, items: Sequence[Item]) -> list[Grade]:
        """Rules first; the rest go to the model (in one call when it is batched, else one
        request each) and get one repair round on an invalid reply. Raises LLMError when any
        item fails: the batch runner then grades the items one by one to isolate it."""
        if not self.batched and len(items) > 1:
            return [self.grade(*item) for item in items]
        prov = self.provenance()
        grades: list[Grade | None] = [settled_by_rules(a, r, prov) for _, a, r in items]
        todo = [i for i, g in enumerate(grades) if g is None]
        convs = {i: self.messages(*items[i]) for i in todo}
        schemas = {i: grade_schema(self.settings.llm_max_tokens, _ids(items[i][2])) for i in todo}
        replies = self._ask([convs[i] for i in todo], [schemas[i] for i in todo])
        repairs: dict[int, list[dict[str, str]]] = {}
        for i, text in zip(todo, replies, strict=True):
            try:
                grades[i] = _to_grade(parse_reply(text, items[i][2]), prov, items[i][2])
            except ValueError as e:
                repairs[i] = [
                    *convs[i],
                    {"role": "assistant", "content": text[:4000]},
                    {
                        "role": "user",
                        "content": f"That reply was invalid: {e}. Reply again "
                        "with only the JSON object, following the schema.",
                    },
                ]
        if repairs:
            again = self._ask(list(repairs.values()), [schemas[i] for i in repairs])
            for i, text in zip(repairs, again, strict=True):
                try:
                    grades[i] = _to_grade(parse_reply(text, items[i][2]), prov, items[i][2])
                except ValueError as e:
                    raise LLMError(f"LLM reply invalid after one repair attempt: {e}") from e
        return [g for g in grades if g is not None]

    def _ask(self, convs: list[list[dict[str, str]]], schemas: list[dict[str, Any]]) -> list[str]:
        if not convs:
            return []
        return self.chat.complete_json_many(convs, schemas, self.settings.llm_max_tokens)


def _ids(refs: ReferenceSet) -> list[str]:
    return [r.id for r in refs.references]


def _to_grade(out: LLMGradeOut, prov: Provenance, refs: ReferenceSet) -> Grade:
    return Grade(
        out.score,
        tuple(out.covered),
        tuple(out.missed),
        tuple(out.wrong_claims),
        out.feedback.strip(),
        tuple(out.reference_ids),
        tuple(out.flags),
        CONFIDENCE[out.confidence],
        prov,
        None,
        refs.references,
    )


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
        return LLMGrader(chat or make_chat(settings), settings)
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
