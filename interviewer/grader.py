"""Graders behind one interface, the factory, and the `grade()` library entry point."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from .config import Settings, load_settings
from .embeddings import Embedder, default_embedder
from .errors import InputError
from .index import Index, open_index
from .llm import ChatModel, make_chat
from .llm_grader import LLMGrader
from .records import Grade, ReferenceSet
from .references import gather

Item = tuple[str, str, ReferenceSet]  # (question, answer, references)


class Grader(Protocol):
    name: str
    # True: hand it many items per call (it batches them itself); False: one item per call,
    # and the batch runner keeps several calls in flight.
    batched: bool

    def grade_many(self, items: Sequence[Item]) -> list[Grade]: ...

    def warm(self, question: str, refs: ReferenceSet) -> None:
        """Prepare what grading an answer to this question needs, before the answer comes."""
        ...


CHUNK = 256  # answers per call to a batched grader (offline: length-sorted batches pad less)


def too_long(answer: str, settings: Settings) -> str | None:
    """Why an answer cannot be graded as it stands (over MAX_ANSWER_CHARS), or None."""
    if len(answer) > settings.max_answer_chars:
        return f"answer is {len(answer)} characters; the limit is {settings.max_answer_chars}"
    return None


def grade_isolated(grader: Grader, items: Sequence[Item]) -> list[Grade | Exception]:
    """Grade items together; if that fails, one by one, so one bad item fails alone."""
    try:
        grades = grader.grade_many(items)
    except Exception:  # whatever one item does, the others are graded
        grades = []
    if len(grades) == len(items):
        return list(grades)
    out: list[Grade | Exception] = []
    for item in items:
        try:
            out.append(grader.grade_many([item])[0])
        except Exception as e:
            out.append(e)
    return out


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
            embedder or (index.embedder if index else default_embedder()),
            index=index,
            precision=settings.nli_precision,
            runtime=settings.nli_runtime,
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
    settings = settings or load_settings()
    if problem := too_long(answer, settings):
        raise InputError(problem)
    if index is None and (settings.chroma_url or settings.index_dir.exists()):
        index = open_index(settings)
    chosen = (
        grader
        if not isinstance(grader, str | None)
        else make_grader(grader or settings.grader, settings, index=index)
    )
    refs = gather(question, index, settings, reference_answer, question_id)
    return chosen.grade_many([(question, answer, refs)])[0]
