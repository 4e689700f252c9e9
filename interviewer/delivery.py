"""How an answer was delivered, apart from what it says: length against what the question
needs, filler words, and for a spoken answer the pace and how sure the transcript is."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

# "like" and "actually" also carry meaning ("works like a cache"); these rarely do. The last
# four are fillers only as hedges (`_hedge`).
_FILLER = re.compile(r"\b(um+|uh+|erm+|er|hmm+|basically|you know|i mean|sort of|kind of)\b", re.I)
_PAUSE = re.compile(r"\s*(?:[,.;:!?…—–)]|-\s|$)")  # what sets a phrase apart after it
_TOKEN = re.compile(r"[\w'’-]+|[^\w\s]")
# Before "kind of"/"sort of" these make it a noun: "a kind of cache", "what sort of kernel",
# also with one of the adjectives that pick a kind between ("a different kind of cache"; not
# any word: "the cache kind of helps" hedges).
_DETERMINERS = frozenset(
    {"a", "an", "the", "this", "that", "these", "those", "what", "which", "some", "any", "one"}
    | {"each", "every", "no", "another"}
)
_KIND_ADJECTIVES = frozenset(
    {"different", "same", "other", "new", "similar", "special", "certain", "particular"}
)


def _hedge(answer: str, m: re.Match[str]) -> bool:
    """Whether a match is used as a filler. "You know", "I mean", "kind of" and "sort of" set
    apart ("um, you know, the", "fast, kind of.") are. Otherwise "you know" is the verb ("you
    know it's the transport"), "I mean" after a word defines it ("by bandwidth I mean bytes per
    second"), and "kind of" names a kind after a determiner and hedges anywhere else ("it kind
    of works", "it's sort of slow")."""
    phrase = m.group(1).lower()
    if phrase not in ("you know", "i mean", "kind of", "sort of") or _PAUSE.match(answer, m.end()):
        return True
    if phrase == "you know":
        return False
    before = [t.lower() for t in _TOKEN.findall(answer[: m.start()])[-2:]]
    if phrase == "i mean":  # at the start, or after a pause or a filler ("um I mean")
        return not before or not before[-1][0].isalnum() or bool(_FILLER.fullmatch(before[-1]))
    if before and before[-1] in _KIND_ADJECTIVES:
        before = before[:-1]
    return not (before and before[-1] in _DETERMINERS)


_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'+\-.]*")
LONG = 2.0  # times the model answer's length at which an answer is flagged as long
SHORT = 0.25
PACE = (110, 170)  # words per minute an interviewer follows comfortably
UNSURE = 0.6  # transcript confidence below which the candidate is asked to check it


@dataclass(frozen=True)
class Spoken:
    """What speech recognition says about a recording: its length and its confidence (the
    mean per-token probability of the transcript, 0 to 1)."""

    seconds: float
    confidence: float


@dataclass(frozen=True)
class Delivery:
    words: int
    needed: int  # the model answer's words: what the question takes (0 when unknown)
    fillers: tuple[tuple[str, int], ...]
    spoken: Spoken | None = None

    @property
    def long(self) -> bool:
        return bool(self.needed) and self.words > LONG * self.needed and self.words > 80

    def lines(self) -> list[str]:
        """Plain sentences for the candidate; empty when there is nothing to say."""
        out = []
        if self.long:
            out.append(
                f"Long: {self.words} words where about {self.needed} do. Lead with the key "
                "points; the rest costs interview time and earns nothing."
            )
        elif self.needed and self.words < SHORT * self.needed:
            out.append(f"Short: {self.words} words; a full answer takes about {self.needed}.")
        if self.fillers:
            n = sum(c for _, c in self.fillers)
            said = ", ".join(f'"{w}" ×{c}' for w, c in self.fillers)
            out.append(f"Filler words: {n} ({said}).")
        if self.spoken and self.spoken.seconds > 0:
            pace = round(self.words / (self.spoken.seconds / 60))
            slow, fast = PACE
            advice = (
                " (slow down a little)" if pace > fast else " (a bit slow)" if pace < slow else ""
            )
            out.append(f"Pace: {pace} words per minute{advice}.")
            if self.spoken.confidence < UNSURE:
                out.append(
                    f"The transcript was uncertain (confidence {self.spoken.confidence:.2f}): "
                    "a misheard word may have cost points."
                )
        return out


def assess(answer: str, model_answer: str = "", spoken: Spoken | None = None) -> Delivery:
    counts = Counter(m.group(1).lower() for m in _FILLER.finditer(answer) if _hedge(answer, m))
    return Delivery(
        len(_WORD.findall(answer)),
        len(_WORD.findall(model_answer)),
        tuple(counts.most_common()),
        spoken,
    )


def unsure_transcript(confidence: float) -> str:
    """The notice shown beside a transcript that may be wrong, before it is sent."""
    if confidence >= UNSURE:
        return ""
    return (
        f"⚠️ Parts of this transcript may be misheard (confidence {confidence:.2f}): check it "
        "and fix any wrong words before sending."
    )
