"""Gathering the reference material an answer is graded against."""

from __future__ import annotations

from .config import Settings
from .grade import Reference, ReferenceSet
from .index import Index
from .parsing import key_points
from .records import Question


def bank_references(q: Question) -> list[Reference]:
    return [
        Reference(
            id=f"{q.id}#v{n}",
            kind="bank",
            text=v.reference,
            key_points=v.key_points,
            source=f"{v.source}[{v.start}:{v.end}]",
        )
        for n, v in enumerate(q.variants)
        if v.reference
    ]


def gather(
    question: str,
    index: Index | None,
    settings: Settings,
    reference_answer: str | None = None,
    question_id: str | None = None,
    passages: int = 3,
) -> ReferenceSet:
    """The input's own reference first, then the bank question's variants (if the question is
    in the bank), then the nearest passages above the relevance threshold."""
    refs: list[Reference] = []
    if reference_answer and reference_answer.strip():
        refs.append(
            Reference(
                id="input",
                kind="input",
                text=reference_answer.strip(),
                key_points=key_points(reference_answer) or (reference_answer,),
            )
        )
    if index is None:
        return ReferenceSet(question, tuple(refs))

    matched: Question | None = index.bank.get(question_id) if question_id else None
    match_score = 1.0 if matched else None
    vector = index.embedder.embed([question])[0]
    if matched is None:
        hits = index.search_questions(question, k=3, vector=vector)
        if hits and hits[0].score >= settings.bank_match_threshold:
            matched, match_score = index.bank.get(hits[0].id), hits[0].score
        elif not refs:
            # Not a bank question: related bank questions' answers, if they are close enough.
            for h in hits:
                q = index.bank.get(h.id)
                if q and h.score >= settings.relevance_threshold + 0.15:
                    refs.extend(
                        Reference(r.id, r.kind, r.text, r.key_points, r.source, h.score)
                        for r in bank_references(q)[:1]
                    )
    if matched is not None:
        refs.extend(bank_references(matched))
    for h in index.search_passages(question, k=passages, vector=vector):
        if h.score >= settings.relevance_threshold:
            refs.append(
                Reference(
                    id=h.id,
                    kind="passage",
                    text=h.text,
                    source=str(h.metadata.get("source", "")),
                    key_points=key_points(h.text),
                    score=h.score,
                )
            )
    return ReferenceSet(question, tuple(refs), matched.id if matched else None, match_score)
