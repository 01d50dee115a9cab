"""Label-free calibration of the hybrid fusion weights for one corpus.

Plain RRF lets a weak retriever drag the fused ranking down (code search with an English
sentence model beside BM25; Chinese text under an English-only model). So at build time we ask
the corpus itself how good each retriever is, with the inverse cloze task (ICT): take a sentence
out of a sampled chunk, search with that sentence, and see where each retriever ranks the rest
of the chunk. The held-out chunk is scored without its sentence (BM25 under the index's
statistics, the vector side by embedding the remainder), so neither side gets the exact-overlap
advantage a copied sentence would give. The BM25 weight (vector weight 1) that maximises the
fused MRR@10 of these pseudo-queries is recorded in the manifest and used by `search`.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from chunkers.model import Chunk
from indexers.bm25 import BM25Index
from indexers.fusion import rrf

METHOD = "ict-v1"
# BM25 weight relative to a vector weight of 1; inf = BM25 only, 0 = vector only.
WEIGHT_GRID = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 4.0, math.inf)
_LETTERS = re.compile(r"[^\W\d_]", re.UNICODE)
_SPLIT = re.compile(r"(?<=[.!?。！？；;])\s*|\n+")


@dataclass(frozen=True)
class PseudoQuery:
    row: int
    query: str
    remainder: str


def _eligible_segments(text: str, tokenize: Callable[[str], list[str]]) -> list[str]:
    """Sentence-like pieces that read like a question could: mostly letters, 3-40 terms."""
    out = []
    for segment in _SPLIT.split(text):
        segment = segment.strip()
        if not segment or len(_LETTERS.findall(segment)) < 0.6 * len(segment.replace(" ", "")):
            continue
        if 3 <= len(tokenize(segment)) <= 40:
            out.append(segment)
    return out


def sample_pseudo_queries(
    chunks: Sequence[Chunk], tokenize: Callable[[str], list[str]], n: int, seed: int = 0
) -> list[PseudoQuery]:
    """Up to ``n`` (chunk, held-out sentence) pairs; a chunk needs a sentence left over after one is
    taken out, so the remainder still says something."""
    rng = random.Random(seed)
    rows = list(range(len(chunks)))
    rng.shuffle(rows)
    picked: list[PseudoQuery] = []
    for row in rows:
        if len(picked) >= n:
            break
        chunk = chunks[row]
        segments = _eligible_segments(chunk.text, tokenize)
        if len(segments) < 2:
            continue
        query = rng.choice(segments)
        remainder = chunk.index_text.replace(query, " ", 1)
        if len(tokenize(remainder)) < 3:
            continue
        picked.append(PseudoQuery(row, query, remainder))
    return picked


def _ranked(scores: np.ndarray, depth: int, positive_only: bool) -> list[int]:
    candidates = np.flatnonzero(scores > 0) if positive_only else np.arange(len(scores))
    if len(candidates) > depth:
        candidates = candidates[np.argpartition(-scores[candidates], depth - 1)[:depth]]
    order = np.lexsort((candidates, -scores[candidates]))
    return candidates[order].tolist()


def _reciprocal_rank(ranking: Sequence[int], row: int, cutoff: int = 10) -> float:
    for i, r in enumerate(ranking[:cutoff]):
        if r == row:
            return 1.0 / (i + 1)
    return 0.0


def _weights(bm25_weight: float) -> dict[str, float]:
    if math.isinf(bm25_weight):
        return {"bm25": 1.0, "vector": 0.0}
    return {"bm25": bm25_weight, "vector": 1.0}


def calibrate_fusion(
    chunks: Sequence[Chunk],
    bm25: BM25Index,
    tokenize: Callable[[str], list[str]],
    vectors: np.ndarray,
    encode: Callable[[list[str]], np.ndarray],
    n: int = 200,
    rrf_k: float = 60.0,
    fetch_k: int = 100,
    min_queries: int = 30,
    seed: int = 0,
) -> dict[str, Any]:
    """The fusion settings for this corpus, with the evidence; default weights when the corpus is
    too small to say (fewer than ``min_queries`` pseudo-queries)."""
    queries = sample_pseudo_queries(chunks, tokenize, n, seed)
    result: dict[str, Any] = {"method": METHOD, "pseudo_queries": len(queries), "rrf_k": rrf_k}
    if len(queries) < min_queries:
        result.update(weights={"bm25": 1.0, "vector": 1.0}, reason=f"only {len(queries)} pseudo-queries")
        return result
    query_vecs = encode([q.query for q in queries])
    remainder_vecs = encode([q.remainder for q in queries])
    rr: dict[str, list[float]] = {"bm25": [], "vector": []}
    fused_rr: dict[float, list[float]] = {w: [] for w in WEIGHT_GRID}
    for q, qv, rv in zip(queries, query_vecs, remainder_vecs, strict=True):
        terms = tokenize(q.query)
        lexical = bm25.scores(terms).astype(np.float64)
        lexical[q.row] = bm25.score_document(terms, tokenize(q.remainder))
        dense = vectors @ qv
        dense[q.row] = float(rv @ qv)
        lists = {"bm25": _ranked(lexical, fetch_k, True), "vector": _ranked(dense, fetch_k, False)}
        for name, ranking in lists.items():
            rr[name].append(_reciprocal_rank(ranking, q.row))
        for w in WEIGHT_GRID:
            fused = rrf(lists, rrf_k, _weights(w))
            fused_rr[w].append(_reciprocal_rank([f.row for f in fused], q.row))
    mrr = {w: float(np.mean(v)) for w, v in fused_rr.items()}
    best = max(mrr.values())
    # Among settings within 0.005 of the best, take the one closest to equal weights.
    chosen = min(
        (w for w in WEIGHT_GRID if mrr[w] >= best - 0.005),
        key=lambda w: abs(math.log(w)) if 0 < w < math.inf else 99,
    )
    result.update(
        weights=_weights(chosen),
        mrr={"bm25": float(np.mean(rr["bm25"])), "vector": float(np.mean(rr["vector"]))},
        fused_mrr={("inf" if math.isinf(w) else str(w)): round(v, 4) for w, v in mrr.items()},
    )
    return result
