"""Heading levels (parsers/headings.py): the PDF outline decides when present, else numbering and type."""

from __future__ import annotations

from pathlib import Path

from parsers.model import ParsedDocument
from parsers.options import ParseOptions
from parsers.pdf import headings
from parsers.pdf import parser as pdf
from parsers.pdf.text_layout import Segment
from parsers.source import SourceFile


def _parse(path: Path) -> ParsedDocument:
    (doc,) = pdf.parse(SourceFile.read(path, path.name), ParseOptions(ocr=False))
    return doc


def test_section_numbers_and_labels() -> None:
    assert headings.section_number("3.2.1 Title") == ("3", "2", "1")
    assert headings.section_number("2. Scope") == ("2",)
    assert headings.section_number("Chapter 4. Results") == ("4",)
    assert headings.section_number("PART II - OBLIGATIONS") is None  # parts hold chapters, not 2.x
    assert headings.section_number("2024 in numbers") is None  # a year, not a section
    assert headings.section_number("3.5 kg") == ("3", "5")  # only with a heading-like line does it count
    assert headings.is_label("Figure 3: Block diagram") and headings.is_label("Fig. 2 Flow")
    assert headings.is_label("Table 3-1 Special registers") and not headings.is_label("Figures and facts")


def test_a_numbered_section_closes_unrelated_numbered_parents() -> None:
    path = [(1, "Manual"), (2, "Chapter 1. Intro"), (4, "1.3.1 Old")]
    headings.pop_to_parent(path, 4, "2.1.6 New")  # chapter 2's heading is not in the file
    assert path == [(1, "Manual")]
    path = [(1, "Manual"), (2, "1 Intro"), (3, "1.1 Scope")]
    headings.pop_to_parent(path, 4, "1.1.2 Detail")
    assert path == [(1, "Manual"), (2, "1 Intro"), (3, "1.1 Scope")]


# (level, title, font size): the sizes contradict the outline on purpose
OUTLINE = [
    (1, "Installation Guide", 14),
    (2, "Preparing the site", 18),
    (3, "Power supply", 12),
    (2, "Mounting", 12),
    (1, "Operation", 14),
    (2, "Daily checks", 12),
]


def _outline_pdf(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(595, 842))
    for i, (level, title, size) in enumerate(OUTLINE):
        key = f"s{i}"
        c.bookmarkPage(key)
        c.addOutlineEntry(title, key, level=level - 1)
        c.setFont("Helvetica-Bold", size)
        c.drawString(72, 760, title)
        c.setFont("Helvetica-Bold", 20)
        c.drawString(72, 700, "IMPORTANT NOTICE")  # large, but not in the outline: not a heading
        c.setFont("Helvetica", 10)
        for j in range(6):
            c.drawString(72, 660 - 14 * j, f"Body text {i}-{j} about the step, long enough to be prose here.")
        c.showPage()
    c.save()


def test_outline_decides_heading_levels_and_paths(tmp_path: Path) -> None:
    path = tmp_path / "outlined.pdf"
    _outline_pdf(path)
    entries = headings.read_outline(path.read_bytes())
    assert [(e.level, e.title, e.page) for e in entries] == [
        (level, title, i + 1) for i, (level, title, _) in enumerate(OUTLINE)
    ]
    doc = _parse(path)
    found = [(b.text, b.metadata["level"], b.page) for b in doc.blocks if b.kind == "heading"]
    assert found == [(title, level, i + 1) for i, (level, title, _) in enumerate(OUTLINE)]
    body = {b.page: b.heading_path for b in doc.blocks if b.text.startswith("Body text")}
    assert body[3] == ("Installation Guide", "Preparing the site", "Power supply")
    assert body[4] == ("Installation Guide", "Mounting")
    assert body[6] == ("Operation", "Daily checks")


def _numbered_pdf(path: Path) -> None:
    from reportlab.pdfgen import canvas

    sections = ["1 Introduction", "1.1 Scope", "1.1.1 Terms", "2 Design", "2.1 Layout", "2.1.1 Grid"]
    c = canvas.Canvas(str(path), pagesize=(595, 842))
    for page in range(3):
        c.setFont("Helvetica-Bold", 11)
        c.drawString(72, 700, "Acme Pump Service Notes")  # running header, below the margin band
        y = 660
        for title in sections[2 * page : 2 * page + 2]:
            c.setFont("Helvetica-Bold", 12)  # one size for every level: the numbers tell the level
            c.drawString(72, y, title)
            c.setFont("Helvetica", 10)
            for j in range(4):
                c.drawString(
                    72, y - 20 - 14 * j, f"Paragraph {title.split()[0]}-{j} describes this part in prose."
                )
            c.setFont("Helvetica-Bold", 16)
            c.drawString(72, y - 100, f"Figure {page + 1}: Pump cross-section")  # a large label
            y -= 160
        c.showPage()
    c.save()


def test_numbered_sections_without_outline(tmp_path: Path) -> None:
    path = tmp_path / "numbered.pdf"
    _numbered_pdf(path)
    assert headings.read_outline(path.read_bytes()) == []
    doc = _parse(path)
    found = [(b.text, b.metadata["level"]) for b in doc.blocks if b.kind == "heading"]
    assert found == [
        ("1 Introduction", 1),
        ("1.1 Scope", 2),
        ("1.1.1 Terms", 3),
        ("2 Design", 1),
        ("2.1 Layout", 2),
        ("2.1.1 Grid", 3),
    ]
    grid = next(b for b in doc.blocks if b.text.startswith("Paragraph 2.1.1-0"))
    assert grid.heading_path == ("2 Design", "2.1 Layout", "2.1.1 Grid")


def test_an_outline_entry_missing_from_the_text_still_closes_its_siblings() -> None:
    outline = [
        headings.OutlineEntry(1, "Main report", 1),
        headings.OutlineEntry(2, "Findings", 1),
        headings.OutlineEntry(1, "annex-a.pdf", None),  # a merged file's bookmark, not printed
        headings.OutlineEntry(2, "Bike lanes", 2),
    ]
    pages = [
        (1, [Segment("Main report", 0, 0, 50, 12, 12), Segment("Findings", 0, 20, 50, 32, 12)]),
        (2, [Segment("Bike lanes", 0, 0, 50, 12, 12)]),
    ]
    levels = headings.HeadingLevels(outline, pages)
    assert levels.from_outline
    path = [(1, "Main report"), (2, "Findings")]
    assert levels.level([pages[1][1][0]], ocr=False, page=2) == 2
    levels.close(path, 2, "Bike lanes")
    assert path == []
