"""Two things' descriptions exchanged, against a row's own reference answer.

A batch row's reference is prose, where the roles checks misread which thing a word belongs
to, so their swaps are not trusted there (`case._SURE_AGAINST_PROSE`), and the NLI model reads
past which thing a clause is about: "A thread is an instance of a program with its own
address space" covered "A process is an instance of a program with its own address space"
and the swapped answer scored 5/5. This check compares descriptions instead of reading
roles: each clause of the answer about one of the two things the question names, with both
things' words taken out, against the reference's clauses about each. One much nearer what the
reference says of the other thing (and not near what it says of its own) is that thing's
description said of this one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from .compared import compared
from .sentences import split_sentences
from .things import names_in
from .words import stem

Pair = tuple[frozenset[str], frozenset[str]]

# Nearer the other thing's description than its own by this much (cosine), and near it: on the
# dev parts with their own references a right answer's clause came 0.13 nearer the other
# thing's ("The salt crystals were fat and had designs on"), swapped ones 0.16-0.6.
GAP = 0.15
FLOOR = 0.5
LEAD = 4  # a clause is about the thing named in its first words (later, an object)
MIN_WORDS = 3  # a description shorter than this says too little to compare
NAME_WORDS = 2  # the most words that tell two compared things apart

_CLAUSE = re.compile(
    r";\s*|,?\s+(?:while|whereas|but)\s+"
    # ", GDDR uses ...": a new subject after a comma
    r"|,\s+(?=(?:and\s+)?(?:the\s+|an?\s+)?[\w+-]+\s+(?:is|are|has|have|uses?|gives?)\b)",
    re.I,
)
_LABEL = re.compile(r"^((?:\S+\s+){0,2}\S+):\s+(.*)$")  # "Data parallel: replicate the model ..."
# (a word of comparison between them, and for "faster than" one word before it)
_BESIDE = r"\s*(?:and|or|vs\.?|versus|instead\s+of|(?:\w+\s+)?than|,)\s+"
_WORD = re.compile(r"[A-Za-z][\w+\-]*")
_NEGATED = re.compile(r"\b(?:not|no|never|neither|nor|without|unlike)\b|n't\b", re.I)


def pairs_compared(question: str, reference: str) -> list[Pair]:
    """The two things the question compares: "the difference between a process and a thread"
    (the words that tell them apart), or two names the question and the reference both use."""
    if pair := compared(question):
        # (two short names: "parameter-server architectures with asynchronous updates" and
        # "synchronous ring-allreduce training" share too many words with what they do)
        return [pair] if max(len(pair[0]), len(pair[1])) <= NAME_WORDS else []
    said = _stems(reference)
    names = [n for n in dict.fromkeys(names_in(question)) if stem(n.lower()) in said]
    return [
        (frozenset({stem(a.lower())}), frozenset({stem(b.lower())}))
        for i, a in enumerate(names)
        for b in names[i + 1 :]
        if stem(a.lower()) != stem(b.lower())
        and (_joined(question, a, b) or _joined(question, b, a))
    ]


def _joined(question: str, first: str, second: str) -> bool:
    """The question sets the two names side by side: "HBM and GDDR", "BF16 instead of FP16",
    "GPUs faster than CPUs" (not "a 1B-parameter transformer on 1024 GPUs")."""
    a, b = (re.escape(n) for n in (first, second))
    side_by_side = rf"(?<![\w-]){a}s?\W{{0,2}}{_BESIDE}(?:the\s+|an?\s+)?{b}s?\b"
    return bool(re.search(side_by_side, question, re.I))


def _stems(text: str) -> set[str]:
    return {stem(w.lower()) for w in _WORD.findall(text)}


def _named(text: str, pair: Pair) -> list[int]:
    found = _stems(text)
    return [n for n, thing in enumerate(pair) if found & thing]


def _description(text: str, pair: Pair) -> str:
    both = pair[0] | pair[1]
    return " ".join(w for w in text.split() if not _stems(re.sub(r"'s\b", "", w)) & both)


def parts(text: str, pair: Pair) -> list[tuple[str, int, str]]:
    """(clause as written, which thing it is about, its description): the clauses that name
    one of the two things in their first words, or follow a label naming one ("Tensor
    parallel: shard each layer ...")."""
    out = []
    for sentence in split_sentences(text):
        label = None
        if (m := _LABEL.match(sentence)) and len(lead := _named(m.group(1), pair)) == 1:
            label, sentence = lead[0], m.group(2)
        for clause in _CLAUSE.split(sentence):
            clause = clause.strip(" .")
            lead = _named(" ".join(clause.split()[:LEAD]), pair)
            about = lead[0] if len(lead) == 1 else (label if not lead else None)
            label = None  # the label's clause only: "..., while a PS ..." is about another
            if about is not None:
                out.append((clause, about, _description(clause, pair)))
    return out


def exchanged(
    question: str,
    points: Sequence[str],
    answer: str,
    embed: Callable[[Sequence[str]], np.ndarray],
) -> dict[int, str]:
    """Key point index -> the answer's clause that says that point's description of the other
    of the question's two things."""
    out: dict[int, str] = {}
    for pair in pairs_compared(question, " ".join(points)):
        ref = [(n, about, d) for n, p in enumerate(points) for _, about, d in parts(p, pair)]
        if {about for _, about, _ in ref} != {0, 1}:
            continue
        # Only a clause that names one of the two things, and affirms: "HBM is not chips on
        # the board" describes it by the other's description, denied.
        said = [
            (clause, about, d)
            for clause, about, d in parts(answer, pair)
            if len(_named(clause, pair)) < 2
            and not _NEGATED.search(clause)
            and len(d.split()) >= MIN_WORDS
        ]
        if not said:
            continue
        vecs = embed([d for *_, d in ref] + [d for *_, d in said])
        ref_vecs, said_vecs = vecs[: len(ref)], vecs[len(ref) :]
        for (clause, about, _), v in zip(said, said_vecs, strict=True):
            sims = ref_vecs @ v
            own = max(float(sims[i]) for i, r in enumerate(ref) if r[1] == about)
            other = max((i for i, r in enumerate(ref) if r[1] != about), key=lambda i: sims[i])
            if sims[other] >= FLOOR and sims[other] - own >= GAP:
                out.setdefault(ref[other][0], clause)
    return out
