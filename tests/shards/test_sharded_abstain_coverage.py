"""Abstain v6 over a sharded root: a build whose joint scale weighs the top hits' coverage judges a
query the same whether its chunks are in one index or spread over shards (the coverage of
BM25's top rows asked of the shards that hold them, with the corpus's statistics)."""

import dataclasses

import pytest

import docmill
from docmill.shard_host import ShardSearcher
from docmill.sharded import ShardedIndex
from indexers.ranking.abstain import COVERAGE_DEPTH, SideScale
from indexers.ranking.policy import AGREE_BM25_K

# unsaturated above the threshold, so any change of the evidence moves the confidence
SCALE = SideScale(low=0.0, threshold=0.25, high=2.0)


def _weighing_coverage(index, weight=0.1):
    """A calibration with a coverage weight (the fixture's corpus is too small to fit one)."""
    model = index.abstain_model
    joint = dataclasses.replace(model.joint, scale=SCALE, coverage_weight=weight)
    index.abstain_model = dataclasses.replace(model, joint=joint)
    return index


def test_a_sharded_root_reads_the_same_coverage_and_confidence_as_one_index(built, embedder, shard_queries):
    plain = _weighing_coverage(docmill.open_index(built["single"], embedder=embedder), weight=0.0)
    without = [plain.search(query, k=10).confidence for query in shard_queries]
    single = _weighing_coverage(docmill.open_index(built["single"], embedder=embedder))
    sharded = _weighing_coverage(docmill.open_index(built["root"], embedder=embedder))
    assert isinstance(sharded, ShardedIndex) and sharded.abstain_model.reads_coverage()
    read: list[float] = []
    best_coverage = ShardedIndex._best_coverage

    def spy(self, run, bm25):
        read.append(best_coverage(self, run, bm25))
        return read[-1]

    ShardedIndex._best_coverage = spy
    try:
        moved = 0
        for query, before in zip(shard_queries, without, strict=True):
            a, b = single.search(query, k=10), sharded.search(query, k=10)
            assert a.abstained == b.abstained, query
            assert b.confidence == pytest.approx(a.confidence, abs=1e-6), query
            moved += abs(a.confidence - before) > 1e-6
    finally:
        ShardedIndex._best_coverage = best_coverage
    assert len(read) == len(shard_queries) and any(0 < value <= 1 for value in read)
    assert moved  # the coverage term changed some confidences: the shards' answer was used


def test_mode_vector_asks_shards_for_the_bm25_rows_it_reads(built, embedder, shard_queries, monkeypatch):
    """Mode vector has no BM25 side: its coverage evidence reads BM25's top COVERAGE_DEPTH (a query
    its model cannot read, the top AGREE_BM25_K that judge its hits), so each shard sends that
    many BM25 rows, not the fetch_k (100) it sent before, and the judgement stays one index's."""
    single = _weighing_coverage(docmill.open_index(built["single"], embedder=embedder))
    sharded = _weighing_coverage(docmill.open_index(built["root"], embedder=embedder))
    sent: list[int] = []
    search = ShardSearcher.search

    def spy(self, ask):
        answer = search(self, ask)
        sent.append(len(answer.get("bm25", [])))
        return answer

    monkeypatch.setattr(ShardSearcher, "search", spy)
    read = 0
    for query in shard_queries:
        sent.clear()
        a, b = single.search(query, k=10, mode="vector"), sharded.search(query, k=10, mode="vector")
        assert a.abstained == b.abstained, query
        assert b.confidence == pytest.approx(a.confidence, abs=1e-6), query
        readable = not any("cannot read" in note for note in b.notes)
        assert max(sent) <= (COVERAGE_DEPTH if readable else AGREE_BM25_K), (query, sent)
        read += readable and sum(sent) > 0
    assert read  # some queries read the coverage of BM25 rows the shards sent
