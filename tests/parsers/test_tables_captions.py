"""Bordered tables exactly (issue 15): spanning header cells, multi-line cells, multi-row headers
repeated on every chunk, captions as titles. Each PDF is drawn here with reportlab and read with
the real pdfplumber; expected cells are compared exactly."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pdfplumber
import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from chunkers.document import chunk_document
from chunkers.sizing import ChunkOptions
from parsers.model import ParsedDocument
from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.pdf.labels import TABLE_CAPTION
from parsers.pdf.tables import ruled as tables
from parsers.pdf.tables.header import Span
from parsers.source import SourceFile

H = A4[1]
# (row, col, rowspan, colspan, lines)
CellSpec = tuple[int, int, int, int, Sequence[str]]

XS = [60.0, 160.0, 220.0, 280.0, 340.0, 400.0]
LITERACY_HEADER: list[CellSpec] = [
    (0, 0, 2, 1, ["District"]),
    (0, 1, 1, 3, ["Literacy Status"]),
    (0, 4, 2, 1, ["Total"]),
    (1, 1, 1, 1, ["Illiterate"]),
    (1, 2, 1, 1, ["Read &", "Write"]),  # two lines inside one ruled cell
    (1, 3, 1, 1, ["Primary"]),
]
LITERACY_ROWS = (
    ("District", "Literacy Status", "", "", "Total"),
    ("", "Illiterate", "Read &\nWrite", "Primary", ""),
)
LITERACY_NAMES = (
    "District",
    "Literacy Status / Illiterate",
    "Literacy Status / Read & Write",
    "Literacy Status / Primary",
    "Total",
)


def body(n: int, first_row: int = 2) -> list[CellSpec]:
    return [
        (first_row + i, k, 1, 1, [f"Ward {i + 1}" if k == 0 else str(100 * i + k)])
        for i in range(n)
        for k in range(5)
    ]


def draw_table(
    c: canvas.Canvas, top: float, cells: Sequence[CellSpec], xs: Sequence[float] = XS, line: float = 12.0
) -> float:
    """Cells as ruled rectangles from ``top`` (top-down points); a row is as tall as its most
    lined one-row cell. Returns the table's bottom."""
    n_rows = max(r + rs for r, _, rs, _, _ in cells)
    heights = [line + 8.0] * n_rows
    for r, _, rs, _, lines in cells:
        if rs == 1:
            heights[r] = max(heights[r], len(lines) * line + 8.0)
    tops = [top]
    for h in heights:
        tops.append(tops[-1] + h)
    c.setFont("Helvetica", 9)
    for r, k, rs, cs, lines in cells:
        x0, x1, y0, y1 = xs[k], xs[k + cs], tops[r], tops[r + rs]
        c.rect(x0, H - y1, x1 - x0, y1 - y0)
        for i, text in enumerate(lines):
            c.drawString(x0 + 3, H - (y0 + 4 + (i + 0.8) * line), text)
    return tops[-1]


def caption_text(c: canvas.Canvas, top: float, text: str, boxed: bool = False) -> float:
    c.setFont("Helvetica-Bold", 10)
    if boxed:
        c.rect(XS[0], H - (top + 18), XS[-1] - XS[0], 18)
        c.drawString(XS[0] + 4, H - (top + 13), text)
        return top + 18
    c.drawString(XS[0], H - (top + 9), text)
    return top + 12


def prose(c: canvas.Canvas, top: float, text: str) -> None:
    c.setFont("Helvetica", 10)
    c.drawString(XS[0], H - (top + 9), text)


def page_tables(path: Path) -> list[tables.PageTable]:
    with pdfplumber.open(path) as doc:
        return tables.find_tables(doc.pages[0])


def parse(path: Path) -> ParsedDocument:
    return pdf.parse(SourceFile.read(path), ParseOptions(ocr=False))[0]


def test_two_row_header_with_a_spanning_cell(tmp_path: Path) -> None:
    path = tmp_path / "two-row-header-spanning-cell.pdf"
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    draw_table(c, 100, [*LITERACY_HEADER, *body(3)])
    c.save()
    [found] = page_tables(path)
    table = found.table
    assert table.rows[:2] == LITERACY_ROWS
    assert table.rows[2:] == (
        ("Ward 1", "1", "2", "3", "4"),
        ("Ward 2", "101", "102", "103", "104"),
        ("Ward 3", "201", "202", "203", "204"),
    )
    assert table.header_rows == 2
    assert table.column_names == LITERACY_NAMES


def test_lines_of_one_ruled_cell_join_into_that_cell(tmp_path: Path) -> None:
    """The second line of a two-line cell used to become a row of its own when another column's
    header was ruled in two rows at that height; here every cell of the body has two lines."""
    path = tmp_path / "two-line-cells.pdf"
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    cells: list[CellSpec] = [(0, k, 1, 1, [f"Col {k}"]) for k in range(5)]
    cells += [(1 + i, k, 1, 1, [f"r{i}c{k} top", "bottom"]) for i in range(2) for k in range(5)]
    draw_table(c, 100, cells)
    c.save()
    [found] = page_tables(path)
    assert found.table.rows == (
        tuple(f"Col {k}" for k in range(5)),
        *(tuple(f"r{i}c{k} top\nbottom" for k in range(5)) for i in range(2)),
    )
    assert found.table.header_rows == 1


def test_header_shaded_one_band_per_row_is_still_spanned(tmp_path: Path) -> None:
    """Grey bands behind each header row meet with no rule between them: "District" and "Total"
    span both header rows; the band edge used to cut them (and a two-line label) in two."""
    path = tmp_path / "header-shading-per-row.pdf"
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    c.setFillGray(0.85)
    for top, bottom in ((100.0, 120.0), (120.0, 152.0)):
        c.rect(XS[0], H - bottom, XS[-1] - XS[0], bottom - top, stroke=0, fill=1)
    c.setFillGray(0)
    draw_table(c, 100, [*LITERACY_HEADER, *body(2)])
    c.save()
    [found] = page_tables(path)
    assert found.table.rows[:2] == LITERACY_ROWS
    assert found.table.header_rows == 2


def test_header_rows_repeated_on_every_chunk_with_flattened_names(tmp_path: Path) -> None:
    path = tmp_path / "long-table-two-row-header.pdf"
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    caption_text(c, 60, "Table 7: Literacy by district")
    draw_table(c, 76, [*LITERACY_HEADER, *body(30)])
    c.save()
    doc = parse(path)
    chunks = [ch for ch in chunk_document(doc, ChunkOptions(max_tokens=120)) if ch.kind == "table"]
    assert len(chunks) >= 3
    header = "| District | Literacy Status |  |  | Total |\n|  | Illiterate | Read & Write | Primary |  |"
    names = "Columns: " + " | ".join(LITERACY_NAMES)
    for chunk in chunks:
        assert chunk.text.startswith(f"Table 7: Literacy by district\n{names}\n{header}\n|---|")
        assert "Literacy Status / Read & Write" in chunk.index_text
    rows = [line for ch in chunks for line in ch.text.splitlines() if line.startswith("| Ward")]
    assert len(rows) == 30  # every body row once


@pytest.mark.parametrize("where", ["above", "below"])
def test_caption_above_or_below_becomes_the_title(tmp_path: Path, where: str) -> None:
    path = tmp_path / f"caption-{where}.pdf"
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    prose(c, 60, "The districts report their counts every year.")
    top = caption_text(c, 90, "TABLE 3 - Literacy by district") + 4 if where == "above" else 90.0
    bottom = draw_table(c, top, [*LITERACY_HEADER, *body(2)])
    if where == "below":
        caption_text(c, bottom + 5, "TABLE 3 - Literacy by district")
    prose(c, bottom + 50, "Counts are provisional.")
    c.save()
    doc = parse(path)
    [block] = [b for b in doc.blocks if b.table is not None]
    assert block.table is not None and block.table.title == "TABLE 3 - Literacy by district"
    assert block.table.rows[:2] == LITERACY_ROWS
    prose_text = [b.text for b in doc.blocks if b.table is None]
    assert prose_text == ["The districts report their counts every year.", "Counts are provisional."]


@pytest.mark.parametrize("gap", [6.0, 0.0])
def test_a_boxed_caption_is_not_a_table(tmp_path: Path, gap: float) -> None:
    """A caption printed in a box, apart from the table (gap 6) or sharing its top rule (gap 0)."""
    path = tmp_path / f"boxed-caption-gap-{gap:g}.pdf"
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    top = caption_text(c, 80, "Table 7 : DISTRIBUTION BY LITERACY STATUS", boxed=True) + gap
    draw_table(c, top, [*LITERACY_HEADER, *body(2)])
    c.save()
    found = page_tables(path)
    assert len(found) == 1
    assert found[0].table.title == "Table 7 : DISTRIBUTION BY LITERACY STATUS"
    assert found[0].table.rows[:2] == LITERACY_ROWS and found[0].table.header_rows == 2
    doc = parse(path)
    assert [b.kind for b in doc.blocks] == ["table"]


def test_two_tables_on_one_page_each_keep_their_caption(tmp_path: Path) -> None:
    path = tmp_path / "two-captioned-tables.pdf"
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    top = caption_text(c, 60, "Table 6: Literacy, north") + 4
    bottom = draw_table(c, top, [*LITERACY_HEADER, *body(2)])
    top = caption_text(c, bottom + 20, "Table 7 : Literacy, south", boxed=True) + 5
    draw_table(c, top, [*LITERACY_HEADER, *body(3)])
    c.save()
    found = page_tables(path)
    assert [(t.table.title, len(t.table.body)) for t in found] == [
        ("Table 6: Literacy, north", 2),
        ("Table 7 : Literacy, south", 3),
    ]
    doc = parse(path)
    assert [b.table.title for b in doc.blocks if b.table is not None] == [
        "Table 6: Literacy, north",
        "Table 7 : Literacy, south",
    ]


def test_captions_below_two_tables_go_to_the_table_above_them(tmp_path: Path) -> None:
    path = tmp_path / "two-tables-captions-below.pdf"
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    bottom = draw_table(c, 60, [*LITERACY_HEADER, *body(2)])
    caption_text(c, bottom + 4, "Table 1. North")
    bottom = draw_table(c, bottom + 40, [*LITERACY_HEADER, *body(3)])
    caption_text(c, bottom + 4, "Table 2. South")
    c.save()
    assert [t.table.title for t in page_tables(path)] == ["Table 1. North", "Table 2. South"]


def test_caption_pattern() -> None:
    for text in ("Table 7: Results", "TABLE 3 - Sales", "Tab. 2 Costs", "Table 4.1 (continued)", "Table IV."):
        assert TABLE_CAPTION.match(text), text
    for text in ("Table 3 shows the counts", "Tables of contents", "Tablet sales rose"):
        assert not TABLE_CAPTION.match(text), text


def test_header_depth_follows_the_spans() -> None:
    rows = [list(r) for r in LITERACY_ROWS] + [["Ward 1", "1", "2", "3", "6"]]
    spans = [Span(*cell[:4], "\n".join(cell[4])) for cell in LITERACY_HEADER]
    assert tables.header_depth(spans, rows, first_guess=1) == 2
    assert tables.column_names(spans, 2, 5) == LITERACY_NAMES
    assert tables.header_depth(spans, rows, first_guess=0) == 0  # a first row of data stays data
