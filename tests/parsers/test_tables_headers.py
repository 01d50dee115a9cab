"""Multi-row headers of statistical tables (issue 24), drawn here with reportlab, read through the
real parser (pdfplumber + the ruled and unruled detectors), compared cell by cell.

The shape: "State" and "n" span both header rows with their text centred vertically, a group
label "Literacy Status" spans six columns in the first header row over six sub-labels in the
second, one sub-label wraps onto two lines ("Read &" / "Write"). Columns are ruled, body rows are
not (one ruled band holds every data row), so the rows of the body come from the text and the
rows of the header from the rules."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from parsers.model import Table
from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.source import SourceFile

H = A4[1]
XS = [40.0, 110.0, 150.0, 210.0, 270.0, 330.0, 390.0, 450.0, 510.0]
SUB: list[Sequence[str]] = [
    ["Illiterate"],
    ["Read &", "Write"],
    ["Primary"],
    ["Middle"],
    ["Secondary"],
    ["Graduate"],
]
HEADER = (
    ("State", "n", "Literacy Status", "", "", "", "", ""),
    ("", "", "Illiterate", "Read &\nWrite", "Primary", "Middle", "Secondary", "Graduate"),
)
NAMES = ("State", "n", *(f"Literacy Status / {' '.join(s)}" for s in SUB))
LINE = 10.0  # line pitch of 9 pt text


def body_rows(n: int, first: int = 1) -> list[tuple[str, ...]]:
    return [
        (f"State {i}", str(100 + i), *(f"{10 * i + k}.{k}" for k in range(6)))
        for i in range(first, first + n)
    ]


class Drawing:
    def __init__(self, c: canvas.Canvas) -> None:
        self.c = c
        c.setFont("Helvetica", 9)

    def hline(self, x0: float, x1: float, y: float) -> None:
        self.c.line(x0, H - y, x1, H - y)

    def vline(self, x: float, top: float, bottom: float) -> None:
        self.c.line(x, H - top, x, H - bottom)

    def text(self, x0: float, x1: float, top: float, bottom: float, lines: Sequence[str], how: str) -> None:
        """Lines centred across x0..x1; vertically centred in top..bottom or set at its bottom."""
        height = len(lines) * LINE
        start = (top + bottom - height) / 2 if how == "centre" else bottom - 3 - height
        for i, line in enumerate(lines):
            width = self.c.stringWidth(line, "Helvetica", 9)
            self.c.drawString((x0 + x1 - width) / 2, H - (start + (i + 0.8) * LINE), line)


def draw_literacy(
    c: canvas.Canvas, top: float, rows: Sequence[Sequence[str]], sub_align: str, rules: str
) -> float:
    """The table at ``top``; ``rules``: "columns" (verticals, header rules, no rules between body
    rows), "grid" (every row ruled too). Returns its bottom."""
    d = Drawing(c)
    y1, y2 = top + 16, top + 44
    pitch = 14.0
    body = [y2 + 2 + i * pitch for i in range(len(rows) + 1)]
    bottom = body[-1] + 2
    d.hline(XS[0], XS[-1], top)
    d.hline(XS[2], XS[-1], y1)  # a partial rule: under the group label only
    d.hline(XS[0], XS[-1], y2)
    d.hline(XS[0], XS[-1], bottom)
    if rules == "grid":
        for y in body[1:-1]:
            d.hline(XS[0], XS[-1], y)
    for i, x in enumerate(XS):
        d.vline(x, top if i in (0, 1, 2, len(XS) - 1) else y1, bottom)
    d.text(XS[0], XS[1], top, y2, ["State"], "centre")
    d.text(XS[1], XS[2], top, y2, ["n"], "centre")
    d.text(XS[2], XS[-1], top, y1, ["Literacy Status"], "centre")
    for k, lines in enumerate(SUB):
        d.text(XS[2 + k], XS[3 + k], y1, y2, lines, sub_align)
    for i, row in enumerate(rows):
        for k, value in enumerate(row):
            d.text(XS[k], XS[k + 1], body[i], body[i + 1], [value], "centre")
    return bottom


def parsed_tables(path: Path) -> list[Table]:
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False))[0]
    return [b.table for b in doc.blocks if b.table is not None]


@pytest.mark.parametrize("sub_align", ["bottom", "centre"])
@pytest.mark.parametrize("rules", ["columns", "grid"])
def test_two_row_merged_header_over_unruled_body_rows(tmp_path: Path, sub_align: str, rules: str) -> None:
    """Before issue 24 the "columns" drawings came out with three or four header rows (the centred
    "State" and "n" on a row of their own, "Read &" and "Write" on two more) and no column names,
    every data row below one row off the header."""
    rows = body_rows(12)
    path = tmp_path / f"literacy-{rules}-{sub_align}.pdf"
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    draw_literacy(c, 80, rows, sub_align, rules)
    c.save()
    [table] = parsed_tables(path)
    assert table.rows == (*HEADER, *rows)
    assert table.header_rows == 2
    assert table.column_names == NAMES


def test_two_such_tables_on_one_page(tmp_path: Path) -> None:
    """One table on each half of the page (as in the real report the shape came from)."""
    first, second = body_rows(10), body_rows(9, first=11)
    path = tmp_path / "literacy-two-tables.pdf"
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    bottom = draw_literacy(c, 60, first, "bottom", "columns")
    c.setFont("Helvetica", 10)
    c.drawString(XS[0], H - (bottom + 40), "The second half of the states follows.")
    draw_literacy(c, bottom + 80, second, "bottom", "columns")
    c.save()
    found = parsed_tables(path)
    assert [t.rows for t in found] == [(*HEADER, *first), (*HEADER, *second)]
    assert [t.header_rows for t in found] == [2, 2]
    assert [t.column_names for t in found] == [NAMES, NAMES]
