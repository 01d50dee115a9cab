"""count_terms_stream counts in batches of tokens and places them term-major by a counting sort:
the arrays must be count_terms' whatever the batch size (a term's postings spread over batches,
a batch ending inside a document's run of tokens or holding only empty documents)."""

from __future__ import annotations

import numpy as np
import pytest

from indexers.lexical.bm25 import count_terms
from indexers.lexical.term_counts import count_terms_stream

FIELDS = ("indptr", "indices", "tf", "doc_lengths")


@pytest.mark.parametrize("batch_tokens", [1, 2, 7, 64, 1000])
def test_any_batch_size_gives_count_terms_arrays(batch_tokens):
    rng = np.random.default_rng(batch_tokens)
    for _ in range(10):
        token_lists = [
            [f"t{int(x)}" for x in rng.zipf(1.5, int(rng.integers(0, 20))) % 300] for _ in range(60)
        ]
        token_lists[int(rng.integers(0, 60))] = []
        expected = count_terms(token_lists)
        found = count_terms_stream((tokens for tokens in token_lists), batch_tokens=batch_tokens)
        assert found.terms == expected.terms
        for name in FIELDS:
            a, b = getattr(found, name), getattr(expected, name)
            assert a.dtype == b.dtype and np.array_equal(a, b), name


def test_trailing_empty_documents_after_the_last_batch():
    found = count_terms_stream(iter([["a", "b"], ["b"], [], []]), batch_tokens=2)
    assert found.terms == ["a", "b"]
    assert found.doc_lengths.tolist() == [2, 1, 0, 0]
    assert found.indptr.tolist() == [0, 1, 3] and found.indices.tolist() == [0, 0, 1]
