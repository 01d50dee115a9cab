"""Fuzz: the chunkers on arbitrary parsed documents (every block kind, tables of any shape, code,
line and page ranges) never raise, keep every chunk's location inside its blocks' locations, and
give unique, stable ids.

Examples per test: DOCMILL_FUZZ_EXAMPLES (default 50)."""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from chunkers.document import chunk_document
from chunkers.model import CHUNK_KINDS
from chunkers.sizing import ChunkOptions
from parsers.model import BLOCK_KINDS, Block, ParsedDocument, Table

FUZZ = settings(max_examples=int(os.environ.get("DOCMILL_FUZZ_EXAMPLES", "50")), deadline=None, database=None)

WORDS = st.sampled_from(
    ["alpha", "beta", "gamma.", "δέλτα", "中文句子。", "x" * 40, "end!", "\n", "\n\n", " ", "|", "def f():"]
)
TEXT = st.one_of(st.text(max_size=300), st.lists(WORDS, max_size=400).map(" ".join))
CELL = st.text(max_size=30)


@st.composite
def blocks(draw: st.DrawFn) -> Block:
    """A block as a parser makes one: its line range covers at least its text's lines (Markdown
    drops blank lines and fences from the text, never adds any); a table with a line range is a
    Markdown table (one header row, one line per row)."""
    kind = draw(st.sampled_from(BLOCK_KINDS))
    page = draw(st.one_of(st.none(), st.integers(1, 50)))
    table = None
    if kind == "table":
        width = draw(st.integers(0, 6))
        rows = draw(st.lists(st.lists(CELL, min_size=0, max_size=width).map(tuple), max_size=30))
        table = Table(rows=tuple(rows), header_rows=draw(st.integers(0, 2)))
    text = table.markdown() if table is not None else draw(TEXT)
    first, extra = draw(st.integers(1, 500)), draw(st.integers(0, 3))
    lines = draw(st.sampled_from([None, (first, first + text.count("\n") + extra)]))
    if table is not None and (table.header_rows != 1 or extra):
        lines = None  # PDF tables carry pages, not lines
    return Block(
        kind=kind,
        text=text,
        heading_path=tuple(draw(st.lists(st.text(max_size=20), max_size=3))),
        page=page,
        lines=lines,
        table=table,
        language=draw(st.sampled_from([None, "python", "go"])) if kind == "code" else None,
        symbol=draw(st.sampled_from([None, "f", "A.f"])) if kind == "code" else None,
        signature=draw(st.sampled_from([None, "def f(x):"])) if kind == "code" else None,
    )


DOCS = st.builds(
    ParsedDocument,
    doc_id=st.text(min_size=1, max_size=20),
    path=st.text(min_size=1, max_size=20),
    parser=st.sampled_from(["markdown", "pdf", "code", "text"]),
    sha256=st.just("0" * 64),
    blocks=st.lists(blocks(), max_size=12).map(tuple),
    title=st.one_of(st.none(), st.text(max_size=20)),
)


@FUZZ
@given(doc=DOCS, max_tokens=st.integers(16, 400))
def test_chunker_is_total_and_keeps_locations(doc: ParsedDocument, max_tokens: int) -> None:
    chunks = chunk_document(doc, ChunkOptions(max_tokens=max_tokens))
    assert chunks == chunk_document(doc, ChunkOptions(max_tokens=max_tokens))
    assert len({c.id for c in chunks}) == len(chunks)
    line_ranges = [b.lines for b in doc.blocks if b.lines]
    pages = [b.page for b in doc.blocks if b.page is not None]
    for chunk in chunks:
        assert chunk.kind in CHUNK_KINDS and chunk.text.strip()
        assert chunk.doc_id == doc.doc_id and chunk.path == doc.path
        assert chunk.index_text.strip()
        if chunk.lines is not None:
            assert line_ranges, chunk
            low, high = min(a for a, _ in line_ranges), max(b for _, b in line_ranges)
            assert low <= chunk.lines[0] <= chunk.lines[1] <= high, chunk
        if chunk.pages is not None:
            assert pages and min(pages) <= chunk.pages[0] <= chunk.pages[1] <= max(pages), chunk


def test_a_table_block_with_fewer_lines_than_rows_keeps_its_chunks_inside_it() -> None:
    """The case hypothesis found: a one-line table block whose table has a header and a body row;
    its chunk cited lines (3, 1), past the block and reversed."""
    from parsers.model import Block, ParsedDocument, Table

    table = Table(rows=(("a",), ("b",)), header_rows=1)
    block = Block(kind="table", text="", heading_path=("0",), lines=(1, 1), table=table)
    doc = ParsedDocument(doc_id="0", path="0", parser="markdown", sha256="0" * 64, blocks=(block,))
    for chunk in chunk_document(doc, ChunkOptions(max_tokens=16)):
        assert chunk.lines is not None and 1 <= chunk.lines[0] <= chunk.lines[1] <= 1, chunk


def test_a_table_with_an_empty_row_chunks() -> None:
    """The case hypothesis found in session 16: a ragged table whose first body row is empty (no
    cells) over a row of three; reading section rows indexed the empty row's first cell."""
    from parsers.model import Block, ParsedDocument, Table

    table = Table(rows=((), ("", "", "")), header_rows=0)
    block = Block(kind="table", text="|  |  |  |\n|---|---|---|\n|  |  |  |", heading_path=(), table=table)
    doc = ParsedDocument(doc_id="0", path="0", parser="markdown", sha256="0" * 64, blocks=(block,))
    chunks = chunk_document(doc, ChunkOptions(max_tokens=16))
    assert chunks and all(chunk.kind == "table" for chunk in chunks)
