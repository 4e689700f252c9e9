"""Delivery feedback: how an answer was said, apart from what it says."""

from __future__ import annotations

from interviewer.delivery import Spoken, assess, unsure_transcript

MODEL = " ".join(["word"] * 100)  # a question that takes about 100 words


def test_a_rambling_answer_is_called_long_and_a_tight_one_is_not():
    long = assess("HBM is stacked memory. " * 60, MODEL)
    assert long.long and long.lines()[0].startswith("Long: 240 words where about 100 do")
    tight = assess("HBM is stacked DRAM on the package. " * 12, MODEL)
    assert not tight.long and tight.lines() == []


def test_filler_words_are_counted_but_meaningful_words_are_not():
    d = assess("Um, so, uh, it basically works like a cache, um, you know, for the weights.", MODEL)
    assert dict(d.fillers) == {"um": 2, "uh": 1, "basically": 1, "you know": 1}
    assert "Filler words: 5" in " ".join(d.lines())


def test_a_spoken_answer_gets_its_pace_and_an_unsure_transcript_is_said():
    words = "HBM is stacked memory on the package with a very wide bus " * 5  # 60 words
    fast = assess(words, MODEL, Spoken(seconds=18.0, confidence=0.9)).lines()
    assert "Pace: 200 words per minute (slow down a little)." in fast
    steady = assess(words, MODEL, Spoken(seconds=26.0, confidence=0.4)).lines()
    assert "Pace: 138 words per minute." in steady
    assert any("transcript was uncertain (confidence 0.40)" in x for x in steady)


def test_a_transcript_that_may_be_misheard_is_flagged_before_it_is_sent():
    assert unsure_transcript(0.9) == ""
    assert "check it and fix any wrong words before sending" in unsure_transcript(0.45)


def test_you_know_is_a_filler_only_when_set_apart():
    """A user trial (ui40): "if it then works you know it's the transport" was flagged."""
    assert assess("If it then works you know it's the transport.", MODEL).fillers == ()
    assert assess("You know that the bus is wide.", MODEL).fillers == ()
    for aside in ("It is, like, you know, NVLink.", "It is fast, you know.", "So you know"):
        assert dict(assess(aside, MODEL).fillers) == {"you know": 1}, aside


def test_kind_of_sort_of_and_i_mean_are_fillers_only_as_hedges():
    """A user trial (ui41): "a kind of cache", "this sort of kernel" and "by bandwidth I mean
    bytes per second" were counted as filler words."""
    meaning = (
        "It is a kind of cache for the weights.",
        "This sort of kernel is memory-bound.",
        "By bandwidth I mean bytes per second.",
        "What kind of memory does the H100 use? The same sort of HBM as the A100.",
        "NVLink is a different kind of interconnect, and any kind of sharding needs it.",
    )
    for said in meaning:
        assert assess(said, MODEL).fillers == (), said
    hedges = {
        "It kind of works.": {"kind of": 1},
        "It's sort of slow, and the cache kind of helps.": {"sort of": 1, "kind of": 1},
        "That is kind of the point.": {"kind of": 1},
        "I mean, it's fast.": {"i mean": 1},
        "It's fast, I mean it's really fast.": {"i mean": 1},
        "Um I mean the bus is wide.": {"um": 1, "i mean": 1},
        "It is a cache, sort of.": {"sort of": 1},
        "It is, kind of, a cache.": {"kind of": 1},
    }
    for said, counted in hedges.items():
        assert dict(assess(said, MODEL).fillers) == counted, said
