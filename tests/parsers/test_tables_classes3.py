"""Two unruled tables side by side whose rows drift apart (issue 24's open class), drawn anew with
reportlab and read through the PDF parser: each is a table of its own (on main's code 0b4a15f
they were one table of half-empty rows). Guards: one table with a text column in the middle, and
one with a row whose right half is empty, stay one table."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.source import SourceFile

HEIGHT = A4[1]
Row = tuple[str, ...]

FUNDS: list[Row] = [
    ("Fund", "NAV", "1Y %"),
    ("Alpha Growth", "12.31", "8.2"),
    ("Beta Income", "10.05", "3.1"),
]
FUNDS += [("Gamma Value", "15.77", "11.4"), ("Delta Bond", "9.88", "1.2"), ("Epsilon Asia", "14.20", "-2.5")]
FUNDS += [("Zeta Europe", "11.46", "6.7")]
INDICES: list[Row] = [
    ("Index", "Close", "Chg %"),
    ("CSI 300", "3,865.2", "0.84"),
    ("SSE Comp", "3,089.3", "0.52"),
]
INDICES += [
    ("Hang Seng", "17,651.1", "-0.31"),
    ("Nikkei 225", "33,452.0", "1.05"),
    ("S&P 500", "4,550.4", "0.21"),
]
INDICES += [("FTSE 100", "7,455.2", "-0.12"), ("DAX", "15,966.4", "0.47")]


def _tables(path: Path) -> list[list[Row]]:
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    return [[tuple(r) for r in (*b.table.header, *b.table.body)] for b in doc.blocks if b.table is not None]


def _table(
    c: canvas.Canvas, rows: Sequence[Row], x0: float, rights: Sequence[float], top: float, pitch: float
) -> None:
    """Rows at ``pitch`` points: a label at ``x0``, the other cells right-aligned at ``rights``."""
    y = top
    for row in rows:
        c.drawString(x0, y, row[0])
        for text, right in zip(row[1:], rights, strict=True):
            c.drawString(right - c.stringWidth(text, "Helvetica", 9), y, text)
        y -= pitch


@pytest.mark.parametrize(
    ("left", "right", "lower"), [(12.0, 14.5, 3.0), (11.0, 16.0, 5.0)], ids=["near", "far"]
)
def test_side_by_side_tables_whose_rows_drift_apart(
    tmp_path: Path, left: float, right: float, lower: float
) -> None:
    """A fund table and an index table side by side, at 12 and 14.5 pt row spacing (11 and 16), the
    second set 3 pt (5 pt) lower: two tables, each with its own rows."""
    path = tmp_path / "side.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 9)
    _table(c, FUNDS, 40, (200, 260), HEIGHT - 140, left)
    _table(c, INDICES, 310, (480, 540), HEIGHT - 140 - lower, right)
    c.save()
    assert _tables(path) == [FUNDS, INDICES]


def test_one_table_with_a_text_column_and_a_half_empty_row_stays_one(tmp_path: Path) -> None:
    """Guard: a staff table (name, age, city, income) whose city column is text, one row with
    its right half empty and one with its left half empty but its name: one table."""
    rows: list[Row] = [("Name", "Age", "City", "Income"), ("Ann Smith", "34", "Leeds", "31,200")]
    rows += [
        ("Bob Jones", "41", "", ""),
        ("Cara Lee", "29", "York", "27,900"),
        ("Dan Wu", "", "Bath", "35,100"),
    ]
    rows += [("Eve Khan", "52", "Hull", "41,000"), ("Finn Roe", "38", "Derby", "30,500")]
    path = tmp_path / "one.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 9)
    y = HEIGHT - 140
    for row in rows:
        for text, x in zip(row, (40, 200, 310, 540), strict=True):
            right = x in (200, 540)
            c.drawString(x - c.stringWidth(text, "Helvetica", 9) if right else x, y, text)
        y -= 12
    c.save()
    assert _tables(path) == [rows]


# --- a full-width table under text columns --------------------------------------------------------

PROSE = (
    "the committee noted that regional output rose in most sectors while services held steady and "
    "manufacturing recovered after a weak first half as export orders improved across the region"
)
WORDS = PROSE.split(" ")
SECTORS: list[Row] = [("Sector", "2014", "2015", "2016", "2017", "2018", "2019")]
SECTORS += [("Agriculture", "3.1", "2.9", "3.4", "3.0", "2.7", "2.8")]
SECTORS += [("Mining", "12.4", "11.8", "10.2", "9.9", "10.5", "11.1")]
SECTORS += [("Manufacturing", "21.0", "20.4", "19.8", "20.1", "20.6", "20.9")]
SECTORS += [("Construction", "6.2", "6.8", "7.1", "7.4", "7.0", "6.9")]
SECTORS += [("Services", "57.3", "58.1", "59.5", "59.6", "59.2", "58.3")]


def _columns(c: canvas.Canvas, count: int, top: float, lines: int) -> float:
    """``count`` columns of justified prose (Times 9 pt, 11 pt leading) from 40 to 555 pt, 18 pt
    gutters; returns the y under them."""
    width = (555 - 40 - 18 * (count - 1)) / count
    c.setFont("Times-Roman", 9)
    for k in range(count):
        y, i = top, 7 * k
        for _ in range(lines):
            line: list[str] = []
            while c.stringWidth(" ".join([*line, WORDS[i % len(WORDS)]]), "Times-Roman", 9) < width:
                line.append(WORDS[i % len(WORDS)])
                i += 1
            extra = (width - c.stringWidth(" ".join(line), "Times-Roman", 9)) / max(len(line) - 1, 1)
            x = 40 + k * (width + 18)
            for word in line:
                c.drawString(x, y, word)
                x += c.stringWidth(word + " ", "Times-Roman", 9) + extra
            y -= 11
    return top - 11 * lines


@pytest.mark.parametrize("count", [2, 3])
def test_a_full_width_table_under_text_columns_stays_whole(tmp_path: Path, count: int) -> None:
    """Two (three) columns of justified prose, a full-width table 20 pt under them, more columns
    20 pt under it: the table's first and last rows are closer to its other rows than to the
    prose, so they are not cut at the prose's gutter. On main the header and the last row were cut
    there and lost to the table."""
    path = tmp_path / "columns.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    y = _columns(c, count, HEIGHT - 60, 12) - 20
    c.setFont("Helvetica", 8)
    for row in SECTORS:
        c.drawString(40, y, row[0])
        for text, right in zip(row[1:], (200, 260, 320, 380, 440, 500), strict=True):
            c.drawString(right - c.stringWidth(text, "Helvetica", 8), y, text)
        y -= 11
    _columns(c, count, y - 20, 10)
    c.save()
    assert _tables(path) == [SECTORS]
