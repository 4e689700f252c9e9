"""Exact checks beside the NLI model, where they are sure: inverted comparatives, swapped
entities and roles, negation (of what follows it), numbers with the same unit. Each names the
check that found a contradiction between a key point and one answer sentence."""

from __future__ import annotations

import re

_ANTONYMS = [
    ("higher", "lower"),
    ("faster", "slower"),
    ("more", "less"),
    ("more", "fewer"),
    ("larger", "smaller"),
    ("bigger", "smaller"),
    ("greater", "smaller"),
    ("wider", "narrower"),
    ("wider", "narrow"),
    ("wide", "narrow"),
    ("increases", "decreases"),
    ("increase", "decrease"),
    ("raises", "lowers"),
    ("cheaper", "costlier"),
    ("cheaper", "more expensive"),
    ("before", "after"),
    ("above", "below"),
    ("latency-bound", "throughput-bound"),
    ("memory-bound", "compute-bound"),
    ("bandwidth-bound", "compute-bound"),
    ("memory-bandwidth-bound", "compute-bound"),
    ("synchronous", "asynchronous"),
    ("static", "dynamic"),
    ("always", "never"),
]
_OPPOSITE: dict[str, set[str]] = {}
for _a, _b in _ANTONYMS:
    _OPPOSITE.setdefault(_a, set()).add(_b)
    _OPPOSITE.setdefault(_b, set()).add(_a)
_COMPARATIVE = re.compile(
    r"\b(" + "|".join(sorted(map(re.escape, _OPPOSITE), key=len, reverse=True)) + r")\b", re.I
)
_NEGATION = re.compile(
    r"\b(not|no|never|cannot|can't|doesn't|don't|isn't|aren't|won't|without|neither|nor)\b", re.I
)
_NUMBER = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s*(tb/s|gb/s|mb/s|tflops|gflops|pflops|tb|gb|mb|kb|ms|us|µs|ns|gbps|"
    r"tbps|%|x|bits?|bytes?|ghz|mhz|w|watts)\b",
    re.I,
)
_TERM = re.compile(r"[A-Za-z][A-Za-z0-9+\-]*\d[A-Za-z0-9+\-]*|[A-Z][A-Za-z0-9+\-]{1,}|[a-z]{3,}")
_SKIP = {"than", "the", "and", "that", "this", "with", "for", "are", "has", "have", "its", "use"}


# Units of one quantity in a common base, so that "20 MB/s" meets "3 TB/s" (bits per second
# as bytes). Units not listed stay their own quantity.
_BASE = {
    "tb/s": ("bytes/s", 1e12),
    "gb/s": ("bytes/s", 1e9),
    "mb/s": ("bytes/s", 1e6),
    "tbps": ("bytes/s", 1e12 / 8),
    "gbps": ("bytes/s", 1e9 / 8),
    "tb": ("bytes", 1e12),
    "gb": ("bytes", 1e9),
    "mb": ("bytes", 1e6),
    "kb": ("bytes", 1e3),
    "ms": ("s", 1e-3),
    "us": ("s", 1e-6),
    "µs": ("s", 1e-6),
    "ns": ("s", 1e-9),
    "pflops": ("flops", 1e15),
    "tflops": ("flops", 1e12),
    "gflops": ("flops", 1e9),
    "ghz": ("hz", 1e9),
    "mhz": ("hz", 1e6),
    "w": ("watts", 1.0),
    "bit": ("bits", 1.0),
    "byte": ("bytes", 1.0),
}


# A multiple of a named thing ("6 × parameters × tokens", "1.5x the traffic"): its own
# quantity ("× parameters"); "3x faster" stays a plain factor, "x".
_TIMES = re.compile(
    r"(?<![\w.^])(\d+(?:\.\d+)?)\s*[×x*]\s*(?:the\s+)?"
    r"(?!(?:faster|slower|more|less|fewer|higher|lower|larger|smaller|bigger|greater|better|worse"
    r"|cheaper|speed-?ups?|improvements?|reductions?)\b)([a-z]{3,})\b",
    re.I,
)


def _numbers(text: str) -> set[tuple[str, float]]:
    """(quantity, value in its base unit) of each number with a unit: ("bytes/s", 3.35e12),
    ("× parameters", 6.0)."""
    out = {(f"× {w.lower()}", float(n)) for n, w in _TIMES.findall(text)}
    text = _TIMES.sub(" ", text)
    for n, u in _NUMBER.findall(text):
        unit = u.lower().rstrip("s") if u.lower() in ("bits", "bytes", "watts") else u.lower()
        quantity, factor = _BASE.get(unit, (unit, 1.0))
        out.add((quantity, float(n) * factor))
    return out


def _terms(text: str) -> list[str]:
    return [t.lower() for t in _TERM.findall(text) if t.lower() not in _SKIP]


def first_contradiction(point: str, sentences: list[str]) -> str | None:
    """The first sure contradiction (exact_contradiction, swapped_roles) in these sentences."""
    for sentence in sentences:
        if found := exact_contradiction(point, sentence) or swapped_roles(point, sentence):
            return found
    return None


def exact_contradiction(point: str, sentence: str) -> str | None:
    """A sure contradiction between a key point and one answer sentence on the same subject,
    by name of the check that found it, else None."""
    p_words = set(_terms(point))
    s_words = set(_terms(sentence))
    if len(p_words & s_words) < 2:
        return None
    pc = [m.group(1).lower() for m in _COMPARATIVE.finditer(point)]
    sc = [m.group(1).lower() for m in _COMPARATIVE.finditer(sentence)]
    if pc and sc:
        p_cmp, s_cmp = pc[0], sc[0]
        p_left, p_right = _sides(point, p_cmp)
        s_left, s_right = _sides(sentence, s_cmp)
        same_side = bool(p_left & s_left) or bool(p_right & s_right)
        swapped = bool(p_left & s_right) and bool(p_right & s_left) and not same_side
        # "slower CUDA cores" and "faster on Tensor Cores" agree: each word is about its own
        # thing. Opposite words are a contradiction only about the same thing.
        p_of, s_of = _attached(point, p_cmp), _attached(sentence, s_cmp)
        same_thing = not (
            p_of and s_of and p_of != s_of and _mentions(sentence, p_of) and _mentions(point, s_of)
        )
        if s_cmp in _OPPOSITE.get(p_cmp, set()) and same_side and not swapped and same_thing:
            return "exact:comparative"
        if s_cmp == p_cmp and swapped:
            return "exact:swapped"
    p_trade, s_trade = _TRADE.search(point), _TRADE.search(sentence)
    if p_trade and s_trade and _traded(p_trade) == _traded(s_trade)[::-1]:
        return "exact:swapped"
    p_neg = bool(_NEGATION.search(point))
    s_neg = bool(_NEGATION.search(sentence))
    if p_neg != s_neg:
        pw, sw = p_words, s_words
        # What is denied must be what the other side asserts: "memory traffic, not compute"
        # against a sentence that never mentions compute denies nothing it says.
        denied = _negated_terms(point if p_neg else sentence)
        if (
            len(pw & sw) >= 0.8 * max(1, min(len(pw), len(sw)))
            and len(pw & sw) >= 3
            and denied & (sw if p_neg else pw)
        ):
            return "exact:negation"
    pn, sn = _numbers(point), _numbers(sentence)
    if 1 <= len(pn) <= 2:
        # One number in the sentence, of a quantity the point gives (once, or for both sides
        # of a comparison): wrong when it is far from each of them. A multiple of a named
        # thing is specific enough to be read beside other numbers ("2 x parameters x tokens
        # ... 500 TFLOPS"); a bare size beside others is often another size ("100 KB" per
        # image against "40 GB per node").
        for quantity in {pu for pu, _ in pn}:
            if len(sn) > 1 and not quantity.startswith("×"):
                continue
            said = [sv for su, sv in sn if su == quantity]
            same = [pv for pu, pv in pn if pu == quantity]
            if len(said) == 1 and said[0] > 0 and all(_far(pv, said[0]) for pv in same):
                return "exact:number"
    return None


def _far(a: float, b: float) -> bool:
    return a > 0 and max(a, b) / min(a, b) >= 2.5


# "trades compute for memory" turned round ("trades memory for compute").
_TRADE = re.compile(
    r"\btrad(?:es|e|ing|ed)\s+(?:off\s+)?(?:some\s+|extra\s+|more\s+)?([a-z-]+)\s+for\s+"
    r"(?:less\s+|lower\s+|more\s+|extra\s+)?([a-z-]+)",
    re.I,
)


def _traded(m: re.Match[str]) -> tuple[str, str]:
    return m.group(1).lower(), m.group(2).lower()


_FILLER = {"on", "in", "at", "the", "a", "an", "way", "much", "far", "than", "to", "for", "by"}


def _attached(text: str, word: str) -> str:
    """The content word a comparative qualifies: the first after it ("slower CUDA cores"),
    skipping small words ("faster on Tensor Cores"); "" when the clause ends first."""
    at = text.lower().find(word)
    for token in re.findall(r"[A-Za-z][A-Za-z0-9+\-]*|[,;.:]", text[at + len(word) :])[:4]:
        if token in ",;.:":
            return ""
        if token.lower() not in _FILLER:
            return token.lower()
    return ""


def _mentions(text: str, word: str) -> bool:
    """The text names this thing, allowing a speech-to-text slip ("tenser" for "tensor")."""
    return any(t[:4] == word[:4] for t in _terms(text))


def _negated_terms(text: str) -> set[str]:
    """Content words within three words after each negation cue: what the text denies."""
    out: set[str] = set()
    for m in _NEGATION.finditer(text):
        out.update(_terms(" ".join(text[m.end() :].split()[:3])))
    return out


_ENTITY = re.compile(r"[A-Za-z0-9+\-]*(?:[A-Z][A-Za-z0-9+\-]*[A-Z0-9]|\d)[A-Za-z0-9+\-]*")


def _sides(text: str, word: str) -> tuple[set[str], set[str]]:
    """The named things (HBM, GDDR, FP32, H100) before and after a comparative: which of two
    things has the property. Without names, every content word."""
    at = text.lower().find(word)
    # The clause around the comparative only: a long sentence names other things too.
    before, after = text[max(0, at - 60) : at], text[at + len(word) : at + len(word) + 60]
    left = {t.lower() for t in _ENTITY.findall(before)}
    right = {t.lower() for t in _ENTITY.findall(after)}
    if left and right:
        return left, right
    return set(_terms(before)), set(_terms(after))


# "..., and", "; ", "while"; and a bare "and" when a named thing and its verb follow it
# ("Tensor Cores are the scalar units and CUDA cores are the matrix units").
_CLAUSE = re.compile(
    r",\s*(?:while|whereas|but|and)\s+|;\s*|\s+(?:while|whereas)\s+|\.\s+"
    r"|\s+and\s+(?=[A-Z][\w+\-]*[A-Z0-9][\w+\-]*(?:\s+\w+)?\s+(?:is|are|does|do|has|have)\b)"
)
_SUBJECT_SKIP = {"a", "an", "the", "so", "and", "but", "while", "whereas", "each", "every"}
# A clause led by one of these is about what came before it, not another entity ("Pinned
# memory ... That gives faster transfers" is no swap).
_POINTS_BACK = {"it", "its", "that", "this", "these", "those", "they", "which", "such", "there"}


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
    by_subject = {_subject(c): set(_terms(c)) for c in clauses}
    return _role_taken(point, subject, by_subject, set(by_subject))


def _role_taken(
    point: str, subject: str, by_subject: dict[str, set[str]], others: set[str]
) -> str | None:
    """Another subject's clauses say what the point says of `subject`, clearly more than the
    subject's own do."""
    if subject not in by_subject:
        return None
    words = set(_terms(point)) - {subject}
    own = len(words & by_subject[subject])
    for other in others & set(by_subject) - {subject, ""}:
        if len(words & by_subject[other]) >= max(2, 2 * own + 1):
            return "exact:swapped"
    return None


# ------------------------------------------------------------------ support for the model
# The NLI model reads a sentence that says less, says it another way, or is about a
# neighbouring thing as a denial ("Per warp: the scheduler issues one instruction for a whole
# warp" against "The warp, not the individual thread, is the unit the SM schedules"). Its
# contradiction stands only where the two texts visibly disagree.
_DENIAL = re.compile(
    r"\b(not|no|never|nothing|none|cannot|can't|doesn't|don't|isn't|aren't|won't|without|"
    r"neither|nor|instead of|rather than|avoids?|avoiding|skips?|skipping|no longer|barely|"
    r"hardly|rarely|seldom)\b",
    re.I,
)
_UP = r"increas\w*|grow\w*|grew|rais\w*|rises?|more|many|higher|larger"
_DOWN = r"decreas\w*|reduc\w*|shrink\w*|lower\w*|fewer|few|less|smaller"
_MOVE = re.compile(rf"\b(?:(?P<up>{_UP})|(?P<down>{_DOWN}))\b", re.I)


def disagree(point: str, sentence: str) -> bool:
    """Whether the texts visibly disagree: one denies what the other asserts (two or more of
    the words it denies), their first change goes opposite ways, or the same unit gets
    different numbers."""
    p_neg, s_neg = bool(_DENIAL.search(point)), bool(_DENIAL.search(sentence))
    if p_neg != s_neg:
        denier, other = (point, sentence) if p_neg else (sentence, point)
        if sum(_mentions(other, t) for t in _denied(denier)) >= 2:
            return True
    p_dir, s_dir = _direction(point), _direction(sentence)
    if p_dir and s_dir and p_dir != s_dir:
        return True
    pn, sn = _numbers(point), _numbers(sentence)
    return any(pu == su and pv != sv for pu, pv in pn for su, sv in sn)


def _direction(text: str) -> str:
    """Which way the text's first change goes: "up", "down" or ""."""
    m = _MOVE.search(text)
    return "" if m is None else ("up" if m.group("up") else "down")


def _denied(text: str) -> set[str]:
    """Up to three content words after each denial, within its clause."""
    out: set[str] = set()
    for m in _DENIAL.finditer(text):
        clause = re.split(r"[,;:.]", text[m.end() :], maxsplit=1)[0]
        out.update(t for t in _terms(clause)[:3] if len(t) > 3)
    return out


# ------------------------------------------------------------------ roles across an answer
_UNITS = {"tb", "gb", "mb", "kb", "ms", "us", "ns", "gbps", "tbps", "tflops", "pflops", "ghz"}
_BIND_SPLIT = re.compile(r"[.;:!?]\s+|,\s*|\s+(?:and|while|whereas|but)\s+")
_WEAK = {"more", "less", "much", "very", "also", "only", "both", "each", "other", "there", "than"}


def _names(text: str) -> list[str]:
    """Named things (HBM, FP16, E4M3, H100, NVLink), not numbers or units."""
    out = []
    for n in _ENTITY.findall(text):
        n = n.lower().strip("+-")
        if any(ch.isalpha() for ch in n) and len(n) >= 2 and n not in _UNITS:
            out.append(n)
    return out


def about_another(claim: str, sentence: str) -> bool:
    """The sentence is about another named thing than the claim: the claim's first name (its
    subject, "MPS gives each tenant hardware-isolated memory") is absent from the sentence,
    which leads with another ("MIG partitions an H100 into isolated instances")."""
    mine, theirs = _names(claim), _names(sentence)
    lead = _subject(sentence)  # "" when the sentence points back ("It has lower bandwidth")
    return bool(mine and lead in theirs and mine[0] not in theirs)


def _bindings(text: str) -> dict[str, set[str]]:
    """The content words of each clause, by the named thing it is about: the first it names,
    or, naming none, the one before ("E5M2 the extra precision; each one ...")."""
    out: dict[str, set[str]] = {}
    names = set(_names(text))
    current = None
    for clause in _BIND_SPLIT.split(text):
        found = _names(clause)
        if found:
            current = found[0]
        if current is not None:
            words = {t for t in _terms(clause) if len(t) > 3 and t not in names | _WEAK}
            out.setdefault(current, set()).update(words)
    return out


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
    if not (head.isalpha() and head.islower() and len(head) >= 3) or head in _NOT_HEADS:
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
            by_subject.setdefault(_subject(clause), set()).update(_terms(clause))
    return _role_taken(point, subject, by_subject, others)


def swapped_binding(point: str, text: str) -> str | None:
    """Two named things trade properties: the point gives A one and B another, the answer
    gives A B's and B A's ("E4M3 with more precision and E5M2 with more range" against "E4M3
    has the wider range and E5M2 the extra precision"), each way at least once and more often
    crossed than not."""
    p, s = _bindings(point), _bindings(text)
    both = [n for n in p if n in s]
    for i, a in enumerate(both):
        for b in both[i + 1 :]:
            pa, pb, sa, sb = p[a] - p[b], p[b] - p[a], s[a] - s[b], s[b] - s[a]
            crossed = len(pa & sb) + len(pb & sa)
            if pa & sb and pb & sa and crossed > len(pa & sa) + len(pb & sb):
                return "exact:swapped"
    return None
