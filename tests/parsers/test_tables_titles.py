"""A title band on top of a ruled table (issue 24): the table's first row is one cell over the whole
width holding a short title ("Staging", "MDT health professionals") on a coloured band of its
own; it is the table's title, not a row (it used to be a header row of one cell). A note row
over the whole width at the bottom stays a row, and so do a long first row and an unshaded one. Drawn with
reportlab, read through the parser."""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import A5
from reportlab.pdfgen import canvas

from parsers.model import Table
from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.source import SourceFile

ROWS = [
    ["Stage I", "Less than 2 cm, no spread"],
    ["Stage IIA", "Less than 2 cm, spread to nodes"],
    ["Stage IIB", "2 to 5 cm, spread to nodes"],
]
XS = (40.0, 120.0, 380.0)
TOP, ROW = 520.0, 24.0


def _banded(path: Path, title: str, note: str | None = None, shaded: bool = True) -> None:
    c = canvas.Canvas(str(path), pagesize=A5, invariant=1)
    c.setFont("Helvetica", 9)
    c.drawString(40, 560, "The stage of a breast cancer describes its size and whether it has spread.")
    if shaded:
        c.setFillColorRGB(0.85, 0.3, 0.5)
        c.rect(XS[0], TOP - ROW, XS[-1] - XS[0], ROW, stroke=0, fill=1)
        c.setFillColorRGB(0, 0, 0)
    c.setFont("Helvetica-Bold", 10)
    c.drawString(XS[0] + 5, TOP - 16, title)
    c.setFont("Helvetica", 9)
    rows = len(ROWS) + (1 if note else 0)
    bottom = TOP - ROW * (rows + 1)
    for k in range(rows + 2):
        c.line(XS[0], TOP - ROW * k, XS[-1], TOP - ROW * k)
    for x in (XS[0], XS[-1]):
        c.line(x, TOP, x, bottom)
    c.line(XS[1], TOP - ROW, XS[1], TOP - ROW * (len(ROWS) + 1))
    for r, row in enumerate(ROWS):
        for k, text in enumerate(row):
            c.drawString(XS[k] + 5, TOP - ROW * (r + 1) - 16, text)
    if note:
        c.drawString(XS[0] + 5, TOP - ROW * (len(ROWS) + 1) - 16, note)
    c.drawString(40, bottom - 30, "Ask your doctor which stage applies to you.")
    c.showPage()
    c.save()


def _table(path: Path) -> Table:
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    (table,) = [b.table for b in doc.blocks if b.table is not None]
    return table


def test_title_band_over_a_ruled_table_is_its_title(tmp_path: Path) -> None:
    path = tmp_path / "band.pdf"
    _banded(path, "Staging", note="Stage III and IV: call the help line.")
    table = _table(path)
    assert table.title == "Staging"
    assert [list(r) for r in table.rows] == [*ROWS, ["Stage III and IV: call the help line.", ""]]


def test_unshaded_title_row_stays_a_row(tmp_path: Path) -> None:
    """A ruled title row without a band of its own is a row (tabula's and pdfplumber's sets
    count it as one; only the shading sets it apart as a title)."""
    path = tmp_path / "ruled-title.pdf"
    _banded(path, "Staging", shaded=False)
    table = _table(path)
    assert table.title != "Staging"
    assert [list(r) for r in table.rows][0] == ["Staging", ""]


def test_long_first_row_stays_a_row(tmp_path: Path) -> None:
    """A first row of more than a few words (a note or a sentence) is content, not a title."""
    long = "All stages below apply to women and to men alike"
    path = tmp_path / "long.pdf"
    _banded(path, long)
    table = _table(path)
    assert table.title != long
    assert [list(r) for r in table.rows][0] == [long, ""]
