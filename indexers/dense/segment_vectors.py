"""Vector search over a build's segments: one FAISS index per segment (indexers.dense.embedder builds,
loads and searches each, whatever kind indexers.dense.ann chose for its size), masked lines excluded
inside each search, the per-segment top k merged by score. Ids are the build's rows
(indexers.build.rowmap); ties go by row, as in BM25, in every build, so a build by segments and a full
rebuild, whose rows agree, rank ties alike."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from indexers.build.rowmap import RowMap
from indexers.dense.faiss_store import search_faiss
from indexers.dense.windows import Windows, best_window_cosines


class SegmentedVectors:
    def __init__(
        self, indexes: Sequence[Any], rows: RowMap, windows: Sequence[Windows | None] | None = None
    ) -> None:
        if len(indexes) != len(rows.sizes):
            raise ValueError(f"{len(indexes)} FAISS indexes for {len(rows.sizes)} segments")
        self.indexes = list(indexes)
        self.rows = rows
        self.windows = list(windows) if windows is not None else [None] * len(self.indexes)
        if len(self.windows) != len(self.indexes):
            raise ValueError(f"windows of {len(self.windows)} segments for {len(self.indexes)}")

    @property
    def has_windows(self) -> bool:
        return any(w is not None for w in self.windows)

    def rescore(self, query: np.ndarray, hits: Sequence[tuple[int, float]]) -> list[tuple[int, float]]:
        """``hits`` (row, chunk cosine) scored again as the best of each row's cosine and its sentence
        windows' (indexers.dense.windows), best first, ties by row; unchanged without windows."""
        if not hits or not self.has_windows:
            return list(hits)
        rows = np.asarray([row for row, _ in hits], dtype=np.int64)
        scores = np.asarray([score for _, score in hits], dtype=np.float32)
        segments, local = self.rows.locate(rows)
        for i, windows in enumerate(self.windows):
            mine = np.flatnonzero(segments == i)
            if windows is not None and len(mine):
                best = best_window_cosines(windows, local[mine], query)
                scores[mine] = np.maximum(scores[mine], best)
        order = sorted(range(len(rows)), key=lambda j: (-float(scores[j]), int(rows[j])))
        return [(int(rows[j]), float(scores[j])) for j in order]

    @property
    def ntotal(self) -> int:
        """Rows searchable (FAISS's attribute name)."""
        return self.rows.n_rows

    @property
    def single(self) -> Any | None:
        """The one FAISS index whose ids are the rows (a build of one segment, nothing masked)."""
        if (
            len(self.indexes) == 1
            and self.rows.to_row[0] == 0
            and not isinstance(self.rows.to_row[0], np.ndarray)
        ):
            return self.indexes[0]
        return None

    def search(
        self, query: np.ndarray, k: int, allowed: npt.NDArray[np.bool_] | None = None, **options: Any
    ) -> list[tuple[int, float]]:
        """Top ``k`` (row, cosine) pairs, best first; ``allowed`` is a bool mask over rows.
        ``options`` go to indexers.dense.faiss_store.search_faiss (e.g. ``probe``)."""
        if allowed is not None and allowed.shape != (self.rows.n_rows,):
            raise ValueError(
                f"allowed must be a bool array of shape ({self.rows.n_rows},), got {allowed.shape}"
            )
        single = self.single
        if single is not None:
            hits = search_faiss(single, query, k, allowed=allowed, **options)
            if any(
                a[1] == b[1] for a, b in zip(hits, hits[1:], strict=False)
            ):  # FAISS orders ties by its heap
                hits.sort(key=lambda pair: (-pair[1], pair[0]))
            return hits
        merged: list[tuple[int, float]] = []
        for i, index in enumerate(self.indexes):
            local_allowed = self.rows.local_mask(i, allowed)
            if local_allowed is not None and not local_allowed.any():
                continue
            hits = search_faiss(index, query, k, allowed=local_allowed, **options)
            if hits:
                rows = self.rows.rows(i, np.asarray([local for local, _ in hits], dtype=np.int64))
                merged.extend(zip(rows.tolist(), (score for _, score in hits), strict=True))
        merged.sort(key=lambda pair: (-pair[1], pair[0]))
        return merged[:k]
