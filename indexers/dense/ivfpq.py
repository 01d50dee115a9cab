"""IVF-PQ vectors for large shards: FAISS ``IndexIVFPQ`` (inner product) finds candidates from
compressed codes, and the build's exact vectors (each segment's ``embeddings.npy``, memory-mapped)
re-score them, so the hits and their scores are exact cosines over the rows the codes found.

The codes cost ``pq_m`` bytes per vector (48 for 384 dimensions, 8 dimensions per sub-quantizer)
instead of the 1.5 KB of a float32 vector or HNSW's ~1.8 KB, which is what lets a shard's vector
index sit in RAM at 100M chunks; the exact vectors stay on disk and only ``refine x k`` rows of
them are read per query. Recall@10 against flat is measured by bench/bench_scale.py (``--child
ivfpq``); docs/SCALING.md has the figures.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

PQ_BITS = 8  # 256 centroids per sub-quantizer: one byte per code
PQ_DIMS_PER_CODE = 8  # 384-dim MiniLM / e5-small vectors -> 48-byte codes
PQ_TRAIN_PER_CENTROID = 64  # training vectors per PQ centroid (FAISS warns below 39)
# Fewer rows than this are indexed flat (recorded as flat with requested "ivfpq"): PQ's k-means
# needs at least 2**PQ_BITS training vectors, and exact search over a small segment is cheaper.
MIN_VECTORS = 256


def pq_subquantizers(dim: int) -> int:
    """Sub-quantizers for ``dim`` dimensions: ~PQ_DIMS_PER_CODE dimensions each, dividing ``dim``."""
    target = max(1, dim // PQ_DIMS_PER_CODE)
    for m in range(target, 0, -1):
        if dim % m == 0:
            return m
    return 1


def build_ivfpq(
    vectors: np.ndarray, nlist: int, pq_m: int, nprobe: int, sample: np.ndarray, seed: int
) -> Any:
    """An untrained-then-trained IndexIVFPQ over ``vectors`` (rows = ids), trained on ``sample``."""
    import faiss

    dim = vectors.shape[1]
    quantizer = faiss.IndexFlatIP(dim)
    index = faiss.IndexIVFPQ(quantizer, dim, nlist, pq_m, PQ_BITS, faiss.METRIC_INNER_PRODUCT)
    index.cp.seed = seed
    index.pq.cp.seed = seed
    # Small segments train on few vectors (>= MIN_VECTORS); the codes are re-scored exactly anyway,
    # so FAISS's 'please provide at least 39 points per centroid' warning is noise here.
    index.cp.min_points_per_centroid = 1
    index.pq.cp.min_points_per_centroid = 1
    index.train(np.ascontiguousarray(sample, dtype=np.float32))
    index.nprobe = min(nprobe, nlist)
    index.own_fields = True  # the quantizer belongs to the index (else Python may free it first)
    quantizer.this.disown()  # type: ignore[attr-defined]  # SWIG ownership, not in the stubs
    if len(vectors):
        index.add(vectors)
    return index


class RerankedIVFPQ:
    """An IVF-PQ index with its exact vectors: ``search`` takes ``refine x k`` candidates from the
    codes and returns the ``k`` best by exact inner product. ``ntotal`` as FAISS indexes have."""

    def __init__(self, index: Any, vectors: npt.NDArray[np.float32], refine: int) -> None:
        if len(vectors) != index.ntotal:
            raise ValueError(f"{index.ntotal} IVF-PQ codes but {len(vectors)} exact vectors")
        self.index = index
        self.vectors = vectors
        self.refine = max(1, int(refine))

    @property
    def ntotal(self) -> int:
        return int(self.index.ntotal)

    @property
    def nlist(self) -> int:
        return int(self.index.nlist)

    def search(
        self,
        query: np.ndarray,
        k: int,
        allowed: npt.NDArray[np.bool_] | None,
        probe: int | None,
        exhaustive: bool,
    ) -> list[tuple[int, float]]:
        """Top ``k`` (row, exact score) among ``allowed`` rows (None: all). ``exhaustive``: score
        every allowed row exactly (a narrow filter, or too few candidates found)."""
        query = np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32)
        if exhaustive:
            rows = np.flatnonzero(allowed) if allowed is not None else np.arange(self.ntotal)
            return self._best(query, rows, k)
        candidates = self._candidates(query, k * self.refine, allowed, probe)
        if allowed is not None and len(candidates) < k:  # the probed cells held too few allowed rows
            return self.search(query, k, allowed, probe, exhaustive=True)
        return self._best(query, candidates, k)

    def _candidates(
        self, query: np.ndarray, count: int, allowed: npt.NDArray[np.bool_] | None, probe: int | None
    ) -> npt.NDArray[np.int64]:
        import faiss

        params = faiss.SearchParametersIVF()
        params.nprobe = min(probe if probe is not None else int(self.index.nprobe), self.nlist)
        bits = None
        if allowed is not None:
            bits = np.packbits(allowed, bitorder="little")  # kept alive for the selector
            params.sel = faiss.IDSelectorBitmap(self.ntotal, faiss.swig_ptr(bits))
        _, ids = self.index.search(query, min(count, self.ntotal), params=params)
        del bits
        return ids[0][ids[0] >= 0]

    def _best(self, query: np.ndarray, rows: npt.NDArray[np.int64], k: int) -> list[tuple[int, float]]:
        if not len(rows):
            return []
        rows = np.sort(rows)  # memory-mapped reads in file order
        scores = np.asarray(self.vectors[rows], dtype=np.float32) @ query[0]
        top = np.lexsort((rows, -scores))[:k]  # best first, ties by row
        return [(int(rows[i]), float(scores[i])) for i in top]
