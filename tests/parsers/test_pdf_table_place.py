"""A table's heading path comes from where it sits on the page (issue 23: a chapter-3 table was
cited under the chapter-2 heading), not from where reading order put it among the text. Real
pdfplumber on reportlab pages; each case checks the table chunk's heading path and title."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from reportlab.pdfgen import canvas

from chunkers.document import chunk_document
from chunkers.model import Chunk
from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.source import SourceFile

ROWS = [
    ("Service", "Unit", "Rate"),
    ("Cleaning", "hour", "25.00"),
    ("Repairs", "hour", "40.00"),
    ("Travel", "km", "0.30"),
    ("Painting", "m2", "12.00"),
    ("Gardening", "hour", "22.00"),
]
WORDS = "The committee reviewed the figures and agreed on the rates for the coming year after a long debate"


def _table(c: canvas.Canvas, x: float, y: float, widths: list[float]) -> float:
    """A ruled table with its top at ``y``; returns its bottom."""
    c.setFont("Helvetica", 10)
    for i, row in enumerate(ROWS):
        left = x
        for cell, width in zip(row, widths, strict=True):
            c.rect(left, y - 16 * (i + 1), width, 16)
            c.drawString(left + 3, y - 16 * (i + 1) + 4, cell)
            left += width
    return y - 16 * len(ROWS)


def _lines(c: canvas.Canvas, x: float, y: float, n: int, words: int = 6, size: float = 9) -> None:
    c.setFont("Helvetica", size)
    split = WORDS.split()
    for i in range(n):
        c.drawString(x, y - (size + 2) * i, " ".join((split[i % 8 :] + split)[:words]))


def _heading(c: canvas.Canvas, x: float, y: float, text: str) -> None:
    c.setFont("Helvetica-Bold", 12)
    c.drawString(x, y, text)


def _table_chunks(tmp_path: Path, draw: Callable[[canvas.Canvas], None]) -> list[Chunk]:
    path = tmp_path / "page.pdf"
    c = canvas.Canvas(str(path), pagesize=(612, 792))
    draw(c)
    c.showPage()
    c.save()
    (doc,) = pdf.parse(SourceFile.read(path, path.name), ParseOptions(ocr=False))
    headings = [b.text for b in doc.blocks if b.kind == "heading"]
    assert headings == ["2 Scope of the agreement", "3 Service rates"]
    return [ch for ch in chunk_document(doc) if ch.kind == "table"]


def test_a_table_across_two_of_three_columns_sits_under_the_left_columns_last_heading(tmp_path: Path) -> None:
    """An IRS-instructions page: headings 2 and 3 in the left column, the table across the top of
    the middle and right columns. Reading order cut the page at the gutter the table spans, so the
    table came right after heading 2."""

    def draw(c: canvas.Canvas) -> None:
        _heading(c, 40, 740, "2 Scope of the agreement")
        _lines(c, 40, 722, 24)
        _heading(c, 40, 440, "3 Service rates")
        _lines(c, 40, 422, 30)
        bottom = _table(c, 225, 745, [150, 100, 100])
        _lines(c, 225, bottom - 20, 40)
        _lines(c, 415, bottom - 20, 40)

    (table,) = _table_chunks(tmp_path, draw)
    assert table.heading_path == ("3 Service rates",)
    assert table.text.startswith("3 Service rates\n| Service | Unit | Rate |")


def test_a_table_under_its_heading_in_one_column(tmp_path: Path) -> None:
    def draw(c: canvas.Canvas) -> None:
        _heading(c, 60, 740, "2 Scope of the agreement")
        _lines(c, 60, 720, 8, words=14, size=10)
        _heading(c, 60, 620, "3 Service rates")
        _lines(c, 60, 600, 2, words=14, size=10)
        bottom = _table(c, 150, 570, [150, 100, 100])
        _lines(c, 60, bottom - 20, 6, words=14, size=10)

    (table,) = _table_chunks(tmp_path, draw)
    assert table.heading_path == ("3 Service rates",)


def test_a_table_beside_its_heading_keeps_the_reading_order_path(tmp_path: Path) -> None:
    """The table's box starts above its heading's baseline (set beside it): no heading stands
    above it, so the heading read right before it decides."""

    def draw(c: canvas.Canvas) -> None:
        _heading(c, 60, 740, "2 Scope of the agreement")
        _lines(c, 60, 720, 6, words=14, size=10)
        _heading(c, 60, 620, "3 Service rates")
        _lines(c, 60, 600, 1, words=3, size=10)
        _table(c, 300, 630, [90, 60, 60])
        _lines(c, 60, 500, 6, words=14, size=10)

    (table,) = _table_chunks(tmp_path, draw)
    assert table.heading_path == ("3 Service rates",)


def test_a_table_at_the_top_of_a_page_before_any_heading_keeps_the_page_start_path(tmp_path: Path) -> None:
    def draw(c: canvas.Canvas) -> None:
        bottom = _table(c, 60, 760, [200, 140, 135])
        _heading(c, 60, bottom - 30, "2 Scope of the agreement")
        _lines(c, 60, bottom - 50, 8, words=14, size=10)
        _heading(c, 60, bottom - 170, "3 Service rates")
        _lines(c, 60, bottom - 190, 8, words=14, size=10)

    (table,) = _table_chunks(tmp_path, draw)
    assert table.heading_path == ()


def test_a_table_in_two_halves_side_by_side_is_placed_by_its_first_half(tmp_path: Path) -> None:
    """A tax-table page: one table printed as two halves side by side, merged into one table."""

    def draw(c: canvas.Canvas) -> None:
        _heading(c, 60, 740, "2 Scope of the agreement")
        _lines(c, 60, 720, 4, words=14, size=10)
        _heading(c, 60, 660, "3 Service rates")
        _lines(c, 60, 640, 2, words=14, size=10)
        _table(c, 60, 610, [90, 60, 60])
        _table(c, 330, 610, [90, 60, 60])

    (table,) = _table_chunks(tmp_path, draw)
    assert table.heading_path == ("3 Service rates",)
    assert table.text.startswith("3 Service rates\n") and table.text.count("| Travel |") == 2
