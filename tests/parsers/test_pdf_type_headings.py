"""Headings told by type alone (issue 23): a handbook without an outline whose headings are only
larger or bold lines gets heading levels and paths from the document's heading styles
(parsers/pdf/heading_styles.py), and table header rows, captions, running headers and bold
labels stay out of them. Real pdfplumber on reportlab PDFs."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkers.document import chunk_document
from parsers.model import ParsedDocument
from parsers.options import ParseOptions
from parsers.pdf import headings
from parsers.pdf import parser as pdf
from parsers.pdf.labels import bold_font
from parsers.source import SourceFile

BODY = [
    "Staff read this part of the handbook in their first week, since it says how",
    "the office works and what each of us can expect from the others on the team,",
    "from the first morning to the day they leave the company for good.",
]


def _parse(path: Path) -> ParsedDocument:
    (doc,) = pdf.parse(SourceFile.read(path, path.name), ParseOptions(ocr=False))
    return doc


class _Page:
    """Lines drawn top-down with reportlab's canvas: body 10 pt Helvetica, leading 13."""

    def __init__(self, canvas, number: int) -> None:
        self.c, self.y = canvas, 700.0
        canvas.setFont("Helvetica-Bold", 9)  # a running header: bold, on every page, not a heading
        canvas.drawString(72, 800, "Northwind Staff Handbook")
        canvas.setFont("Helvetica", 9)
        canvas.drawString(300, 40, str(number))

    def line(self, text: str, font: str = "Helvetica", size: float = 10, gap: float = 0) -> None:
        self.y -= gap
        self.c.setFont(font, size)
        self.c.drawString(72, self.y, text)
        self.y -= size * 1.3

    def body(self, lines: int = 3) -> None:
        for text in BODY[:lines]:
            self.line(text)
        self.y -= 6


def _handbook(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(595, 842))
    p = _Page(c, 1)
    p.line("Welcome to Northwind", "Helvetica-Bold", 14, gap=6)
    p.body()
    p.line("Our history", "Helvetica-Bold", 12, gap=6)
    p.body()
    p.line("Note:", "Helvetica-Bold", 10)  # a bold label on its own line: not a heading
    p.body(lines=2)
    p.line("Offices opened before June 3,", "Helvetica-Bold", 12, gap=6)  # one heading on two lines
    p.line("2004", "Helvetica-Bold", 12)
    p.body()
    c.showPage()
    p = _Page(c, 2)
    p.line("Working Hours", "Helvetica-Bold", 14, gap=6)
    p.body()
    p.line("Core hours", "Helvetica-Bold", 12, gap=6)
    p.body()
    # a header row of bold cells over rows of figures (no rules): a table, not two headings
    for label, value, font in [("Shift pattern", "Weekly hours", "Helvetica-Bold")] + [
        (f"Pattern {k}", f"{30 + i}", "Helvetica") for i, k in enumerate("ABCD")
    ]:
        c.setFont(font, 10)
        c.drawString(72, p.y, label)
        c.drawString(330, p.y, value)
        p.y -= 14
    p.y -= 8
    p.line("Figure 2: Weekly hours by shift pattern", "Helvetica-Bold", 12)  # a caption
    p.body(lines=2)
    p.line("Overtime and time off", "Helvetica-Bold", 12, gap=6)
    p.body()
    c.showPage()
    p = _Page(c, 3)
    p.line("Benefits", "Helvetica-Bold", 14, gap=6)
    p.body(lines=2)
    p.line("Health insurance", "Helvetica-Bold", 12, gap=2)  # set tight under the paragraph above
    p.body()
    c.showPage()
    c.save()


@pytest.fixture(scope="module")
def handbook(tmp_path_factory: pytest.TempPathFactory) -> ParsedDocument:
    path = tmp_path_factory.mktemp("handbook") / "handbook.pdf"
    _handbook(path)
    assert headings.read_outline(path.read_bytes()) == []
    return _parse(path)


def test_type_headings_get_levels_by_size_rank(handbook: ParsedDocument) -> None:
    found = [(b.text, b.metadata["level"]) for b in handbook.blocks if b.kind == "heading"]
    assert found == [
        ("Welcome to Northwind", 1),
        ("Our history", 2),
        ("Offices opened before June 3, 2004", 2),
        ("Working Hours", 1),
        ("Core hours", 2),
        ("Overtime and time off", 2),
        ("Benefits", 1),
        ("Health insurance", 2),
    ]


def test_chunks_carry_the_heading_path(handbook: ParsedDocument) -> None:
    chunks = chunk_document(handbook)
    assert chunks and all(c.heading_path for c in chunks)
    last = [c for c in chunks if c.pages == (3, 3)][-1]
    assert last.heading_path == ("Benefits", "Health insurance")
    wrapped = next(c for c in chunks if c.heading_path[-1].startswith("Offices opened"))
    assert wrapped.heading_path == ("Welcome to Northwind", "Offices opened before June 3, 2004")


def test_labels_table_rows_captions_and_running_headers_are_not_headings(handbook: ParsedDocument) -> None:
    texts = {b.text for b in handbook.blocks if b.kind == "heading"}
    for not_heading in ("Note:", "Shift pattern", "Weekly hours", "Northwind Staff Handbook"):
        assert not any(not_heading in t for t in texts), not_heading
    assert not any(t.startswith("Figure 2") for t in texts)


def test_weight_read_from_face_names_seen_in_real_pdfs() -> None:
    for bold in ("RUZWFN+NimbusRomNo9L-Medi", "HBEMOE+AdvTTaf7f9f4f.B", "YVDZVQ+CMBX12", "Arial,Bold"):
        assert bold_font(bold), bold
    for regular in ("GZNYGG+NimbusRomNo9L-Regu", "HBENJL+AdvTT8861b38f.I", "CMR10", "Helvetica-Oblique"):
        assert not bold_font(regular), regular


def _italic_handbook(path: Path) -> None:
    """A maintenance handbook's pages: Times-Roman 10 pt body, side headings in the body's italic
    at the same size, italic words inside body lines and an italic caption."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(612, 792))
    y = 700.0

    def line(text: str, font: str = "Times-Roman") -> None:
        nonlocal y
        c.setFont(font, 10)
        c.drawString(72, y, text)
        y -= 12.5

    for title in ("Boots Self-Locking Nut", "Stainless Steel Self-Locking Nut", "Elastic Stop Nut"):
        line(title, "Times-Italic")
        line("The nut is of one piece, all-metal construction designed to hold tight despite")
        c.setFont("Times-Roman", 10)
        c.drawString(72, y, "severe vibration. Note in")
        c.setFont("Times-Italic", 10)
        c.drawString(180, y, "Figure 7-26")  # italic words inside a roman line
        c.setFont("Times-Roman", 10)
        c.drawString(240, y, "that it has two sections and is two nuts in one.")
        y -= 12.5
        line("The spring keeps the locking and load-carrying sections apart so that the threads")
        line("are out of phase and a bolt must push the locking section outward to engage them.")
        y -= 8
        line("Figure 7-26. Self-locking nuts.", "Times-Italic")
        y -= 14
    c.showPage()
    c.save()


def test_italic_side_headings_at_body_size(tmp_path: Path) -> None:
    path = tmp_path / "nuts.pdf"
    _italic_handbook(path)
    doc = _parse(path)
    found = [b.text for b in doc.blocks if b.kind == "heading"]
    assert found == ["Boots Self-Locking Nut", "Stainless Steel Self-Locking Nut", "Elastic Stop Nut"]
    chunks = chunk_document(doc)
    assert all(c.heading_path for c in chunks)
    spring = [c for c in chunks if "The spring keeps" in c.text]
    assert [c.heading_path for c in spring] == [(t,) for t in found]
