"""Abstain v6's coverage evidence is BM25's: a search that ran no BM25 side (mode vector) is judged
as if the build had no coverage weight, never as if its top hit covered nothing."""

from __future__ import annotations

import dataclasses

import docmill
from indexers.ranking.abstain import AbstainModel, JointScale, SideScale


def _with_coverage_weight(index, weight: float) -> None:
    scale = SideScale(low=0.0, threshold=0.2, high=3.0)  # wide: confidence never saturates here
    index.abstain_model = dataclasses.replace(
        AbstainModel.from_manifest(None), joint=JointScale(0.2, scale, coverage_weight=weight)
    )


def test_vector_mode_reads_no_coverage_and_hybrid_does(small_index, embedder):
    index = docmill.open_index(small_index, embedder=embedder)
    query = "where does the installer place the orbital daemon"
    confidence = {}
    for weight in (0.0, 0.3):
        _with_coverage_weight(index, weight)
        for mode in ("vector", "hybrid"):
            confidence[mode, weight] = index.search(query, k=3, mode=mode, abstain=False).confidence
    assert confidence["vector", 0.3] == confidence["vector", 0.0]
    assert confidence["hybrid", 0.3] != confidence["hybrid", 0.0]
