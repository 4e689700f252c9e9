"""Names with a digit in them (E4M3, H100, INT4) are read poorly by the embedding model: a
sentence that names two of a key point's is asked about however far its vector (stop 67)."""

from interviewer.words import names_two, numbered_names

FP8 = "When and why would you use FP8?"
RIGHT = (
    "On Hopper or newer GPUs, for large matmul-heavy training or inference: FP8 Tensor Cores give "
    "about twice BF16 throughput and halve memory and bandwidth for weights and activations. You "
    "need per-tensor or block scaling (E4M3 for forward, E5M2 for gradients), e.g. via Transformer "
    "Engine, and keep sensitive ops in higher precision."
)
SWAPPED = (
    "On Hopper, FP8 doubles throughput over BF16. Use E5M2 for the forward pass since it has more "
    "precision, and E4M3 for gradients since it has more range."
)


def test_numbered_names():
    assert numbered_names("E4M3 with more precision, E5M2 on an H100 in FP8") == {
        "e4m3",
        "e5m2",
        "h100",
        "fp8",
    }
    assert numbered_names("32 threads, 80GB, 3.5 TB/s") == set()
    assert names_two("E4M3 and E5M2 in FP8", "(E4M3 for forward, E5M2 for gradients)")
    assert not names_two("E4M3 and E5M2 in FP8", "FP8 on an H100")


def test_a_sentence_naming_the_points_formats_is_asked_about_it(bank_grader):
    """A trial's rapid-fire answer (stop 66) said "(E4M3 for forward, E5M2 for gradients)": 0.31
    from the formats point, below the 0.4 a sentence must reach to be asked about, so "Work on:
    E4M3 and E5M2" followed. Said the wrong way round, the formats are a wrong claim."""
    right, swapped = bank_grader(FP8)(RIGHT, SWAPPED)
    assert "formats" in right.points("covered"), [(c.point_id, c.verdict) for c in right.claims]
    assert not right.wrong_claims
    assert "formats" in swapped.points("contradicted")
    assert any("E4M3" in w and "range" in w for w in swapped.wrong_claims)
    assert swapped.score <= 2
