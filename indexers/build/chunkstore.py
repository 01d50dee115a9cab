"""Read chunks by row from a build's segments without parsing every chunks.jsonl at open time, and
each row's place key (indexers.build.places) without parsing its chunk where the segment has the
column.

Rows are the segments' live lines in source order (indexers.build.rowmap); masked lines have no row."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from chunkers.model import Chunk
from indexers.build.places import Place, PlaceColumn, place_of
from indexers.build.rowmap import RowMap
from indexers.build.segments import SegmentLines


class ChunkStore:
    def __init__(self, folders: Sequence[Path], rows: RowMap) -> None:
        """``folders``: each segment's folder, in the order ``rows`` numbers them."""
        self._segments: list[SegmentLines] = []
        self._places: list[PlaceColumn | None] = []  # None: a segment written before the column
        try:
            for folder in folders:
                self._segments.append(SegmentLines(folder))
                self._places.append(PlaceColumn.open(folder))
        except BaseException:
            self.close()
            raise
        self.rows = rows
        self._all: list[Chunk] | None = None
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return self.rows.n_rows

    @property
    def closed(self) -> bool:
        return not self._segments or self._segments[0].fd < 0

    @property
    def _fd(self) -> int:
        """The first segment's descriptor (-1 once closed)."""
        return -1 if self.closed else self._segments[0].fd

    def __getitem__(self, row: int) -> Chunk:
        if self._all is not None:
            return self._all[row]
        segment, local = self.rows.locate_one(row)
        return self._segments[segment].chunk(local)

    def place(self, row: int) -> Place:
        """The place key of ``row`` (what collapse and the test-code check read): from the
        segment's place column, else (an older segment) from its chunk."""
        if self._all is not None:
            return place_of(self._all[row])
        segment, local = self.rows.locate_one(row)
        column = self._places[segment]
        if column is None:
            return place_of(self._segments[segment].chunk(local))
        return column.place(local)

    def places(self, rows: Sequence[int]) -> dict[int, Place]:
        """The place keys of ``rows`` (a ranking's candidates), read from each segment's column in
        one gather (its chunks where a segment has no column)."""
        wanted = np.fromiter(rows, dtype=np.int64, count=len(rows))
        if self._all is not None or not len(wanted):
            return {row: self.place(row) for row in wanted.tolist()}
        segments, local = self.rows.locate(wanted)
        out: dict[int, Place] = {}
        for segment in np.unique(segments).tolist():
            picked = segments == segment
            column = self._places[segment]
            lines = local[picked]
            if column is None:
                found = [place_of(self._segments[segment].chunk(line)) for line in lines.tolist()]
            else:
                found = column.places(lines)
            out.update(zip(wanted[picked].tolist(), found, strict=True))
        return out

    @property
    def has_places(self) -> bool:
        """Whether every segment has its place column."""
        return all(column is not None for column in self._places)

    def all(self) -> list[Chunk]:
        """Every chunk in row order, parsed once and kept (filters need them all)."""
        with self._lock:
            if self._all is None:
                out: list[Chunk | None] = [None] * self.rows.n_rows
                for i, lines in enumerate(self._segments):
                    every = lines.all_lines()
                    targets = self.rows.rows(i, np.arange(len(every), dtype=np.int64)).tolist()
                    for row, line in zip(targets, every, strict=True):
                        if row >= 0:
                            out[row] = Chunk.from_json(json.loads(line))
                self._all = [c for c in out if c is not None]
                if len(self._all) != self.rows.n_rows:
                    raise ValueError(f"{len(self._all)} chunks read for {self.rows.n_rows} rows")
            return self._all

    def close(self) -> None:
        """Close the files and drop the offsets' memory maps; idempotent."""
        for lines in self._segments:
            lines.close()
            lines.__dict__.pop("offsets", None)
        for column in self._places:
            if column is not None:
                column.close()
                column.__dict__.pop("table", None)
                column.__dict__.pop("offsets", None)
