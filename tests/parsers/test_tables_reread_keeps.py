"""A partial grid read again for columns loses nothing (session 16, found on a real statistical
release's "Table 1"): a frame with rules under its header and between column groups only, so its
ruled cells hold many lines of aligned figures and are read again as an unruled table
(page_reader._reread_partial_grid). Before, the caption above the frame ("Table 1. ...", which the
ruled reading had taken as the title and kept out of the prose) and the note printed inside the
frame under the figures were in neither the table nor the prose: gone from the document. Drawn
anew with reportlab; the first two tests fail on main's code (a2c77c7)."""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from parsers.model import ParsedDocument
from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.source import SourceFile

WIDTH, HEIGHT = A4
LEFT, RIGHT = 72.0, 540.0
XS = (76.0, 300.0, 370.0, 440.0, 510.0)  # column starts; rules between column groups at GROUPS
GROUPS = (292.0, 432.0)
HEADER = ("", "2021", "2022", "2023", "2024")
ROWS = (
    ("Grain Output", "", "", "", ""),
    ("Wheat", "6.2", "3.4", "2.9", "3.1"),
    ("Corn", "5.4", "2.7", "1.2", "1.4"),
    ("Barley", "5.9", "2.0", "1.4", "1.0"),
    ("Oats", "5.3", "3.5", "0.7", "1.6"),
    ("Rye", "2.6", "1.9", "0.1", "1.4"),
    ("Orchard Prices", "", "", "", ""),
    ("Apples", "6.8", "2.6", "0.7", "1.6"),
    ("Pears", "6.7", "3.9", "0.6", "0.9"),
    ("Plums", "4.1", "1.1", "1.8", "0.9"),
    ("Cherries", "3.3", "2.2", "2.5", "1.7"),
    ("Peaches", "2.9", "1.5", "1.0", "1.2"),
)
CAPTION = ("Table 1. Overview of the Harvest Projections", "(Percent change, unless noted otherwise)")
NOTE = (
    "Note: Yields are assumed to remain at the levels of the last survey round.",
    "Figures for orchards cover the marketed crop only; see the annex for sources.",
)
AFTER = "The outlook for grain remains weak while orchard prices recover gradually over the year."


def _release(path: Path, caption: bool = True, note: bool = True, fragment: str = "") -> None:
    """The caption's lines, then the frame: header, a rule, the rows (two section rows), a rule,
    the note's lines (and a ``fragment`` on a line of its own at the right); rules between the
    column groups from the frame's top to its bottom; a paragraph under the frame."""
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 9)
    top = HEIGHT - 72
    if caption:
        for i, line in enumerate(CAPTION):
            c.drawString(LEFT, top - 11 * i, line)
    frame_top = top - 20
    y = frame_top - 12
    for x, text in zip(XS, HEADER, strict=True):
        c.drawString(x, y, text)
    c.line(LEFT, y - 4, RIGHT, y - 4)
    y -= 16
    for row in ROWS:
        for x, text in zip(XS, row, strict=True):
            c.drawString(x, y, text)
        y -= 12
    c.line(LEFT, y + 6, RIGHT, y + 6)
    if note:
        for i, line in enumerate(NOTE):
            c.drawString(XS[0], y - 6 - 11 * i, line)
        y -= 24
    if fragment:
        c.drawString(XS[-1], y - 6, fragment)
        y -= 12
    c.rect(LEFT, y - 4, RIGHT - LEFT, frame_top - y + 4)
    for x in GROUPS:
        c.line(x, y - 4, x, frame_top)
    c.setFont("Helvetica", 10)
    c.drawString(LEFT, y - 40, AFTER)
    c.save()


def _parse(path: Path) -> ParsedDocument:
    return pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]


def _prose(doc: ParsedDocument) -> str:
    return " ".join(b.text for b in doc.blocks if b.table is None)


def test_the_caption_of_a_frame_read_again_titles_its_table(tmp_path: Path) -> None:
    path = tmp_path / "release.pdf"
    _release(path)
    doc = _parse(path)
    (table,) = [b.table for b in doc.blocks if b.table is not None]
    assert table.title == " ".join(CAPTION)
    assert [tuple(r) for r in (*table.header, *table.body)] == [HEADER, *ROWS]
    assert "Table 1." not in _prose(doc)  # the title, not prose as well


def test_a_note_inside_the_frame_under_the_figures_stays_prose(tmp_path: Path) -> None:
    path = tmp_path / "release.pdf"
    _release(path)
    prose = _prose(_parse(path))
    assert " ".join(NOTE) in prose
    assert AFTER in prose


def test_guard_without_caption_or_note_the_same_table_and_no_title(tmp_path: Path) -> None:
    path = tmp_path / "release.pdf"
    _release(path, caption=False, note=False)
    doc = _parse(path)
    (table,) = [b.table for b in doc.blocks if b.table is not None]
    assert [tuple(r) for r in (*table.header, *table.body)] == [HEADER, *ROWS]
    assert table.title is None
    assert _prose(doc).strip() == AFTER


def test_a_fragment_of_two_words_left_in_the_frame_is_no_paragraph(tmp_path: Path) -> None:
    # what the second reading leaves in a frame on a line of fewer than four words is a header
    # fragment as a rule ("If Form" over a tax table's columns), not prose of its own
    path = tmp_path / "release.pdf"
    _release(path, fragment="If Form")
    doc = _parse(path)
    assert all("If Form" not in b.text for b in doc.blocks)
    assert " ".join(NOTE) in _prose(doc)
