"""indexers/ranking/policy.py: the ranking one index and a sharded root share, on plain lists."""

from __future__ import annotations

import re

import pytest

from indexers.ranking import policy
from indexers.ranking.defaults import DEFAULT_WEIGHTS
from indexers.ranking.options import Mode


def test_sides_follow_the_mode_and_say_why_the_vector_side_is_skipped():
    notes: list[str] = []
    assert policy.sides_to_ask(Mode.BM25, DEFAULT_WEIGHTS, lambda: 0.0, notes) == (True, False)
    assert policy.sides_to_ask(Mode.HYBRID, DEFAULT_WEIGHTS, lambda: 0.0, notes) == (True, True)
    assert notes == []
    assert policy.sides_to_ask(Mode.HYBRID, DEFAULT_WEIGHTS, lambda: 0.9, notes) == (True, False)
    assert policy.sides_to_ask(Mode.HYBRID, {"bm25": 1.0, "vector": 0.0}, lambda: 0.0, notes) == (True, False)
    assert "90% of the query is unknown" in notes[0] and "fusion weight for this index is 0" in notes[1]


def test_bm25_weight_scales_with_its_top_hits_coverage_only_where_the_build_says():
    notes: list[str] = []
    weights = {"bm25": 2.0, "vector": 1.0}
    assert policy.query_weights(weights, None, lambda: 0.5, notes) == weights and not notes
    assert policy.query_weights(weights, 2.0, lambda: 0.5, notes) == {"bm25": 0.5, "vector": 1.0}
    assert notes == ["BM25 weight 0.50 (coverage of its top hit 0.50 ** 2)"]


def test_vector_noise_abstains_with_the_agreement_notes():
    notes: list[str] = []
    assert not policy.bm25_agrees([(7, 0.9), (8, 0.8)], [(1, 3.0), (2, 2.0)], notes)
    model = policy.AbstainModel.from_manifest(None)
    confidence, reason = policy.verdict(model, 1.0, None, True, True, notes)
    assert confidence == 0.0 and reason and "finds none of the vector side's top hits" in reason
    assert policy.bm25_agrees([(7, 0.9), (2, 0.8)], [(1, 3.0), (2, 2.0)], notes)


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text)


def test_exact_rare_term_lifts_bm25s_top_hit_and_test_code_is_demoted():
    results = {"bm25": [(1, 5.0), (2, 4.0), (3, 3.0)], "vector": [(3, 0.9), (2, 0.8), (4, 0.7)]}
    texts = {1: "def parse_v2(x): ...", 2: "tests of parse", 3: "a parser", 4: "other"}
    exact = policy.exact_rows(
        "what does parse_v2 do", results["bm25"], {"parse_v2": 1}, _words, texts.__getitem__
    )
    assert exact == {1: "parse_v2"}
    ranking, factors = policy.fuse(
        results, policy.Fusion("rrf", 60.0), DEFAULT_WEIGHTS, exact, 0.5, lambda row: row == 2
    )
    # 3 and 2 are in both sides' top 3 (agree), 1 holds the rare exact term: all three lead;
    # 2, test code, drops below 1 (without the demotion it ranks above it)
    assert [f.row for f in ranking] == [3, 1, 2, 4] and factors == {2: 0.5}
    assert [f.evidence for f in ranking[:3]] == ["agree", "exact:parse_v2", "agree"]
    undemoted, _ = policy.fuse(results, policy.Fusion("rrf", 60.0), DEFAULT_WEIGHTS, exact)
    assert [f.row for f in undemoted] == [3, 2, 1, 4]
    plain, none = policy.fuse(results, policy.Fusion("rrf", 60.0), DEFAULT_WEIGHTS, None)
    assert none == {} and all(f.tier == 0 for f in plain)


def test_mode_vector_reads_the_coverage_from_a_bm25_search_where_the_build_weighs_it():
    from indexers.ranking.abstain import AbstainModel, JointScale, SideScale

    weighs = AbstainModel(joint=JointScale(0.1, SideScale(0.7, 0.77, 0.83), coverage_weight=0.05))
    searched: list[str] = []

    def bm25_top() -> list[tuple[int, float]]:  # mode vector: no BM25 side ran, so it is asked
        searched.append("bm25")
        return [(4, 9.0), (2, 3.0)]

    def read(hits: list[tuple[int, float]]) -> float:
        return 0.1 * len(hits)

    assert policy.coverage_evidence(weighs, 0.84, bm25_top, False, read) == pytest.approx(0.2)
    assert searched == ["bm25"]
    # the evidence an everyday question's cosine gives without it passes a threshold fitted with it
    cosine, lexical = 0.84, 0.0
    without = weighs.confidence(lexical, cosine, False, None)
    with_coverage = weighs.confidence(lexical, cosine, False, 0.0)
    assert with_coverage < without
    # no weight on coverage, or no cosine: nothing is searched
    plain = AbstainModel(joint=JointScale(0.1, SideScale(0.7, 0.77, 0.83)))
    assert policy.coverage_evidence(plain, 0.84, bm25_top, False, read) is None
    assert policy.coverage_evidence(weighs, None, bm25_top, False, read) is None
    assert searched == ["bm25"]


def test_a_search_fuses_with_its_bm25_list_counted_against_the_candidates_it_asked_for():
    """The calibration's fusion carries the search's candidate depth, so BM25's list of the only
    two chunks holding the query's words is padded (fusion.standard_scores): both lead a flat
    vector side that lists neither. Without the depth the second fell below ten vector rows."""
    from indexers.ranking.options import SearchOptions

    fusion = policy.Calibration(dict(DEFAULT_WEIGHTS)).fusion_of(SearchOptions(k=5))
    assert fusion.method == "zscore" and fusion.depth == 100
    results = {"bm25": [(0, 8.0), (1, 6.0)], "vector": [(row, 0.42 - 0.001 * row) for row in range(2, 102)]}
    ranking, _ = policy.fuse(results, fusion, DEFAULT_WEIGHTS, None)
    assert [item.row for item in ranking[:2]] == [0, 1]
    unpadded, _ = policy.fuse(results, policy.Fusion("zscore", 60.0), DEFAULT_WEIGHTS, None)
    assert 1 not in [item.row for item in unpadded[:10]]
