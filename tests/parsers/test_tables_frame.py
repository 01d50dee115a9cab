"""Rules across a whole unruled table (issue 24): a paper's boxed list of classes (two text
columns, a title line inside the box, the page's running head right above it) and a three-line
table of terms and their descriptions with a note under it. Before: both were rejected as "two
columns, the second not numeric" (the running head and the title line read as rows when found).
Guard: two columns of prose between a page's header rule and footer rule stay prose. Drawn with
reportlab, read through the parser."""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from parsers.model import ParsedDocument
from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.source import SourceFile

CLASSES = [
    ("class", "represents"),
    ("dat", "single dataset and its model"),
    ("kin", "kinetic model, inherits from dat"),
    ("spec", "spectral model, inherits from dat"),
    ("theta", "estimates for one dataset"),
    ("multitheta", "estimates for several datasets"),
    ("res", "results of fitting many datasets"),
]
TERMS = [
    ("Method", "Elements assessed"),
    ("CAMEL", "capital, assets, management, earnings, liquidity"),
    ("CAMPARI", "character, ability, margin, purpose, amount"),
    ("Five C", "character, capacity, capital, collateral, conditions"),
    ("Four F", "organisation, economy, finance, management"),
]
H = A4[1]
WORDS = "the model is fitted to each dataset in turn and the estimates are kept for the next step"


def _parse(path: Path) -> ParsedDocument:
    return pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]


def _tables(doc: ParsedDocument) -> list[tuple[str | None, list[list[str]]]]:
    return [(b.table.title, [list(r) for r in b.table.rows]) for b in doc.blocks if b.table is not None]


def _prose(c: canvas.Canvas, top: float, lines: int, x: float = 80, width: int = 12) -> None:
    words = WORDS.split()
    for i in range(lines):
        c.drawString(x, top - 13 * i, " ".join(words[(i * 3) % 7 :][:width]))


def test_boxed_class_list_under_a_running_head(tmp_path: Path) -> None:
    path = tmp_path / "boxed.pdf"
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    c.setFont("Times-Roman", 10)
    c.drawString(80, H - 60, "10")  # the running head: page number and title in two "columns"
    c.drawString(190, H - 60, "TIMP: Modeling Measurements in R")
    top = H - 80
    c.drawCentredString(290, top - 11, "S4 classes defined by TIMP")
    c.line(80, top - 15, 500, top - 15)
    for i, (name, meaning) in enumerate(CLASSES):
        y = top - 27 - 13 * i
        c.setFont("Courier" if i else "Times-Roman", 10)
        c.drawString(84, y, name)
        c.setFont("Times-Roman", 10)
        c.drawString(190, y, meaning)
        if i == 0:
            c.line(80, y - 4, 500, y - 4)
    bottom = top - 27 - 13 * (len(CLASSES) - 1) - 5
    c.rect(80, bottom, 420, top - bottom, stroke=1, fill=0)
    _prose(c, bottom - 40, 6)
    c.showPage()
    c.save()
    ((title, rows),) = _tables(_parse(path))
    assert rows == [list(r) for r in CLASSES]
    assert title == "S4 classes defined by TIMP"


def test_three_line_table_of_terms_with_a_note_under_it(tmp_path: Path) -> None:
    path = tmp_path / "three-line.pdf"
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    c.setFont("Times-Roman", 10)
    _prose(c, H - 60, 4)
    top = H - 130
    c.line(80, top, 500, top)
    for i, (term, elements) in enumerate(TERMS):
        y = top - 13 - 15 * i
        c.drawString(90, y, term)
        c.drawString(220, y, elements)
        if i == 0:
            c.line(80, y - 5, 500, y - 5)
    last = top - 13 - 15 * (len(TERMS) - 1)
    c.line(80, last - 6, 500, last - 6)
    c.drawString(90, last - 20, "Source")
    c.drawString(220, last - 20, "the lending handbook, chapter four")
    _prose(c, last - 60, 4)
    c.showPage()
    c.save()
    doc = _parse(path)
    ((_, rows),) = _tables(doc)
    assert rows == [list(r) for r in TERMS]
    assert "lending handbook" in " ".join(b.text for b in doc.blocks if b.table is None)


def test_two_prose_columns_between_page_rules_stay_prose(tmp_path: Path) -> None:
    path = tmp_path / "two-columns.pdf"
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    c.setFont("Times-Roman", 10)
    c.drawString(80, H - 50, "Journal of Statistical Software")
    c.line(80, H - 56, 515, H - 56)
    _prose(c, H - 80, 40, x=80, width=6)
    _prose(c, H - 80, 40, x=310, width=6)
    c.line(80, H - 80 - 13 * 40, 515, H - 80 - 13 * 40)
    c.showPage()
    c.save()
    assert _tables(_parse(path)) == []
