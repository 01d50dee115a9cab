"""Read chunks by row from chunks.jsonl without parsing the whole file at open time."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import numpy as np

from chunkers.model import Chunk


class ChunkStore:
    def __init__(self, folder: Path, chunks_file: str, offsets_file: str) -> None:
        self._offsets = np.load(folder / offsets_file, mmap_mode="r", allow_pickle=False)
        self._fd = os.open(folder / chunks_file, os.O_RDONLY)
        self._all: list[Chunk] | None = None
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def __getitem__(self, row: int) -> Chunk:
        if self._all is not None:
            return self._all[row]
        if not 0 <= row < len(self):
            raise IndexError(row)
        start, end = int(self._offsets[row]), int(self._offsets[row + 1])
        return Chunk.from_json(json.loads(os.pread(self._fd, end - start, start)))

    def all(self) -> list[Chunk]:
        """Every chunk, parsed once and kept (filters need them all)."""
        with self._lock:
            if self._all is None:
                size = int(self._offsets[-1])
                data = os.pread(self._fd, size, 0) if size else b""
                self._all = [Chunk.from_json(json.loads(line)) for line in data.splitlines()]
            return self._all

    def close(self) -> None:
        """Close the file and drop the offsets' memory map (its own descriptor); idempotent."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        self.__dict__.pop("_offsets", None)
