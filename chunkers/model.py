"""The Chunk: the unit that is indexed, retrieved and cited."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

ChunkKind = Literal["text", "table", "code"]
CHUNK_KINDS: tuple[str, ...] = ("text", "table", "code")


def chunk_id(doc_id: str, ordinal: int, text: str) -> str:
    """Stable id: the same document content always yields the same ids."""
    digest = hashlib.sha256(f"{doc_id}\x00{ordinal}\x00{text}".encode()).hexdigest()
    return digest[:20]


@dataclass(frozen=True)
class Chunk:
    """A retrievable piece of a document.

    ``text`` is what a reader is shown; ``index_text`` is what BM25 and the embedder see
    (context such as the heading path, file path or table header, then the text).
    ``pages`` and ``lines`` are 1-based inclusive ranges.
    """

    id: str
    doc_id: str
    path: str
    kind: str
    text: str
    index_text: str
    heading_path: tuple[str, ...] = ()
    pages: tuple[int, int] | None = None
    lines: tuple[int, int] | None = None
    symbol: str | None = None
    language: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in CHUNK_KINDS:
            raise ValueError(f"unknown chunk kind {self.kind!r}; expected one of: {', '.join(CHUNK_KINDS)}")

    @property
    def symbol_path(self) -> str | None:
        """`pkg/module.py::Class.method` for code chunks with a symbol, else None."""
        return f"{self.path}::{self.symbol}" if self.symbol else None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "doc_id": self.doc_id,
            "path": self.path,
            "kind": self.kind,
            "text": self.text,
            "index_text": self.index_text,
            "heading_path": list(self.heading_path),
            "pages": list(self.pages) if self.pages else None,
            "lines": list(self.lines) if self.lines else None,
            "symbol": self.symbol,
            "language": self.language,
            "metadata": dict(self.metadata),
        }

    @classmethod
    def from_json(cls, row: Mapping[str, Any]) -> Chunk:
        return cls(
            id=row["id"],
            doc_id=row["doc_id"],
            path=row["path"],
            kind=row["kind"],
            text=row["text"],
            index_text=row["index_text"],
            heading_path=tuple(row.get("heading_path") or ()),
            pages=tuple(row["pages"]) if row.get("pages") else None,  # type: ignore[arg-type]
            lines=tuple(row["lines"]) if row.get("lines") else None,  # type: ignore[arg-type]
            symbol=row.get("symbol"),
            language=row.get("language"),
            metadata=row.get("metadata") or {},
        )

    def citation(self) -> str:
        """`path > heading path (p. 3)` / `(L10-42)`: how a hit is cited to a reader."""
        parts = [self.path]
        if self.heading_path:
            parts.append(" > ".join(self.heading_path))
        elif self.symbol:
            parts.append(self.symbol)
        where = ""
        if self.pages:
            a, b = self.pages
            where = f" (p. {a})" if a == b else f" (pp. {a}-{b})"
        elif self.lines:
            where = f" (L{self.lines[0]}-{self.lines[1]})"
        return " > ".join(parts) + where
