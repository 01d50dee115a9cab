"""Reciprocal Rank Fusion, as a pure function so the formula is pinned by tests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Fused:
    row: int
    score: float
    ranks: dict[str, int]  # retriever -> 1-based rank


def rrf(
    rankings: Mapping[str, Sequence[int]],
    rrf_k: float = 60.0,
    weights: Mapping[str, float] | None = None,
) -> list[Fused]:
    """score(d) = Σ_r w_r / (rrf_k + rank_r(d)), ranks from 1; ties broken by the best single rank,
    then by row id, so the order is deterministic."""
    if rrf_k < 0:
        raise ValueError(f"rrf_k must be >= 0, got {rrf_k}")
    weights = weights or {}
    scores: dict[int, float] = {}
    ranks: dict[int, dict[str, int]] = {}
    for name, rows in rankings.items():
        weight = float(weights.get(name, 1.0))
        for rank, row in enumerate(rows, start=1):
            if name in ranks.setdefault(row, {}):
                continue  # a retriever lists a row once; keep its best rank
            ranks[row][name] = rank
            scores[row] = scores.get(row, 0.0) + weight / (rrf_k + rank)
    order = sorted(scores, key=lambda r: (-scores[r], min(ranks[r].values()), r))
    return [Fused(row, scores[row], ranks[row]) for row in order]
