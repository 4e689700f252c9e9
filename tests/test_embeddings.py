"""The packaged embedding model: the traced forward pass, token-sorted batches, the text cache."""

from __future__ import annotations

import numpy as np

from interviewer.embeddings import SentenceTransformerEmbedder, by_tokens

TEXTS = [
    "HBM is stacked DRAM on the GPU package.",
    "cudaMemcpy(d/a,h/b,n*4);x[i]=y[i]",  # fewer characters, more word pieces
    "A warp is 32 threads that the SM schedules together, one instruction at a time, and "
    "divergent branches inside it run one after the other with the other lanes masked off.",
    "NVLink",
]


def test_vectors_match_sentence_transformers_in_any_batch_order(embedder):
    model = embedder._load()
    expected = model.encode(TEXTS, normalize_embeddings=True, convert_to_numpy=True)
    fresh = SentenceTransformerEmbedder(batch_size=2)  # neighbours batched by token count
    got = fresh.embed(TEXTS)
    assert got.shape == (len(TEXTS), 384)
    np.testing.assert_allclose(got, expected, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


def test_a_text_met_again_is_not_embedded_again(embedder):
    fresh = SentenceTransformerEmbedder()
    first = fresh.embed(TEXTS)
    asked: list[list[str]] = []
    inner = fresh._embed
    fresh._embed = lambda texts: asked.append(list(texts)) or inner(texts)  # type: ignore[method-assign]
    again = fresh.embed([TEXTS[2], "a new sentence", TEXTS[0], "a new sentence"])
    assert asked == [["a new sentence"]]
    np.testing.assert_array_equal(again[0], first[2])
    np.testing.assert_array_equal(again[2], first[0])
    np.testing.assert_array_equal(again[1], again[3])
    fresh.clear()
    fresh.embed([TEXTS[0]])
    assert asked[-1] == [TEXTS[0]]


def test_batches_are_sorted_by_token_count_not_characters(embedder):
    tokenizer = embedder._load().tokenizer
    counts = [len(tokenizer(t)["input_ids"]) for t in TEXTS]
    order = by_tokens(tokenizer, TEXTS, 256)
    assert [counts[i] for i in order] == sorted(counts)
    assert order.index(1) > order.index(0)  # the symbols: shorter in characters, more pieces
    pairs = [(t, "a claim") for t in TEXTS]
    assert by_tokens(tokenizer, pairs, 128) == order
