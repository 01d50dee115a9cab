"""Ranking metrics (BEIR / trec_eval conventions: linear gain, log2 discount, ranks from 1), for
`docmill eval`, the ingest quality gate and the benchmarks alike."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def dcg_at_k(ranked: Sequence[str], qrels: Mapping[str, float], k: int) -> float:
    return sum(qrels.get(doc, 0) / math.log2(i + 2) for i, doc in enumerate(ranked[:k]))


def ndcg_at_k(ranked: Sequence[str], qrels: Mapping[str, float], k: int = 10) -> float:
    """DCG of the ranking over DCG of the ideal ranking; 0 when nothing is relevant. A document
    ranked twice counts once (at its first rank)."""
    ideal = sorted((g for g in qrels.values() if g > 0), reverse=True)
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal[:k]))
    return dcg_at_k(list(dict.fromkeys(ranked)), qrels, k) / idcg if idcg > 0 else 0.0


def recall_at_k(ranked: Sequence[str], qrels: Mapping[str, int | float], k: int) -> float:
    relevant = {d for d, g in qrels.items() if g > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def mrr_at_k(ranked: Sequence[str], qrels: Mapping[str, int | float], k: int = 10) -> float:
    for i, doc in enumerate(ranked[:k]):
        if qrels.get(doc, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in [0, 100]); 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (insertions, deletions, substitutions cost 1)."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def char_error_rate(reference: str, hypothesis: str) -> float:
    """Character error rate of OCR output: edit distance / reference length, both texts with
    whitespace runs collapsed to one space (line breaks are layout, not characters)."""
    ref, hyp = " ".join(reference.split()), " ".join(hypothesis.split())
    return edit_distance(ref, hyp) / max(len(ref), 1)
