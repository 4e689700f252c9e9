"""Who does what: the exact checks that read which named thing an answer gives a property to.
A fluent wrong answer often keeps every word of the point and trades the roles ("Tensor Cores
are scalar units, while CUDA cores are the matrix units"); the NLI model sees the words, not
the binding. Also: whether a sentence is about another named thing than a claim.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import combinations

from .actions import action_turned
from .exact import exact_contradiction
from .polarity import (
    location_flipped,
    property_flipped,
    ratio_inverted,
    trend_flipped,
    verb_flipped,
)
from .words import ENTITY, terms


def first_contradiction(point: str, sentences: list[str]) -> str | None:
    """The first sure contradiction (exact_contradiction, swapped_roles, action_turned,
    property_flipped, verb_flipped, location_flipped, trend_flipped, ratio_inverted) in
    these sentences."""
    checks = _sound_checks(point)
    for sentence in sentences:
        for check in checks:
            if found := check(point, sentence):
                return found
    return None


@lru_cache(maxsize=4096)
def _sound_checks(point: str) -> tuple[Callable[[str, str], str | None], ...]:
    """The checks that find the point consistent with itself: one that reads the point as
    contradicting itself ("Both support BF16 natively ..., while H100 adds FP8" read as a
    swap) says nothing about an answer to it."""
    checks = (
        exact_contradiction,
        swapped_roles,
        action_turned,
        property_flipped,
        verb_flipped,
        location_flipped,
        trend_flipped,
        ratio_inverted,
    )
    return tuple(c for c in checks if not c(point, point))


# "..., and", "; ", "while"; and a bare "and" when a named thing and its verb follow it
# ("Tensor Cores are the scalar units and CUDA cores are the matrix units").
_CLAUSE = re.compile(
    r",\s*(?:while|whereas|but|and)\s+|;\s*|\s+(?:while|whereas)\s+|\.\s+"
    r"|\s+and\s+(?=[A-Z][\w+\-]*[A-Z0-9][\w+\-]*(?:\s+\w+)?\s+(?:is|are|does|do|has|have)\b)"
)
_SUBJECT_SKIP = {"a", "an", "the", "so", "and", "but", "while", "whereas", "each", "every"}
# A count or an ordinal opens a sentence without naming a thing ("One correct approach
# records CUDA events ..." and "Two correct ways: ..." are not two things trading roles).
_SUBJECT_SKIP |= {"one", "two", "three", "four", "first", "second", "third", "another", "other"}
# A clause led by one of these is about what came before it, not another entity ("Pinned
# memory ... That gives faster transfers" is no swap).
_POINTS_BACK = {"it", "its", "that", "this", "these", "those", "they", "which", "such", "there"}
_POINTS_BACK |= {"i", "you", "we"}  # the speaker, not a thing


def _subject(clause: str) -> str:
    for word in re.findall(r"[A-Za-z][A-Za-z0-9+\-]*", clause):
        if word.lower() in _SUBJECT_SKIP:
            continue
        if word.lower() in _POINTS_BACK:
            return ""
        return word.lower() if word[0].isupper() or any(ch.isdigit() for ch in word) else ""
    return ""


def swapped_roles(point: str, sentence: str) -> str | None:
    """The point says X does P; the sentence says Y does P and X does something else
    ("Tensor Cores are scalar units, while CUDA cores are the matrix units")."""
    subject = _subject(point)
    if not subject:
        return None
    clauses = [c for c in _CLAUSE.split(sentence) if c.strip()]
    by_subject = {_subject(c): set(terms(c)) for c in clauses}
    return _role_taken(point, subject, by_subject, set(by_subject))


def _role_taken(
    point: str,
    subject: str,
    by_subject: dict[str, set[str]],
    others: set[str],
    shared: frozenset[str] | set[str] = frozenset(),
) -> str | None:
    """Another subject's clauses say what the point says of `subject`, clearly more than the
    subject's own do (`shared` words count for neither)."""
    if subject not in by_subject:
        return None
    words = set(terms(point)) - {subject} - set(shared)
    own = len(words & by_subject[subject])
    for other in others & set(by_subject) - {subject, ""}:
        if len(words & by_subject[other]) >= max(2, 2 * own + 1):
            return "exact:swapped"
    return None


# ------------------------------------------------------------------ roles across an answer
_UNITS = {"tb", "gb", "mb", "kb", "ms", "us", "ns", "gbps", "tbps", "tflops", "pflops", "ghz"}
_BIND_SPLIT = re.compile(r"[.;:!?]\s+|,\s*|\s+(?:and|while|whereas|but)\s+")
_WEAK = {"more", "less", "much", "very", "also", "only", "both", "each", "other", "there", "than"}


def _names(text: str) -> list[str]:
    """Named things (HBM, FP16, E4M3, H100, NVLink), not numbers or units."""
    out = []
    for n in ENTITY.findall(text):
        n = n.lower().strip("+-")
        if any(ch.isalpha() for ch in n) and len(n) >= 2 and n not in _UNITS:
            out.append(n)
    return out


def about_another(claim: str, sentence: str) -> bool:
    """The sentence is about another named thing than the claim: the claim's first name (its
    subject, "MPS gives each tenant hardware-isolated memory") is absent from the sentence,
    which leads with another ("MIG partitions an H100 into isolated instances"), or opens on a
    condition and names others ("If tenants aren't trusted, I'd go with MIG, since it gives
    hardware isolation")."""
    mine, theirs = _names(claim), _names(sentence)
    lead = _subject(sentence)  # "" when the sentence points back ("It has lower bandwidth")
    # A condition names another thing only with a name the claim does not ("On an A100 you can
    # go up to 16 instances" is about the A100 of "MIG can split an A100 into ... 16").
    opens = lead in _OPENERS and bool(set(theirs) - set(mine))
    return bool(mine and (lead in theirs or opens) and mine[0] not in theirs)


def names_subject(claim: str, sentence: str) -> bool:
    """The sentence names the claim's first named thing (True for a claim that names none)."""
    mine = _names(claim)
    return not mine or mine[0] in _names(sentence)


_CONTRAST = re.compile(
    r"\b(?:versus|vs\.?|compared (?:to|with)|against|whereas|while|unlike)\b", re.I
)


def contrasted(claim: str, sentence: str) -> bool:
    """The claim ties two named things together ("The H100 uses GDDR6X memory"); the sentence
    names both on either side of a contrast ("3+ TB/s on an H100 SXM versus roughly 1 TB/s on a
    GDDR6X card"): it sets them apart, not together."""
    names = list(dict.fromkeys(_names(claim)))
    if len(names) != 2:
        return False
    low = sentence.lower()
    at = [re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", low) for n in names]
    if not all(at):
        return False
    a, b = sorted(m.start() for m in at if m)
    return bool(_CONTRAST.search(sentence[a:b]))


_DENIED = re.compile(r"\b(?:not|no|never|without|cannot|avoids?|avoiding)\b|n't\b", re.I)
_USES = re.compile(r"\b(?:uses?|using)\s+([A-Za-z0-9+\-]+)")
# A clause about the one before: "..., so it requires fast interconnect like NVLink".
_PRONOUN = re.compile(r"\s*(?:(?:so|and|thus|hence)\s+)?(?:it|they|this|which)\b", re.I)


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
        if _names(word) and ENTITY.fullmatch(word):
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
    r"|(?:weak|strong)[\s-]+scaling"
    r"|(?:activation|gradient)[\s-]+checkpointing|gradient[\s-]+accumulation"
    r"|(?:spot|on-demand|reserved|preemptible)(?:[\s-]+(?:instances?|capacity|nodes?|VMs?))?)\b",
    re.I,
)
_TAIL = {"instance", "instances", "capacity", "node", "nodes", "vm", "vms"}
_SAME = {"PagelockedMemory": "PinnedMemory", "PageLockedMemory": "PinnedMemory"}


def _one_name(m: re.Match[str]) -> str:
    words = [w.lower() for w in re.split(r"[\s-]+", m.group())]
    words = ["parallel" if w == "parallelism" else w for w in words if w not in _TAIL]
    name = "".join(w.capitalize() for w in words)
    return _SAME.get(name, "Spot" if name == "Preemptible" else name) + "X"


def _named_things(text: str) -> str:
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
    text = _named_things(text)
    out: dict[str, set[str]] = {}
    names = {w for t in _things(text) for w in t.split()}
    current = None
    for clause in _BIND_SPLIT.split(text):
        found = _things(clause)
        # "MPS is the hardware-level one: it carves the GPU into instances": "it" is MPS.
        if found and not _object_only(clause, found[0]) and not _PRONOUN.match(clause):
            # "FP8 uses E4M3 for weights": the weights go with E4M3, not with FP8.
            used = _things(m.group(1)) if (m := _USES.search(clause)) else []
            current = (used or found)[0]
        if current is not None:
            words = {t for t in terms(clause) if len(t) > 3 and t not in names | _WEAK}
            # A property denied is not the property: "BF16 ..., so you don't need loss
            # scaling" gives BF16 no loss scaling, not FP16's.
            denied = "¬" if _DENIED.search(clause) else ""
            out.setdefault(current, set()).update(denied + w for w in words)
    return tuple((thing, frozenset(words)) for thing, words in out.items())


# A thing after one of these is where or over what, not what the clause is about: "... across
# the data-parallel GPUs", "so with N GPUs each holds 1/N".
_OBJECT_BEFORE = re.compile(
    r"\b(?:across|among|between|over|onto|into|to|from|with\s+(?:n|\d+|[a-z]+ty|two|four|eight))"
    r"(?:\s+(?:the|all|its|their|those|these|data-parallel|each|every))*\s*$"
    r"|\b(?:each|every|per|any)\s*$",  # "every GPU holds a full copy": any one of them
    re.I,
)


def _object_only(clause: str, thing: str) -> bool:
    """The clause's first thing comes after a preposition of place or count."""
    at = re.search(rf"(?<![\w-]){re.escape(thing.split()[0])}(?![\w-])", clause, re.I)
    return bool(at and _OBJECT_BEFORE.search(clause[: at.start()]))


def _lead(point: str, bound: dict[str, set[str]]) -> str:
    """The thing the point is about, as `bindings` names it: its first thing, if it opens on
    a name, or the first name after an opening phrase ("For hard isolation ..., MIG carves the
    GPU into ...")."""
    point = _named_things(point)
    subject = _subject(point)
    if subject in _OPENERS:
        # The name must open its part: "each GPU stores ..." is one of "N GPUs", not a thing.
        parts = [part.split() for part in point.split(",")[1:]]
        firsts = (words[0].lower() for words in parts if words)
        subject = next((h for h in firsts if h not in _OPENERS and h in bound), "")
    return next((t for t in bound if subject and t.split()[0] == subject), "")


def _pairs(text: str) -> set[tuple[str, str]]:
    return {(name, w) for name, words in bindings(text).items() for w in words}


def binds_like(sentence: str, first: str, second: str) -> int:
    """Which of two texts that trade roles (a key point and the misconception that swaps them)
    the sentence gives the same named things the same words as: 1 the first, -1 the second, 0
    neither clearly or no such pair. The models read words, not who they belong to: "E5M2 for
    the weights and E4M3 for gradients" entails and embeds as near the point (E4M3 for
    weights) as the misconception."""
    if not swapped_binding(first, second):
        return -1 if _tied(sentence, first, second) else 0
    said = _pairs(sentence)
    a, b = len(said & _pairs(first)), len(said & _pairs(second))
    return 1 if a > b else -1 if b > a else 0


def _tied(sentence: str, point: str, wrong: str) -> bool:
    """The misconception ties two named things ("The H100 uses GDDR6X memory"), the point
    ties the first to another ("... the A100 and H100 use HBM"), and a clause of the sentence
    ties the misconception's two, without the point's other, a denial or a contrast ("...,
    which is why NVIDIA puts GDDR6X on the H100")."""
    names = list(dict.fromkeys(_names(wrong)))
    if len(names) != 2:
        return False
    a, b = names
    others = {
        n
        for clause in _BIND_SPLIT.split(point)
        if a in (found := _names(clause))
        for n in found
        if n not in (a, b)
    }
    if not others:
        return False
    for clause in _BIND_SPLIT.split(sentence):
        found = _names(clause)
        if (
            a in found
            and b in found
            and not any(n.startswith(o) or o.startswith(n) for n in found for o in others)
            and not _DENIED.search(clause)
            and not _CONTRAST.search(clause)
        ):
            return True
    return False


_NOT_HEADS = {"is", "are", "was", "were", "has", "have", "does", "do", "can", "will", "uses"}
_NOT_HEADS |= {"use", "gives", "give", "keeps", "runs", "sets", "splits", "and", "or", "with"}
# Sentence openers, not things: "If one rank ...", "With checkpointing ...".
_OPENERS = {"if", "with", "when", "then", "often", "also", "both", "here", "now", "once", "since"}
_OPENERS |= {"for", "in", "on", "at", "by", "to", "of", "as", "after", "before", "because"}


def swapped_kinds(point: str, text: str) -> str | None:
    """swapped_roles across a whole answer, between things of one kind ("CUDA cores" and
    "Tensor Cores": a name, then the same noun). Across sentences every clause of a subject
    counts as its own, and a list's headings ("Hardware: ...") are no such things."""
    words = re.findall(r"[A-Za-z][A-Za-z0-9+\-]*", point)
    subject = _subject(point)
    at = [w.lower() for w in words].index(subject) if subject else -1
    head = words[at + 1] if 0 <= at < len(words) - 1 else ""
    # "Tensor Core" as well as "Tensor core": a noun, either case, not a verb or a name.
    if not (head.isalpha() and head[1:].islower() and len(head) >= 3):
        return None
    head = head.lower()
    if head in _NOT_HEADS:
        return None
    kin = re.compile(rf"\b([A-Z][\w+\-]*)\s+(?i:{re.escape(head.rstrip('s'))})s?\b")
    others = {
        o
        for m in kin.finditer(text)
        if (o := m.group(1).lower()) != subject
        and o not in _OPENERS | _SUBJECT_SKIP | _POINTS_BACK
        and not o.endswith(("ing", "ly"))
    }
    if not others:
        return None
    by_subject: dict[str, set[str]] = {}
    for clause in _CLAUSE.split(text):
        if clause.strip():
            by_subject.setdefault(_subject(clause), set()).update(terms(clause))
    # The shared noun names both things, so it is no property of either.
    return _role_taken(point, subject, by_subject, others, {head, head.rstrip("s")})


def swapped_binding(point: str, text: str, siblings: Sequence[str] = ()) -> str | None:
    """Two named things trade properties: the point gives A one and B another, the answer
    gives A B's and B A's ("E4M3 with more precision and E5M2 with more range" against "E4M3
    has the wider range and E5M2 the extra precision"), each way at least once and more often
    crossed than not. B's may come from another key point about it (`siblings`): "PCIe is the
    narrow general-purpose bus" and "NVLink is a dedicated GPU-to-GPU interconnect" against
    "NVLink is the narrow general-purpose bus ... PCIe is the dedicated interconnect"."""
    p, s = bindings(point), bindings(text)
    pairs = list(combinations(p, 2))
    if siblings:  # only the point's subject against each other point's
        pairs, subject = [], _lead(point, p)
        for sibling in siblings:
            other = bindings(sibling)
            if subject in p and (b := _lead(sibling, other)) and b not in p:
                p[b] = other[b]
                pairs.append((subject, b))
    for a, b in pairs:
        if a in s and b in s:
            pa, pb, sa, sb = p[a] - p[b], p[b] - p[a], s[a] - s[b], s[b] - s[a]
            crossed = len(pa & sb) + len(pb & sa)
            if pa & sb and pb & sa and crossed > len(pa & sa) + len(pb & sb):
                return "exact:swapped"
    return None
