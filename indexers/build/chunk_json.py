"""A chunk read back from its chunks.jsonl line, at the cost a search can pay for every hit, and
chunks read but parsed only when used (a collapsed hit's siblings)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from typing import Any, overload

import orjson

from chunkers.model import CHUNK_KINDS, Chunk

# Chunk's fields as chunk_from_json fills them; a Chunk with other fields is built by from_json.
_FIELDS: tuple[str, ...] = (
    "id",
    "doc_id",
    "path",
    "kind",
    "text",
    "index_text",
    "heading_path",
    "pages",
    "lines",
)
_FIELDS += ("symbol", "language", "metadata")
_DIRECT = tuple(f.name for f in dataclasses.fields(Chunk)) == _FIELDS and not hasattr(Chunk, "__slots__")
_KEYS = frozenset(_FIELDS)
_new, _set = object.__new__, object.__setattr__


def chunk_from_json(row: dict[str, Any]) -> Chunk:
    """``Chunk.from_json(row)``, the same chunk at a third of the cost: a frozen dataclass's
    ``__init__`` sets each field through ``object.__setattr__``; a hit's chunk is read on every
    search, so a row written by ``Chunk.to_json`` (every field, nothing else) becomes the chunk's
    attributes at once, its lists made tuples as from_json makes them (the kind still checked).
    ``row`` is used up."""
    if not _DIRECT or row.keys() != _KEYS:
        return Chunk.from_json(row)
    row["heading_path"] = tuple(row["heading_path"] or ())
    if row["pages"] is not None:
        row["pages"] = tuple(row["pages"]) or None
    if row["lines"] is not None:
        row["lines"] = tuple(row["lines"]) or None
    if not row["metadata"]:
        row["metadata"] = {}
    if row["kind"] not in CHUNK_KINDS:
        return Chunk.from_json(row)  # its kind check's error
    chunk = _new(Chunk)
    _set(chunk, "__dict__", row)
    return chunk


class LazyChunks(Sequence[Chunk]):
    """Chunks read and parsed on first use: a collapsed hit's siblings, which most callers of a
    search never look at (a ranked list is its hits). Made from their lines, or (``in_map``)
    from their byte ranges in the memory map of the segment's chunks.jsonl, which this object
    keeps alive: a closed build's store drops its own reference to the map, not the map, so the
    chunks stay readable after the build is closed (a LiveIndex releases a retired build when its
    last search ends) or pruned. Compares equal to the tuple of its chunks."""

    __slots__ = ("_lines", "_map", "_spans", "_chunks")

    def __init__(self, lines: Sequence[bytes]) -> None:
        self._lines: tuple[bytes, ...] | None = tuple(lines)
        self._map: Any = None
        self._spans: tuple[tuple[int, int], ...] = ()
        self._chunks: tuple[Chunk, ...] | None = None

    @classmethod
    def in_map(cls, mapped: Any, spans: Sequence[tuple[int, int]]) -> LazyChunks:
        """The chunks at ``spans`` (start, end) of ``mapped`` (an mmap of a chunks.jsonl)."""
        made = cls(())
        made._lines, made._map, made._spans = None, mapped, tuple(spans)
        return made

    def lines(self) -> tuple[bytes, ...]:
        if self._lines is not None:
            return self._lines
        return tuple(self._map[start:end] for start, end in self._spans)

    def _parsed(self) -> tuple[Chunk, ...]:
        chunks = self._chunks
        if chunks is None:  # two threads may both parse: the same chunks, either result kept
            chunks = self._chunks = tuple(chunk_from_json(orjson.loads(line)) for line in self.lines())
        return chunks

    def __len__(self) -> int:
        return len(self._lines) if self._lines is not None else len(self._spans)

    @overload
    def __getitem__(self, i: int) -> Chunk: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[Chunk, ...]: ...
    def __getitem__(self, i: int | slice) -> Chunk | tuple[Chunk, ...]:
        return self._parsed()[i]

    def __iter__(self) -> Iterator[Chunk]:
        return iter(self._parsed())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyChunks | tuple):
            return self._parsed() == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._parsed())

    def __reduce__(self) -> tuple[Any, ...]:
        return (LazyChunks, (self.lines(),))
