"""Words: the content terms and named things (HBM, FP16, H100) the exact checks compare, and the
stopwords the features and asides leave out."""

from __future__ import annotations

import re
from functools import lru_cache

_TERM = re.compile(r"[A-Za-z][A-Za-z0-9+\-]*\d[A-Za-z0-9+\-]*|[A-Z][A-Za-z0-9+\-]{1,}|[a-z]{3,}")
_SKIP = {"than", "the", "and", "that", "this", "with", "for", "are", "has", "have", "its", "use"}


def terms(text: str) -> list[str]:
    return [t.lower() for t in _TERM.findall(text) if t.lower() not in _SKIP]


@lru_cache(maxsize=16384)
def stem(word: str) -> str:
    """A word's crude stem, so that "running" meets "run" and "synchronization" meets
    "synchronizes": endings cut, then at most six letters."""
    for end in ("ing", "ed", "es", "s"):
        if len(word) > len(end) + 2 and word.endswith(end) and not word.endswith("ss"):
            word = word[: -len(end)]
            break
    if len(word) > 3 and word[-1] == word[-2]:
        word = word[:-1]
    return word[:6]


ENTITY = re.compile(r"[A-Za-z0-9+\-]*(?:[A-Z][A-Za-z0-9+\-]*[A-Z0-9]|\d)[A-Za-z0-9+\-]*")

# Number formats (FP16, BF16, INT4, E4M3): what a size or a speed is of.
FORMAT_NAME = r"(?:(?:FP|BF|TF|INT|UINT|MXFP)\d{1,2}|E\dM\d|NF4)"
FORMAT = re.compile(rf"\b{FORMAT_NAME}\b", re.I)


def formats(text: str) -> set[str]:
    return {f.lower() for f in FORMAT.findall(text)}


_NUMBERED = re.compile(r"\b[A-Za-z]+\d[A-Za-z0-9]*\b")


def numbered_names(text: str) -> set[str]:
    """Names with a digit in them (E4M3, H100, INT4, HBM3): the embedding model reads them
    poorly, and two of them shared name what a sentence is about better than its vector."""
    return {m.lower() for m in _NUMBERED.findall(text)}


def names_two(a: str, b: str) -> bool:
    """The two texts share at least two numbered names."""
    return len(numbered_names(a) & numbered_names(b)) >= 2


# The tokenizer's whole words are listed most frequent first (general English text): the first
# few thousand are everyday words ("keep", "around", "move", "memory"), the rest the words that
# can tie a remark to one key point ("bandwidth", "NVMe", "calibration").
_COMMON_WORDS = 3000


@lru_cache(maxsize=1)
def _common() -> frozenset[str]:
    from pathlib import Path

    from .embeddings import _packaged_model_path
    from .errors import DependencyError

    try:
        vocab = (Path(_packaged_model_path()) / "vocab.txt").read_text("utf-8").split()
    except (OSError, DependencyError):  # without the list every word counts as distinctive
        return frozenset()
    first = vocab.index("the") if "the" in vocab else 0
    return frozenset([w for w in vocab[first:] if w.isalpha()][:_COMMON_WORDS])


def _everyday(word: str) -> bool:
    if any(c.isdigit() for c in word):
        return False
    forms = {word} | {
        word[: -len(end)] for end in ("s", "es", "d", "ed", "ing") if word.endswith(end)
    }
    return bool(forms & _common())


@lru_cache(maxsize=16384)
def distinctive(text: str) -> frozenset[str]:
    """The stems of the text's words that are not everyday English."""
    return frozenset(
        stem(w)
        for w in re.findall(r"[a-z0-9][a-z0-9+\-]*", text.lower())
        if len(w) > 1 and not _everyday(w)
    )


_WORD = re.compile(r"[a-z0-9][a-z0-9+#.\-]*[a-z0-9+#]|[a-z0-9]")
STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "there",
        "their",
        "they",
        "them",
        "we",
        "you",
        "your",
        "i",
        "he",
        "she",
        "his",
        "her",
        "our",
        "not",
        "no",
        "do",
        "does",
        "did",
        "can",
        "could",
        "would",
        "should",
        "will",
        "may",
        "might",
        "must",
        "so",
        "than",
        "then",
        "too",
        "very",
        "just",
        "also",
        "into",
        "about",
        "over",
        "under",
        "more",
        "most",
        "less",
        "such",
        "each",
        "which",
        "who",
        "whom",
        "what",
        "when",
        "where",
        "why",
        "how",
        "all",
        "any",
        "both",
        "few",
        "other",
        "some",
        "own",
        "same",
        "only",
        "out",
        "up",
        "down",
        "off",
        "again",
        "further",
        "once",
        "here",
        "has",
        "have",
        "had",
        "having",
        "because",
        "while",
        "during",
        "before",
        "after",
        "above",
        "below",
        "between",
        "through",
        "until",
        "against",
    ]
)


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in STOP and len(w) > 1}
