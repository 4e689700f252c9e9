"""The LLM grader: per key point verdicts with the answer's own quotes, checked in code; the
score is computed by `scoring.from_verdicts`, never asked of the model."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from . import claims as cl
from . import injection
from .config import Settings
from .detectors import no_reference, rule_feedback, settled_by_rules
from .errors import LLMError
from .llm import ChatModel
from .prompts import render
from .records import Grade, Provenance, ReferenceSet
from .references import claims_for
from .scoring import asking, from_verdicts, rubric_id

PROMPT_VERSION = "grade_v3"
Item = tuple[str, str, ReferenceSet]  # (question, answer, references)
LLM_FLAGS = ("off_topic", "non_answer", "injection")


class PointOut(BaseModel):
    id: str
    verdict: Literal["covered", "contradicted", "missed"]
    quote: str = ""


class MisconceptionOut(BaseModel):
    id: str
    quote: str = ""


class VerdictsOut(BaseModel):
    """The LLM's reply, validated at the trust boundary."""

    points: list[PointOut]
    misconceptions: list[MisconceptionOut] = []
    flags: list[str] = []
    feedback: str = ""


def grade_schema(max_tokens: int, point_ids: Sequence[str], wrong_ids: Sequence[str]) -> dict:
    """The reply schema, its caps sized so that the longest reply it allows fits in `max_tokens`
    where the key points leave room (else `reply_tokens` says how many the reply needs).

    Under constrained decoding a weak model fills every string to its cap, so ids and verdicts
    are enums and the quotes and feedback share out the budget left after the fixed keys.
    """
    n = max(1, len(point_ids))
    shape = _schema(point_ids, wrong_ids, 0, 0)
    chars = max(0, max_tokens - reply_tokens(shape))
    quote_len = max(16, min(200, chars // 2 // (n + len(wrong_ids))))
    return _schema(point_ids, wrong_ids, quote_len, max(60, min(500, chars // 2)))


def reply_tokens(schema: dict[str, Any]) -> int:
    """Tokens the longest reply the schema allows can take: free text at one token a character
    (a padding model writes "é" or "a a a", a token each) and the JSON keys, enums and
    punctuation at one token per two characters (Gemma's tokenizer: one per three)."""
    longest = _fill(schema)
    structure = len(json.dumps(longest, separators=(",", ":"))) - _text(longest)
    return structure // 2 + _text(longest)


def _fill(spec: dict[str, Any]) -> Any:
    if spec["type"] == "array":
        return [_fill(spec["items"]) for _ in range(spec["maxItems"])]
    if spec["type"] == "object":
        return {k: _fill(v) for k, v in spec["properties"].items()}
    return max(spec["enum"], key=len) if "enum" in spec else "x" * spec["maxLength"]


def _text(value: Any) -> int:
    """Characters of free text (quotes and feedback, not enums) in a reply `_fill` made."""
    if isinstance(value, list):
        return sum(_text(v) for v in value)
    if isinstance(value, dict):
        return sum(len(v) if k in ("quote", "feedback") else _text(v) for k, v in value.items())
    return 0


def _schema(
    point_ids: Sequence[str], wrong_ids: Sequence[str], quote_len: int, feedback_len: int
) -> dict[str, Any]:
    n = max(1, len(point_ids))
    quote = {"type": "string", "maxLength": quote_len}
    point = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "enum": list(point_ids)},
            "verdict": {"type": "string", "enum": ["covered", "contradicted", "missed"]},
            "quote": quote,
        },
        "required": ["id", "verdict", "quote"],
        "additionalProperties": False,
    }
    wrong: dict[str, Any] = {
        "type": "object",
        "properties": {"id": {"type": "string", "enum": list(wrong_ids) or [""]}, "quote": quote},
        "required": ["id", "quote"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "points": {"type": "array", "items": point, "minItems": n, "maxItems": n},
            "misconceptions": {"type": "array", "items": wrong, "maxItems": len(wrong_ids)},
            "flags": {
                "type": "array",
                "items": {"type": "string", "enum": list(LLM_FLAGS)},
                "maxItems": 3,
            },
            "feedback": {"type": "string", "maxLength": feedback_len},
        },
        "required": ["points", "misconceptions", "flags", "feedback"],
        "additionalProperties": False,
    }


def parse_reply(text: str, point_ids: Sequence[str], wrong_ids: Sequence[str]) -> VerdictsOut:
    """Parse and check ids; raises ValueError with a reason the model can act on."""
    try:
        out = VerdictsOut.model_validate(json.loads(text))
    except json.JSONDecodeError as e:
        raise ValueError(f"not valid JSON ({e.msg} at char {e.pos})") from e
    except ValidationError as e:
        raise ValueError(f"JSON does not match the schema: {e.errors()[0]['msg']}") from e
    if unknown := {p.id for p in out.points} - set(point_ids):
        raise ValueError(f"unknown key point ids {sorted(unknown)}")
    if unknown := {m.id for m in out.misconceptions} - set(wrong_ids):
        raise ValueError(f"unknown misconception ids {sorted(unknown)}")
    if unknown := set(out.flags) - set(LLM_FLAGS):
        raise ValueError(f"unknown flags {sorted(unknown)}")
    return out


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def quoted(quote: str, answer: str) -> bool:
    """Whether the quote is the answer's own words: a contiguous run of its words (case,
    punctuation and spacing aside), or nearly so (at most one word in five differs)."""
    q, a = _words(quote), _words(answer)
    if not q:
        return False
    if " ".join(q) in " ".join(a):
        return True
    if len(q) < 5:
        return False
    window = len(q)
    best = 0
    for i in range(max(1, len(a) - window + 1)):
        span = a[i : i + window]
        best = max(best, sum(1 for w in q if w in span))
    return best >= 0.8 * len(q)


@dataclass(frozen=True)
class Request:
    """One answer for the model: the conversation, the reply's schema, and what reads it."""

    item: Item
    conv: list[dict[str, str]]
    schema: dict[str, Any]
    ids: tuple[list[str], list[str]]  # key point ids, misconception ids
    spec: tuple[tuple[cl.Claim, ...], tuple[cl.Wrong, ...], str]


class LLMGrader:
    name = "llm"

    def __init__(self, chat: ChatModel, settings: Settings) -> None:
        self.chat = chat
        self.settings = settings
        self.batched = chat.batched

    def provenance(self, rubric: str = "") -> Provenance:
        s = self.settings
        where = (
            {"engine": s.llm_engine} if s.llm_engine != "server" else {"base_url": s.llm_base_url}
        )
        return Provenance(
            grader="llm",
            model=self.chat.name,
            prompt_version=PROMPT_VERSION,
            settings={"temperature": 0.0, "seed": s.llm_seed, "max_tokens": s.llm_max_tokens}
            | where,
            rubric=rubric,
            claim_checker="llm",
        )

    def messages(self, question: str, answer: str, refs: ReferenceSet) -> list[dict[str, str]]:
        # Fixed instructions first, then question and key points, then the answer: requests for
        # the same question share the longest possible prefix (vLLM prefix caching).
        claims, wrongs, _ = claims_for(refs)
        safe = answer.replace("</answer>", "&lt;/answer&gt;").replace("<answer>", "&lt;answer&gt;")
        passages = [r for r in refs.references if r.kind == "passage"][:2]
        return [
            {"role": "system", "content": render(PROMPT_VERSION)},
            {
                "role": "user",
                "content": render(
                    f"{PROMPT_VERSION}.user",
                    question=question,
                    points=claims,
                    wrongs=[{"id": f"m{n + 1}", "text": w.text} for n, w in enumerate(wrongs)],
                    passages=passages,
                    answer=safe,
                ),
            },
        ]

    def warm(self, question: str, refs: ReferenceSet) -> None:
        """Nothing to prepare: the server holds the model, and each prompt is built per answer."""

    def grade(self, question: str, answer: str, refs: ReferenceSet) -> Grade:
        return self.grade_many([(question, answer, refs)])[0]

    def plan(self, item: Item) -> Grade | Request:
        """The grade when a rule settles it, else the request for the model."""
        _, answer, refs = item
        claims, wrongs, origin = claims_for(refs)
        settled = settled_by_rules(answer, refs, self.provenance(origin))
        if settled is None and not claims:
            settled = no_reference(refs, self.provenance(origin))
        if settled is not None:
            return settled
        ids = ([c.id for c in claims], [f"m{k + 1}" for k in range(len(wrongs))])
        schema = grade_schema(self.settings.llm_max_tokens, *ids)
        return Request(item, self.messages(*item), schema, ids, (claims, wrongs, origin))

    def finish(self, request: Request, reply: str) -> Grade:
        """The grade from the model's reply; ValueError when the reply is invalid."""
        return self._to_grade(parse_reply(reply, *request.ids), request.item, request.spec)

    def grade_many(self, items: Sequence[Item]) -> list[Grade]:
        """Rules first; the rest go to the model (in one call when it is batched, else one
        request each) and get one repair round on an invalid reply. Raises LLMError when any
        item fails: the batch runner then grades the items one by one to isolate it."""
        if not self.batched and len(items) > 1:
            return [self.grade(*item) for item in items]
        injection.prime([a for _, a, _ in items])
        planned = [self.plan(item) for item in items]
        todo = {n: r for n, r in enumerate(planned) if isinstance(r, Request)}
        grades = {n: g for n, g in enumerate(planned) if isinstance(g, Grade)}
        replies = self._ask([r.conv for r in todo.values()], [r.schema for r in todo.values()])
        repairs: dict[int, list[dict[str, str]]] = {}
        for (i, req), text in zip(todo.items(), replies, strict=True):
            try:
                grades[i] = self.finish(req, text)
            except ValueError as e:
                repairs[i] = [
                    *req.conv,
                    {"role": "assistant", "content": text[:4000]},
                    {
                        "role": "user",
                        "content": f"That reply was invalid: {e}. Reply again "
                        "with only the JSON object, following the schema.",
                    },
                ]
        if repairs:
            again = self._ask(list(repairs.values()), [todo[i].schema for i in repairs])
            for i, text in zip(repairs, again, strict=True):
                try:
                    grades[i] = self.finish(todo[i], text)
                except ValueError as e:
                    raise LLMError(f"LLM reply invalid after one repair attempt: {e}") from e
        return [grades[n] for n in range(len(items))]

    def _to_grade(
        self,
        out: VerdictsOut,
        item: Item,
        spec: tuple[tuple[cl.Claim, ...], tuple[cl.Wrong, ...], str],
    ) -> Grade:
        _, answer, refs = item
        claims, wrongs, origin = spec
        prov = replace(self.provenance(origin), rubric_id=rubric_id(refs, origin))
        if flags := tuple(f for f in LLM_FLAGS if f in out.flags):
            # Scored 0 by the scale; the card still lists every key point, all missed.
            missed = tuple(
                cl.PointVerdict(c, "missed", margin=0.6, decided_by="llm") for c in claims
            )
            grade = from_verdicts(cl.Verdicts(missed), None, prov, refs)
            return replace(grade, flags=flags, feedback=rule_feedback(flags[0]), confidence=0.6)
        said = {p.id: p for p in out.points}
        points = []
        for c in claims:
            p = said.get(c.id)
            if p is None or p.verdict == "missed":
                points.append(cl.PointVerdict(c, "missed", margin=0.6, decided_by="llm"))
            elif quoted(p.quote, answer):
                credit = 1.0 if p.verdict == "covered" else 0.0
                points.append(cl.PointVerdict(c, p.verdict, p.quote, credit, 0.8, "llm"))
            else:  # a verdict that does not quote the answer counts for nothing
                points.append(cl.PointVerdict(c, "missed", margin=0.2, decided_by="llm:no-quote"))
        stated = tuple(
            cl.StatedMisconception(wrongs[int(m.id[1:]) - 1], m.quote, 0.8)
            for m in out.misconceptions
            if quoted(m.quote, answer)
        )
        by_point = {m.wrong.contradicts: m for m in stated}
        points = [
            replace(v, verdict="contradicted", evidence=by_point[v.claim.id].evidence, credit=0.0)
            if v.claim.id in by_point and v.verdict != "contradicted"
            else v
            for v in points
        ]
        verdicts = asking(cl.Verdicts(tuple(points), stated), item[0], origin)
        grade = from_verdicts(verdicts, None, prov, refs)
        if out.feedback.strip():
            grade = replace(grade, feedback=f"{grade.feedback} {out.feedback.strip()}")
        return grade

    def _ask(self, convs: list[list[dict[str, str]]], schemas: list[dict[str, Any]]) -> list[str]:
        if not convs:
            return []
        # A question with many key points can need more than the setting (the caps have floors).
        budget = max(self.settings.llm_max_tokens, *(reply_tokens(s) for s in schemas))
        return self.chat.complete_json_many(convs, schemas, budget)
