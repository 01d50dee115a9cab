"""indexers.lexical.term_counts.count_terms_stream gives exactly indexers.lexical.bm25.count_terms' arrays."""

from __future__ import annotations

import numpy as np
import pytest

from indexers.lexical.bm25 import count_terms
from indexers.lexical.term_counts import count_terms_stream

FIELDS = ("indptr", "indices", "tf", "doc_lengths")


def assert_same(token_lists):
    expected = count_terms(token_lists)
    found = count_terms_stream(iter(token_lists))  # a one-pass iterable is enough
    assert found.terms == expected.terms
    for name in FIELDS:
        a, b = getattr(found, name), getattr(expected, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name


@pytest.mark.parametrize("vocabulary", [1, 3, 50, 70_000, 200_000])  # > 65,535: both radix passes
def test_identical_to_count_terms_on_random_corpora(vocabulary):
    rng = np.random.default_rng(vocabulary)
    for _ in range(20):
        docs = int(rng.integers(0, 40))
        token_lists = [
            [f"t{int(x)}" for x in rng.integers(0, vocabulary, int(rng.integers(0, 15)))] for _ in range(docs)
        ]
        assert_same(token_lists)


def test_identical_on_a_corpus_with_more_than_65536_terms_and_repeats():
    rng = np.random.default_rng(7)
    words = [f"w{i}" for i in range(90_000)]
    token_lists = [[words[int(i)] for i in rng.zipf(1.3, 60) % len(words)] for _ in range(3000)]
    token_lists += [words[:70_000], [], ["w1", "w1", "w1"]]
    assert_same(token_lists)


def test_empty_input():
    assert_same([])
    assert_same([[], []])
