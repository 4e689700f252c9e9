"""Rubrics for the user's own documents: `auto` ones written at ingest, `llm` ones written by
`interviewer rubrics build --llm`. Both go to DATA_DIR/rubrics/ as YAML a person may edit; an
entry a person changed (or marked `edited: true`) is never overwritten."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .bank import Bank
from .errors import LLMError
from .llm import ChatModel
from .prompts import render
from .records import Question
from .rubric_review import lint
from .rubrics import Rubric, _RubricIn, auto_rubric, dump_file, load_authored, parse_file

PROMPT_VERSION = "rubric_v2"
AUTO_FILE, LLM_FILE = "auto.yaml", "llm.yaml"
HEADER = (
    "{origin} rubrics for questions from your own documents. Edit freely: an entry you change "
    "(or mark `edited: true`) is kept when rubrics are rebuilt."
)


def _existing(path: Path) -> dict[str, Rubric]:
    return {r.question_id: r for r in parse_file(path)} if path.exists() else {}


def needs_rubric(q: Question) -> bool:
    return q.technical and q.id not in load_authored()


def _valid(rubric: Rubric) -> bool:
    try:
        _RubricIn.model_validate(rubric.to_dict())
    except ValidationError:
        return False
    return True


def _changed_by_hand(kept: Rubric, fresh: Rubric | None) -> bool:
    """Whether a person changed an automatic entry: it says `edited`, or it no longer says
    what it was written as. One written before entries carried `made_as` counts as changed
    where it differs from what its source gives now (it cannot tell a hand from a new source).
    An unchanged entry follows its source: trial H edited a fact in its notes and was graded
    on the old one."""
    if kept.edited:
        return True
    if kept.made_as:
        return kept.fingerprint() != kept.made_as
    return fresh is None or kept.fingerprint() != fresh.fingerprint()


def write_auto(bank: Bank, data_dir: Path) -> int:
    """An automatic rubric for every technical question with a reference answer and no
    authored rubric; edited entries stay as they are. Returns how many entries there are."""
    path = data_dir / "rubrics" / AUTO_FILE
    old = _existing(path)
    out: list[Rubric] = []
    for q in bank.questions:
        if not needs_rubric(q) or not q.reference_answers:
            continue
        fresh = auto_rubric(q.id, q.text, q.reference_answers[0])
        if fresh is not None and not _valid(fresh):
            fresh = None  # (never write an entry the rubrics file would then refuse to load)
        if fresh is not None:
            fresh = replace(fresh, made_as=fresh.fingerprint())
        kept = old.get(q.id)
        if kept is not None and _changed_by_hand(kept, fresh):
            out.append(replace(kept, edited=True))
        elif fresh is not None:
            out.append(fresh)
    changed = [r.to_dict() for r in out] != [r.to_dict() for r in old.values()]
    if (out or path.exists()) and changed:
        dump_file(path, out, HEADER.format(origin="Automatic"))
    return len(out)


def rubric_schema() -> dict[str, Any]:
    """A schema-constrained reply: the rubric fields, bounded so a reply always closes."""
    text = {"type": "string", "maxLength": 220}
    point = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "pattern": "^[a-z0-9][a-z0-9-]{0,24}$"},
            "label": {"type": "string", "maxLength": 40},
            "weight": {"type": "string", "enum": ["core", "supporting"]},
            "text": text,
            "probe": text,
            "paraphrases": {"type": "array", "items": text, "maxItems": 2},
        },
        "required": ["id", "label", "weight", "text", "probe", "paraphrases"],
        "additionalProperties": False,
    }
    # A misconception in a candidate's own words: the checker matches answers against all three.
    wrong = {
        "type": "object",
        "properties": {
            "text": text,
            "contradicts": {"type": "string", "maxLength": 25},
            "paraphrases": {"type": "array", "items": text, "maxItems": 2},
        },
        "required": ["text", "contradicts", "paraphrases"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "key_points": {"type": "array", "items": point, "minItems": 2, "maxItems": 6},
            "misconceptions": {"type": "array", "items": wrong, "minItems": 1, "maxItems": 4},
            "model_answer": {"type": "string", "maxLength": 1100},
            "hints": {"type": "array", "items": text, "minItems": 2, "maxItems": 3},
        },
        "required": ["key_points", "misconceptions", "model_answer", "hints"],
        "additionalProperties": False,
    }


def content_key(q: Question, material: str) -> str:
    return hashlib.sha256(f"{PROMPT_VERSION}\n{q.text}\n{material}".encode()).hexdigest()[:16]


def build_llm(
    bank: Bank,
    data_dir: Path,
    chat: ChatModel,
    material: Callable[[Question], str],
    # The schema's longest reply is ~11,000 characters (~2,800 tokens of English): room for it.
    max_tokens: int = 3072,
    force: bool = False,
) -> dict[str, int]:
    """LLM-written rubrics for questions without an authored one, cached by content hash (the
    question, its material and the prompt version); edited entries are kept."""
    folder = data_dir / "rubrics"
    path, cache_path = folder / LLM_FILE, folder / ".llm-cache.jsonl"
    old = _existing(path)
    cache: dict[str, dict[str, Any]] = {}
    if cache_path.exists():
        for line in cache_path.read_text("utf-8").split("\n"):
            if line.strip():
                row = json.loads(line)
                cache[row["key"]] = row["reply"]
    counts = {"written": 0, "cached": 0, "kept_edited": 0, "failed": 0}
    out: dict[str, Rubric] = {}
    for q in bank.questions:
        if not needs_rubric(q):
            continue
        if q.id in old and old[q.id].edited:
            out[q.id], counts["kept_edited"] = old[q.id], counts["kept_edited"] + 1
            continue
        text = material(q)
        if not text.strip():
            continue
        key = content_key(q, text)
        reply = None if force else cache.get(key)
        if reply is None:
            try:
                raw = chat.complete_json(_messages(q, text), rubric_schema(), max_tokens)
                reply = json.loads(raw)
            except (LLMError, json.JSONDecodeError):
                counts["failed"] += 1
                continue
            folder.mkdir(parents=True, exist_ok=True)
            with cache_path.open("a", encoding="utf-8") as f:
                f.write(json.dumps({"key": key, "reply": reply}) + "\n")
            counts["written"] += 1
        else:
            counts["cached"] += 1
        try:
            r = _RubricIn.model_validate(
                reply | {"id": q.id, "question": q.text, "origin": "llm"}
            ).record()
        except ValidationError:
            counts["failed"] += 1
            continue
        if lint(r):
            counts["failed"] += 1
            continue
        out[q.id] = r
    if out:
        dump_file(path, out.values(), HEADER.format(origin="LLM-written"))
    return counts


def _messages(q: Question, material: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": render(PROMPT_VERSION)},
        {
            "role": "user",
            "content": render(f"{PROMPT_VERSION}.user", question=q.text, material=material),
        },
    ]
