"""Where each segment's live lines sit among a build's rows (indexers/segments.py).

Rows are in source order: by file path, then line (a file's chunks are consecutive lines of one
segment), which is the order a full build writes. So an incremental build numbers its chunks as a
full rebuild of the same tree would, and ties, broken by row, break the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

Mapping = int | npt.NDArray[np.int64]  # an offset (lines are consecutive rows) or local -> row, -1 masked


class RowMap:
    def __init__(self, sizes: Sequence[int], to_row: Sequence[Mapping], n_rows: int) -> None:
        self.sizes = list(sizes)  # lines per segment
        self.to_row = list(to_row)
        self.n_rows = n_rows
        self._inverse: tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]] | None = None

    @classmethod
    def in_order(cls, sizes: Sequence[int], masked: Sequence[npt.NDArray[np.int64]]) -> RowMap:
        """Rows in segment order, masked lines skipped."""
        to_row: list[Mapping] = []
        row = 0
        for size, rows in zip(sizes, masked, strict=True):
            if not len(rows):
                to_row.append(row)
                row += size
                continue
            mapping = np.full(size, -1, dtype=np.int64)
            live = np.setdiff1d(np.arange(size, dtype=np.int64), rows)
            mapping[live] = np.arange(row, row + len(live))
            to_row.append(mapping)
            row += len(live)
        return cls(sizes, to_row, row)

    @classmethod
    def from_spans(
        cls,
        sizes: Sequence[int],
        masked: Sequence[npt.NDArray[np.int64]],
        paths: Sequence[str],
        spans: npt.NDArray[np.int64],
    ) -> RowMap:
        """Rows in path order from the live spans of every segment: ``paths`` and the rows of
        ``spans`` (segment, first line, lines), in any order; they are ordered by path, segment,
        first line and lines in one lexsort."""
        spans = np.asarray(spans, dtype=np.int64).reshape(-1, 3)
        segment, start, count = spans[:, 0], spans[:, 1], spans[:, 2]
        if len(paths):
            _, code = np.unique(np.array(paths, dtype=np.str_), return_inverse=True)
            order = np.lexsort((count, start, segment, code.reshape(-1)))
        else:
            order = np.zeros(0, dtype=np.int64)
        ordered = count[order]
        row = np.empty(len(order), dtype=np.int64)
        row[order] = np.cumsum(ordered) - ordered
        expected = sum(size - len(rows) for size, rows in zip(sizes, masked, strict=True))
        if int(count.sum()) != expected:
            raise ValueError(f"docs.json covers {int(count.sum())} live lines, the chunks files {expected}")
        to_row = []
        for i, (size, rows) in enumerate(zip(sizes, masked, strict=True)):
            own = segment == i
            to_row.append(_rows_of_spans(size, len(rows), start[own], count[own], row[own]))
        return cls(sizes, to_row, expected)

    def rows(self, segment: int, local: npt.NDArray[Any], spare: int = -1) -> npt.NDArray[np.int64]:
        """Rows of local line ids of ``segment``; masked lines get ``spare``."""
        mapping = self.to_row[segment]
        if isinstance(mapping, int):
            return local + mapping if mapping else local.astype(np.int64)
        rows = mapping[local]
        if spare != -1:
            rows[rows < 0] = spare
        return rows

    def local_mask(self, segment: int, allowed: npt.NDArray[np.bool_] | None) -> npt.NDArray[np.bool_] | None:
        """``allowed`` (over rows) as a mask over ``segment``'s lines, masked lines False; None
        when every line is allowed."""
        mapping = self.to_row[segment]
        if isinstance(mapping, int):
            return None if allowed is None else allowed[mapping : mapping + self.sizes[segment]]
        live = mapping >= 0
        if allowed is None:
            return live
        return live & allowed[np.where(live, mapping, 0)]

    def locate_one(self, row: int) -> tuple[int, int]:
        """(segment, local line) of one row (hit hydration: no array round trip)."""
        if not 0 <= row < self.n_rows:
            raise IndexError(f"row {row} out of range 0..{self.n_rows - 1}")
        if len(self.sizes) == 1 and isinstance(self.to_row[0], int):
            return 0, row - self.to_row[0]
        segment, local = self._inverse_arrays()
        return int(segment[row]), int(local[row])

    def locate(self, rows: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]:
        """(segment, local line) of each row."""
        if len(rows) and (rows.min() < 0 or rows.max() >= self.n_rows):
            raise IndexError(f"row out of range 0..{self.n_rows - 1}")
        if len(self.sizes) == 1 and isinstance(self.to_row[0], int):
            return np.zeros(len(rows), dtype=np.int32), rows - self.to_row[0]
        segment, local = self._inverse_arrays()
        return segment[rows], local[rows]

    def _inverse_arrays(self) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]:
        """Row -> segment and row -> local line, built once on first use (two arrays of n_rows)."""
        if self._inverse is None:
            segment = np.zeros(self.n_rows, dtype=np.int32)
            local = np.zeros(self.n_rows, dtype=np.int64)
            for i, mapping in enumerate(self.to_row):
                lines = np.arange(self.sizes[i], dtype=np.int64)
                targets = lines + mapping if isinstance(mapping, int) else mapping
                keep = targets >= 0
                segment[targets[keep]] = i
                local[targets[keep]] = lines[keep]
            self._inverse = (segment, local)
        return self._inverse


def _rows_of_spans(
    size: int,
    n_masked: int,
    start: npt.NDArray[np.int64],
    count: npt.NDArray[np.int64],
    row: npt.NDArray[np.int64],
) -> Mapping:
    """A segment's mapping: an offset when its lines are consecutive rows in line order, else
    local -> row (-1: masked)."""
    order = np.argsort(start, kind="stable")
    start, count, row = start[order], count[order], row[order]
    consecutive = not n_masked and len(start) and start[0] == 0 and int(count.sum()) == size
    if consecutive and np.array_equal(row - start, np.full(len(row), row[0])):
        return int(row[0])
    mapping = np.full(size, -1, dtype=np.int64)
    if len(start):
        within = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
        mapping[np.repeat(start, count) + within] = np.repeat(row, count) + within
    return mapping


def read_span_arrays(path: Path) -> tuple[list[str], npt.NDArray[np.int64]]:
    """A segment's docs.json ([path, first line, lines] per source file) as (paths, int64 (n, 2)
    first lines and lines): what opening a build reads (FileNotFoundError, ValueError, TypeError
    on a missing or malformed file)."""
    data = orjson.loads(path.read_bytes())
    if not isinstance(data, list) or any(not isinstance(item, list) or len(item) != 3 for item in data):
        raise ValueError("not a list of triples")
    paths, starts, counts = (list(column) for column in zip(*data, strict=True)) if data else ([], [], [])
    if not all(isinstance(p, str) for p in paths):
        raise TypeError("a path is not a string")
    return paths, np.column_stack([np.array(starts, dtype=np.int64), np.array(counts, dtype=np.int64)])
