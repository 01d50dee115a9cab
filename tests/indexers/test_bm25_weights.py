"""BM25Index.build computes its weights block by block (indexers.lexical.bm25_weights.posting_weights)
from the streamed counts: the float32 weights must be bit for bit those of the one-pass float64 formula
(_weights over int64 per-posting arrays, what the build did before), blocks cutting through a
term's postings included; a generator of token lists builds the same index as a list."""

from __future__ import annotations

import numpy as np
import pytest

from indexers.lexical import bm25_weights
from indexers.lexical.bm25 import BM25Index, BM25Params, count_terms, posting_weights
from indexers.lexical.bm25_weights import _weights


def one_pass(token_lists, params):
    counts = count_terms(token_lists)
    lengths = counts.doc_lengths.astype(np.int64)
    df = np.diff(counts.indptr)
    terms = np.repeat(np.arange(len(counts.terms), dtype=np.int64), df)
    docs = counts.indices.astype(np.int64)
    avgdl = float(lengths.mean()) if counts.n_docs else 0.0
    tf = counts.tf.astype(np.int64)
    return counts, _weights(tf, df[terms], lengths[docs], counts.n_docs, avgdl, params).astype(np.float32)


def corpus(seed, docs=300):
    rng = np.random.default_rng(seed)
    return [[f"w{int(x)}" for x in rng.zipf(1.3, int(rng.integers(0, 40))) % 500] for _ in range(docs)]


@pytest.mark.parametrize("block", [1, 3, 64, 1 << 18])
@pytest.mark.parametrize("params", [BM25Params(), BM25Params(k1=0.9, b=0.4), BM25Params(k1=0.0, b=1.0)])
def test_blocked_weights_equal_the_one_pass_formula(monkeypatch, block, params):
    monkeypatch.setattr(bm25_weights, "WEIGHT_BLOCK", block)
    for seed in range(3):
        token_lists = corpus(seed)
        counts, expected = one_pass(token_lists, params)
        found = posting_weights(counts, params)
        assert found.dtype == np.float32 and np.array_equal(found.view(np.uint32), expected.view(np.uint32))


def test_all_empty_documents_and_no_documents():
    for token_lists in ([], [[], []]):
        index = BM25Index.build(token_lists)
        assert len(index.data) == 0 and index.n_docs == len(token_lists)


def test_a_generator_builds_the_index_a_list_does():
    token_lists = corpus(9, docs=500)
    from_list = BM25Index.build(token_lists)
    from_generator = BM25Index.build(list(tokens) for tokens in token_lists)
    assert from_list.terms == from_generator.terms
    for name in ("data", "indices", "indptr", "doc_lengths"):
        assert np.array_equal(getattr(from_list, name), getattr(from_generator, name)), name
    _, expected = one_pass(token_lists, BM25Params())
    assert np.array_equal(from_list.data, expected)
