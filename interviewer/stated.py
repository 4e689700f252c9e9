"""Which of a rubric's misconceptions an answer states, from the NLI model's readings of its
sentences and the checks that tell a misconception from the point it inverts."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import partial

import numpy as np

from .acronyms import contracted
from .case import Ask, Case, asserts, nearest_part, nearness, sentence_of
from .claims import Claim, StatedMisconception, Wrong
from .disagreement import counterexample, denies, elided_denial
from .multiples import ratio_differs
from .numerals import NUMBER_WORDS
from .polarity import attributed, hedged
from .quantities import numbers_like
from .relations import compares_other, favours_other, opposed
from .roles import about_another, binds_like, contrasted, names_subject
from .things import compared_apart, names_in
from .thresholds import Thresholds
from .words import STOP, formats, stem


def stated_misconceptions(
    case: Case,
    wrong_asks: Sequence[list[Ask]],
    wrong_own: Sequence[int | None],
    p: Callable[[Ask], np.ndarray],
    probs: np.ndarray | None,
    th: Thresholds,
) -> list[StatedMisconception]:
    """The misconceptions stated, each with the sentence that states it. Each asked pair (the
    sentence, the misconception) is followed by (the sentence, its key point)."""
    stated = []
    point_of = {c.id: c.text for c in case.claims}
    for wrong, asked, own in zip(case.wrongs, wrong_asks, wrong_own, strict=True):
        if asked and probs is not None:
            # Stated: the sentence says the wrong claim clearly more than the right one (a
            # misconception shares most of its words with the key point it inverts).
            # Of the sentences asked, those sure enough first: a clause that says it by a wider
            # margin but less surely must not hide the whole sentence that says it surely.
            def over(a: Ask) -> float:
                return float(p(a)[0] - probs[a[0] + 1][0])

            point = point_of.get(wrong.contradicts, "")
            # The question's other points give its setting ("one 80 GB GPU"): a number they
            # share with the misconception is not what the misconception gets wrong.
            setting = " ".join(t for i, t in point_of.items() if i != wrong.contradicts)
            sure = [a for a in asked if p(a)[0] >= th.stated and over(a) >= th.stated_margin]
            # Or sure by its numbers: the model reads "600 GB/s" as entailing "900 GB/s" too.
            sure = sure or [
                a
                for a in asked
                if p(a)[0] >= th.stated
                and numbers_like(case.sentences[a[1]], point, wrong.text, setting) < 0
            ]
            best = max(sure or asked, key=over)
            # A sentence that echoes one of the misconception's own texts, and is clearly
            # nearer them than its point's, states it whatever the model reads (it read "MIG
            # is software time-slicing where processes take turns on the whole GPU", 0.99 to
            # the misconception, as entailing "Unlike time-slicing or MPS, MIG creates hard
            # hardware partitions" at 0.90): the mirror of the near-verbatim rule for points.
            echo = _echoes(case, wrong, asked, th)
            if echo is not None:
                best = echo
            pe, right = float(p(best)[0]), float(probs[best[0] + 1][0])
            against = float(probs[best[0] + 1][2])  # the sentence contradicts the key point
            clearly = pe >= th.stated and pe - right >= th.stated_margin
            # Two readings that agree: it says the misconception and denies the point.
            agreeing = pe >= th.stated_agree and against >= th.contradict_both and pe > right
            assert case.wrong_vectors is not None
            # The model reads the key point itself as saying the misconception ("... plain data
            # parallelism ..., with no tensor or pipeline parallelism" entailed "needs tensor
            # and pipeline parallelism" at 0.90): its reading cannot tell them apart, so the
            # sentence must be at least as near the misconception's texts as the point's.
            confusable = own is not None and float(probs[own][0]) >= th.confusable
            # The sentence that says it: inside a short answer read whole, the one nearest it.
            # Of those that name what it is about: "HBM is just the newer GDDR ..." is nearer
            # "The H100 uses GDDR6X memory" than "... NVIDIA puts GDDR6X on the H100" is.
            said_at = nearest_part(
                case,
                case.wrong_vectors[case.wrongs.index(wrong)],
                best[1],
                partial(names_subject, wrong.text),
            )
            # ... about the thing the misconception names (the model barely tells MIG from
            # MPS, or E4M3 from E5M2), and not a restatement of the point it denies.
            # Nor can either model tell which named thing a word belongs to: where the sentence
            # gives the names the point's words it says the point, where the misconception's,
            # that, however the probabilities and similarities fall.
            binds = binds_like(case.sentences[said_at], point, wrong.text) or numbers_like(
                case.sentences[said_at], point, wrong.text, setting
            )
            own_point = next((c for c in case.claims if c.id == wrong.contradicts), None)
            said = (
                (clearly or agreeing or (binds < 0 and pe >= th.stated) or echo is not None)
                and (
                    binds < 0
                    # (of what the model read: a whole short answer read as one premise)
                    or _says_what_it_adds(
                        wrong,
                        own_point,
                        case.sentences[best[1]],
                        case.question,
                        case.sentences[said_at],
                        [
                            t
                            for c in case.claims
                            # (not another compared thing's: "one scalar multiply-add per
                            # clock" is right of a CUDA core, wrong of a Tensor Core)
                            if not compared_apart(c.text, wrong.text, case.question)
                            for t in c.texts
                        ],
                    )
                )
                and binds <= 0
                # What the model read gives the point's numbers, not the misconception's: a
                # whole short answer with "900 GB/s" entailed "900 Gb/s" at 0.84, quoted
                # through its first sentence, which gives no number at all.
                and numbers_like(case.sentences[best[1]], point, wrong.text) <= 0
                and asserts(case, best[1])
                and not about_another(wrong.text, case.sentences[said_at])
                and (binds < 0 or not _restates_instead(case, said_at, wrong, th, confusable))
                and not opposed(wrong.text, case.sentences[said_at])
                and not denies(wrong.text, case.sentences[said_at])
                and not elided_denial(wrong.text, case.sentences[said_at], case.question)
                and not _other_formats(wrong.text, case.sentences[said_at])
                and not compares_other(wrong.text, case.sentences[said_at])
                and not favours_other(wrong.text, case.sentences[said_at])
                and not _baseline(wrong.text, case.sentences[said_at])
                and not contrasted(wrong.text, case.sentences[said_at])
                and not counterexample(wrong.text, point, case.sentences[said_at])
                and not attributed(case.sentences[said_at], wrong.text)
                # (the model reads "about twice the BF16 throughput, and half the memory" as
                # saying "about the same throughput as BF16")
                and not ratio_differs(wrong.text, sentence_of(case, said_at))
            )
            if said:
                stated.append(StatedMisconception(wrong, case.sentences[said_at], round(pe, 3)))
    return stated


def _other_formats(wrong: str, sentence: str) -> bool:
    """The misconception is about number formats of one width and the sentence names only
    formats of others: "INT8/FP8 is ~70 GB and fits one 80 GB card, INT4 ~35 GB ..." states
    nothing about "A 70B model in FP16 needs about 70 GB" (read at 0.87 by its paraphrase)."""
    said, own = formats(sentence), formats(wrong)
    widths = {re.sub(r"\D", "", f)[-2:] for f in own}
    return bool(said and own) and not widths & {re.sub(r"\D", "", f)[-2:] for f in said}


def _echoes(case: Case, wrong: Wrong, asked: Sequence[Ask], th: Thresholds) -> Ask | None:
    """The asked sentence at least `verbatim` similar to one of the misconception's own texts
    and `nearer_point` nearer them than to its key point's, if any, unless it reports the
    misconception or puts it under a condition ("People think MIG is software time-slicing
    ..., but that's wrong")."""
    echoes, verbatim = case.wrong_verbatim, case.verbatim
    if echoes is None or verbatim is None:
        return None
    ids = [c.id for c in case.claims]
    k = case.wrongs.index(wrong)
    for a in sorted(asked, key=lambda a: -float(echoes[a[1], k])):
        to_wrong = float(echoes[a[1], k])
        if to_wrong < th.verbatim:
            return None
        near = 0.0
        if wrong.contradicts in ids:
            n = ids.index(wrong.contradicts)
            near = max(float(verbatim[a[1], n]), nearness(case, a[1], case.claim_vectors[n]))
        if to_wrong >= near + th.nearer_point and not hedged(case.sentences[a[1]], wrong.text):
            return a
    return None


def _restates_instead(
    case: Case, i: int, wrong: Wrong, th: Thresholds, confusable: bool = False
) -> bool:
    """Sentence i restates the key point the misconception contradicts: nearly word for word
    and nearer to it than to the misconception, or clearly nearer to it (nearer at all, for a
    misconception the model cannot tell from its point). Either side as near as the nearest of
    its own texts: "A CUDA stream is a pool ... that reorders ..., so even within one stream
    kernels run out of order" is 0.83 to the point's nearest text, 0.72 to the misconception's
    mean, and 0.84 to its own nearest paraphrase."""
    if case.verbatim is None or case.wrong_vectors is None:
        return False
    ids = [c.id for c in case.claims]
    if wrong.contradicts not in ids:
        return False
    n_point = ids.index(wrong.contradicts)
    # As near to either as its nearest clause (`nearness`).
    near = max(float(case.verbatim[i, n_point]), nearness(case, i, case.claim_vectors[n_point]))
    k = case.wrongs.index(wrong)
    to_wrong = nearness(case, i, case.wrong_vectors[k])
    if case.wrong_verbatim is not None:
        to_wrong = max(to_wrong, float(case.wrong_verbatim[i, k]))
    margin = 0.0 if confusable else th.nearer_point
    return (near >= th.verbatim and near > to_wrong) or near >= to_wrong + margin


# "Normally you'd have to copy the data into pinned host memory first": what happens without
# the thing asked about, said to explain it.
_WITHOUT = re.compile(
    r"^\W*(?:(?:so|and|but)\s+)?(?:normally|traditionally|conventionally|otherwise|classically"
    r"|without\s+(?:it|this|that|them))\b",
    re.I,
)


def _baseline(wrong: str, sentence: str) -> bool:
    """The sentence describes the case without the misconception's subject, which it never
    names: "Normally ... you'd copy through host memory" says nothing of GPUDirect RDMA."""
    mine = names_in(wrong)
    return bool(_WITHOUT.match(sentence)) and bool(mine) and mine[0] not in names_in(sentence)


# Words too common to tell a misconception from its point: function words (the fitted model's
# stop list) but those that give a direction, and what paraphrases say in passing.
_DIRECTION = frozenset(
    {"more", "less", "few", "most", "no", "not", "only", "all"}
    | {"above", "below", "before", "after", "same"}
)
_PLAIN = (STOP - _DIRECTION) | frozenset(
    {
        *("basically", "really", "actually", "totally", "pretty", "simply", "definitely"),
        *("like", "kind", "sort", "thing", "things", "way", "stuff", "see", "mean", "means"),
        *("want", "doing", "make", "makes", "get", "gets", "got", "one", "every", "just", "much"),
    }
)


# "fewer micro-batches" and "as few micro-batches as possible" say the same.
_BASE = {"fewer": "few", "fewest": "few", "lesser": "less", "least": "less"}


def _says_what_it_adds(
    wrong: Wrong,
    point: Claim | None,
    sentence: str,
    question: str,
    part: str = "",
    rights: Sequence[str] = (),
) -> bool:
    """The sentence shares a word that the misconception (or one of its paraphrases) adds to
    its key point's texts and the question: a misconception differs from its point in what it
    adds ("no downside", "the default kube-scheduler", "more mantissa bits", "shards only the
    optimizer states"). The model reads a right sentence that shares only the point's words as
    stating it (0.86: "many GPU workloads are limited by how fast data can be moved ..." for
    "Shared memory is slower than global memory"). True where one of its texts adds no word.
    Words are compared as said (`_marked`): "The downside is that it's slower to allocate" does
    not say "Pinning has no downside" (0.91). Nor does a sentence that says the opposite of an
    added word ("tiny updates get lost unless you keep FP32 master weights" against "...
    unnecessary, because small updates are never lost", 0.89), or one that shares none of the
    words of what the misconception is about, where the question does not name it either ("if
    it's the optimizer states, shard them or offload to CPU" against "Activation
    checkpointing saves memory by offloading the weights to CPU", 0.91). `part`: the clause
    of a long premise that says it, where the subject is looked for. `rights`: the other key
    points' texts, whose words are right too ("BF16 underflows small gradients more easily
    than FP16 because it has fewer mantissa bits" adds nothing in "It has fewer mantissa bits
    than FP16" where another point says so)."""
    if point is None:
        return True
    # Words as said, an acronym however it is written ("high-bandwidth memory" says "HBM").
    texts = [*wrong.texts, *point.texts, question, sentence, part]

    def marked(text: str) -> set[str]:
        return _marked(contracted(text, texts))

    own = set().union(*map(marked, point.texts))
    asked = marked(question)
    given = {float(n) for n in re.findall(r"\d+(?:\.\d+)?", question)}
    given |= {n for w in asked if (n := _count(w)) is not None}
    right = set().union(*map(marked, rights))
    said = marked(sentence)
    part = part or sentence
    # What it is about may sit in the premise's other part ("Fusion helps compute-bound GEMMs
    # most ...; memory-bound ops don't benefit"), or be its subject, which the question names
    # ("PTQ needs full retraining" against "PTQ requires retraining the model ...").
    where = marked(part) | said
    back = bool(_REFERS_BACK.match(part))

    def says(text: str) -> bool:
        mine = marked(text)
        if not (adds := mine - own - asked):
            return True
        # (what it adds beyond every right claim, where that leaves anything; a direction word
        # on a thing another right claim names, not its own point, is right too: "fewer
        # mantissa bits", but not "more micro-batches" against "many micro-batches")
        adds = {
            w
            for w in adds - right
            if ">" not in w or w.split(">")[1] not in right or w.split(">")[1] in own
        } or adds
        # (nor does a count the question gives: "eight GPUs" against "Training scales from
        # 1→8 GPUs ...")
        shared = {w for w in adds & said if _count(w) not in given}
        if not shared or any(_flip(w) in said for w in adds):
            return False
        about = {w for w in mine & own if w[0] != "-" and ">" not in w} - asked
        return back or not about or bool(about & where) or _same_opening_name(text, part)

    return any(says(text) for text in wrong.texts)


def _same_opening_name(claim: str, sentence: str) -> bool:
    """Both open on the same name: the claim's subject is the sentence's."""
    first = [names_in(t[:40])[:1] for t in (claim, sentence)]
    return (
        bool(first[0])
        and first[0] == first[1]
        and all(
            t.lstrip().lower().startswith(f[0])
            for t, f in zip((claim, sentence), first, strict=True)
        )
    )


# A sentence that opens on what was said before names its subject there.
_REFERS_BACK = re.compile(r"^\W*(?:it|its|this|that|they|these|those|which|so|and|but)\b", re.I)


_COUNTS = {stem(w): float(n) for w, n in NUMBER_WORDS.items()}


def _count(word: str) -> float | None:
    """The number a marked word is, if it is one."""
    word = word.lstrip("-")
    try:
        return float(word)
    except ValueError:
        return _COUNTS.get(word)


def _flip(word: str) -> str:
    """A marked word said the other way ("-lost" <-> "lost"); none for a direction pair."""
    if ">" in word:
        return ""
    return word[1:] if word[0] == "-" else f"-{word}"


_CLAUSES = re.compile(r"[,;:.!?()]|\s[-–—]+\s|\bbut\b")
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9+\-]*")
_NOT = re.compile(r"(?:(?<=ca)n|n)[’']t\b|(?<=can)not\b", re.I)
_NEGATOR = frozenset({"no", "not", "never", "without", "none", "nothing", "neither", "nor"})
# A denied verb's manner goes with it: "don't proceed in parallel" does not say "handled in
# parallel at no extra cost".
_ADVERBIAL = frozenset({"in", "at", "for"})
_INTENSIFIER = frozenset({"real", "big", "major", "significant", "serious", "actual", "extra"})


def _marked(text: str) -> set[str]:
    """A text's words as it says them: the word a negation takes is marked ("-downside"), and a
    direction word goes with the word it qualifies ("only>optim", "more>mantis": "0% can only
    be a bug" and "only says whether a kernel ran" share no word)."""
    out: set[str] = set()
    for clause in _CLAUSES.split(_NOT.sub(" not", text)):
        # Two capitals are a name ("TP", "OS"); two small letters are not a word that tells.
        tokens = [t if len(t) == 2 and t.isupper() else t.lower() for t in _TOKEN.findall(clause)]
        tokens = [_BASE.get(t, t) for t in tokens]
        negated = 0  # tokens left in a negation's reach; it takes the next content word
        denied = False  # the last word taken was denied: its "in parallel", "at once" too
        for n, t in enumerate(tokens):
            if t in _NEGATOR:
                negated = 3
                continue
            if denied and t in _ADVERBIAL:
                negated = 2
                continue
            denied = False
            negated -= 1
            if t in _DIRECTION:
                head = next((u for u in tokens[n + 1 : n + 4] if _content(u)), "")
                out.add(f"{t}>{stem(head.lower())}" if head else t)
            elif _content(t):
                out.add(("-" if negated >= 0 else "") + stem(t.lower()))
                denied = negated >= 0
                if t not in _INTENSIFIER:  # "no real downside"
                    negated = -1
    return out


def _content(token: str) -> bool:
    return (
        token not in _PLAIN
        and token not in _DIRECTION
        and (len(token) > 2 or token.isupper() or any(c.isdigit() for c in token))
    )
