"""What a text is about: the named things it names (a compound or a common-noun thing as one
name), the subject each clause leads with, and the content words each clause binds to its
thing. The role, scope and number checks compare these bindings between a point and an answer.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .words import ENTITY, stem, terms

SUBJECT_SKIP = {"a", "an", "the", "so", "and", "but", "while", "whereas", "each", "every"}
# A count or an ordinal opens a sentence without naming a thing ("One correct approach
# records CUDA events ..." and "Two correct ways: ..." are not two things trading roles).
SUBJECT_SKIP |= {"one", "two", "three", "four", "first", "second", "third", "another", "other"}
# A clause led by one of these is about what came before it, not another entity ("Pinned
# memory ... That gives faster transfers" is no swap).
POINTS_BACK = {"it", "its", "that", "this", "these", "those", "they", "which", "such", "there"}
POINTS_BACK |= {"i", "you", "we"}  # the speaker, not a thing
# A clause that opens on an instruction names no thing ("Use mixed pools: keep coordinators
# ... on on-demand and put ... sweeps on spot" is advice, not a thing called "Use").
IMPERATIVES = {
    "use", "keep", "put", "watch", "avoid", "add", "call", "make", "try", "pick", "prefer",
    "increase", "reduce", "enable", "disable", "turn", "consider", "give", "let", "take",
    "ensure", "choose", "wrap", "remember", "note", "see", "look", "do", "don't", "go", "get",
    "switch", "replace", "cut", "drop", "start", "stop", "move", "apply", "raise", "lower",
}  # fmt: skip


# Words that open a clause on a condition or a circumstance, not on the thing it is about.
OPENERS = frozenset(
    {"if", "with", "when", "then", "often", "also", "both", "here", "now", "once", "since"}
    | {"for", "in", "on", "at", "by", "to", "of", "as", "after", "before", "because"}
)


def subject_of(clause: str) -> str:
    """The named thing a clause leads with ("" when it points back or opens on a common word)."""
    for word in re.findall(r"[A-Za-z][A-Za-z0-9+\-]*", clause):
        # (an adverb that opens a sentence is capitalised, not named: "Normally the CPU runs
        # ahead ..." is about the CPU)
        if word.lower() in SUBJECT_SKIP or (word.endswith("ly") and word[1:].islower()):
            continue
        if word.lower() in POINTS_BACK or word.lower() in IMPERATIVES:
            return ""
        return word.lower() if word[0].isupper() or any(ch.isdigit() for ch in word) else ""
    return ""


def compared_apart(first: str, second: str, question: str) -> bool:
    """The two texts lead with two different things, both of which the question names ("a
    CUDA core" and "a Tensor Core" of "What is a CUDA core vs a Tensor Core?")."""
    a, b = stem(subject_of(first)), stem(subject_of(second))
    return bool(a and b) and a != b and {a, b} <= stems(question)


def stems(text: str) -> set[str]:
    return {stem(w) for w in re.findall(r"[a-z0-9+\-]+", text.lower())}


_UNITS = {"tb", "gb", "mb", "kb", "ms", "us", "ns", "gbps", "tbps", "tflops", "pflops", "ghz"}
BIND_SPLIT = re.compile(r"[.;:!?]\s+|,\s*|\s+(?:and|while|whereas|but)\s+")
_WEAK = {"more", "less", "much", "very", "also", "only", "both", "each", "other", "there", "than"}


# A count with its magnitude ("70B" parameters, "4K" context, "8x" GPUs) is a number.
_COUNT = re.compile(r"\d+(?:\.\d+)?[kmbtx]")


def names_in(text: str) -> list[str]:
    """Named things (HBM, FP16, E4M3, H100, NVLink), not numbers or units."""
    out = []
    for n in ENTITY.findall(text):
        n = n.lower().strip("+-")
        if (
            any(ch.isalpha() for ch in n)
            and len(n) >= 2
            and n not in _UNITS
            and not _COUNT.fullmatch(n)
        ):
            out.append(n)
    return out


DENIED = re.compile(r"\b(?:not|no|never|without|cannot|avoids?|avoiding)\b|n't\b", re.I)
_USES = re.compile(r"\b(?:uses?|using)\s+([A-Za-z0-9+\-]+)")
# A clause about the one before: "..., so it requires fast interconnect like NVLink".
PRONOUN = re.compile(r"\s*(?:(?:so|and|thus|hence)\s+)?(?:it|they|this|which)\b", re.I)
# A list item that is a thing's activity ("waiting on data loading, CPU preprocessing, I/O")
# names no new subject: the GPU still waits on it.
_ATTRIBUTIVE = re.compile(r"\s*(?:(?:and|or)\s+)?[\w/+-]+\s+\w+ing\s*$", re.I)


# A name with more names or capitalised words right after it is one thing: "NVIDIA GPU
# Operator" is not NVIDIA and a GPU.
_WORD = re.compile(r"[A-Za-z0-9+\-]+")


def _things(clause: str) -> list[str]:
    """The named things a clause names, in order, a compound as one ("nvidia gpu operator")."""
    runs: list[list[str]] = []
    open_run = False
    end = 0
    for m in _WORD.finditer(clause):
        word = m.group()
        follows = open_run and clause[end : m.start()].isspace()
        if names_in(word) and ENTITY.fullmatch(word):
            if follows and _STAGE.fullmatch(word):
                runs[-1] = [word.lower()]  # "ZeRO stage 1" is stage 1
            elif follows:
                runs[-1].append(word.lower())
            else:
                runs.append([word.lower()])
            open_run = True
        elif follows and word[0].isupper() and word[1:].islower():
            runs[-1].append(word.lower())
        else:
            open_run = False
        end = m.end()
    return list(dict.fromkeys(" ".join(r) for r in runs))


# A numbered stage or level is a named thing: "stage 1 shards optimizer states, ... stage 3
# parameters" against "stage 1 shards the parameters, ..., stage 3 the optimizer states".
_NUMBERED = re.compile(r"\b(stage|level|tier|phase)[\s-]+([0-9])\b", re.I)
_STAGE = re.compile(r"(?:Stage|Level|Tier|Phase)[0-9]")


# The field's things that go by a common-noun name, which candidates trade as often as named
# ones ("keep data parallelism inside the node on NVLink and run tensor parallelism across
# nodes"; "L2 is private to each SM, while shared memory is shared across the GPU").
_COMPOUND = re.compile(
    r"\b(?:(?:data|tensor|pipeline|expert|sequence|context)[\s-]+parallel(?:ism)?"
    r"|(?:shared|global|local|constant|pinned|page-?locked|pageable|unified)[\s-]+memory"
    r"|(?:weak|strong)[\s-]+scaling|memory[\s-]+(?:bandwidth[\s-]+)?bound|compute[\s-]+bound"
    r"|(?:activation|gradient)[\s-]+checkpointing|gradient[\s-]+accumulation"
    r"|(?:spot|on-demand|reserved|preemptible)(?:[\s-]+(?:instances?|capacity|nodes?|VMs?))?)\b",
    re.I,
)
_TAIL = {"instance", "instances", "capacity", "node", "nodes", "vm", "vms"}
_SAME = {
    "PagelockedMemory": "PinnedMemory",
    "PageLockedMemory": "PinnedMemory",
    "Preemptible": "Spot",
    "MemoryBandwidthBound": "MemoryBound",
}


def _one_name(m: re.Match[str]) -> str:
    words = [w.lower() for w in re.split(r"[\s-]+", m.group())]
    words = ["parallel" if w == "parallelism" else w for w in words if w not in _TAIL]
    name = "".join(w.capitalize() for w in words)
    return _SAME.get(name, name) + "X"


def named_things(text: str) -> str:
    """The text with each numbered stage and common-noun thing written as one name
    ("tensor parallelism" as "TensorParallelX", "stage 1" as "Stage1")."""
    text = _NUMBERED.sub(lambda m: f"{m.group(1).capitalize()}{m.group(2)}", text)
    return _COMPOUND.sub(_one_name, text)


def bindings(text: str) -> dict[str, set[str]]:
    """The content words of each clause, by the named thing it is about: the first it names,
    or, naming none, the one before ("E5M2 the extra precision; each one ...")."""
    return {thing: set(words) for thing, words in _bound(text)}


# Every point is read against every answer and its siblings against it: the same texts come
# back thousands of times in a batch (a fresh copy each time, as callers add to it).
@lru_cache(maxsize=8192)
def _bound(text: str) -> tuple[tuple[str, frozenset[str]], ...]:
    names = {w for t in _things(named_things(text)) for w in t.split()}
    out: dict[str, set[str]] = {}
    for current, clause in bound_clauses(text):
        words = {t for t in terms(clause) if len(t) > 3 and t not in names | _WEAK}
        # A property denied is not the property: "BF16 ..., so you don't need loss
        # scaling" gives BF16 no loss scaling, not FP16's.
        denied = "¬" if DENIED.search(clause) else ""
        out.setdefault(current, set()).update(denied + w for w in words)
    return tuple((thing, frozenset(words)) for thing, words in out.items())


@lru_cache(maxsize=8192)
def bound_clauses(text: str) -> tuple[tuple[str, str], ...]:
    """Each clause (BIND_SPLIT's, its named things written as one name) with the named thing
    it is about: the first it names, or, naming none, the one before."""
    text = named_things(text)
    out: list[tuple[str, str]] = []
    current = None
    opening = False
    for clause in _clauses(text):
        if clause is None:
            opening = True
            continue
        # Of the things it names, those it is about: "... not chips on the board like GDDR"
        # is about HBM still.
        found = [t for t in _things(clause) if not _object_only(clause, t)]
        if opening and not found:
            # A sentence that opens on a word of its own and names no thing is about
            # something else ("... it doesn't leave the NVLink node. Pipeline goes across
            # nodes ..."); one that points back ("It ...") or opens on a condition or a
            # determiner is still about the thing before it.
            first = next(iter(re.findall(r"[A-Za-z][\w'-]*", clause)), "").lower()
            if first and first not in POINTS_BACK | SUBJECT_SKIP | OPENERS:
                current = None
        opening = False
        # "MPS is the hardware-level one: it carves the GPU into instances": "it" is MPS.
        if found and not PRONOUN.match(clause) and not _ATTRIBUTIVE.match(clause):
            # "FP8 uses E4M3 for weights": the weights go with E4M3, not with FP8.
            used = _things(m.group(1)) if (m := _USES.search(clause)) else []
            current = (used or found)[0]
        if current is not None:
            out.append((current, clause))
    return tuple(out)


SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _clauses(text: str) -> list[str | None]:
    """The text's clauses, BIND_SPLIT's, with None between sentences."""
    out: list[str | None] = []
    for sentence in SENTENCE_END.split(text):
        if out:
            out.append(None)
        out.extend(_split(sentence))
    return out


# Two names joined by "and" before a verb that agrees with both are one subject: "GPUs such
# as the A100 and H100 use HBM" is not a clause about the A100 and another about the H100.
# Read whole, the clause binds to the first name; the second's own part follows it, so "FP16
# and BF16 use two bytes" binds the bytes to both.
_NAME_AT_END = re.compile(r"[A-Za-z0-9+\-]+\s*$")
_NAMES_ONE_SUBJECT = re.compile(r"([A-Za-z0-9+\-]+)\s+(?!is\b|was\b|has\b|does\b|\w+s\b)\w+")


def _split(sentence: str) -> list[str]:
    parts, start = [], 0
    for m in BIND_SPLIT.finditer(sentence):
        end = start
        if m.group().strip() == "and":
            name = _NAME_AT_END.search(sentence, 0, m.start())
            head = _NAMES_ONE_SUBJECT.match(sentence, m.end())
            if name and head and _named(name.group()) and _named(head.group(1)):
                nxt = BIND_SPLIT.search(sentence, m.end())
                end = nxt.start() if nxt else len(sentence)
        parts.append(sentence[start : max(end, m.start())])
        start = m.end()
    return [*parts, sentence[start:]]


def _named(word: str) -> bool:
    return bool(names_in(word)) and bool(ENTITY.fullmatch(word.strip()))


# A thing after one of these is where or over what, not what the clause is about: "... across
# the data-parallel GPUs", "so with N GPUs each holds 1/N".
_OBJECT_BEFORE = re.compile(
    r"\b(?:across|among|between|over|onto|into|to|from|with\s+(?:n|\d+|[a-z]+ty|two|four|eight))"
    r"(?:\s+(?:the|all|its|their|those|these|data-parallel|each|every))*\s*$"
    r"|\b(?:each|every|per|any)\s*$"  # "every GPU holds a full copy": any one of them
    # inside a relative clause: "the underflow that makes FP16 need loss scaling" is BF16's
    r"|\b(?:that|which)\s+(?:[a-z]+\s+)?$"
    # what it is compared with: "fewer mantissa bits than FP16", "the same range as FP32"
    r"|\b(?:than|like|unlike|same\s+(?:\w+\s+)?as|as\s+\w+\s+as|like(?:\s+\w+){1,3}\s+(?:in|on|with))"
    r"(?:\s+(?:the|a|an|in|on))*\s*$",
    re.I,
)


def _object_only(clause: str, thing: str) -> bool:
    """The thing comes after a preposition of place or count, or what it is compared with."""
    at = re.search(rf"(?<![\w-]){re.escape(thing.split()[0])}(?![\w-])", clause, re.I)
    return bool(at and _OBJECT_BEFORE.search(clause[: at.start()]))
