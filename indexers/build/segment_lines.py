"""A segment's chunks.jsonl with the byte offset of each line (chunk_offsets.npy): written here
(write_chunks, write_lines) and read back by row (SegmentLines), so a search reads one chunk
without scanning the file."""

from __future__ import annotations

import json
import mmap
import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import orjson

from chunkers.model import Chunk
from indexers.build.chunk_json import chunk_from_json
from indexers.build.files import CHUNKS_FILE, OFFSETS_FILE
from indexers.build.segment_info import SegmentError


def write_chunks(folder: Path, chunks: Iterable[Chunk]) -> None:
    """chunks.jsonl plus the byte offset of every line, so a reader can fetch one chunk by row."""
    write_lines(folder, (json.dumps(c.to_json(), ensure_ascii=False).encode("utf-8") + b"\n" for c in chunks))


def write_lines(folder: Path, lines: Iterable[bytes]) -> None:
    offsets = [0]
    with open(folder / CHUNKS_FILE, "wb") as handle:
        for line in lines:
            handle.write(line)
            offsets.append(offsets[-1] + len(line))
        handle.flush()
        os.fsync(handle.fileno())
    np.save(folder / OFFSETS_FILE, np.asarray(offsets, dtype=np.int64), allow_pickle=False)


class SegmentLines:
    """A segment's chunks.jsonl read by line number through its offsets: from a memory map of the
    file, made on the first read (a search reads ~20 lines; a ``pread`` each cost a system call,
    ~10 us on a loaded VM, more than parsing the line), kept until ``close``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._map: mmap.mmap | None = None
        try:
            # A plain ndarray view of the mapped file: scalar reads skip np.memmap's __getitem__.
            self.offsets = np.asarray(np.load(folder / OFFSETS_FILE, mmap_mode="r", allow_pickle=False))
            self.fd = os.open(folder / CHUNKS_FILE, os.O_RDONLY)
        except (OSError, ValueError) as exc:
            raise SegmentError(f"cannot read the chunks of segment {folder}: {exc}") from exc

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def line(self, row: int) -> bytes:
        start, end = int(self.offsets[row]), int(self.offsets[row + 1])
        mapped = self._map if self._map is not None else self._mapped()
        if mapped is None:  # an empty file, or no longer open
            return os.pread(self.fd, end - start, start)
        return mapped[start:end]

    def lines(self, rows: np.ndarray) -> list[bytes]:
        """The lines of ``rows``, with one gather of their offsets."""
        starts, ends = self.offsets[rows].tolist(), self.offsets[rows + 1].tolist()
        mapped = self._map if self._map is not None else self._mapped()
        if mapped is None:
            return [os.pread(self.fd, end - start, start) for start, end in zip(starts, ends, strict=True)]
        return [mapped[start:end] for start, end in zip(starts, ends, strict=True)]

    def spans(self, rows: np.ndarray) -> tuple[mmap.mmap, list[tuple[int, int]]] | None:
        """The memory map of chunks.jsonl and the byte range of each of ``rows`` in it (None:
        not mapped: an empty file, or closed), for reading them later (LazyChunks.in_map)."""
        mapped = self._map if self._map is not None else self._mapped()
        if mapped is None:
            return None
        starts, ends = self.offsets[rows].tolist(), self.offsets[rows + 1].tolist()
        return mapped, list(zip(starts, ends, strict=True))

    def _mapped(self) -> mmap.mmap | None:
        if self.fd < 0 or not int(self.offsets[-1]):
            return None
        mapped = mmap.mmap(self.fd, 0, access=mmap.ACCESS_READ)
        if self._map is None:  # another thread may have mapped it meanwhile: keep one
            self._map = mapped
        return self._map

    def chunk(self, row: int) -> Chunk:
        return chunk_from_json(orjson.loads(self.line(row)))

    def all_lines(self) -> list[bytes]:
        size = int(self.offsets[-1])
        return (os.pread(self.fd, size, 0) if size else b"").splitlines(keepends=True)

    def close(self) -> None:
        # The map is dropped, not closed: it closes with its last reference, which a hit's
        # unread siblings may hold (LazyChunks.in_map); without them, here.
        self._map = None
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
