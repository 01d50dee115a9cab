"""Right-to-left text: the bidi step (parsers/bidi_text.py) and real PDFs drawn in visual order."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import pdfplumber
import pytest
from bidi import get_display

from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.pdf import rtl as bidi_text
from parsers.pdf.text_layout import Segment
from parsers.source import SourceFile

# matplotlib (a dependency) ships DejaVu Sans, which has Hebrew and Arabic glyphs: no system font needed
FONT = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"

HEBREW = "שלום עולם"
HEBREW_MIXED = "מחיר 1,234.50 לשנת 2024"
HEBREW_LATIN = "גרסה Lumen 3 הותקנה"
ARABIC = "مرحبا بالعالم 123"


@pytest.mark.parametrize("logical", [HEBREW, HEBREW_MIXED, HEBREW_LATIN, ARABIC, 'סה"כ (ברוטו)'])
def test_visual_line_back_to_logical(logical: str) -> None:
    visual = get_display(logical)
    assert visual != logical
    assert bidi_text.logical_line(visual) == logical


def test_left_to_right_lines_are_the_same_object() -> None:
    line = "Plain text, 42 items (no RTL)"
    assert bidi_text.logical_line(line) is line
    seg = Segment(line, 0, 0, 10, 10)
    assert bidi_text.logical_segments([seg])[0] is seg


def test_latin_line_with_a_hebrew_word_keeps_left_to_right_base() -> None:
    logical = "Install שלום now and again"
    assert bidi_text.logical_line(get_display(logical)) == logical


def _rtl_pdf(path: Path) -> None:
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    pdfmetrics.registerFont(TTFont("DejaVuSans", str(FONT)))
    c = canvas.Canvas(str(path), pagesize=(595, 842))
    c.setFont("DejaVuSans", 12)
    # glyphs are drawn in visual order, as a PDF producer lays out RTL text
    for i, logical in enumerate([HEBREW, HEBREW_MIXED, ARABIC]):
        c.drawRightString(520, 780 - 40 * i, get_display(logical))
    # a ruled 2x2 table with RTL cells
    x0, x1, x2, top, mid, bottom = 100, 300, 500, 600, 570, 540
    for y in (top, mid, bottom):
        c.line(x0, y, x2, y)
    for x in (x0, x1, x2):
        c.line(x, top, x, bottom)
    cells = [["שם", "כמות"], ["תפוחים ירוקים", "12"]]
    for r, row in enumerate(cells):
        for col, text in enumerate(row):
            c.drawRightString((x1, x2)[col] - 8, top - 20 - 30 * r, get_display(text))
    c.save()


def test_pdf_rtl_prose_and_cells_in_logical_order(tmp_path: Path) -> None:
    path = tmp_path / "rtl.pdf"
    _rtl_pdf(path)
    with pdfplumber.open(path) as raw:
        assert HEBREW not in raw.pages[0].extract_text()  # pdfplumber alone: reversed
    (doc,) = pdf.parse(SourceFile.read(path, path.name), ParseOptions(ocr=False))
    prose = [b.text for b in doc.blocks if b.kind != "table"]
    assert " ".join(prose) == f"{HEBREW} {HEBREW_MIXED} {ARABIC}"
    (table,) = [b.table for b in doc.blocks if b.table is not None]
    assert [list(r) for r in table.rows] == [["שם", "כמות"], ["תפוחים ירוקים", "12"]]
