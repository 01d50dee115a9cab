import pytest

from indexers.ranking.fusion import rrf


def test_rrf_matches_hand_computed_example():
    # bm25: A B C ; vector: C A D  (rows A=1, B=2, C=3, D=4), k = 60
    fused = rrf({"bm25": [1, 2, 3], "vector": [3, 1, 4]}, rrf_k=60)
    expected = {
        1: 1 / 61 + 1 / 62,  # A: bm25#1, vec#2 = 0.032522...
        3: 1 / 63 + 1 / 61,  # C: bm25#3, vec#1 = 0.032266...
        2: 1 / 62,  # B
        4: 1 / 63,  # D
    }
    assert [f.row for f in fused] == [1, 3, 2, 4]
    for f in fused:
        assert f.score == pytest.approx(expected[f.row], abs=1e-12)
    assert fused[0].ranks == {"bm25": 1, "vector": 2}
    assert fused[0].score == pytest.approx(0.0325224748810153, abs=1e-12)


def test_rrf_weights_scale_each_retriever():
    fused = rrf({"bm25": [1, 2], "vector": [2, 1]}, rrf_k=0, weights={"bm25": 2.0})
    # row 1: 2/1 + 1/2 = 2.5 ; row 2: 2/2 + 1/1 = 2.0
    assert [(f.row, f.score) for f in fused] == [(1, 2.5), (2, 2.0)]


def test_rrf_ties_break_on_best_single_rank_then_row():
    # row 5: bm25#1 only; row 7: vector#1 only -> equal scores and equal best ranks -> row id decides
    fused = rrf({"bm25": [5], "vector": [7]})
    assert [f.row for f in fused] == [5, 7]
    fused = rrf({"a": [1, 2], "b": [3, 2]}, rrf_k=0)
    # rows 1, 2, 3 all score 1.0; rows 1 and 3 have a rank-1 vote, row 2 only rank 2
    assert [f.row for f in fused] == [1, 3, 2]


def test_rrf_rejects_negative_k():
    with pytest.raises(ValueError, match="rrf_k"):
        rrf({"a": [1]}, rrf_k=-1)


def test_agreement_in_both_top_3_outranks_a_candidate_only_one_side_ranks():
    from indexers.ranking.fusion import promote

    # rrf_k 0: plain RRF puts rows 1 and 9 (one side's #1 each) above row 5 (#3 on both sides)
    rankings = {"bm25": [1, 2, 5], "vector": [9, 8, 5]}
    plain = rrf(rankings, 0.0)
    assert [f.row for f in plain][:3] == [1, 9, 5]
    lifted = promote(plain, ["bm25", "vector"], weights={"bm25": 0.6, "vector": 1.0})
    assert lifted[0].row == 5 and lifted[0].evidence == "agree" and lifted[0].tier == -1
    assert [f.row for f in lifted[1:3]] == [1, 9]  # the rest keep the fused order


def test_a_side_weighted_far_down_for_the_query_does_not_vote():
    from indexers.ranking.fusion import promote, voters

    rankings = {"bm25": [5, 1, 2], "vector": [9, 8, 5]}
    weights = {"bm25": 0.01, "vector": 1.0}  # a code corpus: BM25 x coverage ** 4
    plain = rrf(rankings, 10.0, weights)
    assert voters(["bm25", "vector"], weights) == ["vector"]
    assert [f.row for f in promote(plain, ["bm25", "vector"], weights=weights)] == [f.row for f in plain]


def test_exact_rows_are_lifted_and_others_keep_their_order():
    from indexers.ranking.fusion import promote

    plain = rrf({"bm25": [7, 1, 2, 3], "vector": [1, 2, 3, 4]})
    assert plain[0].row != 7
    lifted = promote(plain, ["bm25", "vector"], {7: "1040nr"})
    tiers = [(f.row, f.evidence) for f in lifted if f.tier == -1]
    assert (7, "exact:1040nr") in tiers and lifted[len(tiers)].row not in dict(tiers)


def test_exact_looking_terms():
    from indexers.ranking.fusion import exact_looking

    # a capitalised word may be a name; the document-frequency cut (at most EXACT_MAX_DF chunks)
    # drops the sentence-initial ones
    assert exact_looking("Where is `Client.send` defined?") == ["Client.send", "Where"]
    assert exact_looking("Ecolab contribution amount and date") == ["Ecolab"]
    assert exact_looking("line 23b of form 1040NR") == ["23b", "1040NR"]
    assert exact_looking("how do I add a progress bar") == []
    assert exact_looking('what does "max_redirects" do') == ["max_redirects"]


def test_zscore_matches_hand_computed_standard_scores():
    from indexers.ranking.fusion import standard_scores, zscore

    bm25 = [(1, 9.0), (2, 5.0), (3, 1.0)]  # mean 5, spread sqrt(32/3)
    vector = [(2, 0.9), (3, 0.8), (4, 0.7)]  # mean 0.8, spread sqrt(0.02/3)
    zb, zv = standard_scores(bm25), standard_scores(vector)
    spread_b, spread_v = (32 / 3) ** 0.5, (0.02 / 3) ** 0.5
    assert zb == pytest.approx({1: 8 / spread_b, 2: 4 / spread_b, 3: 0.0})
    assert zv == pytest.approx({2: 0.2 / spread_v, 3: 0.1 / spread_v, 4: 0.0})
    fused = {f.row: f.score for f in zscore({"bm25": bm25, "vector": vector}, {"bm25": 1.0, "vector": 3.0})}
    assert fused[2] == pytest.approx((zb[2] + 3 * zv[2]) / 4)
    assert fused[1] == pytest.approx(zb[1] / 4)  # the vector side did not list row 1: its lowest, 0
    assert fused[4] == pytest.approx(0.0)


def test_zscore_lets_a_side_that_stands_clear_outweigh_a_flat_one():
    """BM25's top hit stands far above its list; the vector side's cosines are flat (0.90-0.91 for
    everything, as multilingual-e5's are), with the BM25 hit at its rank 30: RRF sinks it below the
    mid-rank rows both sides list, the standard scores keep it first."""
    from indexers.ranking.fusion import zscore

    bm25 = [(0, 30.0)] + [(row, 10.0 - 0.1 * row) for row in range(1, 40)]
    vector = [(row, 0.91 - 0.0002 * row) for row in range(1, 40)]
    vector.insert(29, (0, 0.91 - 0.0002 * 29.5))
    assert rrf({"bm25": [r for r, _ in bm25], "vector": [r for r, _ in vector]})[0].row != 0
    assert zscore({"bm25": bm25, "vector": vector})[0].row == 0


def test_a_complete_short_list_is_scored_against_the_rows_it_could_not_list():
    """BM25 lists every chunk holding a query term: two of them, asked for 100. Counted with the
    98 rows scoring 0, both stand out (hand-computed); unpadded the second scored 0, what an
    unlisted row gets, and a lone match scored 0 (no spread). A full list is not padded."""
    from indexers.ranking.fusion import standard_scores, zscore

    bm25 = [(0, 8.0), (1, 6.0)]
    mean = 14.0 / 100
    spread = ((8 - mean) ** 2 + (6 - mean) ** 2 + 98 * mean**2) ** 0.5 / 10
    assert standard_scores(bm25, 100) == pytest.approx({0: 8 / spread, 1: 6 / spread})
    assert standard_scores(bm25)[1] == 0.0 and standard_scores([(0, 8.0)]) == {0: 0.0}
    assert standard_scores([(0, 8.0)], 100)[0] > 9
    full = [(row, 10.0 - 0.05 * row) for row in range(100)]
    assert standard_scores(full, 100) == standard_scores(full)
    # the vector side's 100 candidates, flat, without either BM25 match
    vector = [(row, 0.42 - 0.001 * row) for row in range(2, 102)]
    padded = zscore({"bm25": bm25, "vector": vector}, complete={"bm25": 100})
    assert [f.row for f in padded[:2]] == [0, 1]
    assert 1 not in [f.row for f in zscore({"bm25": bm25, "vector": vector})[:10]]


def test_zscore_is_deterministic_and_breaks_ties_by_best_rank_then_row():
    from indexers.ranking.fusion import zscore

    sides = {"bm25": [(5, 2.0), (6, 1.0)], "vector": [(6, 0.5), (5, 0.1)]}
    first = [(f.row, f.score) for f in zscore(sides)]
    assert first == [(f.row, f.score) for f in zscore(sides)]
    tied = zscore({"bm25": [(7, 1.0), (8, 1.0)], "vector": [(8, 1.0), (7, 1.0)]})
    assert [f.row for f in tied] == [7, 8]
