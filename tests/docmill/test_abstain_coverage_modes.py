"""Abstain v6's coverage evidence is BM25's: a search that ran no BM25 side (mode vector) reads it
from a BM25 search of the top COVERAGE_DEPTH where the build weighs it, so it is judged on the
evidence its threshold was fitted with, never as if its top hit covered nothing (nor, as before
session 12, with the coverage weight moved to the cosine: off-topic questions then passed)."""

from __future__ import annotations

import dataclasses

import pytest

import docmill
from indexers.ranking.abstain import (
    COVERAGE_DEPTH,
    AbstainModel,
    JointScale,
    SideScale,
    best_coverage,
    is_short,
    lexical_evidence,
)


def _with_coverage_weight(index, weight: float) -> None:
    scale = SideScale(low=0.0, threshold=0.2, high=3.0)  # wide: confidence never saturates here
    index.abstain_model = dataclasses.replace(
        AbstainModel.from_manifest(None), joint=JointScale(0.2, scale, coverage_weight=weight)
    )


def test_vector_mode_reads_the_coverage_of_a_bm25_top_5_as_hybrid_reads_its_bm25_side(small_index, embedder):
    index = docmill.open_index(small_index, embedder=embedder)
    query = "where does the installer place the orbital daemon"
    confidence = {}
    for weight in (0.0, 0.3):
        _with_coverage_weight(index, weight)
        for mode in ("vector", "hybrid"):
            confidence[mode, weight] = index.search(query, k=3, mode=mode, abstain=False).confidence
    assert confidence["vector", 0.3] != confidence["vector", 0.0]
    assert confidence["hybrid", 0.3] != confidence["hybrid", 0.0]
    # mode vector's judgement: its top cosine, the known-term share and BM25's top 5's coverage
    terms = index._terms(query)
    cosine = index.search(query, k=1, mode="vector", abstain=False).hits[0].scores["vector"]
    top = [row for row, _ in index.bm25.search(terms, COVERAGE_DEPTH).hits]
    coverage = best_coverage(index.bm25, terms, top)
    assert coverage > 0.0
    expected = index.abstain_model.confidence(
        lexical_evidence(index.bm25, terms), cosine, is_short(terms), coverage
    )
    assert confidence["vector", 0.3] == pytest.approx(expected)
