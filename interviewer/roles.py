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
from .denial import denial_asserted, subject_denied
from .effects import effect_flipped
from .exact import exact_contradiction
from .exclusive import other_term
from .multiples import multiple_swapped
from .passives import passive_flipped
from .polarity import (
    location_flipped,
    property_flipped,
    ratio_inverted,
    trend_flipped,
    verb_flipped,
)
from .things import (
    BIND_SPLIT,
    DENIED,
    OPENERS,
    POINTS_BACK,
    PRONOUN,
    SUBJECT_SKIP,
    bindings,
    named_things,
    names_in,
    subject_of,
)
from .words import terms


def first_contradiction(point: str, sentences: list[str]) -> str | None:
    """The first sure contradiction (exact_contradiction, swapped_roles, action_turned,
    property_flipped, verb_flipped, passive_flipped, subject_denied, denial_asserted,
    location_flipped, trend_flipped, effect_flipped, ratio_inverted, other_term,
    multiple_swapped) in these sentences."""
    point = _as_bound(_unabbreviated(point))
    checks = _sound_checks(point)
    for sentence in (_as_bound(_unabbreviated(s)) for s in sentences):
        for check in checks:
            if found := check(point, sentence):
                return found
    return None


# "limited by compute" is "compute-bound", the word the comparatives know ("LLM decode is
# limited by compute, not memory" against "LLM decode is memory-bandwidth-bound").
_BOUND_BY = re.compile(
    r"\b(?:limited|bound|bottlenecked)\s+by\s+(?:the\s+)?"
    r"(compute|memory[- ]bandwidth|memory|bandwidth|latency)\b(?![- ](?:capacity|size|footprint))",
    re.I,
)


# The checks split clauses at a full stop: "automate it, e.g. PyTorch's autocast" read
# "PyTorch" as a subject taking the point's role.
_ABBREVIATIONS = (
    (re.compile(r"\be\.\s?g\.", re.I), "for example"),
    (re.compile(r"\bi\.\s?e\.", re.I), "that is"),
    (re.compile(r"\b(etc|vs|cf|approx)\.(?=\s+[a-z0-9])"), r"\1"),
)


def _unabbreviated(text: str) -> str:
    for abbreviation, said in _ABBREVIATIONS:
        text = abbreviation.sub(said, text)
    return text


def _as_bound(text: str) -> str:
    return _BOUND_BY.sub(lambda m: re.sub(r"\s", "-", m.group(1).lower()) + "-bound", text)


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
        passive_flipped,
        subject_denied,
        denial_asserted,
        location_flipped,
        trend_flipped,
        effect_flipped,
        ratio_inverted,
        other_term,
        multiple_swapped,
    )
    return tuple(c for c in checks if not c(point, point))


# "..., and", "; ", "while"; and a bare "and" when a named thing and its verb follow it
# ("Tensor Cores are the scalar units and CUDA cores are the matrix units").
_CLAUSE = re.compile(
    r",\s*(?:while|whereas|but|and)\s+|;\s*|\s+(?:while|whereas)\s+|\.\s+"
    r"|\s+and\s+(?=[A-Z][\w+\-]*[A-Z0-9][\w+\-]*(?:\s+\w+)?\s+(?:is|are|does|do|has|have)\b)"
)


def swapped_roles(point: str, sentence: str) -> str | None:
    """The point says X does P; the sentence says Y does P and X does something else
    ("Tensor Cores are scalar units, while CUDA cores are the matrix units")."""
    subject = subject_of(point)
    if not subject:
        return None
    clauses = [c for c in _CLAUSE.split(sentence) if c.strip()]
    # A clause that points back ("HBM isn't board-mounted ...; it's 3D-stacked ...") is its
    # thing's, as is one led by its plural ("A GPU core ... GPUs win because ...").
    by_subject: dict[str, set[str]] = {}
    lead = ""
    for clause in clauses:
        if named := subject_of(clause):
            lead = subject if named.rstrip("s") == subject.rstrip("s") else named
        by_subject.setdefault(lead if named or _POINTS_BACK.match(clause) else "", set()).update(
            terms(clause)
        )
    # What the point itself says of another thing is that thing's own role: "GPU kernels
    # launch asynchronously, so the CPU queues work" gives the CPU the queuing.
    theirs: dict[str, set[str]] = {}
    for part in _POINT_CLAUSE.split(point):
        if (lead := subject_of(part)) and lead != subject:
            theirs.setdefault(lead, set()).update(terms(part))
    # The noun the subject names ("kernels" of "GPU kernels") is its name, not a role: "CUDA ops
    # are launched asynchronously: the Python loop enqueues kernels" gives CUDA no GPU role.
    head = _head_noun(point, subject)
    return _role_taken(point, subject, by_subject, set(by_subject), head, theirs=theirs)


def _head_noun(point: str, subject: str) -> set[str]:
    words = re.findall(r"[A-Za-z][A-Za-z0-9+\-]*", point)
    at = next((i for i, w in enumerate(words) if w.lower() == subject), -1)
    head = words[at + 1] if 0 <= at < len(words) - 1 else ""
    if not (head.isalpha() and head.islower() and len(head) >= 3) or head in _NOT_HEADS:
        return set()
    return {head, head.rstrip("s")}


_POINT_CLAUSE = re.compile(rf"{_CLAUSE.pattern}|,\s*so\s+")
_POINTS_BACK = re.compile(r"\s*(?:it|it's|they|they're|its|their)\b", re.I)


_WEAK_AT = re.compile(
    r"\b(?:loses|lags(?:\s+behind)?|struggles|falls\s+behind|(?:is\s+)?(?:worse|weaker|poor))"
    r"\s+(?:at|on|in|for|with)\s+[^,;.]*",
    re.I,
)


def _role_taken(
    point: str,
    subject: str,
    by_subject: dict[str, set[str]],
    others: set[str],
    shared: frozenset[str] | set[str] = frozenset(),
    theirs: dict[str, set[str]] | None = None,
) -> str | None:
    """Another subject's clauses say what the point says of `subject`, clearly more than the
    subject's own do (`shared` words count for neither)."""
    if subject not in by_subject:
        return None
    # Neither what the point says its subject is bad at ("loses on serial logic") nor the
    # other things' own names ("slower than a CPU core") is a role the subject holds.
    words = set(terms(_WEAK_AT.sub("", point))) - {subject} - set(shared) - set(by_subject)
    own = len(words & by_subject[subject])
    for other in others & set(by_subject) - {subject, ""}:
        given = (theirs or {}).get(other, set())
        if len((words - given) & by_subject[other]) >= max(2, 2 * own + 1):
            return "exact:swapped"
    return None


# ------------------------------------------------------------------ roles across an answer


def about_another(claim: str, sentence: str) -> bool:
    """The sentence is about another named thing than the claim: the claim's first name (its
    subject, "MPS gives each tenant hardware-isolated memory") is absent from the sentence,
    which leads with another ("MIG partitions an H100 into isolated instances"), or opens on a
    condition and names others ("If tenants aren't trusted, I'd go with MIG, since it gives
    hardware isolation")."""
    mine, theirs = names_in(claim), names_in(sentence)
    lead = subject_of(sentence)  # "" when the sentence points back ("It has lower bandwidth")
    # A condition names another thing only with a name the claim does not ("On an A100 you can
    # go up to 16 instances" is about the A100 of "MIG can split an A100 into ... 16").
    # (not a compound of one the claim names: "per-GPU traffic" beside "each GPU")
    others = {t for t in set(theirs) - set(mine) if not set(t.split("-")) & set(mine)}
    opens = lead in OPENERS and bool(others)
    return bool(mine and (lead in theirs or opens) and mine[0] not in theirs)


def names_subject(claim: str, sentence: str) -> bool:
    """The sentence names the claim's first named thing (True for a claim that names none)."""
    mine = names_in(claim)
    return not mine or mine[0] in names_in(sentence)


_CONTRAST = re.compile(
    r"\b(?:versus|vs\.?|compared (?:to|with)|against|whereas|while|unlike)\b", re.I
)


def contrasted(claim: str, sentence: str) -> bool:
    """The claim ties two named things together ("The H100 uses GDDR6X memory"); the sentence
    names both on either side of a contrast ("3+ TB/s on an H100 SXM versus roughly 1 TB/s on a
    GDDR6X card"): it sets them apart, not together."""
    names = list(dict.fromkeys(names_in(claim)))
    if len(names) != 2:
        return False
    low = sentence.lower()
    at = [re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", low) for n in names]
    if not all(at):
        return False
    a, b = sorted(m.start() for m in at if m)
    return bool(_CONTRAST.search(sentence[a:b]))


def _lead(point: str, bound: dict[str, set[str]]) -> str:
    """The thing the point is about, as `bindings` names it: its first thing, if it opens on
    a name, or the first name after an opening phrase ("For hard isolation ..., MIG carves the
    GPU into ...")."""
    point = named_things(point)
    subject = subject_of(point)
    if subject in OPENERS:
        # The name must open its part: "each GPU stores ..." is one of "N GPUs", not a thing.
        parts = [part.split() for part in point.split(",")[1:]]
        firsts = (words[0].lower() for words in parts if words)
        subject = next((h for h in firsts if h not in OPENERS and h in bound), "")
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
    names = list(dict.fromkeys(names_in(wrong)))
    if len(names) != 2:
        return False
    a, b = names
    others = {
        n
        for clause in BIND_SPLIT.split(point)
        if a in (found := names_in(clause))
        for n in found
        if n not in (a, b)
    }
    if not others:
        return False
    for clause in BIND_SPLIT.split(sentence):
        found = names_in(clause)
        if (
            a in found
            and b in found
            and not any(n.startswith(o) or o.startswith(n) for n in found for o in others)
            and not DENIED.search(clause)
            and not _CONTRAST.search(clause)
        ):
            return True
    return False


_NOT_HEADS = {"is", "are", "was", "were", "has", "have", "does", "do", "can", "will", "uses"}
_NOT_HEADS |= {"use", "gives", "give", "keeps", "runs", "sets", "splits", "and", "or", "with"}
# Sentence openers, not things: "If one rank ...", "With checkpointing ...".


def swapped_kinds(point: str, text: str) -> str | None:
    """swapped_roles across a whole answer, between things of one kind ("CUDA cores" and
    "Tensor Cores": a name, then the same noun). Across sentences every clause of a subject
    counts as its own, and a list's headings ("Hardware: ...") are no such things."""
    words = re.findall(r"[A-Za-z][A-Za-z0-9+\-]*", point)
    subject = subject_of(point)
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
        and o not in OPENERS | SUBJECT_SKIP | POINTS_BACK
        and not o.endswith(("ing", "ly"))
    }
    if not others:
        return None
    by_subject: dict[str, set[str]] = {}
    last = ""
    for clause in _CLAUSE.split(text):
        if clause.strip():
            # A clause that opens on "it" is the subject's of the clause just before it: "A
            # CUDA core isn't a matrix engine; it's a scalar ALU ..."
            subject_here = subject_of(clause) or (last if PRONOUN.match(clause) else "")
            last = subject_here
            by_subject.setdefault(subject_here, set()).update(terms(clause))
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
