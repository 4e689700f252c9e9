"""The offline grader: a small fitted linear model over `features.py`, no LLM.

The weights live in `data/offline_grader.json`, written by `evals/train_offline.py` from the
dev parts of the eval data only. Everything runs on CPU with the packaged embedding model.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

import numpy as np

from . import claims as cl
from . import injection
from .asides import (
    GENERIC,
    aside,
    aside_candidates,
    material,
    read_alone,
    undecided,
    without,
)
from .case import nearest_text, said_as, text_sims
from .checker import Case, check_many
from .clauses import clauses_of
from .detectors import no_reference, rule_grade, settled_by_rules
from .embeddings import Embedder
from .evidence import as_said
from .exchanged import exchanged
from .features import Analysis, Cache, analyse_many, as_read, warm
from .fitted import Model, default_model
from .index import Index
from .nli import Entailment, Precision, Runtime, default_nli
from .offtopic import FIELD, OtherQuestions, as_other
from .padding import PaddingModel, default_padding
from .records import Grade, Provenance, ReferenceSet
from .references import claims_for
from .rereading import padding_earns_nothing
from .scoring import asking, from_verdicts, rubric_id
from .shorthand import expand

TERSE_REPLY_WORDS = 30  # a reply this short is also read after the follow-up question


# Answers longer than this are compared sentence by sentence with each sentence embedded on its
# own, and more of their sentences are asked about each key point (`Thresholds.long_top_k`).
# Shorter ones keep the vectors pooled in context: there a terse part leans on its neighbours
# ("Fix with padding, like 33 columns", 0.64 from its point in context, 0.49 alone). At 60
# words, two blind-set answers lost a point they made (dev split).
ALONE_WORDS = 100


def _long(an: Analysis) -> bool:
    return len(an.text.split()) > ALONE_WORDS


class OfflineGrader:
    """Grades with the fitted model; rules settle empty, non-answers, injections and
    off-topic answers first. With an index, an answer that fits another bank question
    clearly better than the one asked is off-topic."""

    name = "offline"
    batched = True

    def __init__(
        self,
        embedder: Embedder,
        model: Model | None = None,
        index: Index | None = None,
        nli: Entailment | None = None,
        padding: PaddingModel | None = None,
        precision: Precision = "fp32",
        runtime: Runtime = "onnx",
    ) -> None:
        self.embedder = embedder
        self.index = index
        self._model = model
        self._nli = nli
        self._precision = precision
        self._runtime = runtime
        self._padding = padding
        self._others = OtherQuestions(index, embedder)
        self._keep = Cache()

    @property
    def model(self) -> Model:
        if self._model is None:
            self._model = default_model()
        return self._model

    def grade(self, question: str, answer: str, refs: ReferenceSet) -> Grade:
        return self.grade_many([(question, answer, refs)])[0]

    @property
    def padding(self) -> PaddingModel:
        if self._padding is None:
            self._padding = default_padding()
        return self._padding

    @property
    def nli(self) -> Entailment | None:
        if self._nli is None:
            found = default_nli(self._precision, self._runtime)
            self._nli = found if found.available else None
        return self._nli

    def forget_questions(self) -> None:
        """Drop what was prepared for questions (benchmarks: every question starts cold)."""
        self._keep = Cache()

    def warm(self, question: str, refs: ReferenceSet) -> None:
        """Embed a question's references and key points before its answer comes (the interview
        calls this while the candidate thinks), so that grading the answer pays only for it."""
        warm([(question, refs)], self.embedder, self._keep)
        claims, wrongs, _ = claims_for(refs)
        if claims:
            self._vectors([c.texts for c in claims])
        if wrongs:
            self._wrong_vectors(wrongs)
        # ... and each text as an answer is read (`case.text_sims`: "HBM = narrow bus" in a
        # paraphrase is read "HBM is narrow bus").
        texts = [t for c in claims for t in c.texts]
        self._embed_once(expand(t) for t in texts + [t for w in wrongs for t in w.texts])
        if refs.question_id:  # the off-topic check compares the answer with every question
            self._others.vectors()
        self._embed_once(GENERIC)  # what padding is like (the aside check)

    def grade_many(self, items: Sequence[tuple[str, str, ReferenceSet]]) -> list[Grade]:
        if not items:
            return []
        analyses, preds = self.prepare(items)
        checked = self.check(items, analyses)
        # Segments about the candidate or to the interviewer that decide no verdict are set
        # aside, and those answers graded again on the rest.
        redo = {
            n: (q, without(an.text, drop), refs)
            for n, ((q, _, refs), an, ch) in enumerate(zip(items, analyses, checked, strict=True))
            if ch is not None
            and (drop := undecided(an, ch[0], self.claim_vectors(refs), self.embedder.embed))
        }
        if redo:
            # What is left was already judged for padding: one more forward pass, no aside check.
            found, new_preds, rechecked = self.read_again(list(redo.values()))
            for n, an, p, ch in zip(redo, found, new_preds, rechecked, strict=True):
                analyses[n], preds[n], checked[n] = an, p, ch
        grades = [
            self.grade_reading(refs, an, float(p), answer, ch)
            for (_, answer, refs), an, p, ch in zip(items, analyses, preds, checked, strict=True)
        ]
        return padding_earns_nothing(self, items, analyses, checked, grades)

    def read_again(
        self, items: list[tuple[str, str, ReferenceSet]]
    ) -> tuple[list[Analysis], np.ndarray, list[tuple[cl.Verdicts, str] | None]]:
        """A second reading of answers already judged for padding: features, the fitted
        model's estimates and the claim verdicts (no aside check)."""
        found = analyse_many(items, self.embedder, self._keep)
        return found, self._estimates(found), self.check(items, found)

    def prepare(
        self, items: Sequence[tuple[str, str, ReferenceSet]]
    ) -> tuple[list[Analysis], np.ndarray]:
        """The embedding work: features, the fitted model's estimates, and the injection
        check's sentence vectors (one batch for all answers)."""
        injection.prime([a for _, a, _ in items])
        analyses = analyse_many(items, self.embedder, self._keep)
        # Sentences not about the question earn nothing: an answer with some is graded on the
        # rest (the fitted model's length and similarity features, and the whole-answer
        # premise of the claim checker, would otherwise move with padding).
        found = [
            aside_candidates(q, refs, an) for (q, _, refs), an in zip(items, analyses, strict=True)
        ]
        flat = [t for ts in found for t in ts]
        if flat:
            self._embed_once(  # what the candidates are compared with
                [
                    *GENERIC,
                    *(
                        t
                        for (q, _, refs), ts in zip(items, found, strict=True)
                        if ts
                        for t in material(q, refs)
                    ),
                ]
            )
            alone = [
                read_alone(q, refs, an, ts)
                for (q, _, refs), an, ts in zip(items, analyses, found, strict=True)
            ]
            todo = [
                t
                for ts, own in zip(found, alone, strict=True)
                for t, o in zip(ts, own, strict=True)
                if o
            ]
            embedded = iter(self.embedder.embed(todo) if todo else [])
            content = {}
            for n, ((q, a, refs), an, ts) in enumerate(zip(items, analyses, found, strict=True)):
                if not ts:
                    continue
                assert an.sentence_vecs is not None
                vectors = np.stack(
                    [
                        next(embedded) if own else an.sentence_vecs[an.sentences.index(t)]
                        for t, own in zip(ts, alone[n], strict=True)
                    ]
                )
                if drop := aside(q, refs, an, ts, vectors, self._keep):
                    content[n] = (q, without(as_read(a), drop), refs)
            if content:
                again = analyse_many(list(content.values()), self.embedder, self._keep)
                for n, an in zip(content, again, strict=True):
                    analyses[n] = an
        return analyses, self._estimates(analyses)

    def _estimates(self, analyses: Sequence[Analysis]) -> np.ndarray:
        return self.model.predict(
            np.stack([a.features for a in analyses]),
            [a.best.kind if a.best else "" for a in analyses],
        )

    def finish(
        self,
        items: Sequence[tuple[str, str, ReferenceSet]],
        analyses: list[Analysis],
        preds: np.ndarray,
    ) -> list[Grade]:
        """Claim verdicts and the grades (cheap to repeat: the NLI caches its pairs)."""
        checked = self.check(items, analyses)
        return [
            self.grade_reading(refs, an, float(p), answer, ch)
            for (_, answer, refs), an, p, ch in zip(items, analyses, preds, checked, strict=True)
        ]

    def check(
        self, items: Sequence[tuple[str, str, ReferenceSet]], analyses: Sequence[Analysis]
    ) -> list[tuple[cl.Verdicts, str] | None]:
        """Claim verdicts for every answer that has key points, in one NLI batch."""
        cases: list[Case] = []
        where: list[tuple[int, str]] = []
        vectors = self._sentence_vectors(analyses)
        embed = self.embedder.embed
        for n, ((question, answer, refs), an) in enumerate(zip(items, analyses, strict=True)):
            claims, wrongs, origin = claims_for(refs)
            vecs = vectors[n]
            if not claims or vecs is None or not an.sentences:
                continue
            cvec = self.claim_vectors(refs)
            wvec = self._wrong_vectors(wrongs) if wrongs else None
            terse_reply = refs.focus and len(answer.split()) <= TERSE_REPLY_WORDS
            verbatim = nearest_text(text_sims(vecs, claims, self._vectors))
            wrong_sims = text_sims(vecs, wrongs, self._vectors) if wrongs else None
            case = Case(
                an.sentences,
                vecs,
                claims,
                cvec,
                wrongs,
                wvec,
                origin == "input",
                (question, answer.strip()) if terse_reply else None,
                verbatim,
                an.text or answer,
                question,
                wrong_verbatim=nearest_text(wrong_sims) if wrong_sims else None,
                wrong_nearest=said_as(wrong_sims) if wrong_sims else None,
                long=_long(an),
                in_field=origin == "input" and self.in_field(refs),
                exchanged=tuple(
                    exchanged(question, [c.text for c in claims], an.text or answer, embed).items()
                )
                if origin in ("input", "auto")
                else (),
            )
            cases.append(case)
            where.append((n, origin))
        found = clauses_of([c.sentences for c in cases], self.embedder.embed)
        cases = [replace(c, clauses=f) for c, f in zip(cases, found, strict=True)]
        out: list[tuple[cl.Verdicts, str] | None] = [None] * len(items)
        for (n, origin), v in zip(
            where, check_many(cases, self.nli, self.model.thresholds), strict=True
        ):
            out[n] = (asking(v, items[n][0], origin), origin)
        return out

    def _sentence_vectors(self, analyses: Sequence[Analysis]) -> list[np.ndarray | None]:
        """The vectors the claim checker compares key points with: each sentence's, pooled
        inside the whole answer (one forward pass), or, in an answer of more than ALONE_WORDS,
        embedded on its own (one batch for all). Pooled in a long answer, a sentence takes on
        the whole answer's meaning (median cosine to itself alone: 0.79 in answers of up to 60
        words, 0.65 over 140): "replace short branches with arithmetic or selects so the
        compiler can use predication", 13th of a 210-word answer's 15 parts, was 0.37 from its
        key point (0.67 alone), was never checked, and came back as a follow-up."""
        long = [an.sentence_vecs is not None and _long(an) for an in analyses]
        texts = [t for an, lg in zip(analyses, long, strict=True) if lg for t in an.sentences]
        texts = list(dict.fromkeys(texts))
        alone = dict(zip(texts, self.embedder.embed(texts), strict=True)) if texts else {}
        return [
            np.stack([alone[t] for t in an.sentences]) if lg else an.sentence_vecs
            for an, lg in zip(analyses, long, strict=True)
        ]

    def claim_vectors(self, refs: ReferenceSet) -> np.ndarray:
        claims = claims_for(refs)[0]
        return self._vectors([c.texts for c in claims])

    def _wrong_vectors(self, wrongs: Sequence[cl.Wrong]) -> np.ndarray:
        """One per misconception: the mean of its texts (warm-up and grading share it)."""
        return self._vectors([w.texts for w in wrongs])

    def _embed_once(self, texts: Iterable[str]) -> dict[str, np.ndarray]:
        """The long-lived cache, holding each of these texts (each embedded once per process)."""
        wanted, known = list(dict.fromkeys(texts)), self._keep.vectors
        if any(t not in known for t in wanted):
            self._keep.make_room()  # may empty the cache: what is missing is counted after it
            todo = [t for t in wanted if t not in known]
            known.update(zip(todo, self.embedder.embed(todo), strict=True))
        return known

    def _vectors(self, groups: Sequence[tuple[str, ...]]) -> np.ndarray:
        """One unit vector per group of texts (a claim and its paraphrases: their mean)."""
        known = self._embed_once(t for g in groups for t in g)
        mat = np.stack([np.mean([known[t] for t in g], axis=0) for g in groups])
        return mat / np.linalg.norm(mat, axis=1, keepdims=True).clip(1e-9)

    def answers_other_question(
        self, refs: ReferenceSet, an: Analysis, margin: float | None = None
    ) -> bool:
        """The answer fits another bank question clearly better than this one (the bank's
        question, or a row's own question with its reference answer)."""
        margin = self.model.off_topic_margin if margin is None else margin
        if refs.question_id is not None:
            return self._others.fits_better(refs.question_id, an.answer_vec, margin)
        own = self._own_vector(refs)
        return own is not None and self._others.fits_better_than(own, an.answer_vec, margin)

    def in_field(self, refs: ReferenceSet) -> bool:
        """The question is the bank's, or with its own reference near one of the bank's."""
        if refs.question_id is not None:
            return True
        own = self._own_vector(refs)
        return own is not None and self._others.nearest(own) >= FIELD

    def _own_vector(self, refs: ReferenceSet) -> np.ndarray | None:
        """A row's own question and reference, embedded as the bank's questions are."""
        if refs.given is None:
            return None
        text = as_other(refs.question, refs.given.text)
        return self._embed_once([text])[text]

    def settle(
        self,
        refs: ReferenceSet,
        an: Analysis,
        answer: str,
        verdicts: cl.Verdicts | None = None,
        margin: float | None = None,
    ) -> Grade | None:
        """The grade when a rule decides it, else None (the model scores the answer)."""
        prov = self.provenance()
        if (settled := settled_by_rules(answer, refs, prov)) is not None:
            return settled
        if an.best is None:  # only passages, and none gave usable key points
            return no_reference(refs, self.provenance())
        off = max(an.question_sim, an.ref_sim) < self.model.off_topic_threshold
        # An answer that states one of this question's key points, or gets one wrong, is on
        # topic, however close it also sits to another question (a scenario answer touches
        # many); and a reply to a follow-up answers the probe, not the question's whole text.
        on_point = verdicts is not None and bool(verdicts.of("covered") or verdicts.wrong_points())
        if (
            not refs.focus
            and not on_point
            and (off or self.answers_other_question(refs, an, margin))
        ):
            return replace(rule_grade("off_topic", refs, prov), confidence=0.8)
        return None

    def provenance(self, rubric: str = "") -> Provenance:
        m = self.model
        nli = self.nli
        return Provenance(
            grader="offline",
            model=f"{m.name} + {self.embedder.name}",
            settings={"verdict_weight": m.verdict_weight, "stretch": m.stretch},
            rubric=rubric,
            claim_checker=nli.name if nli is not None else "similarity only (no NLI weights)",
        )

    def grade_reading(
        self,
        refs: ReferenceSet,
        an: Analysis,
        pred: float,
        answer: str,
        checked: tuple[cl.Verdicts, str] | None,
        margin: float | None = None,
        written: str = "",
    ) -> Grade:
        """The grade of one reading of an answer; quotes come from `written` (the answer as
        the candidate wrote it) where the reading is another text."""
        verdicts = checked[0] if checked else None
        if (settled := self.settle(refs, an, answer, verdicts, margin)) is not None:
            return settled
        if checked is None:  # no key point could be made from the material
            return no_reference(refs, self.provenance())
        verdicts, origin = checked
        kind = "input" if an.best and an.best.kind == "input" else "bank"
        w = self.model.verdict_weight["field" if kind == "input" and self.in_field(refs) else kind]
        estimate = self.model.calibrated((1 - w) * pred + w * 5.0 * verdicts.coverage, kind)
        return from_verdicts(
            as_said(verdicts, written or answer),
            estimate,
            replace(self.provenance(origin), rubric_id=rubric_id(refs, origin)),
            refs,
        )
