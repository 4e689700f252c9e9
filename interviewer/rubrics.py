"""Rubrics: per question, what a good answer says and what a wrong one says.

Authored rubrics ship in `corpus/rubrics/*.yaml` (one file per guide, keyed by the bank
question id). Rubrics for the user's own documents live in `DATA_DIR/rubrics/*.yaml`:
`auto` ones made at ingest from the reference's whole sentences, `llm` ones written by
`interviewer rubrics build --llm`. A person may edit any of them; an edited entry is kept.
Precedence when several exist for one question: authored > a person's edit > llm > auto.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .config import resource_dir
from .errors import InputError
from .rubric_review import GLUED
from .sentences import unwrap

Weight = Literal["core", "supporting"]
Origin = Literal["authored", "passages", "llm", "auto"]
ORIGIN_RANK = {"authored": 4, "passages": 4, "llm": 2, "auto": 1}
CURATED = frozenset({"authored", "passages", "llm"})  # key points chosen, not just sentences
WEIGHTS = {"core": 2.0, "supporting": 1.0}


@dataclass(frozen=True)
class KeyPoint:
    id: str
    text: str  # one self-contained claim, a whole sentence
    label: str  # a few words, for speech and lists
    weight: Weight
    probe: str  # a follow-up question that draws the point out without stating it
    paraphrases: tuple[str, ...] = ()  # other ways a correct answer says it (terse, spoken)

    @property
    def value(self) -> float:
        return WEIGHTS[self.weight]


@dataclass(frozen=True)
class Misconception:
    text: str  # a wrong claim a candidate plausibly makes
    contradicts: str  # the id of the key point it contradicts
    # The same wrong claim as candidates say it (terse, spoken): the claim checker learns from
    # them that a misconception in other words still states it.
    paraphrases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rubric:
    question_id: str
    question: str
    origin: Origin
    technical: bool = True
    key_points: tuple[KeyPoint, ...] = ()
    misconceptions: tuple[Misconception, ...] = ()
    model_answer: str = ""
    hints: tuple[str, ...] = ()
    note: str = ""  # e.g. where the guides disagree
    edited: bool = False  # a person changed a generated rubric: rebuilding keeps it
    # A generated rubric's fingerprint as written (`fingerprint`): one that no longer matches
    # was changed by a person, and one that still does is rebuilt when its source changes.
    made_as: str = ""

    def point(self, point_id: str) -> KeyPoint:
        for kp in self.key_points:
            if kp.id == point_id:
                return kp
        raise KeyError(point_id)

    def ordered(self) -> tuple[KeyPoint, ...]:
        """Core points first, each group in the authored order."""
        return tuple(sorted(self.key_points, key=lambda k: k.weight != "core"))

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "id": self.question_id,
            "question": self.question,
            "origin": self.origin,
            "technical": self.technical,
        }
        if not self.technical:
            return d
        d["key_points"] = [
            {
                "id": k.id,
                "label": k.label,
                "weight": k.weight,
                "text": k.text,
                "probe": k.probe,
                **({"paraphrases": list(k.paraphrases)} if k.paraphrases else {}),
            }
            for k in self.key_points
        ]
        d["misconceptions"] = [
            {
                "text": m.text,
                "contradicts": m.contradicts,
                **({"paraphrases": list(m.paraphrases)} if m.paraphrases else {}),
            }
            for m in self.misconceptions
        ]
        d["model_answer"] = self.model_answer
        d["hints"] = list(self.hints)
        if self.note:
            d["note"] = self.note
        if self.edited:
            d["edited"] = True
        if self.made_as:
            d["made_as"] = self.made_as
        return d

    def fingerprint(self) -> str:
        """A short hash of what the rubric says (not its `edited` or `made_as` marks)."""
        said = {k: v for k, v in self.to_dict().items() if k not in ("edited", "made_as")}
        return hashlib.sha256(json.dumps(said, sort_keys=True).encode()).hexdigest()[:16]


# ---------------------------------------------------------------- the YAML trust boundary
class _KeyPointIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    label: str = Field(min_length=2, max_length=60)
    weight: Weight
    text: str = Field(min_length=10)
    probe: str = Field(min_length=10)
    paraphrases: list[str] = []


class _MisconceptionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=5)
    contradicts: str
    paraphrases: list[str] = []


class _RubricIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^q-[0-9a-f]{10}$")
    question: str
    origin: Origin = "authored"
    technical: bool = True
    key_points: list[_KeyPointIn] = []
    misconceptions: list[_MisconceptionIn] = []
    model_answer: str = ""
    hints: list[str] = []
    note: str = ""
    edited: bool = False
    made_as: str = ""

    @model_validator(mode="after")
    def _complete(self) -> _RubricIn:
        if not self.technical:
            return self
        if not 1 <= len(self.key_points) <= 8:
            raise ValueError(f"{len(self.key_points)} key points (want 2-6)")
        ids = [k.id for k in self.key_points]
        if len(set(ids)) != len(ids):
            raise ValueError("key point ids repeat")
        for m in self.misconceptions:
            if m.contradicts not in ids:
                raise ValueError(f"misconception names unknown key point {m.contradicts!r}")
        if not self.model_answer.strip():
            raise ValueError("no model answer")
        return self

    def record(self) -> Rubric:
        return Rubric(
            question_id=self.id,
            question=self.question,
            origin=self.origin,
            technical=self.technical,
            key_points=tuple(
                KeyPoint(
                    k.id,
                    _clean(k.text),
                    k.label.strip(),
                    k.weight,
                    _clean(k.probe),
                    tuple(_clean(p) for p in k.paraphrases),
                )
                for k in self.key_points
            ),
            misconceptions=tuple(
                Misconception(
                    _clean(m.text), m.contradicts, tuple(_clean(p) for p in m.paraphrases)
                )
                for m in self.misconceptions
            ),
            model_answer=" ".join(self.model_answer.split()),
            hints=tuple(_clean(h) for h in self.hints),
            note=" ".join(self.note.split()),
            edited=self.edited,
            made_as=self.made_as,
        )


def _clean(text: str) -> str:
    return " ".join(text.split())


def parse_file(path: Path) -> list[Rubric]:
    """One YAML file's rubrics; a clear InputError naming the file and entry otherwise."""
    try:
        data = yaml.safe_load(path.read_text("utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise InputError(f"{path}: not a readable rubric file ({e})") from e
    entries = data.get("rubrics", []) if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise InputError(f"{path}: expected a mapping with a 'rubrics' list")
    out = []
    for n, entry in enumerate(entries):
        try:
            out.append(_RubricIn.model_validate(entry).record())
        except ValidationError as e:
            where = entry.get("id", f"entry {n}") if isinstance(entry, dict) else f"entry {n}"
            err = e.errors()[0]
            loc = ".".join(str(x) for x in err["loc"])
            raise InputError(f"{path}: {where}: {loc}: {err['msg']}") from e
    return out


def dump_file(path: Path, rubrics: Iterable[Rubric], header: str = "") -> None:
    body = yaml.safe_dump(
        {"rubrics": [r.to_dict() for r in rubrics]},
        sort_keys=False,
        allow_unicode=True,
        width=100,
    )
    tmp = path.with_suffix(".tmp")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp.write_text((f"# {header}\n" if header else "") + body, "utf-8")
    tmp.replace(path)


def authored_dir() -> Path:
    return resource_dir("corpus") / "rubrics"


@lru_cache(maxsize=4)
def load_authored(folder: Path | None = None) -> dict[str, Rubric]:
    return _load_folder(folder or authored_dir())


def _load_folder(folder: Path) -> dict[str, Rubric]:
    out: dict[str, Rubric] = {}
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        for r in parse_file(path):
            if r.question_id in out:
                raise InputError(f"{path}: {r.question_id} has a rubric in another file too")
            out[r.question_id] = r
    return out


def rank(r: Rubric) -> int:
    return ORIGIN_RANK[r.origin] + (3 if r.edited else 0)


class Rubrics:
    """Every rubric known: authored ones and the user's, the best one per question."""

    def __init__(self, authored: dict[str, Rubric], user: dict[str, Rubric]) -> None:
        self._by_id = dict(authored)
        for qid, r in user.items():
            if qid not in self._by_id or rank(r) > rank(self._by_id[qid]):
                self._by_id[qid] = r

    @classmethod
    def load(cls, data_dir: Path | None = None) -> Rubrics:
        user = _load_folder(data_dir / "rubrics") if data_dir else {}
        return cls(load_authored(), user)

    def get(self, question_id: str | None) -> Rubric | None:
        return self._by_id.get(question_id) if question_id else None

    def __len__(self) -> int:
        return len(self._by_id)

    def __iter__(self) -> Iterator[Rubric]:
        return iter(self._by_id.values())


# ---------------------------------------------------------------- automatic rubrics
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"(])")


# A sentence that asks (and a guide's heading after it: "... when does it help? medium").
_QUESTION = re.compile(
    r"(?:what|how|why|when|where|which|who|is|are|does|do|can|could|should|would|will)\b[^?]*\?",
    re.I,
)


def whole_sentences(text: str, limit: int = 6, notes: bool = False) -> list[str]:
    """A reference's sentences that read on their own: start with a capital or digit, end
    with punctuation, have a verb-sized length, no glued words. Bullets become sentences. A
    question states nothing: a guide's heading ("What is a CUDA graph and when does it help?
    medium") in a retrieved passage had been a key point, and the feedback's "Work on"."""
    lines = [ln.strip(" -•*\t") for ln in re.split(r"\n+|(?<=\S)\s+[-•*]\s+", unwrap(text))]
    out: list[str] = []
    for line in lines:
        for s in (p for t in _SENTENCE_END.split(line) for p in _at_colon(t, notes)):
            s = " ".join(s.split()).strip()
            if not s:
                continue
            if s[-1] not in ".!?":
                s += "."
            words = s.split()
            if (
                3 <= len(words) <= 45
                and (s[0].isupper() or s[0].isdigit())
                and not GLUED.search(s)
                and not s.endswith(":.")
                and not _QUESTION.match(s)
            ):
                out.append(s[0].upper() + s[1:])
    return list(dict.fromkeys(out))[:limit]


def _at_colon(sentence: str, notes: bool, most: int = 45) -> list[str]:
    """Of a document's answer (`notes`), a sentence too long to be one point, cut at its colon
    into a claim and what explains it ("The legacy default stream ... is implicitly
    synchronizing: an operation in it waits for ..."), each a sentence of its own. Not of a
    batch row's own reference: there it cost SAF dev r 0.190 -> 0.182."""
    head, colon, tail = sentence.partition(": ")
    if not notes or not colon or len(sentence.split()) <= most or len(head.split()) < 4:
        return [sentence]
    return [head + ".", tail[:1].upper() + tail[1:]]


def _label(sentence: str, words: int = 6, most: int = 50) -> str:
    """A point's first words (at most `words`, within `most` characters: a label's limit is
    60), what "Work on:" names ("point 1" had told trial H nothing)."""
    said = sentence.rstrip(" .!?").split()
    kept: list[str] = []
    for word in said[:words]:
        if kept and len(" ".join([*kept, word])) > most:
            break
        kept.append(word)
    label = " ".join(kept)[:most].rstrip(",;:")
    return label + ("…" if len(kept) < len(said) else "")


# A name a point uses that a probe can ask about without giving the point away: code in
# backticks (its call's brackets dropped), an identifier with capitals inside or an
# underscore, an acronym ("DMA", "CUDA_DEVICE_MAX_CONNECTIONS", "cudaEventRecord").
_NAME = re.compile(
    r"`([A-Za-z_][\w.:]*)(?:\([^`]*\))?`|\b([A-Z]{2,}[\w]*|[a-z]+[A-Z]\w*|\w+_\w+)\b"
)


_EVERYWHERE = frozenset(
    {"GPU", "GPUs", "CPU", "CPUs", "OS", "API", "CUDA", "AI", "ML", "RAM", "NULL"}
)


def _first_name(text: str, question: str) -> str | None:
    """The first name the text uses that the question does not, and that is not everywhere."""
    asked = question.lower()
    for m in _NAME.finditer(text):
        name = m.group(1) or m.group(2)
        # (not one of many parts: "CUDA_API_PER_THREAD_DEFAULT_STREAM" reads as six words
        # of the point, which a probe must not repeat)
        if name.lower() not in asked and name not in _EVERYWHERE and name.count("_") < 3:
            return name
    return None


def _probe(n: int, point: str, question: str) -> str:
    """A follow-up for an automatic key point: about the first name it uses that the question
    does not ("What part does DMA play here?"), else a general one (trial H got the same two
    probes for every point of every question)."""
    if name := _first_name(point, question):
        return f"What part does {name} play here?"
    if n == 0:
        return "Could you go one level deeper: what is the main idea, and why does it hold?"
    return "What else would you add to your answer, and what mechanism is behind it?"


def auto_rubric(question_id: str, question: str, reference: str) -> Rubric | None:
    """Key points from the reference's whole sentences; probes and hints that name the
    question's subject, never the point's claim. None when no sentence stands on its own."""
    sentences = whole_sentences(reference, notes=True)
    if not sentences:
        return None
    points = tuple(
        KeyPoint(
            f"p{n + 1}",
            s,
            _label(s),
            "core" if n == 0 else "supporting",
            _probe(n, s, question),
        )
        for n, s in enumerate(sentences)
    )
    return Rubric(
        question_id=question_id,
        question=question,
        origin="auto",
        key_points=points,
        model_answer=" ".join(sentences),
        hints=(
            "Start with a one-sentence definition, then say why it matters.",
            # (the answer's own names, as the probes: trial H got the same two hints everywhere)
            f"Think about where {name} comes in."
            if (name := _first_name(" ".join(sentences), question))
            else "Name the main mechanism involved and give one concrete example.",
        ),
    )
