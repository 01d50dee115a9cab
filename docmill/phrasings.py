"""Several phrasings of one question (e.g. rewrites by an app's LLM), each searched on its own: their
results fused into one with RRF (HybridIndex.search_many)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from docmill.hits import SearchResult
from indexers.ranking.fusion import rrf


def fuse_phrasings(results: Sequence[SearchResult], k: int, rrf_k: float, build: str) -> SearchResult:
    """The top ``k`` of the phrasings' hit lists fused with RRF (``rrf_k``), each hit explained by its
    rank in each phrasing (``q1#3 q2#1``); abstains only when every phrasing abstained, and a
    filter no chunk passes says so as each phrasing did."""
    hits_by_id = {hit.chunk.id: hit for result in results for hit in result.hits}
    ids = list(hits_by_id)
    position = {chunk_id: i for i, chunk_id in enumerate(ids)}
    fused = rrf({str(i): [position[h.chunk.id] for h in r.hits] for i, r in enumerate(results)}, rrf_k)
    notes = [note for r in results for note in r.notes]
    if not fused and not any(r.abstained for r in results):  # nothing judged: filters no chunk passes
        return SearchResult([], reason=results[0].reason, notes=notes, build=build)
    if not fused:
        reasons = "; ".join(sorted({r.reason or "no hits" for r in results}))
        reason = f"every phrasing abstained ({reasons})"
        return SearchResult([], abstained=True, reason=reason, notes=notes, build=build)
    hits = []
    for item in fused[:k]:
        hit = hits_by_id[ids[item.row]]
        votes = " ".join(f"q{int(name) + 1}#{rank}" for name, rank in sorted(item.ranks.items()))
        hits.append(dataclasses.replace(hit, score=item.score, explain=f"{votes} rrf={item.score:.4f}"))
    return SearchResult(hits, notes=notes, build=build)
