"""The last queries' vectors, shared by every embedder's ``encode_query`` (MiniLM, e5, an
endpoint): a server answers repeated and paged queries without embedding them again."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

import numpy as np


class QueryCache:
    """An LRU of ``size`` query vectors (0: off), safe across threads; callers get copies."""

    def __init__(self, size: int) -> None:
        if size < 0:
            raise ValueError(f"query_cache_size must be >= 0, got {size}")
        self.size = size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, text: str, compute: Callable[[str], np.ndarray]) -> np.ndarray:
        """The cached vector of ``text``, else ``compute(text)`` (outside the lock), remembered."""
        with self._lock:
            cached = self._vectors.get(text)
            if cached is not None:
                self._vectors.move_to_end(text)
                return cached.copy()
        vector = compute(text)
        if self.size:
            with self._lock:
                self._vectors[text] = vector
                while len(self._vectors) > self.size:
                    self._vectors.popitem(last=False)
        return vector.copy()

    def clear(self) -> None:
        with self._lock:
            self._vectors.clear()
