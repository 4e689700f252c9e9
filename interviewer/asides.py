"""Text that is not about the question (pleasantries, appeals, self-praise, padding): found
so that an answer is graded on the rest and padding never earns a point."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from .case import holders
from .claims import Verdicts
from .features import Analysis, Cache
from .records import ReferenceSet
from .sentences import ABBREV, split_sentences
from .words import content_words, distinctive

# A candidate segment whose own vector is less similar than this to each text of the question
# and its reference material is not about the question. On the dev parts (Mohler fold 0,
# in-domain dev) it set aside 26 segments of 585 answers (Mohler r 0.5394 -> 0.5401, in-domain
# unchanged).
ASIDE_SIM = 0.3
_POINTS_BACK = re.compile(
    r"\W*(?:it|its|it's|they|their|them|these|those|this|that|such|so|which)\b", re.I
)


# A sentence typed or spoken on without a full stop ("... data center uses HBM Thanks for the
# question"): a capitalised word (not an acronym) right after a word is where the next begins;
# so is a word typed in lower case after a full stop ("... best practices. cheers for the
# puzzle, I enjoyed it"), but not after an abbreviation ("e.g. you can").
_RUN_ON = re.compile(
    r"(?<=[\w)%])\s+(?=(?:I|[A-Z][a-z']+)\b)"
    r"|(?<=\w[.!?])\s+(?=[a-z])"
)

# What padding is like, in each of its kinds (pleasantries, appeals, self-praise, anecdotes,
# offers): a candidate at least as near to these as to the question's material is not about
# the question, however near the material it sits (generic sentences sit at 0.3-0.4 of
# anything). Written for the kinds, not taken from the padding eval's sentences. On the dev
# parts the padding segments sat 0.08 or more nearer to these than to the material, every
# other candidate at or above ASIDE_SIM 0.045 or more nearer to the material: padding appended
# to the in-domain dev answers raised 8 of 480 scores before, 0 now, and lowered 3, now 0
# (evals/injection.py --padding; 59 higher without any of this); Mohler dev r 0.5401 -> 0.5403.
GENERIC = (
    "Thank you for asking me this.",
    "What an interesting question.",
    "I hope my answer is helpful and complete.",
    "I believe my explanation is correct and deserves a good mark.",
    "Please tell me if you need me to clarify anything.",
    "I can explain it further or give examples if you want.",
    "I am really passionate about this subject.",
    "I have many years of experience in this field.",
    "At my previous company my team dealt with this all the time.",
    "I prepared a lot for this interview and I feel ready.",
    "This is a very important topic for everyone in the industry.",
    "I have read many articles and watched many talks about it.",
    "That is everything I wanted to say about it.",
    "I really enjoy solving problems like these.",
    "My colleagues often come to me with questions about this.",
)
GENERIC_MARGIN = 0.0

# Words after which "I" goes on the same sentence ("that's how I'd", "so I would"); after any
# other word ("... torch dot compile does this I spent last year on it") it starts a new one.
_JOINS = frozenset(
    """and but or nor so yet that how what when where why which who whom whose if because since
    as than while though although unless until whether once before after then think guess mean
    say said know hope believe feel would could should""".split()  # noqa: SIM905
)
# A capitalised word followed by a lower-case one, after a lower-case word that is not an
# article, preposition or conjunction ("... same path Happy to go deeper"): not a name of
# several capitalised words ("a Linked List", "First In, First Out"), nor a name after a
# preposition ("... visited from left to right, with Push and Pop methods.").
_BEFORE_NAME = frozenset(
    """a an the and or nor of in on at by for from to into onto with without via like as than
    called named""".split()  # noqa: SIM905
)
_PLAIN_START = re.compile(r"[A-Z][a-z']+\s+[a-z]")
# Typed or spoken on without any full stop ("... torch dot compile does this Kernels, tensors,
# throughput: fascinating stuff", "... compute at the same time thanks for having me"): for the
# reading that keeps whatever decides a verdict, a capitalised word or an acronym before a
# lower-case one (not a name of several: "like Isaac Lab or MJX"), a word of the candidate's
# own or one that opens a remark, after a lower-case word that does not lead into a name, may
# begin a sentence.
_TYPED_ON = re.compile(
    r"(?<=[a-z,])\s+(?="
    r"[A-Z][a-z']+,?\s+[^A-Z\s]"  # a capitalised word, not a name of several
    r"|[A-Z]{2,}\s+[a-z]"  # an acronym before a lower-case word
    r"|[AI]\b"
    r"|(?:i|i'd|i'm|i've|i'll|im|ive|my|thanks|thank"  # the candidate's own
    r"|yeah|honestly|anyway|anyways|btw|lmk|lol|haha|hope|ok|okay)(?=[\s,])"  # opens a remark
    r")"
)
_SELF = re.compile(r"\b(?:i|i'd|i'm|i've|i'll|im|ive|my|me|myself|we|our|us)\b", re.I)
_YOU = re.compile(r"\b(?:you|your|thanks|thank)\b", re.I)


def of_the_candidate(text: str) -> bool:
    """Speaks of the candidate ("Back when I was at a startup, we had ...")."""
    return bool(_SELF.search(text))


def material(question: str, refs: ReferenceSet) -> list[str]:
    """The question and everything an answer to it is judged against: the reference texts and
    their key points, and the rubric's key points (a question the guides pose without an
    answer has only the rubric)."""
    rubric = [k.text for k in refs.rubric.key_points] if refs.rubric is not None else []
    return [question, *(t for r in refs.answer_keys for t in (r.text, *r.key_points)), *rubric]


def _parts(an: Analysis) -> list[str]:
    """The answer's segments of three words or more (not the whole answer or the whole
    sentences the claim checker also reads, each holding segments)."""
    held = holders(an.sentences)
    return [t for i, t in enumerate(an.sentences) if i not in held and len(t.split()) >= 3]


def _last_word(text: str) -> str:
    words = re.findall(r"[\w']+", text.lower())
    return words[-1] if words else ""


def _run_on(segment: str, typed: bool = False) -> tuple[str, list[str]]:
    """A segment's head and the sentences that run on at its end without a full stop, each
    from where it begins: those that speak of the candidate or to the interviewer, and those
    that open like a sentence after an ordinary word (_PLAIN_START). Judging every capitalised
    word lowered Mohler dev r 0.5405 -> 0.5357 ("First In, First Out" is no new sentence).
    `typed`: also every sentence typed in lower case after a full stop ("... together. honestly
    cuda is the coolest thing ever") and those _TYPED_ON finds, for a reading that keeps
    whatever decides a verdict."""
    starts = {
        m.end()
        for m in _RUN_ON.finditer(segment)
        # "I" goes on a sentence after a word that joins clauses ("that's how I'd explain it")
        if (
            not re.match(r"I\b", segment[m.end() :])
            or _last_word(segment[: m.start()]) not in _JOINS
        )
        and not ABBREV.search(segment[: m.start()])
        and len(segment[: m.end()].split()) >= 3
        and len(segment[m.end() :].split()) >= 3
        and (
            _speaks(segment[m.end() :])
            or (typed and segment[m.start() - 1] in ".!?")
            or (
                _PLAIN_START.match(segment[m.end() :])
                and re.search(r"\b[a-z]+$", segment[: m.start()])
                and _last_word(segment[: m.start()]) not in _BEFORE_NAME
            )
        )
    }
    if typed:
        starts |= {
            m.end()
            for m in _TYPED_ON.finditer(segment)
            if re.search(r"(?:^|\s)[a-z][\w'-]*,?$", segment[: m.start()])
            and _last_word(segment[: m.start()]) not in _BEFORE_NAME | _JOINS
            and len(segment[: m.end()].split()) >= 3
            and len(segment[m.end() :].split()) >= 3
        }
    if not starts:
        return "", []
    at = sorted({_hedged(segment, n) for n in starts})
    return segment[: at[0]].strip(), [segment[n:] for n in at]


# A hedge just before the candidate's own remark is part of it ("... more compute not sure I
# nailed every detail"): left on the head, "not sure" tipped its reading (3 -> 4, `blind4`).
_HEDGE = re.compile(r"\b(?:(?:not|pretty|quite|fairly)\s+sure|honestly|tbh)[\s,]*$", re.I)


def _hedged(segment: str, start: int) -> int:
    m = _HEDGE.search(segment, max(0, start - 40), start)  # a hedge is a few words: no rescan
    return m.start() if m and len(segment[: m.start()].split()) >= 3 else start


# Speaks of the candidate, or thanks: what the second pass (`undecided`) sets aside when it
# decides nothing. Not "you" or "we": an explanation's generic subjects ("so you want them to
# take the same path" completes the point its sentence before began).
_ABOUT_ME = re.compile(r"\b(?:i|i'd|i'm|i've|i'll|my|me|myself|thanks|thank)\b", re.I)


def _speaks(text: str) -> bool:
    """Speaks of the candidate or to the interviewer."""
    return bool(_SELF.search(text) or _YOU.search(text))


def _suspect(text: str, words: set[str]) -> bool:
    """Speaks of the candidate or to the interviewer, or shares no word with the material."""
    return _speaks(text) or not content_words(text) & words


def aside_candidates(question: str, refs: ReferenceSet, an: Analysis) -> list[str]:
    """The answer's segments that may not be about the question, and the sentences that run
    on at their ends without a full stop. A sentence that points back ("It has a very wide
    bus.") is about what came before it, and read alone it loses that: never set aside,
    unless it speaks of the candidate ("This is one of my favourite areas, and I would love
    to work on it full time.")."""
    parts = _parts(an)
    run_on = [t for s in parts for head, tails in [_run_on(s)] for t in (head, *tails) if t]
    # A lone segment is never set aside (it is every segment): not worth embedding again.
    segs = list(dict.fromkeys([*(parts if len(parts) > 1 else ()), *run_on]))
    return [t for t in segs if not _POINTS_BACK.match(t) or _SELF.search(t)]


def read_alone(
    question: str, refs: ReferenceSet, an: Analysis, candidates: list[str]
) -> list[bool]:
    """Which candidates need a vector of their own: the suspect ones and the run-on parts.
    The others are tested only for being like padding, on the vector pooled in the answer
    (it leans toward the answer's topic, so this errs toward keeping them), which costs no
    second pass: an interview turn embeds its answer once."""
    points = [k for r in refs.answer_keys for k in r.key_points]
    points += [k.text for k in refs.rubric.key_points] if refs.rubric is not None else []
    # The words of the question and its key points: long reference passages share a word with
    # nearly anything ("Happy to go deeper or draw it on a whiteboard if that helps.").
    texts = [question, *points] if points else material(question, refs)
    words = set().union(*map(content_words, texts))
    return [t not in an.sentences or _suspect(t, words) for t in candidates]


def aside(
    question: str,
    refs: ReferenceSet,
    an: Analysis,
    candidates: list[str],
    vectors: np.ndarray,
    keep: Cache,
) -> tuple[str, ...]:
    """Of the candidates (the suspect ones embedded alone: a segment's vector pooled in its
    answer's context takes on the answer's topic), those not about the question: nearer to
    padding than to the material, or, for a suspect one (about the candidate, to the
    interviewer, or sharing no word with the material: "I think this is a really important
    topic", "Thanks for the question"), below ASIDE_SIM of all of it; none when that is every
    segment of the answer (it is then graded as it is). The vectors of the material and of
    GENERIC must be in `keep`."""
    if not candidates:
        return ()
    texts = material(question, refs)
    words = set().union(*map(content_words, texts))
    sims = (vectors @ np.stack([keep.vectors[t] for t in texts]).T).max(axis=1)
    generic = (vectors @ np.stack([keep.vectors[t] for t in GENERIC]).T).max(axis=1)
    parts = _parts(an)
    # A run-on sentence that does not speak of anyone ("... same path Happy to go deeper")
    # goes only for being like padding: one that shares no word with the material may be
    # content, right or wrong ("... from left to right, with Push and Pop methods.").
    plain = {t for s in parts for t in _run_on(s)[1] if not _speaks(t)}
    out = [
        t
        for t, sim, gen in zip(candidates, sims, generic, strict=True)
        if (sim < ASIDE_SIM and _suspect(t, words) and t not in plain)
        or gen - sim >= GENERIC_MARGIN
    ]
    # A segment whose head stays ("that's fine for training I feel confident.") loses only
    # what runs on after it.
    out = [t for t in out if t not in parts or not ((head := _run_on(t)[0]) and head not in out)]
    out += _greeting_before(an, out, words)
    return tuple(out) if any(t not in out for t in parts) else ()


def _greeting_before(an: Analysis, out: Sequence[str], words: set[str]) -> list[str]:
    """The words of fewer than three that open a sentence whose rest is set aside and share
    none with the material ("Good morning, and thank you for the opportunity ...", "Cheers,
    and thanks ..."): left behind alone they still tipped the fitted model (2 -> 3, padding
    `blind4`)."""
    found = []
    for t in out:
        at = an.text.find(t)
        if at <= 0:
            continue
        opening = re.split(r"[.!?]\s+", an.text[:at])[-1]
        head = re.sub(r"[,;:]?\s*(?:(?:and|but|so)\s*)?$", "", opening.strip(), flags=re.I)
        if head and len(head.split()) < 3 and not content_words(head) & words:
            found.append(head)
    return [h for h in dict.fromkeys(found) if h not in out]


def _in_own_words(text: str, verdicts: Verdicts, points: list[int]) -> bool:
    """The text shares a word beyond everyday English with a point it states (its text or a
    paraphrase)."""
    said = distinctive(text)
    return any(
        said & distinctive(" ".join(c.texts)) for c in (verdicts.points[n].claim for n in points)
    )


def undecided(
    an: Analysis,
    verdicts: Verdicts,
    claim_vecs: np.ndarray,
    embed: Callable[[list[str]], np.ndarray],
    every: bool = False,
) -> tuple[str, ...]:
    """The segments that speak of the candidate or thank ("I have worked with GPUs for years
    and this is one of the topics I care most about") and decide no verdict: they
    earn nothing, however near the material their words sit. A segment that states a key
    point stays (of a premise that holds several, the one nearest the point: `claim_vecs`,
    one row per verdict), and so does any part of a sentence that states something wrong (a
    wrong claim said in the first person is never hidden). None when that is every segment."""
    parts = _parts(an)
    right: dict[str, list[int]] = {}  # deciding text -> the key points it states
    for n, p in enumerate(verdicts.points):
        if p.verdict == "covered":
            held = [t for t in parts if t in p.evidence]
            if len(held) >= 2 and an.sentence_vecs is not None:
                vecs = an.sentence_vecs
                near = claim_vecs[n]
                held = [max(held, key=lambda t: float(vecs[an.sentences.index(t)] @ near))]
            for t in held or [p.evidence]:
                right.setdefault(t, []).append(n)
    # Beside text that states a point in the point's own terms, text that states points only
    # in words none of them use ("Whether it's inference or training, the goal is to keep
    # latency low ... without blowing the memory budget" for "It is essential for training
    # large models ... on limited GPU memory") is read again without, as text that decides
    # nothing is: field talk the model took for a point. A clause of a sentence that holds such
    # text stays ("..., and that dead time is the bubble"), and so do plain words alone ("Left
    # Child -> Parent -> Right Child" for an inorder traversal).
    if every and (tied := {t for t, ns in right.items() if _in_own_words(t, verdicts, ns)}):
        whole = split_sentences(an.text)
        right = {
            t: ns
            for t, ns in right.items()
            if t in tied or any(t in w and any(x in w for x in tied) for w in whole)
        }
    wrong = [p.evidence for p in verdicts.of("contradicted")]
    wrong += [m.evidence for m in verdicts.misconceptions]
    out, ask = [], []  # ask: (head, tail, points) for a tail run on in a sentence that decides
    for part in parts:
        head, tails = _run_on(part, every)
        for text in (head, *tails) if tails else (part,):
            if (
                (not every and not _ABOUT_ME.search(text))
                or text in right
                or any(text in e for e in wrong if e)
            ):
                continue
            if text != head and part in right:
                ask.append((head, text, right[part]))
            elif not (text == head and part in right):
                out.append(text)
    if ask:
        # The point was stated by the run-on part, not the head: a relative clause ("... the
        # kernel I wrote keeps tiles in shared memory") rather than padding.
        texts = list(dict.fromkeys(t for h, x, _ in ask for t in (h, x)))
        vec = dict(zip(texts, embed(texts), strict=True))
        for head, tail, points in ask:
            if min(float((vec[head] - vec[tail]) @ claim_vecs[n]) for n in points) > 0:
                out.append(tail)
    if every:  # the caller decides what is padding, and whether anything is left
        return tuple(out)
    return tuple(out) if out and content_words(without(an.text, out)) else ()


# Words of praise or enthusiasm: a segment built on one says how the candidate feels about the
# field ("Kernels, tensors, throughput: fascinating stuff."), whatever technical words it
# lists. Not "important" or "key": those carry points ("coalescing is key for memory-bound").
_PRAISE = re.compile(
    r"\b(?:fascinat\w*|cool(?:est|er)?|amazing|awesome|incredibl[ey]|exciting|thrilling"
    r"|fantastic|wonderful|beautiful|fun|love|loved|lovely|favou?rite|mind-blowing|neat)\b",
    re.I,
)


def praising(an: Analysis, verdicts: Verdicts) -> tuple[str, ...]:
    """The segments that hold the evidence of a covered key point but are built on praise
    (_PRAISE), when the answer has other segments: if the padding model also rules one
    padding, it earns nothing, even when its words happen to entail a point ("Kernels,
    tensors, throughput: fascinating stuff." for "coalescing is a key lever for memory-bound
    kernels"). The padding model alone misreads terse notes ("visit the root.")."""
    parts = _parts(an)
    if len(parts) < 2:
        return ()
    covered = verdicts.of("covered")
    return tuple(t for t in parts if _PRAISE.search(t) and any(t in p.evidence for p in covered))


def without(answer: str, parts: Sequence[str]) -> str:
    """The answer less these segments, with the commas and "and"s that joined them; a
    segment that ended its sentence leaves the full stop ("..., so I'd use DDP." -> ".")."""
    for part in parts:
        # The mark goes with what it ended: a question set aside leaves a full stop ("... longer
        # context Want me to whiteboard it?" is "... longer context.").
        answer = answer.replace(part, "\0" + ("." if part[-1] in ".!?" else ""))
    joined = r"[,;]\s*(?:(?:and|but|so|while)\s+)?"
    # A sentence's first segment takes the joiner after it ("X, and the KV cache ..." less X
    # is "the KV cache ...", not ", and the KV cache ...").
    answer = re.sub(r"(^|[.!?]\s+)\0" + joined, r"\1\0", answer)
    answer = re.sub(joined + r"\0([.!?])", r"\1", answer)
    # Elsewhere the segment goes and its sentence keeps its end: "... so you can see GPU
    # usage and health. For training ..." less "GPU usage and health." must not run on.
    answer = re.sub(r"(^|[.!?]\s+)(?:\0[.!?]?\s*)+", r"\1", answer)  # whole sentences
    answer = re.sub(rf"(?:{joined})?\0([.!?]?)\s*", r"\1 ", answer)
    return re.sub(r"\s+([,;.])", r"\1", " ".join(answer.split()))
