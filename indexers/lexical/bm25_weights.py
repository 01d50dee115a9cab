"""The BM25 formula (Lucene idf, classic (k1 + 1) numerator) applied at build time: its parameters
and the float32 weight of every (term, document) posting, pure array code over
indexers.lexical.term_counts.TermCounts (no files; BM25Index and the segments' postings store what
it computes).

    idf(t)      = ln(1 + (N - df + 0.5) / (df + 0.5))            always > 0
    w(t, d)     = idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * |d| / avgdl))
    score(q, d) = sum over query term occurrences t of weight(t) * w(t, d)

A term repeated in the query counts once per occurrence, as in rank_bm25, bm25s and Anserini's
bag-of-words queries; weight(t) is 1 but for the Han-character field's terms (tokenize.term_weight).
bm25s' "lucene" method drops the constant (k1 + 1) factor, as Lucene >= 8 does: its scores are
ours divided by (k1 + 1), with the same ranking.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from indexers.lexical.term_counts import TermCounts

# Postings whose weights are computed at once: the float64 temporaries stay a few MiB.
WEIGHT_BLOCK = 1 << 18


@dataclass(frozen=True)
class BM25Params:
    k1: float = 1.2
    b: float = 0.75

    def __post_init__(self) -> None:
        if not (math.isfinite(self.k1) and self.k1 >= 0):
            raise ValueError(f"BM25Params.k1 must be a finite number >= 0, got {self.k1!r}")
        if not (math.isfinite(self.b) and 0 <= self.b <= 1):
            raise ValueError(f"BM25Params.b must be between 0 and 1, got {self.b!r}")

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> BM25Params:
        unknown = set(values) - {"k1", "b"}
        if unknown:
            raise ValueError(f"unknown BM25 parameter(s): {', '.join(sorted(unknown))}; expected: b, k1")
        return cls(**{k: float(v) for k, v in values.items()})


def posting_weights(counts: TermCounts, params: BM25Params) -> npt.NDArray[np.float32]:
    """float32 BM25 weight of every posting of ``counts`` under its own statistics (N, avgdl, df).

    The float64 formula of ``_weights``, operation for operation, evaluated WEIGHT_BLOCK postings at
    a time: each step is element-wise, so the values are those of one pass over all postings, with
    idf taken per term and the length norm per document (the same float64 numbers as computing
    them per posting) and no int64 or float64 array as long as the postings."""
    n_docs = counts.n_docs
    lengths = np.asarray(counts.doc_lengths, dtype=np.int64)
    avgdl = float(lengths.mean()) if n_docs else 0.0
    indptr = np.asarray(counts.indptr, dtype=np.int64)
    df = indptr[1:] - indptr[:-1]
    idf: npt.NDArray[np.float64] = np.log1p((n_docs - df + 0.5) / (df + 0.5))
    k1, b = params.k1, params.b
    # Per document, as _weights per posting: (1 - b) first, then + b * |d| / avgdl.
    norm: npt.NDArray[np.floating[Any]] = (
        k1 * (1 - b + b * lengths / avgdl) if avgdl > 0 else np.full(n_docs, k1, dtype=np.float64)
    )
    del lengths
    total = int(indptr[-1])
    weights = np.empty(total, dtype=np.float32)
    for start in range(0, total, WEIGHT_BLOCK):
        end = min(start + WEIGHT_BLOCK, total)
        first = int(np.searchsorted(indptr, start, side="right")) - 1  # terms whose postings meet the block
        last = int(np.searchsorted(indptr, end, side="left"))
        spans = np.minimum(indptr[first + 1 : last + 1], end) - np.maximum(indptr[first:last], start)
        tf = counts.tf[start:end]
        block: npt.NDArray[np.float64] = np.repeat(idf[first:last], spans) * tf
        block *= k1 + 1
        block /= tf + norm[counts.indices[start:end]]
        weights[start:end] = block
    return weights


def _weights(
    tf: npt.NDArray[np.integer[Any]],
    df: npt.NDArray[np.integer[Any]],
    doc_length: npt.NDArray[np.integer[Any]],
    n_docs: int,
    avgdl: float,
    params: BM25Params,
) -> npt.NDArray[np.float64]:
    """The weight formula per posting, in one pass (the reference ``posting_weights`` follows)."""
    idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
    norm = params.k1 * (1 - params.b + params.b * doc_length / avgdl) if avgdl > 0 else params.k1
    result: npt.NDArray[np.float64] = idf * tf * (params.k1 + 1) / (tf + norm)
    return result
