"""Paired comparisons of two modes over the same questions: is a difference more than chance?

A question set's half of 19-25 questions moves hit@5 by 0.04-0.05 per question, so "hybrid 0.810
against BM25's 0.905" may be two questions a coin could have swapped. Information retrieval's
standard answer (Smucker, Allan & Carterette, "A Comparison of Statistical Significance Tests for
Information Retrieval Evaluation", CIKM 2007) is the paired randomisation test: under the null
hypothesis the two systems are interchangeable on each query, so the sign of each per-query
difference is flipped at random and the observed mean difference is set against that
distribution. scipy.stats does the work (``permutation_test`` with ``permutation_type="samples"``:
exact when there are few enough distinct sign patterns, sampled otherwise; ``bootstrap`` for a
confidence interval of the mean difference). Seeds are fixed, so a report is reproducible.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from docmill.eval.questions import counted_rank

RESAMPLES = 9999
CONFIDENCE = 0.95
SEED = 20261207


@dataclass(frozen=True)
class Paired:
    """``a`` against ``b`` on one per-question measure: the mean difference (a - b), its
    bootstrap confidence interval, the randomisation test's two-sided p-value and how many
    questions went each way."""

    measure: str
    n: int
    difference: float
    low: float
    high: float
    p: float
    better: int
    worse: int
    same: int

    @property
    def distinguishable(self) -> bool:
        """True when the interval leaves out 0 and p < 1 - CONFIDENCE (both say the same on all
        but the edge cases; requiring both keeps the call conservative)."""
        return self.p < 1 - CONFIDENCE and not (self.low <= 0.0 <= self.high)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "distinguishable": self.distinguishable}


def paired(measure: str, a: Sequence[float], b: Sequence[float]) -> Paired:
    """``a`` and ``b``: one value per question, in the same question order."""
    from scipy import stats

    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"paired samples must be 1-D and the same length, got {x.shape} and {y.shape}")
    d = x - y
    better, worse = int((d > 0).sum()), int((d < 0).sum())
    same = len(d) - better - worse
    if len(d) == 0 or not d.any():  # nothing to test: every question the same
        return Paired(measure, len(d), 0.0, 0.0, 0.0, 1.0, better, worse, same)
    # flipping a zero difference changes nothing: testing the questions that differ gives the same
    # p-value, exactly (every sign pattern) while 2^n stays within the resamples
    moved = d != 0
    # (one question differs: its two sign patterns are as extreme as each other, p = 1)
    p_value = 1.0 if moved.sum() == 1 else _randomisation_p(x[moved], y[moved])
    interval = stats.bootstrap(
        (d,),
        np.mean,
        confidence_level=CONFIDENCE,
        n_resamples=RESAMPLES,
        method="percentile",
        rng=np.random.default_rng(SEED),
    ).confidence_interval
    return Paired(
        measure,
        len(d),
        float(d.mean()),
        float(interval.low),
        float(interval.high),
        p_value,
        better,
        worse,
        same,
    )


def _randomisation_p(x: np.ndarray, y: np.ndarray) -> float:
    """Two-sided p of the paired randomisation test on the mean difference (scipy: every sign
    pattern when 2^n is within RESAMPLES, else RESAMPLES random ones)."""
    from scipy import stats

    test = stats.permutation_test(
        (x, y),
        lambda u, v, axis: np.mean(u - v, axis=axis),
        permutation_type="samples",
        n_resamples=RESAMPLES,
        vectorized=True,
        rng=np.random.default_rng(SEED),
    )
    return float(min(1.0, test.pvalue))


def compare_modes(
    per_mode: Mapping[str, Mapping[str, Sequence[float]]], against: str = "hybrid"
) -> dict[str, dict[str, dict[str, Any]]]:
    """``against`` paired with every other mode on each measure they share: per_mode is mode ->
    measure -> per-question values (same question order in every mode). Keyed
    "hybrid-bm25" -> measure -> Paired.to_dict()."""
    if against not in per_mode:
        return {}
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for mode, measures in per_mode.items():
        if mode == against:
            continue
        shared = [m for m in per_mode[against] if m in measures]
        out[f"{against}-{mode}"] = {m: paired(m, per_mode[against][m], measures[m]).to_dict() for m in shared}
    return out


def format_comparisons(comparisons: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> list[str]:
    """One line per pair and measure, for the text reports."""
    lines = []
    for pair, measures in comparisons.items():
        for measure, c in measures.items():
            verdict = "a real difference" if c["distinguishable"] else "within chance"
            lines.append(
                f"{pair.replace('-', ' - ')} {measure}: {c['difference']:+.3f} "
                f"(95% CI {c['low']:+.3f}..{c['high']:+.3f}, p={c['p']:.2f}; "
                f"{c['better']} better, {c['worse']} worse, {c['same']} same): {verdict}"
            )
    return lines


def question_measures(records: Sequence[Mapping[str, Any]], k: int = 10) -> dict[str, dict[str, list[float]]]:
    """Per mode, each in-domain question's reciprocal rank within ``k`` and hit within the top 5
    (0 when abstained, as the summary counts them), in question order, from
    ``evaluate_questions``' records."""
    cut = min(5, k)
    out: dict[str, dict[str, list[float]]] = {}
    for record in records:
        if record["offtopic"]:
            continue
        rank = counted_rank(record["rank"], record["abstained"], k)
        measures = out.setdefault(record["mode"], {f"hit@{cut}": [], f"mrr@{k}": []})
        measures[f"hit@{cut}"].append(1.0 if rank is not None and rank <= cut else 0.0)
        measures[f"mrr@{k}"].append(1.0 / rank if rank is not None else 0.0)
    return out
