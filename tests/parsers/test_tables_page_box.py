"""Text and rules outside the visible page (issue 24): a booklet's spread keeps the facing page's
text and cell boxes in the text layer past the page edge, a layout program its slug above the
page; a viewer shows none of it, so neither tables nor prose may hold it. Each PDF is drawn with
reportlab and read through the parser."""

from __future__ import annotations

from pathlib import Path

import pdfplumber
from reportlab.pdfgen import canvas

from parsers.model import ParsedDocument
from parsers.options import ParseOptions
from parsers.pdf import objects as pdf_objects
from parsers.pdf import page_reader
from parsers.pdf import parser as pdf
from parsers.source import SourceFile

PAGE = (420.0, 595.0)  # A5, as the booklet
ROWS = [
    ("Treatment", "Weeks", "Visits"),
    ("Surgery", "2", "3"),
    ("Radiotherapy", "6", "30"),
    ("Chemotherapy", "18", "6"),
    ("Hormone therapy", "260", "10"),
]
XS = (40.0, 200.0, 300.0, 380.0)
GHOST = ("Offpage", "Ghostcell", "Slugline")


def _parse(path: Path) -> ParsedDocument:
    return pdf.parse(SourceFile.read(path), ParseOptions(ocr=False))[0]


def _text(doc: ParsedDocument) -> str:
    parts = [b.text for b in doc.blocks]
    parts += [" ".join(c for r in b.table.rows for c in r) for b in doc.blocks if b.table is not None]
    return " ".join(parts)


def _grid(c: canvas.Canvas, xs: tuple[float, ...], top: float, rows: int) -> None:
    ys = [top - 22.0 * k for k in range(rows + 1)]
    for y in ys:
        c.line(xs[0], y, xs[-1], y)
    for x in xs:
        c.line(x, ys[0], x, ys[-1])


def _spread(path: Path) -> None:
    """A ruled table on the page; the facing page's table (same rows, a grid and cells of its own)
    drawn past the right edge, a slug line above the top, a label left of the page."""
    c = canvas.Canvas(str(path), pagesize=PAGE)
    c.setFont("Helvetica", 10)
    c.drawString(40, 560, "Treatment times for the common cancers of the breast are set out below.")
    _grid(c, XS, 520.0, len(ROWS))
    facing = tuple(x + PAGE[0] for x in XS)
    _grid(c, facing, 520.0, len(ROWS))
    for r, row in enumerate(ROWS):
        y = 520.0 - 22.0 * r - 15.0
        for k, text in enumerate(row):
            c.drawString(XS[k] + 4, y, text)
            c.drawString(facing[k] + 4, y, f"{GHOST[1]}{r}{k}")
    c.drawString(40, 620, f"{GHOST[2]} booklet-v3.indd 24 printed proof")
    c.drawString(-120, 300, f"{GHOST[0]} margin note")
    c.drawString(40, 380, "Ask your treatment team how long each treatment takes for you.")
    c.save()


def test_text_and_rules_past_the_page_edge_are_dropped(tmp_path: Path) -> None:
    """Before: the facing page's grid joined the table (three more columns of ghost cells) and
    the slug line and margin note were prose."""
    path = tmp_path / "spread.pdf"
    _spread(path)
    doc = _parse(path)
    tables = [b.table for b in doc.blocks if b.table is not None]
    assert len(tables) == 1
    assert [list(r) for r in tables[0].rows] == [list(r) for r in ROWS]
    text = _text(doc)
    assert "Treatment times" in text and "how long each treatment" in text
    assert not any(g in text for g in GHOST), text


def test_crop_box_limits_the_page(tmp_path: Path) -> None:
    """A crop box smaller than the media box: what lies between them is not shown either."""
    path = tmp_path / "cropped.pdf"
    c = canvas.Canvas(str(path), pagesize=PAGE)
    c.setCropBox((0, 0, PAGE[0], 500))
    c.setFont("Helvetica", 10)
    c.drawString(40, 540, f"{GHOST[2]} trimmed away by the crop box")
    c.drawString(40, 450, "Shown: the first line under the crop box top.")
    c.save()
    text = _text(_parse(path))
    assert "Shown: the first line" in text
    assert GHOST[2] not in text


def test_partly_visible_rect_is_cut_to_the_page(tmp_path: Path) -> None:
    """A shaded band bleeding off the right edge is cut at the edge; a rect wholly off the page
    is gone; characters count where their centre is; a page with nothing outside is untouched."""
    path = tmp_path / "bleed.pdf"
    c = canvas.Canvas(str(path), pagesize=PAGE)
    c.setFillGray(0.8)
    c.rect(300, 400, 200, 30, stroke=0, fill=1)  # 300..500 over a 420 pt page
    c.rect(450, 100, 50, 50, stroke=0, fill=1)  # wholly outside
    c.setFillGray(0)
    c.setFont("Helvetica", 10)
    c.drawString(412, 300, "AB")  # centre of "A" inside, "B" past the edge
    c.showPage()
    c.drawString(40, 300, "inside only")
    c.save()
    with pdfplumber.open(path) as opened:
        page = opened.pages[0]
        pdf_objects.prime(page)
        page_reader.crop_to_visible(page)
        assert [(round(r["x0"]), round(r["x1"])) for r in page.rects] == [(300, 420)]
        assert "".join(ch["text"] for ch in page.chars) == "A"
        assert all(e["x1"] <= PAGE[0] for e in page.edges)
        second = opened.pages[1]
        pdf_objects.prime(second)
        before = second._objects["char"]
        page_reader.crop_to_visible(second)
        assert second._objects["char"] is before


def test_a_box_that_holds_no_character_is_not_applied(tmp_path: Path) -> None:
    """Every character outside the box: the box is wrong (a media box stored upside down, which
    pdfplumber turns into a box below the page), not the text; nothing is dropped."""
    path = tmp_path / "upside-down.pdf"
    c = canvas.Canvas(str(path), pagesize=PAGE)
    c.setFont("Helvetica", 10)
    c.drawString(40, 300, "Visible text of a page whose box is stored wrongly")
    c.save()
    with pdfplumber.open(path) as opened:
        page = opened.pages[0]
        pdf_objects.prime(page)
        page.mediabox = page.cropbox = (0.0, PAGE[1], PAGE[0], 2 * PAGE[1])
        before = list(page.chars)
        page_reader.crop_to_visible(page)
        assert page.chars == before
