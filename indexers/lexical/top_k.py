"""The best ``k`` documents of a score array (ties by document id, scores > 0 only): the cut every
BM25 search ends with, pure array code (BM25Index's float32 scores, SegmentedBM25's float64 totals)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

# top_of_totals bounds the k-th best total by the k-th best of every this many rows.
TOP_SAMPLE = 4


def top_hits(
    scores: npt.NDArray[np.float32], k: int, allowed: npt.NDArray[np.bool_] | None, n_docs: int
) -> list[tuple[int, float]]:
    """Up to k (doc id, score) pairs of ``scores``, best first, ties by id, score > 0 only;
    ``allowed`` (bool, length ``n_docs``) filters before the cut."""
    if allowed is not None:
        if allowed.dtype != np.bool_ or allowed.shape != (n_docs,):
            raise ValueError(
                f"allowed must be a bool array of shape ({n_docs},), got {allowed.dtype} {allowed.shape}"
            )
        scores = np.where(allowed, scores, np.float32(0))
    candidates = np.flatnonzero(scores > 0)
    if len(candidates) > k:
        # Keep every doc tied with the k-th score so the tie-break below is by id, not by luck.
        # The k-th best is found among the matches only (usually far fewer than N).
        matched = scores[candidates]
        kth = np.partition(matched, len(matched) - k)[len(matched) - k]
        candidates = candidates[matched >= kth]
    order = np.lexsort((candidates, -scores[candidates]))[:k]
    best = candidates[order]
    return list(zip(best.tolist(), scores[best].tolist(), strict=True))


def top_of_totals(
    totals: npt.NDArray[np.float64], k: int, allowed: npt.NDArray[np.bool_] | None, n_docs: int
) -> list[tuple[int, float]]:
    """``top_hits(totals.astype(np.float32), k, allowed, n_docs)`` for ``totals`` summed from
    float32 weights (SegmentedBM25's, in float64), without the float32 copy of
    every document's score: only the matched documents' totals are rounded to float32 (what the
    cut and the order read), and the order is one stable sort of the kept scores, whose rows are
    already ascending (ties by row, as top_hits' lexsort)."""
    if allowed is not None and (allowed.dtype != np.bool_ or allowed.shape != (n_docs,)):
        raise ValueError(
            f"allowed must be a bool array of shape ({n_docs},), got {allowed.dtype} {allowed.shape}"
        )
    cut = _cut(totals, k) if allowed is None else 0.0
    candidates = (totals > cut).nonzero()[0]  # nonzero() of a bool array: ~6x faster than of floats
    if allowed is not None:
        candidates = candidates[allowed[candidates]]
    # Positive totals stay positive in float32: each is a sum of positive float32 weights, so at
    # least the smallest of them, itself a float32.
    matched = totals[candidates].astype(np.float32)
    if len(candidates) > k:
        kth = np.partition(matched, len(matched) - k)[len(matched) - k]
        kept = (matched >= kth).nonzero()[0]  # ~k of thousands: two small gathers, not two masks
        candidates, matched = candidates[kept], matched[kept]
    order = np.argsort(-matched, kind="stable")[:k]
    return list(zip(candidates[order].tolist(), matched[order].tolist(), strict=True))


def _cut(totals: npt.NDArray[np.float64], k: int) -> float:
    """A total that the rows of the top ``k`` all pass (0 when none is known): the k-th best of
    every TOP_SAMPLE-th row is at most the k-th best of all, and a total at or below the float32
    just under it rounds below it, so it cannot tie with the k-th best float32 score. The matched
    rows past it (~TOP_SAMPLE * k of thousands) are all the cut and order below need to read."""
    sample = totals[::TOP_SAMPLE]
    if k <= 0 or len(sample) < k:
        return 0.0
    floor = np.partition(sample, len(sample) - k)[len(sample) - k]
    return float(np.nextafter(np.float32(floor), np.float32(0))) if floor > 0 else 0.0
