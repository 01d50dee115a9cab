"""parsers.pdf.tables.unruled: whitespace-aligned tables from word boxes (pure steps, no files), then real
pdfplumber on reportlab PDFs drawn here: a financial statement's cells exact, and pages that are
not tables (two text columns, a TOC with leaders, an aligned bullet list) yielding none."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

from chunkers.tables import chunk_table
from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.pdf.tables import unruled
from parsers.pdf.tables.unruled import Word
from parsers.pdf.tables.unruled_guards import is_numeric, rejection
from parsers.source import SourceFile

CHAR_W = 5.0  # a word box is 5 pt per character, 10 pt high


def w(
    text: str, x0: float, top: float, *, right: bool = False, bold: bool = False, mono: bool = False
) -> Word:
    """A word box at ``x0`` (or ending at ``x0`` when ``right``: right-aligned numbers)."""
    width = CHAR_W * len(text)
    start = x0 - width if right else x0
    return Word(text, start, top, start + width, top + 10.0, size=10.0, bold=bold, mono=mono)


def phrase(text: str, x0: float, top: float, **kw: bool) -> list[Word]:
    """Words of ``text`` with one normal space (2 pt) between them."""
    out, x = [], x0
    for part in text.split():
        out.append(w(part, x, top, **kw))
        x += CHAR_W * len(part) + 2.0
    return out


def right_phrase(text: str, x1: float, top: float) -> list[Word]:
    width = sum(CHAR_W * len(p) for p in text.split()) + 2.0 * (len(text.split()) - 1)
    return phrase(text, x1 - width, top)


STATEMENT = [
    ("", "2021", "2020"),
    ("Current assets", "", ""),
    ("Cash", "1,234", "987"),
    ("Trade receivables", "(45,000)", "12,500"),
    ("Inventories", "3,300", "—"),
    ("Total current assets", "1,212,345", "13,487"),
]


def statement_words(top: float = 100.0) -> list[Word]:
    words: list[Word] = []
    for i, (label, a, b) in enumerate(STATEMENT):
        y = top + 14.0 * i
        words += phrase(label, 50, y) if label else []
        words += [w(a, 260, y, right=True)] if a else []
        words += [w(b, 340, y, right=True)] if b else []
    return words


def rows_of(table: unruled.UnruledTable) -> list[list[str]]:
    return [list(r) for r in table.rows]


# --- pure steps ---------------------------------------------------------------------------------


def test_split_chunks_cuts_at_wide_gaps_only() -> None:
    line = unruled.split_chunks([*phrase("Trade receivables", 50, 0), w("45", 200, 0)])
    assert [c.text for c in line.chunks] == ["Trade receivables", "45"]


def test_separators_fall_in_the_gaps_that_persist() -> None:
    lines = [unruled.split_chunks(ws) for ws in unruled.group_lines(statement_words())]
    block = unruled.blocks(lines)
    assert len(block) == 1
    seps = unruled.separators(block[0])
    assert len(seps) == 2
    assert 50 + CHAR_W * len("Total current assets") < seps[0] < 260 - CHAR_W * len("1,212,345")
    assert 260 < seps[1] < 340 - CHAR_W * len("12,500")


def test_financial_statement_from_word_boxes() -> None:
    (table,) = unruled.find_tables(statement_words())
    assert rows_of(table) == [list(r) for r in STATEMENT]
    assert table.header_rows == 1  # a years row is a header, not data
    assert table.columns[0] == 0.0 and table.columns[-1] == 1.0 and len(table.columns) == 4


def test_wrapped_row_label_is_one_cell_either_way() -> None:
    # values on the label's last line ("Coastal districts" / "and islands 45 12") and on its first
    words = [*phrase("Region", 50, 0), w("Count", 250, 0, right=True), w("Share", 320, 0, right=True)]
    words += [*phrase("North", 50, 12), w("12", 250, 12, right=True), w("3.5", 320, 12, right=True)]
    words += phrase("Coastal districts", 50, 24)
    words += [*phrase("and islands", 50, 36), w("45", 250, 36, right=True), w("1.2", 320, 36, right=True)]
    words += [*phrase("Mountain", 50, 48), w("7", 250, 48, right=True), w("0.4", 320, 48, right=True)]
    words += phrase("provinces", 50, 60)
    (table,) = unruled.find_tables(words)
    assert [[" ".join(c.split()) for c in r] for r in table.rows] == [
        ["Region", "Count", "Share"],
        ["North", "12", "3.5"],
        ["Coastal districts and islands", "45", "1.2"],
        ["Mountain provinces", "7", "0.4"],
    ]


def test_spanning_group_label_sits_in_its_first_column() -> None:
    words = [*phrase("Male", 170, 0), *phrase("Female", 290, 0)]  # centred over two columns each
    words += [*phrase("Region", 50, 12)] + [
        w(t, x, 12, right=True) for t, x in (("Count", 200), ("Share", 250), ("Count", 320), ("Share", 370))
    ]
    for i, name in enumerate(["North", "South", "East"]):
        y = 24 + 12 * i
        words += phrase(name, 50, y)
        words += [
            w(t, x, y, right=True) for t, x in (("1,000", 200), ("2.5", 250), ("3,000", 320), ("4.5", 370))
        ]
    (table,) = unruled.find_tables(words)
    assert rows_of(table)[:2] == [
        ["", "Male", "", "Female", ""],
        ["Region", "Count", "Share", "Count", "Share"],
    ]
    assert table.header_rows == 2


def test_table_in_one_text_column_of_a_two_column_page() -> None:
    words: list[Word] = []
    prose = "the board expects further pressure on margins in the coming year"
    for i in range(16):
        words += phrase(prose, 360, 100 + 12 * i)  # right text column, beside the table
    for i in range(5):
        words += phrase(prose, 50, 40 + 12 * i)  # left column: prose above the table
    table_top = 110.0
    for i, (name, a, b) in enumerate(
        [
            ("Unit", "Q1", "Q2"),
            ("Pumps", "7,234", "1,918"),
            ("Seals", "6,910", "332"),
            ("Valves", "2,374", "5,624"),
        ]
    ):
        y = table_top + 12 * i
        words += [*phrase(name, 50, y), w(a, 160, y, right=True), w(b, 220, y, right=True)]
    (table,) = unruled.find_tables(words)
    assert rows_of(table) == [
        ["Unit", "Q1", "Q2"],
        ["Pumps", "7,234", "1,918"],
        ["Seals", "6,910", "332"],
        ["Valves", "2,374", "5,624"],
    ]


def test_two_text_columns_are_not_a_table() -> None:
    words: list[Word] = []
    for i in range(20):
        words += phrase("remained stable across regions although the board expects", 50, 12 * i)
        words += phrase("further pressure on margins in the coming year as markets", 330, 12 * i)
    assert unruled.find_tables(words) == []


def test_aligned_numbers_list_and_form_and_code_are_not_tables() -> None:
    listed = [
        t for i in range(6) for t in (w(f"{i + 1}.", 60, 12 * i, right=True), *phrase("an item", 80, 12 * i))
    ]
    assert unruled.find_tables(listed) == []
    form = [
        t
        for i, (k, v) in enumerate(
            [("Name:", "Jane"), ("City:", "Springfield"), ("Phone:", "555-0134"), ("Date:", "12/03/1980")]
        )
        for t in (w(k, 50, 12 * i), w(v, 180, 12 * i))
    ]
    assert unruled.find_tables(form) == []
    code = [
        t
        for i in range(5)
        for t in (
            *phrase(f"x{i} = {i}", 50, 12 * i, mono=True),
            *phrase("# a comment", 200, 12 * i, mono=True),
        )
    ]
    assert unruled.find_tables(code) == []


@pytest.mark.parametrize(
    ("rows", "reason"),
    [
        ([["Introduction", "........ 3"], ["Methods", "........ 7"], ["Results", "........ 9"]], "leaders"),
        ([["Introduction", "3"], ["Methods", "7"], ["Results", "12"], ["Annex", "15"]], "page numbers"),
        (
            [["2", "At a glance", "42", "Markets", "Growth"], ["4", "Our values", "44", "Outlook", ""]]
            + [["6", "Key figures", "", "", "Assurance"], ["8", "Letter", "54", "Segments", ""]],
            "table of contents in columns",
        ),
        ([["Name:", "Jane"], ["City:", "Paris"], ["Phone:", "555"]], "form"),
        ([["•", "apples"], ["•", "pears"], ["•", "plums"]], "list"),
        ([["Espresso", "small"], ["Tea", "large"], ["Water", "each"]], "not numeric"),
        ([["x", "w 2", "Σ"], ["", "2", "ϕ"], ["x", "w 3", ". ."]], "glyphs"),
        (
            [
                ["Countries", "with low accuracy have a less reliable estimate", "than the"],
                ["categories", "so their results must be read with care as", "the number"],
                ["responses", "taken into account does not provide the", "accuracy"],
            ],
            "justified",
        ),
    ],
)
def test_guards_name_what_a_block_is(rows: Sequence[Sequence[str]], reason: str) -> None:
    why = rejection(rows, 0)
    assert why is not None and reason in why


def test_justified_lines_under_a_table_stay_prose() -> None:
    words = [*phrase("Period", 50, 0), w("Amount", 250, 0, right=True)]
    for i, (name, value) in enumerate([("Weekly", "40.40"), ("Monthly", "175.00"), ("Annually", "2,100.00")]):
        words += [*phrase(name, 50, 12 + 12 * i), w(value, 250, 12 + 12 * i, right=True)]
    words += [*phrase("Step 2. Use the amount", 50, 48), *phrase("figured in Step 1", 180, 48)]
    (table,) = unruled.find_tables(words)
    assert rows_of(table)[-1] == ["Annually", "2,100.00"]
    assert not any(x.text == "Step" for x in table.words)  # its words go back to the prose


def test_guards_accept_a_price_list() -> None:
    assert (
        rejection([["Item", "Price"], ["Espresso", "$2.50"], ["Bagel", "$3.10"], ["Tea", "$1.90"]], 1) is None
    )


@pytest.mark.parametrize("text", ["1,234", "(45,000)", "-3.5%", "$12.50", "€ 3,40", "—", "12.0"])
def test_numbers_as_tables_print_them(text: str) -> None:
    assert is_numeric(text)


# --- real PDFs ----------------------------------------------------------------------------------


def _parse(path: Path) -> list[object]:
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    return [b for b in doc.blocks if b.kind == "table"]


def _statement_pdf(path: Path) -> None:
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    h = A4[1]
    c.setFont("Helvetica", 10)
    c.drawString(60, h - 60, "The group's balance sheet at the end of the year is shown below.")
    c.setFont("Helvetica-Bold", 11)
    c.drawString(60, h - 84, "Table 3: Consolidated balance sheet")
    for i, (label, a, b) in enumerate(STATEMENT):
        y = h - 110 - 13 * i
        c.setFont("Helvetica-Bold" if i in (0, len(STATEMENT) - 1) else "Helvetica", 9)
        c.drawString(60 + (8 if label in ("Cash", "Trade receivables", "Inventories") else 0), y, label)
        c.drawRightString(300, y, a)
        c.drawRightString(370, y, b)
    c.setFont("Helvetica", 10)
    c.drawString(60, h - 220, "Figures are in thousands of euros; negative amounts are in parentheses.")
    c.showPage()
    c.save()


def test_financial_statement_pdf_cells_exact_and_chunked_with_header(tmp_path: Path) -> None:
    path = tmp_path / "statement.pdf"
    _statement_pdf(path)
    (block,) = _parse(path)
    assert [list(r) for r in block.table.rows] == [list(r) for r in STATEMENT]  # type: ignore[attr-defined]
    assert block.table.header_rows == 1  # type: ignore[attr-defined]
    assert block.table.title == "Table 3: Consolidated balance sheet"  # type: ignore[attr-defined]
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    prose = " ".join(b.text for b in doc.blocks if b.kind != "table")
    assert "1,212,345" not in prose and "negative amounts" in prose  # table text left the prose
    assert "Consolidated balance sheet" not in prose  # so did its caption, now the title
    chunks = list(chunk_table(block, max_tokens=40))  # type: ignore[arg-type]
    assert len(chunks) > 1 and all("|  | 2021 | 2020 |" in ch.text for ch in chunks)


def _page(path: Path, draw: object) -> None:
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    draw(c, A4[1])  # type: ignore[operator]
    c.showPage()
    c.save()


SENTENCE = "the board expects further pressure on margins in the coming year as markets adjust to new rules"


def test_two_column_prose_page_has_no_table(tmp_path: Path) -> None:
    def draw(c: canvas.Canvas, h: float) -> None:
        c.setFont("Times-Roman", 9)
        for col in (0, 1):
            for i in range(50):
                words = SENTENCE.split()
                line = " ".join(words[(i + col) % 5 :][:10])
                c.drawString(60 + col * 250, h - 60 - 11 * i, line)

    _page(tmp_path / "twocol.pdf", draw)
    assert _parse(tmp_path / "twocol.pdf") == []


def test_toc_with_leaders_has_no_table(tmp_path: Path) -> None:
    def draw(c: canvas.Canvas, h: float) -> None:
        c.setFont("Helvetica", 10)
        for i, entry in enumerate(["Introduction", "Scope", "Methods", "Results", "Discussion", "Annex"]):
            y = h - 80 - 16 * i
            c.drawString(70, y, f"{i + 1}  {entry}")
            c.drawString(72 + pdfmetrics.stringWidth(f"{i + 1}  {entry}", "Helvetica", 10), y, "." * 70)
            c.drawRightString(520, y, str(3 + 4 * i))

    _page(tmp_path / "toc.pdf", draw)
    assert _parse(tmp_path / "toc.pdf") == []


def test_guards_accept_rising_counts_without_gaps_or_alone() -> None:
    """A row counter (1, 2, 3: no gap) and a single rising column are data, not page numbers."""
    rows = [["#", "Site", "Visits", "Share"], ["1", "North", "12", "0.4"], ["2", "South", "30", "0.5"]]
    assert rejection([*rows, ["3", "East", "45", "0.1"]], 1) is None
    assert (
        rejection([["Week", "Cases", "Note"], ["Mon", "12", "a"], ["Tue", "30", "b"], ["Wed", "55", "c"]], 1)
        is None
    )


TOC = [
    [
        ("2", "Company at a glance"),
        ("4", "Stakeholder value"),
        ("6", "Key indicators"),
        ("8", "Chairman's letter"),
    ]
    + [("14", "Caring for communities"), ("16", "Digital change"), ("18", "Shared value")],
    [("42", "Management discussion"), ("44", "Financial review"), ("54", "Business overview")]
    + [("72", "Digital services"), ("86", "Media"), ("98", "Energy"), ("122", "Exploration")],
    [("150", "Integrated approach"), ("152", "Extending care"), ("155", "Governance approach")]
    + [("162", "Material issues"), ("166", "Growth drivers"), ("216", "Assurance"), ("218", "Report")],
]


def test_toc_in_three_columns_without_leaders_has_no_table(tmp_path: Path) -> None:
    """An annual report's contents page: three columns of "page number, entry" and no leaders
    (before: one table of six columns, page numbers as figures)."""

    def draw(c: canvas.Canvas, h: float) -> None:
        c.setFont("Helvetica-Bold", 16)
        c.drawString(220, h - 50, "Table of Contents")
        for k, column in enumerate(TOC):
            x = 50 + 180 * k
            for i, (page, entry) in enumerate(column):
                c.setFont("Helvetica-Bold", 9)
                c.drawString(x, h - 90 - 18 * i, page)
                c.setFont("Helvetica", 9)
                c.drawString(x + 22, h - 90 - 18 * i, entry)

    _page(tmp_path / "toc3.pdf", draw)
    assert _parse(tmp_path / "toc3.pdf") == []


def test_aligned_bullet_list_has_no_table(tmp_path: Path) -> None:
    def draw(c: canvas.Canvas, h: float) -> None:
        c.setFont("Helvetica", 10)
        for i in range(8):
            y = h - 80 - 16 * i
            c.drawString(70, y, "•")
            c.drawString(90, y, " ".join(SENTENCE.split()[i : i + 6]))
            c.drawRightString(120, y - 400, f"{i + 1}.")  # a numbered list further down
            c.drawString(130, y - 400, " ".join(SENTENCE.split()[i : i + 7]))

    _page(tmp_path / "bullets.pdf", draw)
    assert _parse(tmp_path / "bullets.pdf") == []


DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


def test_arabic_cells_come_out_in_logical_order(tmp_path: Path) -> None:
    pdfmetrics.registerFont(TTFont("DejaVuSans", str(DEJAVU)))
    items = [("قهوة", "4.04"), ("شاي", "3.18"), ("خبز", "2.50"), ("ماء", "1.20")]

    def draw(c: canvas.Canvas, h: float) -> None:
        c.setFont("DejaVuSans", 10)
        c.drawString(80, h - 80, "Item")
        c.drawRightString(260, h - 80, "Price")
        for i, (name, price) in enumerate(items):
            c.drawString(80, h - 94 - 14 * i, name[::-1])  # drawn left to right: visual order
            c.drawRightString(260, h - 94 - 14 * i, price)

    _page(tmp_path / "arabic.pdf", draw)
    (block,) = _parse(tmp_path / "arabic.pdf")
    assert [list(r) for r in block.table.rows] == [["Item", "Price"], *map(list, items)]  # type: ignore[attr-defined]
