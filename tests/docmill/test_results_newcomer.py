"""Issue 23: what a search result tells a newcomer (a vector mode that cannot read the query says
so, confidence and build in the results, filter values checked), on a real index (MiniLM, FAISS)."""

from __future__ import annotations

import pytest

import docmill


@pytest.fixture(scope="module")
def index(small_index, embedder):
    return docmill.open_index(small_index, embedder=embedder)


def test_vector_mode_on_a_query_its_model_cannot_read_says_so_and_claims_no_confidence(index):
    result = index.search("安装脚本配置文件", k=5, mode="vector", abstain=False)
    assert result.hits  # asked not to abstain: the vector hits are shown, flagged
    assert any("vector side cannot read this query" in note for note in result.notes), result.notes
    assert result.confidence == 0.0
    hybrid = index.search("安装脚本配置文件", k=5, mode="hybrid", abstain=False)
    assert hybrid.confidence > 0.5  # BM25 reads it: the corpus does answer in hybrid mode


def test_vector_mode_abstains_on_an_unreadable_query_with_the_reason(index):
    result = index.search("安装脚本配置文件", k=5, mode="vector")
    assert result.abstained and result.hits == []
    assert "vector side cannot read this query" in result.reason and "hybrid or bm25" in result.reason


def test_vector_mode_on_a_readable_query_is_unchanged(index):
    result = index.search("install the daemon on linux", k=3, mode="vector")
    assert not result.abstained and result.confidence > 0.5
    assert not any("cannot read" in note for note in result.notes)
