"""Typed records a parser hands to the chunkers.

A parser turns one file into one or more :class:`ParsedDocument` (JSONL files hold many records)
and makes no chunking decisions: it only says what the file contains and where.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

BlockKind = Literal["heading", "paragraph", "list", "table", "code", "text", "quote"]
BLOCK_KINDS: tuple[str, ...] = ("heading", "paragraph", "list", "table", "code", "text", "quote")


# The reason recorded for a file with nothing to index: no bytes but whitespace (an empty
# `__init__.py`), or (with a detail in brackets) only front matter and non-text markup. Skipped, but
# not a failure under --strict (flows.outcomes.is_empty; recorded with status "empty").
EMPTY_REASON = "empty file"


class SkipFile(Exception):
    """Raised by a parser for a file it cannot or should not index; the message is the reason.

    The pipeline records the reason in the manifest and carries on with the other files.
    """


def escape_cell(cell: str) -> str:
    """A cell as it can stand inside a Markdown pipe table: line breaks as spaces, pipes escaped."""
    return " ".join(cell.split()).replace("|", "\\|")


@dataclass(frozen=True)
class Table:
    """A table as rows of cell strings; ``header_rows`` leading rows form the header; ``title`` its
    caption ("Table 7: ...") or the heading it stands under. ``column_names``: one flattened label
    per column ("Literacy Status / Illiterate") when the reader knows which header cell spans which
    columns (bordered PDF tables with several header rows); empty otherwise."""

    rows: tuple[tuple[str, ...], ...]
    header_rows: int = 1
    title: str | None = None
    column_names: tuple[str, ...] = ()

    @property
    def header(self) -> tuple[tuple[str, ...], ...]:
        return self.rows[: self.header_rows]

    @property
    def body(self) -> tuple[tuple[str, ...], ...]:
        return self.rows[self.header_rows :]

    @property
    def flat_header(self) -> tuple[str, ...]:
        """One label per column: ``column_names`` when known, else the distinct non-empty header
        cells of each column top to bottom, joined with " / "."""
        if self.column_names:
            return self.column_names
        names = []
        for j in range(self.width):
            parts: list[str] = []
            for row in self.header:
                text = " ".join(row[j].split()) if j < len(row) else ""
                if text and (not parts or parts[-1] != text):
                    parts.append(text)
            names.append(" / ".join(parts))
        return tuple(names)

    @property
    def width(self) -> int:
        return max((len(r) for r in self.rows), default=0)

    def markdown(self, body: tuple[tuple[str, ...], ...] | None = None) -> str:
        """GitHub pipe-table Markdown of the header plus ``body`` (default: all body rows)."""
        width = self.width
        if width == 0:
            return ""
        rows = list(self.header) if self.header_rows else [("",) * width]
        body_rows = self.body if body is None else body

        def line(row: tuple[str, ...]) -> str:
            cells = [escape_cell(c) for c in row] + [""] * (width - len(row))
            return "| " + " | ".join(cells) + " |"

        out = [line(r) for r in rows]
        out.insert(len(rows), "|" + "|".join(["---"] * width) + "|")
        out.extend(line(r) for r in body_rows)
        return "\n".join(out)


@dataclass(frozen=True)
class Block:
    """One structural unit of a document.

    ``page`` is 1-based (PDF); ``lines`` is a 1-based inclusive line range (text files).
    Code blocks carry ``symbol`` (``Class.method``), ``signature`` and the enclosing
    signatures in ``context`` (outermost first).
    """

    kind: str
    text: str
    heading_path: tuple[str, ...] = ()
    page: int | None = None
    lines: tuple[int, int] | None = None
    table: Table | None = None
    language: str | None = None
    symbol: str | None = None
    signature: str | None = None
    context: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in BLOCK_KINDS:
            raise ValueError(f"unknown block kind {self.kind!r}; expected one of: {', '.join(BLOCK_KINDS)}")
        if self.kind == "table" and self.table is None:
            raise ValueError("a table block needs its table")
        if self.lines is not None and not (1 <= self.lines[0] <= self.lines[1]):
            raise ValueError(f"bad line range {self.lines!r}")


REF_KINDS: tuple[str, ...] = ("call", "import", "type")


@dataclass(frozen=True)
class Definition:
    """A function/method/class-like definition: ``symbol`` as in a code block (``Class.method``),
    ``lines`` the 1-based inclusive span of the definition itself (decorators and comments not
    included), ``signature`` its text up to the body."""

    symbol: str
    lines: tuple[int, int]
    kind: str
    signature: str

    @property
    def name(self) -> str:
        return self.symbol.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class Reference:
    """A use of ``name`` on 1-based ``line``: a call, an import or a type reference, inside the
    definition ``symbol`` (None at module level). ``name`` is the name as defined, not as written:
    a call through an import alias (``from m import chat as talk; talk()``) refers to ``chat``.
    ``qualifier`` is the dotted module the name was imported from or called through (``m``,
    ``numpy`` for ``np.array()``) or the scope written before it (``Foo`` in ``Foo::new()``), when
    the file says so; ``member`` marks ``obj.name`` through a receiver that is not an imported module
    (a method or field of something). Resolution is by name otherwise."""

    name: str
    line: int
    symbol: str | None
    kind: str
    qualifier: str | None = None
    member: bool = False


@dataclass(frozen=True)
class CodeGraph:
    """The definitions and references of one source file (empty for a file with neither)."""

    definitions: tuple[Definition, ...] = ()
    references: tuple[Reference, ...] = ()


class FileIdentity(Protocol):
    """What a document needs of its file (parsers.source.SourceFile has it)."""

    @property
    def rel_path(self) -> str: ...

    @property
    def sha256(self) -> str: ...


@dataclass(frozen=True)
class ParsedDocument:
    """A parsed source document.

    ``doc_id`` is unique within an index: the path relative to the source root for files,
    the record's ``_id`` for JSONL records. ``path`` is always the source file's path.
    """

    doc_id: str
    path: str
    parser: str
    sha256: str
    blocks: tuple[Block, ...]
    title: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    # code files only: definitions and references (parsers.code.graph); not part of to_json
    graph: CodeGraph | None = None

    @classmethod
    def of_file(
        cls,
        source: FileIdentity,
        parser: str,
        blocks: tuple[Block, ...],
        *,
        title: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        graph: CodeGraph | None = None,
    ) -> ParsedDocument:
        """The one document of a whole file: its id is the file's path."""
        return cls(
            doc_id=source.rel_path,
            path=source.rel_path,
            parser=parser,
            sha256=source.sha256,
            blocks=blocks,
            title=title,
            metadata={} if metadata is None else metadata,
            graph=graph,
        )

    def to_json(self) -> dict[str, Any]:
        """The `docmill parse --json` shape."""
        return {
            "doc_id": self.doc_id,
            "path": self.path,
            "parser": self.parser,
            "title": self.title,
            "metadata": dict(self.metadata),
            "blocks": [
                {
                    "kind": b.kind,
                    "text": b.text,
                    "page": b.page,
                    "lines": list(b.lines) if b.lines else None,
                    "heading_path": list(b.heading_path),
                    "language": b.language,
                    "symbol": b.symbol,
                    "signature": b.signature,
                    "table": (
                        {"rows": [list(r) for r in b.table.rows], "markdown": b.table.markdown()}
                        if b.table is not None
                        else None
                    ),
                    "metadata": dict(b.metadata),
                }
                for b in self.blocks
            ],
        }
