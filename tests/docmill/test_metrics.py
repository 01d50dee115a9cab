import math

import pytest

from indexers.ranking.metrics import mrr_at_k, ndcg_at_k, percentile, recall_at_k


def test_ndcg_on_a_hand_computed_three_item_list():
    qrels = {"a": 1, "c": 2}
    ranked = ["a", "b", "c"]
    dcg = 1 / math.log2(2) + 0 + 2 / math.log2(4)  # 1 + 1 = 2.0
    idcg = 2 / math.log2(2) + 1 / math.log2(3)  # 2 + 0.6309 = 2.6309
    assert ndcg_at_k(ranked, qrels, 10) == pytest.approx(dcg / idcg)
    assert ndcg_at_k(ranked, qrels, 10) == pytest.approx(0.760188, abs=1e-6)
    assert ndcg_at_k(["c", "a"], qrels, 10) == pytest.approx(1.0)
    assert ndcg_at_k(ranked, qrels, 1) == pytest.approx(1 / 2)  # a (gain 1) where c (gain 2) was ideal
    assert ndcg_at_k(["x"], {}, 10) == 0.0


def test_recall_and_mrr():
    qrels = {"a": 1, "b": 1, "z": 0}
    assert recall_at_k(["x", "a", "y"], qrels, 10) == 0.5
    assert recall_at_k(["x", "a", "b"], qrels, 2) == 0.5
    assert mrr_at_k(["x", "y", "b"], qrels, 10) == pytest.approx(1 / 3)
    assert mrr_at_k(["x", "y", "b"], qrels, 2) == 0.0
    assert mrr_at_k(["z", "a"], qrels, 10) == 0.5  # grade 0 is not relevant


def test_percentile_nearest_rank():
    assert percentile([5, 1, 3, 2, 4], 50) == 3
    assert percentile([1, 2, 3, 4], 95) == 4
    assert percentile([], 50) == 0.0


def test_character_error_rate_counts_edits_over_the_collapsed_reference():
    from indexers.ranking.metrics import char_error_rate, edit_distance

    assert edit_distance("kitten", "sitting") == 3  # the textbook example
    assert edit_distance("", "abc") == 3 and edit_distance("abc", "abc") == 0
    # line breaks and runs of spaces are layout: "the  cat\nsat" reads as "the cat sat" (11 chars)
    assert char_error_rate("the  cat\nsat", "the cat sat") == 0.0
    assert char_error_rate("the cat sat", "the bat sat") == 1 / 11
    assert char_error_rate("", "") == 0.0
