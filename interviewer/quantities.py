"""Numbers with units, read alike however they are written ("3.6e21", "3.6 × 10^23",
"60-90%", "1,024 threads", "20 MB/s" against "3 TB/s"), and the check that one answer
sentence gives a number far from the key point's."""

from __future__ import annotations

import operator
import re

from .numerals import NUMBER_WORDS, UNIT, VALUES, in_digits
from .words import formats, stem, terms

# "1,024" is one number (read as 24 it made a right "1,024 threads" wrong against 1024).
_NUMBER = re.compile(
    r"(?<![\w.,^])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:\s*|-(?=[a-z]))" + UNIT, re.I
)
# "60-90%", "60 to 90 %": a range of one quantity.
_RANGE = re.compile(r"(?<![\w.,])(\d+(?:\.\d+)?)\s*(?:-|–|to)\s*(\d+(?:\.\d+)?)\s*" + UNIT, re.I)
# "3.6 × 10^23" and "3.6e21" written out, so that they meet each other as numbers.
_SCIENTIFIC = re.compile(
    r"(?<![\w.^])(?:(\d+(?:\.\d+)?)\s*(?:[×x*·]\s*10\s*\^\s*|e\+?)|10\s*\^\s*)(\d{1,2})\b"
)


# Units of one quantity in a common base, so that "20 MB/s" meets "3 TB/s" (bits per second
# as bytes). Units not listed stay their own quantity.
_BASE = {
    "tb/s": ("bytes/s", 1e12),
    "gb/s": ("bytes/s", 1e9),
    "mb/s": ("bytes/s", 1e6),
    "tbps": ("bytes/s", 1e12 / 8),
    "gbps": ("bytes/s", 1e9 / 8),
    "mbps": ("bytes/s", 1e6 / 8),
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
    "second": ("s", 1.0),
    "minute": ("s", 60.0),
    "hour": ("s", 3600.0),
    "day": ("s", 86400.0),
    "week": ("s", 604800.0),
    "byte": ("bytes", 1.0),
    "flop": ("flop count", 1.0),  # FLOPs done, not a rate: TFLOPS is per second
    "flops": ("flop count", 1.0),
}


# A multiple of a named thing ("6 × parameters × tokens", "1.5x the traffic"): its own
# quantity ("× parameters"); "3x faster" stays a plain factor, "x".
_TIMES = re.compile(
    r"(?<![\w.^])(\d+(?:\.\d+)?)\s*[×x*]\s*(?:the\s+)?"
    r"(?!(?:faster|slower|more|less|fewer|higher|lower|larger|smaller|bigger|greater|better|worse"
    r"|cheaper|speed-?ups?|improvements?|reductions?)\b)([a-z]{3,})\b",
    re.I,
)


# A count of a fixed piece of the hardware ("a warp's 32 threads", "32 banks", "up to 7 MIG
# instances") is a number with a unit: "a warp is 64 threads" meets "32 threads".
_PLURALS = {
    "bits", "bytes", "watts", "threads", "lanes", "banks", "instances", "seconds", "minutes",
    "hours", "days", "weeks",
}  # fmt: skip
# exact: 64 threads is no rounding of 32, nor 12 NVLink links of 18
_COUNTS = {"thread", "lane", "bank", "instance", "link", "port"}


def quantities(text: str, ranges: bool = False) -> set[tuple[str, float]]:
    """(quantity, value in its base unit) of each number with a unit: ("bytes/s", 3.35e12),
    ("× parameters", 6.0). A range ("60-90%") gives both ends with `ranges`, else its middle
    (what a sentence that says "15-20%" claims is one amount)."""
    text = in_digits(text)
    text = _SCIENTIFIC.sub(lambda m: f"{float(m.group(1) or 1) * 10 ** int(m.group(2)):.0f}", text)
    out = {(f"× {w.lower()}", float(n)) for n, w in _TIMES.findall(text)}
    text = _TIMES.sub(" ", text)

    def one_range(m: re.Match[str]) -> str:
        low, high, unit = float(m.group(1)), float(m.group(2)), m.group(3)
        return f"{low:g}{unit} {high:g}{unit}" if ranges else f"{(low + high) / 2:g}{unit}"

    text = _RANGE.sub(one_range, text)
    for n, u in _NUMBER.findall(text):
        # "400 Gb/s" is bits (a link's rate), "50 GB/s" bytes.
        unit = u[0].lower() + "bps" if re.fullmatch(r"[TGM]b/s", u) else u.lower()
        unit = unit[:-1] if unit in _PLURALS else unit
        unit = re.sub(r".*\b(link|port)s?$", r"\1", unit)  # "18 NVLink links": links
        # Accelerator-hours of any kind are one quantity, not wall-clock time.
        unit = "gpu-hours" if "-hour" in unit else unit
        quantity, factor = _BASE.get(unit, (unit, 1.0))
        out.add((quantity, float(n.replace(",", "")) * factor))
    return out


def states_number(point: str, text: str, quantity: str | None = None) -> bool:
    """The text gives one of the point's numbers, with its unit (of `quantity`, if given)."""
    said = quantities(text)
    return any(
        u == su and _close(v, sv) and quantity in (None, u)
        for u, v in quantities(point)
        for su, sv in said
    )


def number_off(point: str, sentence: str) -> bool:
    """The sentence gives one number of a quantity the point gives, far from each of the
    point's; or a bare number after the same word as one of the point's, another than it."""
    return quantity_off(point, sentence) is not None or bare_number_off(point, sentence)


# A number with no unit, after the word that says what it is ("defaults to 8", "raised to at
# most 32"): trial H's notes said "defaults to 8 and can be raised to at most 32", and "defaults
# to 32 and can be raised to 128" had covered that point.
_LED = re.compile(
    r"\b([a-z]{4,})\s+(?:to\s+|at\s+|of\s+|is\s+)?(?:at\s+most\s+|at\s+least\s+|up\s+to\s+)?"
    # (the number ends its phrase: not "8 GB" or "32 threads", which the units checks read)
    r"(\d+(?:\.\d+)?)(?=\s*(?:$|[.,;:)!?](?!\d)|(?:and|or|but|so|then|when|if|which|while)\b))"
)


def _led_numbers(text: str) -> dict[str, set[float]]:
    out: dict[str, set[float]] = {}
    for word, number in _LED.findall(in_digits(text)):
        if word not in _BARE and word not in NUMBER_WORDS:
            out.setdefault(word, set()).add(float(number))
    return out


def bare_number_off(point: str, sentence: str) -> bool:
    """The sentence gives a bare number after a word the point puts a bare number after, and
    none of the point's numbers after it."""
    mine, theirs = _led_numbers(point), _led_numbers(sentence)
    return any(word in mine and not said & mine[word] for word, said in theirs.items())


def quantity_off(point: str, sentence: str) -> str | None:
    """The quantity of which the sentence gives one number far from each of the point's."""
    pn, sn = quantities(point, ranges=True), quantities(sentence)
    # A size in another number format is another size: "INT4 brings it to about 35 GB" says
    # nothing against "In FP16 ... about 140 GB".
    of_format = formats(point)
    if pn and not (of_format and formats(sentence) and not of_format & formats(sentence)):
        # One number in the sentence, of a quantity the point gives (once, or for both sides
        # of a comparison or a range): wrong when it is far from each of them. A multiple of a
        # named thing, a count of GPU-hours or of FLOPs is specific enough to be read beside
        # other numbers ("2 x parameters x tokens ... 500 TFLOPS"); a bare size beside others
        # is often another size ("100 KB" per image against "40 GB per node").
        for quantity in {pu for pu, _ in pn}:
            specific = quantity.startswith("×") or quantity in ("gpu-hours", "flop count")
            # (A count of a fixed piece of hardware is specific beside other numbers: "900
            # GB/s comes from 12 NVLink links".)
            several = sum(pu == quantity for pu, _ in pn) > 2 or len(sn) > 1
            if not specific and quantity not in _COUNTS and several:
                continue
            said = [sv for su, sv in sn if su == quantity]
            same = [pv for pu, pv in pn if pu == quantity]
            # A total of FLOPs is said to its order of magnitude ("on the order of 10^22").
            off = (
                operator.ne
                if quantity in _COUNTS
                else _orders_apart
                if quantity == "flop count"
                else _far
            )
            if (
                len(said) == 1
                and said[0] > 0
                and all(off(pv, said[0]) for pv in same)
                and (
                    specific
                    or (_same_thing(point, sentence, quantity) and _same_case(point, sentence))
                )
            ):
                return quantity
    return None


_CLAUSE = re.compile(r"[,;:]\s*|\s+(?:and|while|whereas|but|so)\s+|\.\s+")
# Words around a number that say nothing of what it measures.
_BARE = {"about", "around", "roughly", "nearly", "almost", "only", "just", "each", "per", "some"}
_BARE |= {"is", "was", "are", "gives", "gets", "over", "it", "they", "which", "there", "you"}
# ... nor do prepositions: "an H100 gets around 300 GB/s from it" is about the clause before.
_BARE |= {"from", "to", "of", "on", "in", "at", "by", "with", "for", "them", "its"}


def _contexts(text: str, quantity: str) -> list[set[str]]:
    """The words of each clause that gives a number of the quantity, the number itself left
    out: what that number is of ("tokenized data is about 4 TB" -> tokenized, data)."""
    out: list[set[str]] = []
    before: set[str] = set()
    for clause in _CLAUSE.split(text):
        # A clause that names nothing is about the one before ("..., which is 50 GB/s").
        said = terms(_NUMBER.sub(" ", clause))
        words = {stem(w) for w in said if w not in _BARE and w not in VALUES} or before
        if any(q == quantity for q, _ in quantities(clause, ranges=True)):
            out.append(words)
        before = words
    return out


# A bare count, such as how many GPUs: "On 64 GPUs the run takes about 15 days".
_BARE_COUNT = re.compile(r"(?<![\w.,^$])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w.%]*[\w%])")


def _counts(text: str) -> set[str]:
    text = in_digits(text)
    for with_unit in (_SCIENTIFIC, _TIMES, _RANGE, _NUMBER):
        text = with_unit.sub(" ", text)
    return set(_BARE_COUNT.findall(text))


def _same_case(point: str, sentence: str) -> bool:
    """Neither gives a bare count the other does not share: "On 256 H100s that's roughly
    five days" is another case than "On 64 GPUs the run takes about 15 days"."""
    mine, theirs = _counts(point), _counts(sentence)
    return not (mine and theirs) or bool(mine & theirs)


def _same_thing(point: str, sentence: str, quantity: str) -> bool:
    """The sentence's number may be of what the point's is: its clause says nothing else, or
    shares a word with the clause of one of the point's numbers. "Tokenized data is about 4 TB"
    says nothing against "checkpoints of about 420 GB each"."""
    # A number written as an adjective names what it measures: a "32-bit copy of the weights"
    # is not FP32's "8-bit exponent".
    of_said, of_own = _owned(sentence, quantity), _owned(point, quantity)
    if of_said and of_own and not of_said & of_own:
        return False
    said = _contexts(sentence, quantity)
    if not said or not said[0]:  # "It's 200 Gb/s."
        return True
    return any(not own or own & said[0] for own in _contexts(point, quantity))


_ADJECTIVE = re.compile(r"\b\d+(?:\.\d+)?-[a-z]+\s+([a-z]+)", re.I)


def _owned(text: str, quantity: str) -> set[str]:
    """What each number of the quantity written as an adjective measures ("8-bit exponent")."""
    return {
        stem(m.group(1).lower())
        for m in _ADJECTIVE.finditer(text)
        if any(q == quantity for q, _ in quantities(m.group(0)))
    }


def _far(a: float, b: float) -> bool:
    return a > 0 and max(a, b) / min(a, b) >= 2.5


def _orders_apart(a: float, b: float) -> bool:
    return a > 0 and max(a, b) / min(a, b) >= 10


def numbers_like(sentence: str, point: str, wrong: str, setting: str = "") -> int:
    """-1 when the sentence gives numbers the misconception gives and none the point gives
    ("about 600 GB/s per GPU" against the point's 900 GB/s and the misconception's 600), 1 the
    other way round, 0 when its numbers decide neither. The NLI model reads "600 GB/s" and
    "900 GB/s" as near enough to entail each other. Beside one of the point's numbers, a number
    `setting` gives too (the question's other points: "one 80 GB GPU") decides nothing."""
    point_has, wrong_has = quantities(point, ranges=True), quantities(wrong, ranges=True)
    given = quantities(setting, ranges=True) if setting else set()
    # Only a quantity both give: "95%" from the question is in its misconceptions too.
    both = {q for q, _ in point_has} & {q for q, _ in wrong_has}
    right_said, wrong_said = False, []
    for quantity, value in quantities(sentence):
        if quantity in both:
            right = any(_close(v, value) for q, v in point_has if q == quantity)
            wrongly = any(_close(v, value) for q, v in wrong_has if q == quantity)
            if right != wrongly:
                right_said |= right
                if wrongly:
                    wrong_said.append((quantity, value))
    if right_said and wrong_said:
        set_apart = all(any(g == q and _close(gv, v) for g, gv in given) for q, v in wrong_said)
        return 1 if set_apart else 0
    return 1 if right_said else -1 if wrong_said else 0


def _close(a: float, b: float) -> bool:
    return a > 0 and b > 0 and max(a, b) / min(a, b) < 1.15
