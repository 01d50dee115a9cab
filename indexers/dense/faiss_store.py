"""FAISS inner-product indexes over L2-normalised vectors (inner product = cosine): build, save,
load (memory-mapped) and search with a row filter applied inside the search."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from indexers.dense.ann import VectorIndexSpec
from indexers.dense.ivfpq import RerankedIVFPQ


def build_faiss(vectors: np.ndarray, index: str | VectorIndexSpec = "flat") -> Any:
    """A FAISS inner-product index over ``vectors`` (rows = ids). ``index``: a kind ("flat",
    "hnsw", "ivf", "ivfpq": pair it with its vectors, ``ann.with_exact_vectors``, to search),
    "auto" (by size: indexers.dense.ann.choose) or a spec; record
    ``indexers.dense.ann.describe(result)`` (or the spec) next to it, so a reader can check the file."""
    from indexers.dense import ann

    spec = index if isinstance(index, VectorIndexSpec) else ann.choose(len(vectors), index, vectors.shape[1])
    return ann.build(vectors, spec)


def save_faiss(index: Any, path: Path) -> None:
    import faiss

    faiss.write_index(index, str(path))


def load_faiss(path: Path, mmap: bool = True) -> Any:
    import faiss

    flags = faiss.IO_FLAG_MMAP_IFC if mmap else 0
    try:
        return faiss.read_index(str(path), flags)
    except RuntimeError:
        if not mmap:
            raise
        return faiss.read_index(str(path))


def search_faiss(
    index: Any,
    query: np.ndarray,
    k: int,
    allowed: np.ndarray | None = None,
    probe: int | None = None,
) -> list[tuple[int, float]]:
    """Top ``k`` (row, cosine) pairs; ``allowed`` (bool mask over rows) is applied inside the search,
    so a filtered query still gets k hits when k rows are allowed: a filter that keeps at most
    ``ann.EXACT_FILTER_SHARE`` of the rows is searched exactly, and an approximate search that finds
    fewer than k allowed rows is done again exactly. ``probe``: how
    much of an approximate index to explore (HNSW efSearch, IVF nprobe; None: the build's
    default; ignored by flat)."""
    import faiss

    from indexers.dense import ann

    n = index.ntotal
    if n == 0 or k <= 0:
        return []
    if probe is not None and probe <= 0:
        raise ValueError(f"probe must be positive, got {probe}")
    query = np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32)
    selector, bits, want = None, None, min(k, n)
    if allowed is not None:
        allowed = np.asarray(allowed, dtype=bool)
        if allowed.shape != (n,):
            raise ValueError(f"allowed must be a bool array of shape ({n},), got {allowed.shape}")
        want = min(k, int(allowed.sum()))
        if want == 0:
            return []
        bits = np.packbits(allowed, bitorder="little")  # kept alive for the selector below
        selector = faiss.IDSelectorBitmap(n, faiss.swig_ptr(bits))
    # One query is one thread's work: FAISS's OpenMP team only adds barrier waits, which cost
    # 5-20 ms on a busy 2-core machine (bench/bench_query.py). The setting is process-wide, so it is
    # put back after the call.
    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        if isinstance(index, RerankedIVFPQ):  # IVF-PQ codes, candidates re-scored exactly
            narrow = allowed is not None and ann.narrow_filter(int(allowed.sum()), n, k)
            return index.search(query, want, allowed, probe, exhaustive=narrow)
        approximate = ann.is_approximate(index)
        if approximate and allowed is not None and ann.narrow_filter(int(allowed.sum()), n, k):
            target, exact = ann.exact_parameters(index, selector)  # faster and exact for a few rows
            scores, ids = target.search(query, want, params=exact)
        else:
            scores, ids = index.search(
                query, want, params=ann.search_parameters(index, probe, want, selector)
            )
            if selector is not None and approximate and int((ids[0] >= 0).sum()) < want:
                target, exact = ann.exact_parameters(index, selector)
                scores, ids = target.search(query, want, params=exact)
    finally:
        faiss.omp_set_num_threads(threads)
    del bits
    return [(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0]
