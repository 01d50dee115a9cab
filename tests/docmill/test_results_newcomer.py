"""Issue 23: what a search result tells a newcomer (a vector mode that cannot read the query says
so and claims no confidence in noise), on a real index (MiniLM, FAISS, BM25)."""

from __future__ import annotations

import pytest

import docmill

OFF_TOPIC_ZH = "红烧肉怎么做才好吃？"  # nothing in the tree, and MiniLM reads little of it


@pytest.fixture(scope="module")
def index(small_index, embedder):
    return docmill.open_index(small_index, embedder=embedder)


def test_vector_mode_on_an_unreadable_off_topic_query_says_so_and_claims_no_confidence(index):
    assert index.query_unknown_share(OFF_TOPIC_ZH) > 0.3
    result = index.search(OFF_TOPIC_ZH, k=5, mode="vector", abstain=False)
    assert result.hits  # asked not to abstain: the vector hits are shown, flagged
    assert result.notes[0].startswith("vector side cannot read this query: ")
    assert "BM25, which reads the query, finds none of the vector side's top hits" in result.notes[1]
    assert result.confidence == 0.0
    refused = index.search(OFF_TOPIC_ZH, k=5, mode="vector")
    assert refused.abstained and refused.hits == []
    assert "vector side cannot read this query" in refused.reason
    assert "use mode hybrid or bm25" in refused.reason


def test_vector_hits_on_an_unreadable_query_count_where_bm25_finds_them_too(index):
    query = "安装脚本配置文件"  # the Chinese page answers it; BM25 reads it, the model barely
    result = index.search(query, k=5, mode="vector")
    assert any("cannot read this query" in note for note in result.notes)
    assert any("BM25, which reads the query, finds some of them too" in note for note in result.notes)
    assert not result.abstained and result.confidence > 0.5
    assert "proj/guide/zh.md" in [hit.chunk.path for hit in result.hits]


def test_vector_mode_on_a_readable_query_is_unchanged(index):
    result = index.search("install the daemon on linux", k=3, mode="vector")
    assert not result.abstained and result.confidence > 0.5
    assert not any("cannot read" in note for note in result.notes)
