"""Ruled tables whose header is a shaded band (issue 24): each header cell filled in red, and each
label's text box filled again, in the same red, a few points inside the cell (as a word
processor exports a shaded cell holding a text frame). The inner fill draws no visible line, but
its edges made two sliver columns beside every label. Drawn with reportlab, read through the
parser; one guard: a fill of another colour inside a cell still draws its edges."""

from __future__ import annotations

from pathlib import Path

import pdfplumber
from reportlab.lib.pagesizes import A4, landscape
from reportlab.pdfgen import canvas

from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.pdf.tables.rules import fill_seams
from parsers.source import SourceFile

ROWS = [
    ["What is needed?", "What does it mean?", "Suggested measures"],
    ["Leadership", "A named leader for each handover", "Survey: is the leader clear?"],
    ["Valued", "Handover is part of care", "Number of interruptions"],
    ["Right people", "The right people take part", "Staff time spent on handover"],
]
XS = [70.0, 200.0, 420.0, 780.0]
TOP, HEAD, ROW = 500.0, 40.0, 30.0
RED = (0.75, 0.0, 0.0)


def _banded(path: Path, inner: tuple[float, float, float] = RED, header_rules: bool = True) -> None:
    c = canvas.Canvas(str(path), pagesize=landscape(A4), invariant=1)
    c.setFont("Helvetica", 10)
    c.drawString(70, 540, "Appendix H: good practice checklist with suggested measures")
    for k in range(3):
        c.setFillColorRGB(*RED)
        c.rect(XS[k], TOP - HEAD, XS[k + 1] - XS[k], HEAD, stroke=0, fill=1)
        c.setFillColorRGB(*inner)
        c.rect(XS[k] + 5, TOP - HEAD, XS[k + 1] - XS[k] - 10, HEAD, stroke=0, fill=1)
        c.setFillColorRGB(1, 1, 1)
        c.drawString(XS[k] + 6, TOP - 22, ROWS[0][k])
    c.setFillColorRGB(0, 0, 0)
    bottom = TOP - HEAD - ROW * (len(ROWS) - 1)
    for x in XS:
        c.line(x, TOP if header_rules else TOP - HEAD, x, bottom)
    for y in (TOP, *(TOP - HEAD - ROW * r for r in range(len(ROWS)))):
        c.line(XS[0], y, XS[-1], y)
    for r, row in enumerate(ROWS[1:]):
        for k, text in enumerate(row):
            c.drawString(XS[k] + 6, TOP - HEAD - ROW * r - 18, text)
    c.showPage()
    c.save()


def _tables(path: Path) -> list[list[list[str]]]:
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    return [[list(r) for r in b.table.rows] for b in doc.blocks if b.table is not None]


def test_label_boxes_filled_inside_a_shaded_header_make_no_columns(tmp_path: Path) -> None:
    path = tmp_path / "banded.pdf"
    _banded(path)
    assert _tables(path) == [ROWS]


def test_inner_fill_of_another_colour_keeps_its_edges(tmp_path: Path) -> None:
    path = tmp_path / "two-colours.pdf"
    _banded(path, inner=(0.9, 0.9, 0.2))
    with pdfplumber.open(path) as opened:
        page = opened.pages[0]
        edges = page.edges
        hidden = fill_seams(page.rects, edges)
    inner_x = {round(XS[k] + 5) for k in range(3)}
    assert not any(round(float(edges[i]["x0"])) in inner_x for i in hidden)
    same = tmp_path / "one-colour.pdf"
    _banded(same)
    with pdfplumber.open(same) as opened:
        page = opened.pages[0]
        edges = page.edges
        hidden = fill_seams(page.rects, edges)
    assert inner_x <= {round(float(edges[i]["x0"])) for i in hidden if edges[i]["orientation"] == "v"}


def test_inset_boxes_in_a_band_without_drawn_borders_keep_their_edges(tmp_path: Path) -> None:
    """No rule between the shaded header cells (one band): the inset boxes' edges are the only
    trace of the header's columns, and none is dropped (some rows cut at them, others not, would
    misalign the columns)."""
    path = tmp_path / "band.pdf"
    _banded(path, header_rules=False)
    with pdfplumber.open(path) as opened:
        page = opened.pages[0]
        edges = page.edges
        hidden = fill_seams(page.rects, edges)
    inner_x = {round(XS[k] + 5) for k in range(3)}
    assert not inner_x & {round(float(edges[i]["x0"])) for i in hidden if edges[i]["orientation"] == "v"}
