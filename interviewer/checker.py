"""The offline claim checker: pairs each key point with the answer's most similar sentences,
asks the NLI cross-encoder (`nli.py`), and keeps cheap exact checks beside it where sure
(`exact.py`: inverted comparatives, negation, numbers with the same unit; `roles.py`: swapped
roles; `dismissal.py`: a key point's fix waved away; `stated.py`: the misconceptions stated).
Returns the `claims.Verdicts` every grader returns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

import numpy as np

from .acronyms import expansion_differs
from .case import (
    Ask,
    Case,
    about_another_thing,
    ask,
    asserts,
    named_it,
    nearest_part,
    parts_of,
    sentence_of,
)
from .claims import PointVerdict, Verdicts
from .claims import margin as _margin
from .clauses import ask_again, covered_by_clauses
from .compared import topic_swapped
from .disagreement import disagree, opening, turned_verdict
from .dismissal import dismissed_points
from .edits import edited
from .evidence import (
    about,
    covering,
    elsewhere,
    no_cover_from_wrong,
    quote_part,
    restated,
    saying,
    swapped_in,
)
from .exclusive import other_term
from .nli import Entailment
from .quantities import quantity_off, states_number
from .roles import first_contradiction
from .stated import stated_misconceptions
from .thresholds import Thresholds
from .words import names_two

_DEFAULTS = Thresholds()
# The exact checks that hold against a sure entailment (see `_decide`).
_STANDS = ("exact:swapped", "exact:number", "exact:denied", "exact:exclusive")


def check_many(
    cases: Sequence[Case], nli: Entailment | None, th: Thresholds = _DEFAULTS
) -> list[Verdicts]:
    """Verdicts for many answers with one batched NLI call."""
    pairs: list[tuple[str, str]] = []
    claim_asks: list[list[list[Ask]]] = []
    wrong_asks: list[list[list[Ask]]] = []
    # Per misconception asked about: the pair (its key point, it), which tells whether the
    # model can tell the two apart at all.
    wrong_own: list[list[int | None]] = []
    in_context: list[int | None] = []
    # (a misconception's pair, the same sentence against the paraphrase it is worded like)
    worded: list[tuple[int, tuple[str, str]]] = []
    for case in cases:
        if case.context is not None:
            in_context.append(len(pairs))
            pairs.extend((" ".join(case.context), c.text) for c in case.claims)
        else:
            in_context.append(None)
        claim_asks.append(
            [ask(case, case.claim_vectors[n], c.text, th, pairs) for n, c in enumerate(case.claims)]
        )
        wv = case.wrong_vectors
        texts = {c.id: c.text for c in case.claims}
        asks: list[list[Ask]] = []
        own: list[int | None] = []
        for n, w in enumerate(case.wrongs if wv is not None else ()):
            assert wv is not None
            asked = ask(
                case,
                wv[n],
                w.text,
                th,
                pairs,
                pair_with=texts.get(w.contradicts, w.text),
                floor=th.wrong_min_sim,
                said_as=None
                if case.wrong_nearest is None
                else partial(_said_as, w.texts, case.wrong_nearest[:, n]),
                also=worded,
            )
            asks.append(asked)
            own.append(len(pairs) if asked else None)
            if asked:
                pairs.append((texts.get(w.contradicts, w.text), w.text))
        wrong_asks.append(asks)
        wrong_own.append(own)
    n_asked = len(pairs)
    pairs += [pair for _, pair in worded]
    probs = nli.probabilities(pairs) if (nli is not None and pairs) else None
    if probs is not None:
        # A misconception in a paraphrase's words: the surer of the two readings stands.
        for k, (i, _) in enumerate(worded):
            if probs[n_asked + k][0] > probs[i][0]:
                probs[i] = probs[n_asked + k]
    # The model's contradictions are confirmed read the other way round, in one more call.
    flipped: list[tuple[str, str]] = []

    def ask_back(sentence: str, claim: str, forward: float) -> bool:
        if forward >= th.contradict_both:  # else it cannot pass, whatever the reverse says
            flipped.append((claim, sentence))
        return True

    decided = list(zip(cases, claim_asks, wrong_asks, wrong_own, in_context, strict=True))
    for case, ca, wa, wo, ctx in decided:
        _decide(case, ca, wa, wo, probs, th, ask_back, ctx)
    reverse: dict[tuple[str, str], float] = {}
    if flipped and nli is not None:
        reverse = dict(zip(flipped, map(float, nli.probabilities(flipped)[:, 2]), strict=True))

    def confirmed(sentence: str, claim: str, forward: float) -> bool:
        return min(forward, reverse.get((claim, sentence), 0.0)) >= th.contradict_both

    results = [
        _decide(case, ca, wa, wo, probs, th, confirmed, ctx) for case, ca, wa, wo, ctx in decided
    ]
    # Points still missed, asked again of the clauses of run-on sentences (one more call).
    again = [
        [
            (n, c)
            for n, c in ask_again(v, case.clauses, case.claim_vectors, th.min_sim, th.top_k)
            if not about_another_thing(case.text, c.text, case.claims[n].text, case.question)
        ]
        for case, v in zip(cases, results, strict=True)
    ]
    flat = [
        (c.text, case.claims[n].text) for case, a in zip(cases, again, strict=True) for n, c in a
    ]
    if flat and nli is not None:
        more = iter(nli.probabilities(flat))
        results = [
            covered_by_clauses(
                v,
                a,
                [next(more) for _ in a],
                case.sentences,
                th.entail,
                partial(_clause_contradicts, case),
            )
            if a
            else v
            for case, v, a in zip(cases, results, again, strict=True)
        ]
    return [no_cover_from_wrong(v) for v in results]


def _decide(
    case: Case,
    claim_asks: list[list[Ask]],
    wrong_asks: list[list[Ask]],
    wrong_own: list[int | None],
    probs: np.ndarray | None,
    th: Thresholds,
    confirmed: Callable[[str, str, float], bool],
    in_context: int | None = None,
) -> Verdicts:
    def p(a: Ask) -> np.ndarray:
        # Without a model: similarity alone can only say "probably stated", never "wrong".
        if probs is None:
            return np.asarray([1.0 if a[2] >= 0.7 else a[2] / 1.4, 0.0, 0.0])
        return probs[a[0]]

    verdicts = []
    # Each sentence as said (not the whole short answer read as one premise).
    said_alone = [t for i, t in enumerate(case.sentences) if not parts_of(case, i)]
    # Only against curated or automatic key points: a row's own reference answer is prose
    # (SAF's "self-clocking / clock recovery is not as necessary" was read as asserting it).
    waved = (
        {}
        if case.given
        else dismissed_points([c.text for c in case.claims], said_alone, case.question)
    )
    exchanged = dict(case.exchanged)
    copied = edited([c.texts for c in case.claims], said_alone)
    for n_claim, (claim, asked) in enumerate(zip(case.claims, claim_asks, strict=True)):
        quote = partial(quote_part, case, case.claim_vectors[n_claim])
        # A closed question answered the other way ("No, because ..." to "Yes, all metals
        # conduct") is wrong on its core claim, whatever else the answer shares with it.
        if case.text and turned_verdict(claim.verdict or opening(claim.text), case.text):
            first = case.sentences[0] if case.sentences else case.text
            verdicts.append(PointVerdict(claim, "contradicted", first, 0.0, 1.0, "exact:verdict"))
            continue
        # An acronym of the point's expanded into other words, anywhere in the answer.
        if wrongly := next((t for t in said_alone if expansion_differs(claim.text, t)), None):
            verdicts.append(
                PointVerdict(claim, "contradicted", wrongly, 0.0, 0.9, "exact:expansion")
            )
            continue
        # Its description said of the other of the question's two things (a row's own
        # reference: the roles checks are not trusted on prose).
        if (other := exchanged.get(n_claim)) is not None:
            verdicts.append(PointVerdict(claim, "contradicted", other, 0.0, 0.9, "exact:exchanged"))
            continue
        # Copied from the point with a word turned: read word by word, whatever the prose.
        if (at := copied.get(n_claim)) is not None:
            verdicts.append(
                PointVerdict(claim, "contradicted", said_alone[at], 0.0, 0.9, "exact:edited")
            )
            continue
        if n_claim in waved:
            verdicts.append(
                PointVerdict(claim, "contradicted", waved[n_claim], 0.0, 0.9, "exact:dismissed")
            )
            continue
        if not asked:
            verdicts.append(PointVerdict(claim, "missed", margin=1.0, decided_by="similarity"))
            continue
        # A sentence far nearer another key point of the question is about that one: the model's
        # entailment of this point from it is not sure enough to count ("turn off activation
        # checkpointing, since it stores extra copies of activations" entailed the no_grad
        # point at 0.65). Not a whole answer read as one premise (it sums up several points),
        # nor among a reference answer's sentences, which restate each other ("If no
        # constructor is provided, ..." and "If a constructor is defined, ... not").
        readable = [
            a
            for a in asked
            if case.given
            or p(a)[0] >= 0.9
            or parts_of(case, a[1])
            or not elsewhere(case, a, n_claim, th)
        ]
        best_e = max(readable or asked, key=lambda a: p(a)[0] if readable else 0.0)
        best_c = max(asked, key=lambda a: p(a)[2])
        e, c = (float(p(best_e)[0]) if readable else 0.0), float(p(best_c)[2])
        top = asked[0]
        exact = across = None
        said = top[1]
        if top[2] >= 0.5:
            # The sentence nearest the point (inside the whole short answer when that was the
            # premise: a number check needs the one clause with one number), then the premise
            # itself; the one that says it is quoted. (Every sentence >= 0.5 similar to the
            # point was tried too: model answers with a false wrong claim went 2 -> 10 of 94.)
            part = nearest_part(case, case.claim_vectors[n_claim], top[1])
            for i in dict.fromkeys((part, top[1])):
                named = named_it(case, i, claim.text)
                exact = case.sure(first_contradiction(claim.text, [named]))
                # The other of two exclusive terms holds against a sure entailment, whichever
                # check names it first ("LLM decode is compute-bound" read as a comparative).
                if exact and exact not in _STANDS and other_term(claim.text, named):
                    exact = "exact:exclusive"
                # A part's other number where its sentence gives the point's own ("about 140
                # GB, so you need at least two 80 GB GPUs") is a number of something else.
                # (Of the same quantity: "900 GB/s comes from 12 NVLink links" gives the
                # point's bandwidth and a wrong count of links.)
                if exact == "exact:number" and states_number(
                    claim.text, sentence_of(case, i), quantity_off(claim.text, named)
                ):
                    exact = None
                if exact:
                    said = saying(case, claim.text, i)
                    break
            # The model cannot see which of two things a property belongs to: its entailment
            # is no evidence against a swap found across the answer.
            across = None if exact else case.sure(swapped_in(case, claim.text))
        # The sentence that would cover it, however far its words (a long sentence that turns
        # the point round sat below 0.5 and was entailed at 0.93); inside a whole short answer
        # read as one premise, the sentence nearest the point.
        unread = top[2] < 0.5 or best_e[1] != top[1]
        if not exact and e >= th.entail and unread:
            nearest = nearest_part(case, case.claim_vectors[n_claim], best_e[1])
            # ... and the premise whole when it names two of the point's numbered names: they
            # may sit in two parts ("Use E5M2 ... more precision, and E4M3 ... more range").
            whole = names_two(claim.text, sentence_of(case, best_e[1])) and best_e[1] != nearest
            for i in [nearest, best_e[1]] if whole else [nearest]:
                if exact := case.sure(
                    first_contradiction(claim.text, [named_it(case, i, claim.text)])
                ):
                    said = i
                    break
        # The part that states the point, said of the other of the two things the question
        # compares (a swap the roles checks cannot see: the things are not names).
        # (not a part that states another point too: "Data parallelism splits the batch ...,
        # each with a full model copy" was entailed as the tensor-parallel point as well)
        if not exact and not across and e >= th.entail and case.question:
            nearest = nearest_part(case, case.claim_vectors[n_claim], best_e[1])
            states_another = any(
                a[1] in (nearest, best_e[1]) and p(a)[0] >= th.entail
                for m, others in enumerate(claim_asks)
                if m != n_claim
                for a in others
            )
            if not states_another and (
                across := case.sure(
                    topic_swapped(case.question, claim.text, case.sentences[nearest])
                )
            ):
                said = nearest
        again_said = restated(case, n_claim, th)
        # Nor against two things turned round or swapped inside the sentence ("trades memory
        # for compute" entailed "trades compute for memory" at 0.91; "PCIe is NVIDIA's
        # dedicated GPU interconnect" entailed the NVLink point at 0.94), nor against a wrong
        # number (the model reads "300 GB/s" as entailing "900 GB/s" at 0.93); other exact
        # checks yield to a sure entailment.
        # (nor against a subject said not to do what the point says it does: "MIG ... but they
        # aren't isolated in hardware" entailed the isolation point; nor against the other of
        # two exclusive terms: "LLM decode is compute-bound" entailed "... memory-bound")
        stands = exact in _STANDS
        if found := across or (exact if e < 0.9 or stands else None):
            verdicts.append(PointVerdict(claim, "contradicted", quote(said), 0.0, 0.9, found))
        elif again_said is not None:
            verdicts.append(
                PointVerdict(claim, "covered", case.sentences[again_said], 1.0, 1.0, "verbatim")
            )
        elif (
            c >= (th.contradict_given if case.given else th.contradict)
            and c > e
            and about(case, best_c, n_claim, th)
            and asserts(case, best_c[1])
            and disagree(claim.text, case.sentences[best_c[1]])
            and confirmed(case.sentences[best_c[1]], claim.text, c)
        ):
            verdicts.append(
                PointVerdict(
                    claim, "contradicted", quote(best_c[1]), 0.0, _margin(c, th.contradict)
                )
            )
        elif e >= th.entail:
            verdicts.append(
                PointVerdict(
                    claim,
                    "covered",
                    covering(case, n_claim, best_e[1]),
                    1.0,
                    _margin(e, th.entail),
                )
            )
        elif (
            case.context is not None
            and probs is not None
            and in_context is not None
            and (e_ctx := float(probs[in_context + n_claim][0])) >= th.entail
        ):
            verdicts.append(
                PointVerdict(
                    claim, "covered", case.context[1], 1.0, _margin(e_ctx, th.entail), "nli:reply"
                )
            )
        else:  # partly stated at most: the entailment probability as fractional credit
            # (not a sentence's read whole beside its parts: with text after it, an answer's
            # one sentence is read whole twice, alone and inside the whole, and any sentence
            # added earned that second try: "Further detail ... available on request." 1 -> 2)
            partly = max((float(p(a)[0]) for a in asked if a[1] not in case.cut), default=0.0)
            verdicts.append(
                PointVerdict(claim, "missed", "", round(partly, 3), _margin(e, th.entail))
            )
    stated = stated_misconceptions(case, wrong_asks, wrong_own, p, probs, th)
    # A stated misconception marks its key point contradicted, never covered.
    by_point = {m.wrong.contradicts: m for m in stated}
    verdicts = [
        PointVerdict(
            v.claim,
            "contradicted",
            by_point[v.claim.id].evidence,
            0.0,
            _margin(by_point[v.claim.id].probability, th.stated),
            "misconception",
        )
        if v.claim.id in by_point and v.verdict != "contradicted"
        else v
        for v in verdicts
    ]
    return Verdicts(tuple(verdicts), tuple(stated))


def _clause_contradicts(case: Case, point: str, clause: str) -> str | None:
    return case.sure(first_contradiction(point, [clause]))


def _said_as(texts: Sequence[str], nearest: np.ndarray, i: int) -> str:
    """The misconception's text sentence i is worded like: a paraphrase in the candidate's words
    ("... so warp divergence doesn't cost you anything anymore", entailed at 0.85, where the
    model reads the wrong claim's own wording less surely, 0.67), or its own."""
    return texts[int(nearest[i])]
