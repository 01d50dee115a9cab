"""parsers.pdf.parser on our generated samples (real pdfplumber, no mocks) and on broken files."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from parsers.model import ParsedDocument, SkipFile
from parsers.options import ParseOptions
from parsers.pdf import page_reader
from parsers.pdf import parser as pdf
from parsers.pdf import text_layout as layout
from parsers.source import SourceFile

ROOT = Path(__file__).resolve().parents[2]
NO_OCR = ParseOptions(ocr=False)


def _load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_pdfs", ROOT / "samples" / "make_pdfs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


make_pdfs = _load_generator()


def parse_file(path: Path, options: ParseOptions = NO_OCR) -> ParsedDocument:
    docs = pdf.parse(SourceFile.read(path, path.name), options)
    assert len(docs) == 1
    return docs[0]


@pytest.fixture(scope="module")
def manual(tmp_path_factory: pytest.TempPathFactory) -> ParsedDocument:
    path = tmp_path_factory.mktemp("pdf") / "lumen-manual.pdf"
    make_pdfs.build_manual(path)
    return parse_file(path)


def test_document_identity(manual: ParsedDocument) -> None:
    assert manual.doc_id == manual.path == "lumen-manual.pdf"
    assert manual.parser == "pdf"
    assert manual.title == "Lumen Field Manual"
    assert manual.metadata["pages"] == 3


def test_text_in_reading_order_with_pages(manual: ParsedDocument) -> None:
    prose = [(b.page, b.text) for b in manual.blocks if b.kind != "table"]
    assert prose[:3] == [(1, "Lumen Field Manual"), (1, "1 Getting started"), (1, prose[2][1])]
    # the hyphenated line break is joined, the paragraph's three lines are one block
    assert prose[2][1] == (
        "The Lumen lamp needs a short calibration after transport. Keep the lamp head level "
        "and wait for the green status light before you mount it."
    )
    assert all(b.page in (1, 2, 3) for b in manual.blocks)
    texts = [t for _, t in prose]
    assert texts.index("2 Maintenance") > texts.index("Report missing parts within seven days of delivery.")


def test_headings_and_heading_path(manual: ParsedDocument) -> None:
    headings = [(b.text, b.metadata["level"]) for b in manual.blocks if b.kind == "heading"]
    assert headings == [
        ("Lumen Field Manual", 1),
        ("1 Getting started", 2),
        ("1.1 Unpacking", 3),
        ("2 Maintenance", 2),
        ("3 Field notes", 2),
    ]
    after = next(b for b in manual.blocks if b.text.startswith("Check the kit"))
    assert after.heading_path == ("Lumen Field Manual", "1 Getting started", "1.1 Unpacking")
    notes = next(b for b in manual.blocks if b.text.startswith("Right column"))
    assert notes.heading_path == ("Lumen Field Manual", "3 Field notes")


def test_running_header_and_page_numbers_removed(manual: ParsedDocument) -> None:
    all_text = "\n".join(b.text for b in manual.blocks)
    assert make_pdfs.HEADER not in all_text
    assert "Page 1 of 3" not in all_text and "Page 3 of 3" not in all_text


def test_bordered_table_with_merged_cells(manual: ParsedDocument) -> None:
    table_block = next(b for b in manual.blocks if b.kind == "table")
    table = table_block.table
    assert table is not None and table_block.page == 1
    assert table.rows == (
        ("Item", "Qty", "Notes"),
        ("Lamp head", "1", "Sealed unit\nIP67 rated"),
        ("Battery pack", "2", "Charge fully before use"),  # spans two rows: text in its top slot
        ("Spare fuse", "4", ""),
        ("Mounting kit (bracket and screws)", "", ""),  # spans three columns
    )
    assert table.header_rows == 1
    assert table.title == "Table 1: Kit contents"
    assert table_block.text == table.markdown()
    assert "| Lamp head | 1 | Sealed unit IP67 rated |" in table_block.text


def test_table_text_not_repeated_in_prose(manual: ParsedDocument) -> None:
    prose = " ".join(b.text for b in manual.blocks if b.kind != "table")
    assert "Lamp head" not in prose and "Inspect seal ring" not in prose


def test_table_across_two_pages_is_one_table(manual: ParsedDocument) -> None:
    tables = [b for b in manual.blocks if b.kind == "table"]
    assert len(tables) == 2
    service = tables[1]
    assert service.page == 2 and list(service.metadata["pages"]) == [2, 3]
    assert service.table is not None
    assert service.table.header == (tuple(make_pdfs.SERVICE_HEADER),)
    assert [list(r) for r in service.table.body] == make_pdfs.SERVICE_ROWS  # header repeat dropped
    assert service.heading_path == ("Lumen Field Manual", "2 Maintenance")


def test_table_rows_cite_their_own_pages(manual: ParsedDocument) -> None:
    from chunkers.document import chunk_document
    from chunkers.sizing import ChunkOptions

    service = [b for b in manual.blocks if b.kind == "table"][1]
    starts = service.metadata["page_starts"]
    assert starts[0] == [2, 0] and starts[1][0] == 3 and 0 < starts[1][1] < len(make_pdfs.SERVICE_ROWS)
    chunks = [c for c in chunk_document(manual, ChunkOptions(max_tokens=40)) if "Interval" in c.text]
    assert {c.pages for c in chunks} >= {(2, 2), (3, 3)}  # a row group cites the page its rows are on


def test_unmapped_glyphs_are_left_out_and_a_page_of_them_is_ocrd(tmp_path: Path) -> None:
    import pdfplumber

    assert page_reader.is_unmapped({"text": "(cid:18)"}) and not page_reader.is_unmapped({"text": "c"})
    path = tmp_path / "manual.pdf"
    make_pdfs.build_manual(path)
    with pdfplumber.open(path) as doc:
        page = doc.pages[0]
        assert not page_reader.needs_ocr(page, [], readable=len(page.chars), unmapped=0)
        assert not page_reader.needs_ocr(page, [], readable=300, unmapped=200)  # readable text wins
        assert page_reader.needs_ocr(page, [], readable=20, unmapped=200)  # mostly `(cid:NN)`: OCR it


def test_a_title_printed_only_as_running_header_becomes_the_document_title(tmp_path: Path) -> None:
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    path = tmp_path / "budget.pdf"
    c = canvas.Canvas(str(path), pagesize=letter)
    for page in (1, 2):
        c.setFont("Helvetica", 9)
        c.drawString(72, 760, "Harbor Works Budget")  # top margin, every page
        c.drawString(500, 30, f"Page {page}")
        c.setFont("Helvetica", 11)
        for i in range(12):
            c.drawString(72, 700 - 16 * i, f"Line item {page}-{i}: dredging and quay repairs, phase {i}.")
        c.showPage()
    c.save()
    doc = parse_file(path)
    assert doc.title == "Harbor Works Budget"
    assert not any("Harbor Works Budget" in b.text for b in doc.blocks)  # still dropped from the pages


def test_two_columns_read_column_by_column(manual: ParsedDocument) -> None:
    page3 = [b.text for b in manual.blocks if b.page == 3 and b.kind == "paragraph"]
    assert page3 == [
        "Left column first line about ridge lamps and their wiring. Left column ends here.",
        "Right column starts with the valley lamps and the cables. Right column ends here.",
    ]


def test_chinese_page_with_table(tmp_path: Path) -> None:
    path = tmp_path / "chinese.pdf"
    make_pdfs.build_chinese(path)
    doc = parse_file(path)
    assert doc.blocks[0].kind == "heading" and doc.blocks[0].text == "灯具维护说明"
    table = next(b.table for b in doc.blocks if b.table is not None)
    assert [list(r) for r in table.rows] == make_pdfs.CHINESE_ROWS


def test_page_limit_keeps_first_pages_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "manual.pdf"
    make_pdfs.build_manual(path)
    doc = parse_file(path, ParseOptions(ocr=False, pdf_max_pages=1))
    assert {b.page for b in doc.blocks} == {1}
    assert "page limit" in doc.metadata["truncated"]


def test_time_limit_is_recorded(tmp_path: Path) -> None:
    path = tmp_path / "manual.pdf"
    make_pdfs.build_manual(path)
    with pytest.raises(SkipFile, match="time limit: parsed 0 of 3 pages"):
        parse_file(path, ParseOptions(ocr=False, pdf_seconds_per_file=1e-9))


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("empty.pdf", b"", "empty file"),
        ("notes.pdf", b"just some text, not a pdf\n" * 10, "not a PDF (mislabeled?)"),
        ("broken.pdf", b"%PDF-1.4\nThis is not really a PDF\n", "malformed PDF: "),
    ],
)
def test_bad_files_are_skipped_with_reason(tmp_path: Path, name: str, data: bytes, reason: str) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(SkipFile, match=re.escape(reason)):
        parse_file(path)


def test_truncated_pdf_is_malformed(tmp_path: Path) -> None:
    path = tmp_path / "full.pdf"
    make_pdfs.build_manual(path)
    cut = tmp_path / "truncated.pdf"
    cut.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 3])
    with pytest.raises(SkipFile, match="^malformed PDF: "):
        parse_file(cut)


def test_encrypted_pdf_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "locked.pdf"
    make_pdfs.build_manual(path, encrypt="pw")
    with pytest.raises(SkipFile, match=r"^encrypted PDF \(password required\)$"):
        parse_file(path)


def seg(text: str, x0: float, top: float, x1: float, size: float = 10.0) -> layout.Segment:
    return layout.Segment(text, x0, top, x1, top + size, size)


def test_reading_order_title_then_left_then_right_column() -> None:
    segs = [seg("Title across both columns", 50, 10, 550)]
    segs += [seg(f"L{i}", 50, 40 + 14 * i, 280) for i in range(4)]
    segs += [seg(f"R{i}", 320, 40 + 14 * i, 550) for i in range(4)]
    segs += [seg("Footnote across the page", 50, 200, 550)]
    order = [s.text for s in layout.reading_order(segs)]
    assert order == ["Title across both columns", "L0", "L1", "L2", "L3", "R0", "R1", "R2", "R3", order[-1]]


def _words(line: str, x: float, top: float, size: float = 9.0) -> list[layout.Segment]:
    out, at = [], x
    for word in line.split():
        out.append(layout.Segment(word, at, top, at + 4.5 * len(word), top + size, size))
        at += 4.5 * len(word) + 2.5  # a normal word space, 0.28 em
    return out


def test_a_tight_gutter_between_three_columns_splits_lines_a_wide_justified_space_does_not() -> None:
    # three columns of 9 pt text, 8 pt apart (less than the 1.2 x height that splits any line)
    words = []
    for i in range(8):
        top = 40 + 12 * i
        words += _words(f"left column line {i} text", 40, top)  # ends at x 135.5
        words += _words(f"middle column line {i} text", 143.5, top)  # an 8 pt gutter
    segments = layout.words_to_segments(words)
    assert sorted({s.text.split()[0] for s in segments}) == ["left", "middle"]
    assert all(not (s.x0 < 140 < s.x1) for s in segments)
    # one line of a single column with a 9 pt space (justified) stays one segment
    lone = _words("justified line", 40, 300)
    wide = [lone[0], layout.Segment("wide", lone[0].x1 + 9, 300, lone[0].x1 + 27, 309, 9.0)]
    assert [s.text for s in layout.words_to_segments(wide)] == ["justified wide"]
    # list markers in a column of bullets are not a gutter
    bullets = [
        w for i in range(8) for w in _words(f"• item number {i} in a list of things", 40, 400 + 12 * i)
    ]
    shift = {True: 0.0, False: 8.0}  # text 8 pt after its bullet
    bullets = [
        layout.Segment(w.text, w.x0 + shift[w.text == "•"], w.top, w.x1 + shift[w.text == "•"], w.bottom, 9.0)
        for w in bullets
    ]
    assert all(s.text.startswith("• item") for s in layout.words_to_segments(bullets))


def test_ragged_single_column_is_not_split() -> None:
    segs = [seg("long line of body text", 50, 10 + 14 * i, 500 if i % 3 else 200) for i in range(8)]
    assert layout.reading_order(segs) == sorted(segs, key=lambda s: s.top)


def test_join_lines_hyphenation() -> None:
    assert layout.join_lines(["needs calibra-", "tion now"]) == "needs calibration now"
    assert layout.join_lines(["a well-", "Known name"]) == "a well- Known name"
    assert layout.join_lines(["灯具维护", "说明"]) == "灯具维护说明"


def test_furniture_is_found_in_margins_only() -> None:
    pages = [
        [seg("ACME report", 50, 20, 200), seg(f"Page {n} of 9", 50, 770, 200), seg("Body text", 50, 300, 500)]
        for n in range(1, 4)
    ]
    furniture = layout.find_furniture(pages, [792.0] * 3)
    assert furniture == {"acme report", "page # of #"}
    kept = layout.drop_furniture(pages[0] + [seg("12", 290, 775, 300)], 792.0, furniture)
    assert [s.text for s in kept] == ["Body text"]


def _spread_pages(n: int) -> list[list[layout.Segment]]:
    """``n`` pages of a thesis: the title over every second page but where a chapter opens (pages
    0 and 6, whose top line is the chapter heading in large type), the chapter's title over the
    others."""
    pages = []
    for i in range(n):
        chapter = "Chapter 1 Introduction" if i < 6 else "Chapter 2 Method"
        if i in (0, 6):  # the chapter heading, in large type
            pages.append([seg(chapter, 50, 60, 400, 16.0), seg(f"Body of page {i}", 50, 300, 500)])
            continue
        top = "Thesis of the University" if i % 2 else chapter
        pages.append([seg(top, 50, 20, 300, 9.0), seg(f"Body of page {i}", 50, 300, 500)])
    return pages


def test_a_running_title_over_one_side_of_the_spreads_is_furniture() -> None:
    pages = _spread_pages(15)
    # the title over all 7 right-hand pages of 15 (under half of them all); chapter 2's over 4 of
    # the 8 left-hand ones, but its heading on page 6 sets it in large type: it stays
    assert sum(1 for p in pages if p[0].text.startswith("Thesis")) * 2 < len(pages)
    assert layout.find_furniture(pages, [792.0] * 15) == {"thesis of the university"}
    # three pages of a side at least: over two right-hand pages of five it is not furniture
    assert "thesis of the university" not in layout.find_furniture(_spread_pages(5), [792.0] * 5)


def test_a_thesis_running_title_over_alternate_pages_is_dropped_from_the_text(tmp_path) -> None:
    from reportlab.pdfgen import canvas

    from parsers.registry import parse_path

    path = tmp_path / "thesis.pdf"
    pdf = canvas.Canvas(str(path))
    for i, page in enumerate(_spread_pages(13)):  # the title over 6 of 13 pages
        size = page[0].size
        pdf.setFont("Helvetica-Bold" if size > 10 else "Helvetica", size)
        pdf.drawString(72, 842 - 20 - page[0].top, page[0].text)
        pdf.setFont("Helvetica", 11)
        for line in range(3):
            pdf.drawString(72, 600 - 14 * line, f"Findings of page {i}, line {line}, on credit risk.")
        pdf.showPage()
    pdf.save()
    (doc,) = parse_path(path, path.name)
    text = "\n".join(block.text for block in doc.blocks)
    assert "Thesis of the University" not in text
    assert all(f"Findings of page {i}, line 2" in text for i in range(13))
    assert [b.text for b in doc.blocks if b.kind == "heading"][:1] == ["Chapter 1 Introduction"]


def _titled_pdf(path, lines, meta_title=None):
    """A one-page PDF of ``lines`` (text, font, size), top down, with ``meta_title`` as its
    metadata title (none if None), parsed as docmill parses it."""
    from reportlab.pdfgen import canvas

    from parsers.registry import parse_path

    pdf = canvas.Canvas(str(path))
    if meta_title is not None:
        pdf.setTitle(meta_title)
    y = 760.0
    for text, font, size in lines:
        pdf.setFont(font, size)
        pdf.drawString(72, y, text)
        y -= size * 1.2 + 2
    pdf.save()
    (doc,) = parse_path(path, path.name)
    return doc


BODY = [(f"Sentence {i} of the body about patient admissions.", "Helvetica", 10) for i in range(16)]


def test_a_metadata_title_without_a_word_gives_way_to_the_title_on_the_page(tmp_path):
    page = [("Quality of care in a district hospital", "Helvetica-Bold", 18), *BODY]
    job = _titled_pdf(tmp_path / "job.pdf", page, "6489122611071476 1..10")
    named = _titled_pdf(tmp_path / "named.pdf", page, "2007 Instruction 1040-NR")
    assert job.title == "Quality of care in a district hospital"
    assert named.title == "2007 Instruction 1040-NR"


def test_a_title_set_in_large_type_names_a_pdf_without_metadata(tmp_path):
    page = [
        ("Redpaper", "Helvetica-Bold", 60),  # a brand word alone in the largest type
        ("Understanding the barriers to setting up", "Helvetica", 24),
        ("a quality improvement process", "Helvetica", 24),
        ("Abstract", "Helvetica-Bold", 12),
        *BODY,
    ]
    doc = _titled_pdf(tmp_path / "report.pdf", page)
    assert doc.title == "Understanding the barriers to setting up a quality improvement process"
