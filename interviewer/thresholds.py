"""The claim checker's thresholds: when a probability or a similarity decides a verdict.
Chosen on dev parts by `evals/tune_claims.py`; the shipped values live in
`data/offline_grader.json` (`fitted.Model.thresholds`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Thresholds:
    entail: float = 0.5  # P(entailment) at or above which a point is covered
    contradict: float = 0.6  # P(contradiction) at or above which it is contradicted
    stated: float = 0.6  # P(entailment) of a misconception at or above which it was stated
    # The model alone says "contradicted" only for a sentence about this very point: at least
    # this similar to it, and closer to it than to any other key point of the question.
    contradict_sim: float = 0.6
    stated_margin: float = 0.3  # how much more it must entail the misconception than the point
    # ... or at least this surely, when the same sentence also contradicts the key point
    # (at `contradict_both`): two readings that agree. 1.01: off.
    stated_agree: float = 1.01
    # Contradiction is symmetric: the model alone says "contradicted" only when it finds it
    # both ways (sentence -> point and point -> sentence), each at least this surely. It
    # mistakes a sentence that says less than the point for one that denies it; read both
    # ways, the denial stays and the shortfall mostly goes (in-domain dev: 5 of 5 true
    # contradictions kept, 6 of 7 false ones dropped).
    contradict_both: float = 0.7
    # Against a row's own reference answer (no curated key points or misconceptions) the model
    # alone never contradicts: on Mohler dev nine in ten such verdicts were wrong, and they did
    # not help SciEntsBank's contradictory class. Exact checks still apply there.
    contradict_given: float = 1.01
    min_sim: float = 0.3  # a sentence less similar than this to a point is not asked about
    top_k: int = 2  # the answer sentences asked about per point
    # A later sentence is asked about only when it is nearly as similar as the first (the NLI
    # pairs are what grading costs), and a misconception only of sentences this close to it.
    next_gap: float = 1.0
    # In a long answer (`Case.long`) more sentences are asked about each key point, from
    # further down: many sentences share its words there, and the one that states it was often
    # not among the nearest two (trial E's 281-word nvidia-smi answer: 5th, at 0.54 against 0.70).
    # Only against key points; misconceptions are asked of the nearest as before.
    long_top_k: int = 5
    long_next_gap: float = 0.2
    wrong_min_sim: float = 0.3
    # A sentence at least this similar to one of a point's own texts restates it: covered,
    # whatever the model reads (it read "QAT gives the best low-bit accuracy but costs a
    # training run." as contradicting itself at 0.43). Exact checks still apply. Misconceptions
    # sit below it: 7 of the rubrics' 327 reach 0.9 against their key point's nearest text.
    verbatim: float = 0.93
    # A sentence this much nearer one of the point's own texts than one of the misconception's
    # says the point, whatever the model reads: the model read the rubric's own "You'd
    # see HBM on the A100 and H100 and GDDR6X on a GeForce card." (0.88 to the point's texts,
    # 0.71 to the misconception's) as stating "The H100 uses GDDR6X memory."; the blind dev
    # split's stated misconceptions all sit nearer the misconception.
    nearer_point: float = 0.1
    # ... and nearer at all, for a misconception its own key point entails at least this surely
    # (78 of the rubrics' 327 at 0.5): the model cannot tell the two apart.
    confusable: float = 0.5
    # A sentence at least this much nearer another key point than this one covers this one
    # only when the model is sure (0.9). 1.0: off.
    elsewhere: float = 0.25
