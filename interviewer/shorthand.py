"""Typed shorthand read as the words it stands for. An answer typed in a hurry ("MIG on a100 =
hard partition. no MIG -> MPS w/ mem limit") says what a full sentence says, and the grading
scale does not mark brevity down; but the claim checker and the sentence vectors were trained
on sentences, and read "=", "->" and "mem" as noise: that answer covered nothing (1/5), and
scored 3/5 written out. Only the unambiguous forms are expanded, never inside code
("y_r=x@W_r", "C++", "H100+")."""

from __future__ import annotations

import re

_WORDS = {
    "mem": "memory",
    "perf": "performance",
    "util": "utilization",
    "attn": "attention",
    "grad": "gradient",
    "grads": "gradients",
    "accum": "accumulation",
    "param": "parameter",
    "params": "parameters",
    "fwd": "forward",
    "bwd": "backward",
    "bw": "bandwidth",
    "comm": "communication",
    "comms": "communication",
    "eff": "efficiency",
    "sched": "scheduling",
    "prob": "probably",
    "wts": "weights",
    "buf": "buffer",
    "bufs": "buffers",
    "smem": "shared memory",
    "gmem": "global memory",
    "xfer": "transfer",
    "xfers": "transfers",
    "hrs": "hours",
    "approx": "approximately",
    "esp": "especially",
    "impl": "implementation",
    "regs": "registers",
    "tput": "throughput",
    "thru": "through",
    "ckpt": "checkpoint",
    "ckpts": "checkpoints",
    "optim": "optimizer",
    "acts": "activations",
    "seq": "sequence",
    "seqs": "sequences",
}
# The parallelisms by their initials, written in capitals ("TP inside the node, PP across").
_PARALLEL = {"TP": "tensor", "PP": "pipeline", "DP": "data"}
_INITIALS = re.compile(r"(?<![\w/-])(TP|PP|DP)(?![\w/])")
# A list run together with slashes ("params/grads/optim", "fwd/bwd") where a part is shorthand;
# not a rate ("bytes/param", "GB/s": a one-letter or singular unit last).
_SLASHED = re.compile(r"(?<![\w./-])[A-Za-z][A-Za-z-]+(?:/[A-Za-z][A-Za-z-]+)+(?![\w/])")
_PER = {"param", "parameter", "grad", "gradient", "step", "token", "gpu", "node", "sec", "hr"}
_WORD = re.compile(r"(?<![\w./-])(" + "|".join(_WORDS) + r")(?![\w/])", re.I)  # "mem-bound" too
_ACT_CKPT = re.compile(r"\bact(?:ivation)?\.? ckpt(?:ing)?\b", re.I)
_SYMBOLS = (
    (re.compile(r"(?<=\d)\s*(?:->|→)\s*(?=\d)"), " to "),  # "send x 0->1"
    (re.compile(r"\s*(?:->|→|=>)\s*"), ", so "),
    # Between words only: "y=x@W", "D = A×B + C" and "(M+P-1)" are code and formulas.
    (re.compile(r"(?<=[a-z0-9]{2})\s+=\s+(?=[a-z]{2})", re.I), " is "),
    (re.compile(r"(?<=[a-z0-9]{2})(?:\s+[+&]\s+|\+)(?=[a-z]{2})", re.I), " and "),
    (re.compile(r"\bw/o\b", re.I), "without "),
    (re.compile(r"\bw/(?=\s*\w)", re.I), "with "),
    (re.compile(r"\bb/c\b", re.I), "because"),
    (re.compile(r"~\s*(?=\d)"), "about "),
    (re.compile(r"\s*≤\s*"), " at most "),
    (re.compile(r"\s*≥\s*"), " at least "),
)


def _word(m: re.Match[str]) -> str:
    words = _WORDS[m.group(1).lower()]
    return words[0].upper() + words[1:] if m.group(1)[0].isupper() else words


def _slashed(m: re.Match[str]) -> str:
    parts = m.group(0).split("/")
    if parts[-1].lower() in _PER or not any(p.lower() in _WORDS for p in parts):
        return m.group(0)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def expand(text: str) -> str:
    """The text with typed shorthand written out ("w/" -> "with", "->" -> ", so")."""
    # Whitespace collapsed first: a long run of it made the "\s*" patterns quadratic.
    text = _ACT_CKPT.sub("activation checkpointing", " ".join(text.split()))
    for pattern, words in _SYMBOLS:
        text = pattern.sub(words, text)
    text = _SLASHED.sub(_slashed, text)
    text = _INITIALS.sub(lambda m: f"{_PARALLEL[m.group(1)]} parallelism", text)
    text = _WORD.sub(_word, text)
    return " ".join(text.split())
