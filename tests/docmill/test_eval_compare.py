"""Paired comparisons in `docmill eval` (docmill/eval/compare.py): scipy's randomisation test
against an exact sign-flip enumeration, the verdicts, and the per-question measures."""

import itertools

import numpy as np
import pytest

from docmill.eval.compare import compare_modes, format_comparisons, paired, question_measures


def exact_sign_flip_p(a, b):
    """The reference: every one of the 2^n sign patterns of the per-question differences."""
    d = np.asarray(a, float) - np.asarray(b, float)
    observed = abs(d.mean())
    means = [abs((d * np.array(signs)).mean()) for signs in itertools.product((1, -1), repeat=len(d))]
    return sum(m >= observed - 1e-12 for m in means) / len(means)


@pytest.mark.parametrize(
    "a, b",
    [
        ([1, 1, 0, 1, 0, 1, 1, 0, 1, 1], [0, 1, 0, 0, 0, 1, 0, 0, 1, 1]),
        ([0.5, 1, 0.25, 1, 0, 0.33, 1, 0.2, 1, 0.5], [1, 0.5, 0.25, 0.2, 0, 0.33, 1, 0.5, 0.1, 1]),
        ([1, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
    ],
)
def test_p_values_match_an_exact_enumeration(a, b):
    # 2^10 = 1024 sign patterns: fewer than the resamples, so scipy enumerates them too
    assert paired("m", a, b).p == pytest.approx(exact_sign_flip_p(a, b), abs=1e-9)


def test_a_clear_difference_is_called_real():
    a, b = [1.0] * 18 + [0.0] * 2, [0.0] * 18 + [0.0] * 2
    c = paired("hit@5", a, b)
    assert c.difference == pytest.approx(0.9) and c.better == 18 and c.worse == 0 and c.same == 2
    assert c.p < 0.001 and 0 < c.low <= c.difference <= c.high and c.distinguishable


def test_two_questions_out_of_twenty_are_within_chance():
    a = [1.0] * 17 + [0.0] * 3  # hybrid hit@5 0.85
    b = [1.0] * 19 + [0.0] * 1  # a side's 0.95: two questions apart
    c = paired("hit@5", a, b)
    assert c.difference == pytest.approx(-0.1) and (c.better, c.worse, c.same) == (0, 2, 18)
    assert 0.4 < c.p < 0.6 and c.low < 0 and not c.distinguishable


def test_identical_modes_and_empty_sets():
    c = paired("mrr@10", [0.5, 1.0, 0.0], [0.5, 1.0, 0.0])
    assert (c.difference, c.p, c.same, c.distinguishable) == (0.0, 1.0, 3, False)
    assert paired("mrr@10", [], []).n == 0


def test_mismatched_lengths_are_refused():
    with pytest.raises(ValueError, match="same length"):
        paired("m", [1, 0], [1])


def test_results_are_reproducible():
    rng = np.random.default_rng(3)
    a, b = rng.random(200), rng.random(200)
    assert paired("m", a, b) == paired("m", a, b)


def test_question_measures_follow_the_summary_rules():
    records = [
        {"id": "q1", "mode": "bm25", "offtopic": False, "rank": 2, "abstained": False},
        {"id": "q1", "mode": "hybrid", "offtopic": False, "rank": 1, "abstained": False},
        {"id": "q2", "mode": "bm25", "offtopic": False, "rank": 7, "abstained": False},
        {"id": "q2", "mode": "hybrid", "offtopic": False, "rank": 3, "abstained": True},  # abstained: 0
        {"id": "q3", "mode": "bm25", "offtopic": False, "rank": 12, "abstained": False},  # beyond k
        {"id": "q3", "mode": "hybrid", "offtopic": False, "rank": None, "abstained": False},
        {"id": "o1", "mode": "bm25", "offtopic": True, "rank": None, "abstained": True},
        {"id": "o1", "mode": "hybrid", "offtopic": True, "rank": None, "abstained": False},
    ]
    m = question_measures(records, k=10)
    assert m["bm25"] == {"hit@5": [1.0, 0.0, 0.0], "mrr@10": [0.5, 1 / 7, 0.0]}
    assert m["hybrid"] == {"hit@5": [1.0, 0.0, 0.0], "mrr@10": [1.0, 0.0, 0.0]}
    compared = compare_modes(m)
    assert set(compared) == {"hybrid-bm25"} and compared["hybrid-bm25"]["mrr@10"]["better"] == 1
    line = format_comparisons(compared)[1]
    assert line.startswith("hybrid - bm25 mrr@10: ") and line.endswith("within chance")


def test_no_comparison_without_hybrid():
    assert compare_modes({"bm25": {"hit@5": [1.0]}}) == {}
