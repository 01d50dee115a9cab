"""Abstain v6 over a sharded root: a build whose joint scale weighs the top hits' coverage judges a
query the same whether its chunks are in one index or spread over shards (the coverage of
BM25's top rows asked of the shards that hold them, with the corpus's statistics)."""

import dataclasses

import pytest

import docmill
from docmill.sharded import ShardedIndex
from indexers.ranking.abstain import SideScale

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
