"""Gathering the reference material an answer is graded against."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from .claims import Claim, Wrong
from .config import Settings
from .disagreement import opening
from .errors import InputError
from .index import Index
from .records import Question, Reference, ReferenceSet
from .rubrics import Rubric, Rubrics, auto_rubric, whole_sentences
from .sentences import key_points

# Words a file name writes in lower case that a reader expects as the field writes them.
_ACRONYMS = {
    w.lower(): w for w in ("AI", "GPU", "CUDA", "ML", "MLOps", "LLM", "NCCL", "HBM", "CPU")
}


def readable_source(source: str, section: str = "") -> str:
    """'gpu-cuda-interview-questions.txt' + 'Easy — fundamentals' ->
    'GPU CUDA interview questions, section "Easy — fundamentals"'."""
    words = Path(source).stem.replace("-", " ").replace("_", " ").split()
    title = " ".join(_ACRONYMS.get(w.lower(), w.lower()) for w in words)
    title = title[:1].upper() + title[1:]
    return f'{title}, section "{section}"' if section else title


def bank_references(q: Question) -> list[Reference]:
    return [
        Reference(
            id=f"{q.id}#v{n}",
            kind="bank",
            text=v.reference,
            key_points=v.key_points,
            source=readable_source(v.source, v.section),
        )
        for n, v in enumerate(q.variants)
        if v.reference
    ]


_RUBRICS: dict[Path, tuple[tuple[float, ...], Rubrics]] = {}


def load_rubrics(data_dir: Path) -> Rubrics:
    """Authored rubrics and the user's (DATA_DIR/rubrics), reloaded when a file changes."""
    folder = data_dir / "rubrics"
    stamp = (
        tuple(p.stat().st_mtime for p in sorted(folder.glob("*.yaml"))) if folder.is_dir() else ()
    )
    cached = _RUBRICS.get(data_dir)
    if cached is None or cached[0] != stamp:
        _RUBRICS[data_dir] = (stamp, Rubrics.load(data_dir))
    return _RUBRICS[data_dir][1]


def claims_for(refs: ReferenceSet) -> tuple[tuple[Claim, ...], tuple[Wrong, ...], str]:
    """The key points (and known misconceptions) an answer is checked against, and where they
    come from: the row's own reference answer first, then the question's rubric, then the
    whole sentences of the best reference material (automatic)."""
    given = refs.given
    if given is not None:
        sentences = whole_sentences(given.text, limit=8) or [given.text.strip()]
        # Nobody marked which sentence of a given answer matters most: a lone sentence is the
        # core claim; of several, each is one point, and one contradicted is one notable error.
        # The verdict a closed question's answer opens with ("No, string is an insulator")
        # is its core claim, carried by the first sentence.
        verdict = opening(given.text)
        weight = 2.0 if len(sentences) == 1 else 1.0
        return (
            tuple(
                Claim(
                    f"s{n + 1}",
                    s,
                    weight=2.0 if n == 0 and verdict else weight,
                    verdict=verdict if n == 0 else "",
                )
                for n, s in enumerate(sentences)
            ),
            (),
            "input",
        )
    rubric = refs.rubric
    if rubric is not None and rubric.technical and rubric.key_points:
        return _rubric_claims(rubric, refs)
    keys = refs.answer_keys
    for r in keys:
        sentences = whole_sentences(r.text) or list(r.key_points)
        if sentences:
            claims = tuple(
                Claim(f"s{n + 1}", s, weight=2.0 if n == 0 else 1.0, source=r.source)
                for n, s in enumerate(sentences)
            )
            return claims, (), "auto" if r.kind == "bank" else "retrieved"
    return (), (), ""


def _rubric_claims(
    rubric: Rubric, refs: ReferenceSet
) -> tuple[tuple[Claim, ...], tuple[Wrong, ...], str]:
    source = next((r.source for r in refs.references if r.kind == "bank"), "")
    if not source:
        source = next((r.source for r in refs.references if r.kind == "passage"), "")
    points = [k for k in rubric.key_points if not refs.focus or k.id in refs.focus]
    claims = tuple(Claim(k.id, k.text, k.label, k.value, k.paraphrases, source) for k in points)
    ids = {c.id for c in claims}
    wrongs = tuple(
        Wrong(m.text, m.contradicts, m.paraphrases)
        for m in rubric.misconceptions
        if m.contradicts in ids
    )
    return claims, wrongs, rubric.origin


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
    rubrics = load_rubrics(settings.data_dir)
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
    if question_id and matched is None:
        raise InputError(f"question_id {question_id!r} is not in the bank (see `interviewer bank`)")
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
                    source=readable_source(str(h.metadata.get("source", ""))),
                    key_points=key_points(h.text),
                    score=h.score,
                )
            )
    rubric = rubric_of(matched, rubrics) if matched else None
    if matched is not None and rubric is not None and not refs:
        refs.append(rubric_reference(matched, rubric))
    return ReferenceSet(question, tuple(refs), matched.id if matched else None, match_score, rubric)


def rubric_reference(q: Question, rubric: Rubric) -> Reference:
    """A question the guides pose without an answer, and whose passages retrieval misses (a
    design question): its rubric, written from the guides' passages, is the reference."""
    v = q.variants[0]
    return Reference(
        id=f"{q.id}#rubric",
        kind="bank",
        text=rubric.model_answer or " ".join(k.text for k in rubric.key_points),
        key_points=tuple(k.text for k in rubric.key_points),
        source=f"{readable_source(v.source, v.section)} (rubric)",
    )


class ReferenceCache:
    """gather() once per (question, reference, question id): a batch or an eval set asks the
    same questions many times."""

    def __init__(self, index: Index | None, settings: Settings) -> None:
        self.index, self.settings = index, settings
        self._done: dict[tuple[str, str | None, str | None], ReferenceSet] = {}

    def __call__(
        self, question: str, reference_answer: str | None = None, question_id: str | None = None
    ) -> ReferenceSet:
        key = (question, reference_answer, question_id)
        if key not in self._done:
            self._done[key] = gather(
                question, self.index, self.settings, reference_answer, question_id
            )
        return self._done[key]


def rubric_of(q: Question, rubrics: Rubrics) -> Rubric | None:
    """The question's rubric; for a question without one, an automatic rubric from its
    reference answer (what `ingest` writes for new documents)."""
    found = rubrics.get(q.id)
    if found is None and q.reference_answers:
        found = auto_rubric(q.id, q.text, q.reference_answers[0])
    return found


def focused(refs: ReferenceSet, point_ids: tuple[str, ...]) -> ReferenceSet:
    """The same material, graded on these key points only (a follow-up's probe)."""
    return replace(refs, focus=point_ids)
