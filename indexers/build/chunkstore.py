"""Read chunks by row from a build's segments without parsing every chunks.jsonl at open time, and
each row's place key (indexers.build.places) without parsing its chunk where the segment has the
column.

Rows are the segments' live lines in source order (indexers.build.rowmap); masked lines have no row."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import orjson

from chunkers.model import Chunk
from indexers.build.chunk_json import LazyChunks, chunk_from_json
from indexers.build.places import Place, PlaceColumn, place_of
from indexers.build.rowmap import RowMap
from indexers.build.segment_lines import SegmentLines


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

    def _lines_of(self, rows: Sequence[int], checked: bool = False) -> list[bytes]:
        """The chunks.jsonl lines of ``rows`` (not parsed); ``checked``: the caller knows they are
        rows of this build (a search's own ranking)."""
        single = self._single()
        if single is not None:
            return single.lines(np.array(rows, dtype=np.int64) if checked else self._checked(rows))
        out = []
        for row in rows:
            segment, local = self.rows.locate_one(row)
            out.append(self._segments[segment].line(local))
        return out

    def read(self, rows: Sequence[int], ranked: bool = False) -> list[Chunk]:
        """The chunks of ``rows``, read together (a search's hits; ``ranked``: rows a search of
        this build returned, not checked again)."""
        if self._all is not None:
            return [self._all[row] for row in rows]
        return [chunk_from_json(orjson.loads(line)) for line in self._lines_of(rows, ranked)]

    def lazy(self, groups: Sequence[Sequence[int]], ranked: bool = False) -> list[Sequence[Chunk]]:
        """For each group of rows its chunks, read now, parsed on first use (LazyChunks; a
        collapsed hit's siblings), all groups' lines read together (``ranked``: as in read)."""
        if self._all is not None:
            return [tuple(self._all[row] for row in rows) if rows else () for rows in groups]
        every = [row for rows in groups for row in rows]
        single = self._single()
        found = (
            single.spans(np.array(every, dtype=np.int64) if ranked else self._checked(every))
            if single
            else None
        )
        if found is not None:  # one segment: the lines are read when first used
            mapped, spans = found
            ranges = iter(spans)
            return [
                LazyChunks.in_map(mapped, [next(ranges) for _ in rows]) if rows else () for rows in groups
            ]
        lines = iter(self._lines_of(every, ranked))
        return [LazyChunks([next(lines) for _ in rows]) if rows else () for rows in groups]

    def _single(self) -> SegmentLines | None:
        """The segment of a build of one segment with nothing masked (its lines are the rows),
        while no chunk is held in memory: what the batch reads go straight to."""
        if self._all is None and len(self._segments) == 1 and self.rows.to_row[0] == 0:
            return self._segments[0]
        return None

    def _checked(self, rows: Sequence[int]) -> np.ndarray:
        if rows and (min(rows) < 0 or max(rows) >= self.rows.n_rows):
            raise IndexError(f"row out of range 0..{self.rows.n_rows - 1}")
        return np.array(rows, dtype=np.int64)

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

    def place_reader(self) -> Callable[[int], Place]:
        """``place`` as one callable: for a build of one segment with nothing masked (rows are its
        lines) straight to its column, else ``place``."""
        column = self._places[0] if self._single() is not None else None
        if column is None:
            return self.place
        n_rows = self.rows.n_rows

        def read(row: int) -> Place:
            if not 0 <= row < n_rows:
                raise IndexError(f"row {row} out of range 0..{n_rows - 1}")
            return column.place(row)

        return read

    def place_keys(self, rows: Sequence[int], policy: str) -> list[int] | None:
        """A key per row such that two of ``rows`` are in the same place under collapse
        ``policy`` exactly when their keys are equal (PlaceColumn.place_keys), or None where that
        does not hold among them or the build is not one segment with its column."""
        column = self._places[0] if self._single() is not None else None
        return column.place_keys(self._checked(rows), policy) if column is not None else None

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

    def doc_ids(self, rows: Sequence[int]) -> list[str]:
        """The ``doc_id`` of each of ``rows``, in order: one gather of each segment's place column
        (its chunks where a segment has no column)."""
        wanted = np.fromiter(rows, dtype=np.int64, count=len(rows))
        if self._all is not None or not len(wanted):
            return [self.place(row).doc_id for row in wanted.tolist()]
        column = self._places[0] if self._single() is not None else None
        if column is not None:
            return column.doc_ids(self._checked(wanted.tolist()))  # one segment: rows are its lines
        segments, local = self.rows.locate(wanted)
        out: list[str] = [""] * len(wanted)
        for segment in np.unique(segments).tolist():
            picked = np.flatnonzero(segments == segment)
            column = self._places[segment]
            lines = local[picked]
            if column is None:
                found = [place_of(self._segments[segment].chunk(line)).doc_id for line in lines.tolist()]
            else:
                found = column.doc_ids(lines)
            for i, doc in zip(picked.tolist(), found, strict=True):
                out[i] = doc
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
