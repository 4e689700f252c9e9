"""The packaged embedding model: the traced forward pass, token-sorted batches, the text cache."""

from __future__ import annotations

import threading

import numpy as np

from interviewer.embeddings import SentenceTransformerEmbedder, _OnnxTokens, by_tokens

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
    assert isinstance(fresh._traced, _OnnxTokens)  # ONNX Runtime ran them
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


def test_threads_sharing_the_tokenizer_get_whole_batches(embedder):
    """CI failed once on this: the interview's warm-up thread sorted texts by token count (an
    unpadded tokenizer call) while a batch grade's call had just asked for padding, and the
    batch came back ragged. Every call into the shared tokenizer now holds one lock."""
    model = embedder._load()
    texts = [f"sentence number {i} " + "word " * (i % 13) for i in range(64)]
    expected = embedder._embed(texts)
    errors: list[BaseException] = []
    stop = threading.Event()

    def sort_forever() -> None:
        while not stop.is_set():
            try:
                by_tokens(model.tokenizer, texts, 256)
            except Exception as e:  # the race shows on either side
                errors.append(e)

    sorter = threading.Thread(target=sort_forever)
    sorter.start()
    try:
        for _ in range(20):  # unlocked, the first few failed in 5 of 5 tries
            np.testing.assert_allclose(embedder._embed(texts), expected, atol=1e-5)
    except ValueError as e:
        errors.append(e)
    finally:
        stop.set()
        sorter.join()
    assert errors == []
