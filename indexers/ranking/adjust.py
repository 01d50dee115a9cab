"""Re-orderings of a fused ranking that read the candidates' chunks (pure: the chunk lookup is
passed in), moved here from HybridIndex.search: test-code demotion and the mixed-tree kind floor."""

from __future__ import annotations

import dataclasses
import heapq
from collections.abc import Callable, Sequence
from typing import TypeVar

from indexers.ranking.fusion import Fused

T = TypeVar("T")


def demote(
    ranking: Sequence[Fused], k: int, weight: float, demoted: Callable[[int], bool]
) -> tuple[list[Fused], dict[int, float]]:
    """Multiply the fused score of the rows ``demoted`` says (code of test files) by ``weight``
    and re-sort, keeping each candidate's tier (fusion.py: agreement and exact-term evidence stay
    above the rest). Only as many candidates are looked at as can still reach the top ``k`` of
    their tier (a raw score bounds every demoted one below it)."""
    adjusted: list[Fused] = []
    factors: dict[int, float] = {}
    best: list[tuple[int, float]] = []  # min-heap of the k best (tier, adjusted score) so far
    rest: list[Fused] = []
    for i, item in enumerate(ranking):
        if len(best) >= k and best[0] >= (-item.tier, item.score):
            rest = list(ranking[i:])
            break
        if demoted(item.row):
            factors[item.row] = weight
            item = dataclasses.replace(item, score=item.score * weight)
        adjusted.append(item)
        heapq.heappush(best, (-item.tier, item.score))
        if len(best) > k:
            heapq.heappop(best)
    order = sorted(adjusted, key=lambda f: (f.tier, -f.score, min(f.ranks.values()), f.row))
    return order + rest, factors


def kind_floor(places: Sequence[T], floor: int, is_source: Callable[[T], bool]) -> list[T]:
    """In a mixed docs + code tree: if the first ``floor`` places are all source code or all prose,
    the best place of the other kind moves up to position ``floor`` (the rest keep their order)."""
    head = [is_source(item) for item in places[:floor]]
    if len(head) < floor or len(set(head)) > 1:
        return list(places)
    for i in range(floor, len(places)):
        if is_source(places[i]) != head[0]:
            return [*places[: floor - 1], places[i], *places[floor - 1 : i], *places[i + 1 :]]
    return list(places)
