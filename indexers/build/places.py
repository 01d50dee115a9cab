"""A segment's place column: what ranking needs of each line without reading its chunk.

Collapsing a ranking to places (indexers/ranking/collapse.py) and the test-code and kind checks
read a chunk's document, path, kind, heading path, symbol, pages and lines, never its text. Reading
them from chunks.jsonl meant parsing every candidate's JSON line (~100 per query at the default
depth: 77 % of a SciFact BM25 query's time). The writer stores them per line as a compact column:

    places.npy              int32 (n, 9): doc, path, kind, heading, symbol (string ids, -1: none),
                            first page, last page, first line, last line (-1: none)
    place_strings.bin       the distinct strings, UTF-8, one after the other (a heading path as its
                            JSON list)
    place_offsets.npy       int64 byte offset of each string (count + 1)

All three are memory-mapped (or read by ``pread``) at open and decoded per row on demand (strings
and rows decoded once, rows up to ROW_CACHE), so a search decodes only the rows it ranks, and
opening a build reads nothing of them. A segment written
before the column existed has none of the files: its rows are read from chunks.jsonl as before.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

from chunkers.model import Chunk
from indexers.build.files import PLACE_OFFSETS_FILE, PLACE_STRINGS_FILE, PLACES_FILE

_DOC, _PATH, _KIND, _HEADING, _SYMBOL, _PAGE0, _PAGE1, _LINE0, _LINE1 = range(9)
WIDTH = 9
NONE = -1
# Decoded places kept per segment (~200 B each): a hot set of rows is decoded once, a segment of
# any size costs at most ~13 MB of them.
ROW_CACHE = 1 << 16


class Place(NamedTuple):
    """The fields of a chunk that collapse, test-code demotion and the kind floor read (the same
    names and values as ``Chunk``'s)."""

    doc_id: str
    path: str
    kind: str
    heading_path: tuple[str, ...]
    symbol: str | None
    pages: tuple[int, int] | None
    lines: tuple[int, int] | None


def place_of(chunk: Chunk) -> Place:
    c = chunk
    return Place(c.doc_id, c.path, c.kind, c.heading_path, c.symbol, c.pages, c.lines)


class _Strings:
    """Interning table while a column is written."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def id(self, value: str | None) -> int:
        if value is None:
            return NONE
        found = self.ids.get(value)
        if found is None:
            found = self.ids[value] = len(self.ids)
        return found


def _span(pair: Sequence[int] | None) -> tuple[int, int]:
    return (int(pair[0]), int(pair[1])) if pair else (NONE, NONE)


def write_places(folder: Path, places: Iterable[Place | Chunk]) -> list[Path]:
    """The column of ``places`` (one per line, in line order) in segment ``folder``."""
    strings = _Strings()
    rows = []
    for p in places:
        heading = json.dumps(list(p.heading_path), ensure_ascii=False)
        rows.append(
            (
                strings.id(p.doc_id),
                strings.id(p.path),
                strings.id(p.kind),
                strings.id(heading),
                strings.id(p.symbol),
                *_span(p.pages),
                *_span(p.lines),
            )
        )
    table = np.asarray(rows, dtype=np.int32).reshape(-1, WIDTH)
    encoded = [s.encode("utf-8") for s in strings.ids]
    offsets = np.cumsum([0, *map(len, encoded)], dtype=np.int64)
    written = [folder / PLACES_FILE, folder / PLACE_STRINGS_FILE, folder / PLACE_OFFSETS_FILE]
    np.save(written[0], table, allow_pickle=False)
    written[1].write_bytes(b"".join(encoded))
    np.save(written[2], offsets, allow_pickle=False)
    return written


class PlaceColumn:
    """A segment's place column, opened: rows decoded on demand. ``open`` returns None for a
    segment written before the column existed."""

    def __init__(self, folder: Path) -> None:
        self.table = np.asarray(np.load(folder / PLACES_FILE, mmap_mode="r", allow_pickle=False))
        self.offsets = np.asarray(np.load(folder / PLACE_OFFSETS_FILE, mmap_mode="r", allow_pickle=False))
        self.fd = os.open(folder / PLACE_STRINGS_FILE, os.O_RDONLY)
        count = len(self.offsets) - 1
        self._strings: list[str | None] = [None] * count  # decoded on first use
        self._headings: list[tuple[str, ...] | None] = [None] * count
        self._decoded: dict[int, Place] = {}  # line -> place, up to ROW_CACHE (then started afresh)
        self._key_arrays: dict[str, np.ndarray] = {}  # collapse policy -> each line's key (_keys)
        size = os.fstat(self.fd).st_size
        if self.table.ndim != 2 or self.table.shape[1] != WIDTH or int(self.offsets[-1]) != size:
            self.close()
            raise ValueError(f"the place column of {folder} is damaged")

    @classmethod
    def open(cls, folder: Path) -> PlaceColumn | None:
        return cls(folder) if (folder / PLACES_FILE).exists() else None

    def __len__(self) -> int:
        return len(self.table)

    def _string(self, i: int) -> str:
        found = self._strings[i]
        if found is None:
            start, end = int(self.offsets[i]), int(self.offsets[i + 1])
            found = self._strings[i] = os.pread(self.fd, end - start, start).decode("utf-8")
        return found

    def _heading(self, i: int) -> tuple[str, ...]:
        found = self._headings[i]
        if found is None:
            found = self._headings[i] = tuple(json.loads(self._string(i)))
        return found

    def place(self, line: int) -> Place:
        found = self._decoded.get(line)
        return found if found is not None else self.places(np.asarray([line]))[0]

    def places(self, lines: np.ndarray) -> list[Place]:
        """The places of ``lines`` (local line numbers): decoded ones from the row cache, the
        others in one gather from the column."""
        decoded = self._decoded
        wanted = lines.tolist()
        missing = [line for line in wanted if line not in decoded]
        if missing:
            fresh = self._decode(missing)
            if len(decoded) + len(fresh) > ROW_CACHE:
                decoded.clear()
            decoded.update(zip(missing, fresh, strict=True))
            if len(missing) == len(wanted):
                return fresh
        return [decoded[line] for line in wanted]

    def doc_ids(self, lines: np.ndarray) -> list[str]:
        """The document of each of ``lines``, from the column's document ids alone (what collapse
        reads first: a candidate whose document leads no place is not decoded further)."""
        strings, string = self._strings, self._string
        return [strings[i] or string(i) for i in self.table[lines, _DOC].tolist()]

    def place_keys(self, lines: np.ndarray, policy: str) -> list[int] | None:
        """A key per line of ``lines`` such that two of them lie in the same place under collapse
        ``policy`` (indexers.ranking.collapse.same_place) exactly when their keys are equal, or
        None where "the same place" is no such relation among them (_keys)."""
        keys = self._keys(policy)
        if keys is None or not len(lines):
            return None
        found = keys[lines]
        return found.tolist() if found.min() >= 0 else None

    def _keys(self, policy: str) -> np.ndarray | None:
        """Per line an int64 key of its place under ``policy`` where places are classes of equal
        keys: the same document ("document"; "page" for a line without pages), the same document
        and heading path ("section" for a line with no pages and no code symbol); -1 for a line
        whose place overlaps others by pages or a code symbol's lines (collapse decides those step
        by step). Computed over the column on first use, kept."""
        found = self._key_arrays.get(policy)
        if found is not None or policy not in ("document", "page", "section"):
            return found
        table = self.table
        doc = table[:, _DOC].astype(np.int64)
        if policy == "document":
            keys = doc
        elif policy == "page":
            keys = np.where(table[:, _PAGE0] != NONE, NONE, doc)
        else:
            kinds = np.unique(table[:, _KIND]).tolist()
            code = [i for i in kinds if i != NONE and self._string(i) == "code"]
            overlapping = (table[:, _PAGE0] != NONE) | (
                np.isin(table[:, _KIND], code) & (table[:, _SYMBOL] != NONE)
            )
            keys = np.where(overlapping, NONE, doc * max(len(self._strings), 1) + table[:, _HEADING])
        self._key_arrays[policy] = keys
        return keys

    def _decode(self, lines: list[int]) -> list[Place]:
        strings, headings, string, heading_of = self._strings, self._headings, self._string, self._heading
        out = []
        for doc, path, kind, heading, symbol, p0, p1, l0, l1 in self.table[lines].tolist():
            out.append(
                Place(
                    strings[doc] or string(doc),
                    strings[path] or string(path),
                    strings[kind] or string(kind),
                    h if (h := headings[heading]) is not None else heading_of(heading),
                    None if symbol == NONE else strings[symbol] or string(symbol),
                    None if p0 == NONE else (p0, p1),
                    None if l0 == NONE else (l0, l1),
                )
            )
        return out

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def column_or_chunks(folder: Path, lines: Sequence[bytes] | None) -> list[Place]:
    """Every line's place of the segment in ``folder``: from its column, else parsed from ``lines``
    (its chunks.jsonl lines; a segment written before the column). What a merge gathers."""
    column = PlaceColumn.open(folder)
    if column is not None:
        try:
            return [column.place(i) for i in range(len(column))]
        finally:
            column.close()
    if lines is None:
        raise ValueError(f"segment {folder} has no place column and no lines were given")
    return [place_of(Chunk.from_json(json.loads(line))) for line in lines]
