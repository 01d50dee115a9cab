"""Table layouts of issue 24 (session 14), drawn anew with reportlab (no dev-set page copied) and
read through the PDF parser: an invoice's item table with a note and total line under it in a
layout of its own; the same table under a rule with a small key table above it. The behaviour
tests failed on main's code (7bbb6c5); the drawn guards (named so) pass on both."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.pdf.tables.unruled import Line, Word, extend_up, split_chunks
from parsers.pdf.tables.unruled_guards import rejection
from parsers.source import SourceFile
from tests.parsers.drawn import Rows, parsed_rows

FONT, SIZE = "Helvetica", 8
PITCH = 11.5
HEIGHT = A4[1]

ITEMS: Rows = [
    ("Code", "Description", "Price", "VAT", "Quantity", "Amount"),
    ("A10418", "Filter set for model CA-20", "49.99", "21 %", "1 PCS", "49.99"),
    ("B20077", "Descaler, two bottles", "12.50", "21 %", "2 PCS", "25.00"),
    ("C31105", "Cleaning tablets, box of ten", "8.75", "9 %", "4 PCS", "35.00"),
]
LEFT = (50.0, 110.0)  # left-aligned columns: code, description
RIGHT = (400.0, 432.0, 470.0, 548.0)  # right edges of the right-aligned columns


def _width(text: str) -> float:
    return stringWidth(text, FONT, SIZE)


def _items(c: canvas.Canvas, top: float) -> float:
    """ITEMS under a rule at ``top`` (y up), the header's labels flush with their columns. The
    baseline of the last row."""
    c.line(LEFT[0], top, RIGHT[-1], top)
    y = top - PITCH
    for k, row in enumerate(ITEMS):
        for x, text in zip(LEFT, row[:2], strict=True):
            c.drawString(x, y, text)
        for x, text in zip(RIGHT, row[2:], strict=True):
            c.drawRightString(x, y, text)
        if k == 0:
            c.line(LEFT[0], y - 3, RIGHT[-1], y - 3)
        y -= PITCH
    return y + PITCH


def _page(path: Path, draw) -> None:  # noqa: ANN001 - a drawing callback
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    c.drawString(50, HEIGHT - 60, "Invoice copy")
    draw(c)
    c.drawString(50, 300, "Payment is due within fourteen days of the invoice date.")
    c.save()


def test_note_and_total_line_under_items_is_no_row_and_merges_no_columns(tmp_path: Path) -> None:
    """A line under the item rows, a blank line down, with a note under the first two columns
    and "Invoice total EUR" across the price, VAT and quantity columns: on main it joined the
    block and closed those column gaps (the six columns read as three)."""
    path = tmp_path / "tail.pdf"

    def draw(c: canvas.Canvas) -> None:
        last = _items(c, 600)
        y = last - 2.0 * PITCH
        c.drawString(LEFT[0], y, "Prices include VAT")
        c.drawString(RIGHT[0] + 5, y, "Invoice total EUR")
        c.drawRightString(RIGHT[-1], y, "109.99")

    _page(path, draw)
    assert parsed_rows(path) == [ITEMS]


def test_key_lines_over_a_rule_above_the_items_are_no_header(tmp_path: Path) -> None:
    """Two lines of a small key table ("Customer ... Due date" over their values) stand three
    line heights above the item table's rule: on main they were taken as header lines of the
    item table (its header already on its first line), their words in its columns. Since
    session 16 they are a key table of their own (test_tables_classes11)."""
    path = tmp_path / "key.pdf"

    def draw(c: canvas.Canvas) -> None:
        keys = (("Customer", 50.0), ("Order", 150.0), ("Invoice date", 320.0), ("Invoice", 420.0))
        values = ("CUST0303006280999", "ORD000000444", "8-9-2022", "VF1005193039")
        for (label, x), value in zip(keys, values, strict=True):
            c.drawString(x, 660, label)
            c.drawString(x, 660 - PITCH, value)
        c.drawRightString(RIGHT[-1], 660, "Due date")
        c.drawRightString(RIGHT[-1], 660 - PITCH, "22-9-2022")
        _items(c, 660 - PITCH - 3.2 * PITCH)

    _page(path, draw)
    keys = ("Customer", "Order", "Invoice date", "Invoice", "Due date")
    values = ("CUST0303006280999", "ORD000000444", "8-9-2022", "VF1005193039", "22-9-2022")
    assert parsed_rows(path) == [[keys, values], ITEMS]


def test_guard_a_total_row_in_the_columns_stays_a_row(tmp_path: Path) -> None:
    """A total row set a blank line under the items, its label and figure in the table's
    columns: a row of the table."""
    path = tmp_path / "total.pdf"

    def draw(c: canvas.Canvas) -> None:
        last = _items(c, 600)
        c.drawString(LEFT[1], last - 2.0 * PITCH, "Total")
        c.drawRightString(RIGHT[-1], last - 2.0 * PITCH, "109.99")

    _page(path, draw)
    assert parsed_rows(path) == [[*ITEMS, ("", "Total", "", "", "", "109.99")]]


def _centred(c: canvas.Canvas, text: str, x0: float, x1: float, y: float) -> None:
    c.drawString((x0 + x1 - _width(text)) / 2, y, text)


def test_guard_a_centred_label_over_two_columns_stays_whole(tmp_path: Path) -> None:
    """ "Net sales" centred over the 2021 and 2022 columns, its word space over the gap between
    them but neither word flush with a column: one label over both."""
    path = tmp_path / "group.pdf"
    rows: Sequence[tuple[str, str, str]] = (
        ("Europe", "1,204", "1,311"),
        ("Americas", "988", "1,020"),
        ("Asia", "2,310", "2,575"),
    )
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    c.drawString(50, 640, "Region")
    left, right = 300.0 - _width("1,311"), 330.0
    _centred(c, "Net sales", left - 4, right + 4, 640)
    c.drawRightString(300, 640 - PITCH, "2021")
    c.drawRightString(330, 640 - PITCH, "2022")
    for k, (label, a, b) in enumerate(rows):
        y = 640 - (k + 2) * PITCH
        c.drawString(50, y, label)
        c.drawRightString(300, y, a)
        c.drawRightString(330, y, b)
    c.save()
    tables = parsed_rows(path)
    assert len(tables) == 1
    assert not any(cell in ("Net", "sales") for row in tables[0] for cell in row)


LEGEND = [
    ("Natural", "", "", "Sources", "", ""),
    ("\uf06e", "48%", "Radon", "\uf06e", "11%", "Medicine"),
    ("\uf06e", "14%", "Buildings & soil", "\uf06e", "0.4%", "Fallout"),
    ("\uf06e", "12%", "Food & water", "\uf06e", "0.4%", "Miscellaneous"),
    ("\uf06e", "10%", "Cosmic", "\uf06e", "0.2%", "Occupational"),
]


def test_a_chart_legend_of_symbol_font_markers_is_a_list() -> None:
    """A pie chart's legend set in columns, each entry a symbol font's square (mapped to the
    private use area, U+F06E) before its share and label: a list of markers, no table (main's
    marker column knew the Unicode bullets only)."""
    assert rejection(LEGEND, 1) == "a marker column: a list"


def test_guard_private_use_glyphs_inside_a_table_leave_it_a_table() -> None:
    """The same glyphs in a later column (a feature matrix's ticks) say nothing of a list."""
    rows = [
        ("Model", "Recall", "Precision", "Open"),
        *((f"Model {k}", f"0.{k}1", f"0.{k}7", "\uf0fc") for k in range(1, 6)),
    ]
    assert rejection(rows, 1) is None


PROSE = (
    "The yields were measured on the same day in every plot, after the harvest had been weighed",
    "by two people working independently; their figures agreed within one per cent everywhere,",
    "so the mean of the two weighings is given. The wettest plots gave the highest yields again.",
)


def _captioned_grid(path: Path, caption: Sequence[str]) -> None:
    """A ruled grid of three rows, ``caption`` under it (10 pt on a 12 pt leading) and right under
    that, at the same size and leading, a paragraph of PROSE flush with the caption's left edge."""
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Times-Roman", 10)
    xs, top = (60.0, 200.0, 300.0, 400.0), 700.0
    rows = [("Plot", "2022", "2023"), ("North", "4.1", "4.4"), ("South", "3.8", "4.0")]
    for k, row in enumerate(rows):
        for x, text in zip(xs, row, strict=False):
            c.drawString(x + 4, top - (k + 1) * 16 + 5, text)
    for k in range(len(rows) + 1):
        c.line(xs[0], top - k * 16, xs[-1], top - k * 16)
    for x in xs:
        c.line(x, top, x, top - len(rows) * 16)
    y = top - len(rows) * 16 - 14
    for line in (*caption, *PROSE):
        c.drawString(60, y, line)
        y -= 12
    c.save()


def _title_and_prose(path: Path) -> tuple[str | None, str]:
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    [table] = [b.table for b in doc.blocks if b.table is not None]
    return table.title, " ".join(" ".join(b.text for b in doc.blocks if b.table is None).split())


def test_a_caption_ends_at_its_short_last_line_before_prose(tmp_path: Path) -> None:
    """The caption's one line stops far short of the paragraph's measure, and the paragraph
    follows at the caption's own size and leading: on main the caption took the next two lines
    of prose into the table's title (and out of the text)."""
    path = tmp_path / "caption.pdf"
    _captioned_grid(path, ["Table 2: Grain yield by plot, tonnes per hectare."])
    title, prose = _title_and_prose(path)
    assert title == "Table 2: Grain yield by plot, tonnes per hectare."
    assert " ".join(PROSE) in prose


def test_a_caption_wrapped_over_two_lines_stays_whole_and_ends_there(tmp_path: Path) -> None:
    """A caption filling its first line to the measure goes on on the next: both lines are the
    title; the paragraph after its short last line is prose (on main its first line joined the
    title too)."""
    path = tmp_path / "caption2.pdf"
    first = "Table 2: Grain yield by plot, tonnes per hectare, in the two seasons after the change of"
    _captioned_grid(path, [first, "the drainage, measured as in Table 1."])
    title, prose = _title_and_prose(path)
    assert title == f"{first} the drainage, measured as in Table 1."
    assert " ".join(PROSE) in prose


STUB_ROWS = [(r[0], r[2], r[3], r[5]) for r in ITEMS[:3]]


def _stub_grid(path: Path, below: float, rows: Sequence[Sequence[str]] = STUB_ROWS) -> None:
    """A grid ruled round its first three rows and down its sides, its inner column rules running
    ``below`` points past its bottom rule; ``rows`` past the third are printed in that band."""
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    xs, top, pitch = (80.0, 200.0, 280.0, 360.0, 440.0), 700.0, 14.0  # rules; cells between
    for k, row in enumerate(rows):
        for x, text in zip(xs, row, strict=False):
            c.drawString(x + 4, top - (k + 1) * pitch + 4, text)
    bottom = top - 3 * pitch
    for k in range(4):
        c.line(xs[0], top - k * pitch, xs[-1], top - k * pitch)
    for x in (xs[0], xs[-1]):
        c.line(x, top, x, bottom)
    for x in xs[1:-1]:
        c.line(x, top, x, bottom - below)
    c.save()


def test_column_rules_drawn_long_under_a_closed_grid_add_no_empty_row(tmp_path: Path) -> None:
    """The inner column rules run 9 pt past the bottom rule, nothing printed there: on main the
    frame line implied at their ends closed an empty last row."""
    path = tmp_path / "stubs.pdf"
    _stub_grid(path, below=9.0)
    assert parsed_rows(path) == [STUB_ROWS]


def test_guard_text_past_the_bottom_rule_is_still_a_row(tmp_path: Path) -> None:
    """The same rules one row long past the bottom rule, a total printed there: the band is a
    row (session 13's rows past the outermost row rule)."""
    path = tmp_path / "stub-row.pdf"
    rows = [*STUB_ROWS, ("Total", "", "", "75.00")]
    _stub_grid(path, below=14.0, rows=rows)
    assert parsed_rows(path) == [rows]


def test_a_unit_set_a_little_low_against_its_label_stays_in_its_cell(tmp_path: Path) -> None:
    """A small figure table in a narrow left column, prose in the right column on lines that start
    4.6 pt higher than the table's rows; each row label ends in a unit "(%)" set flush against it
    0.7 pt lower, in another face (a word of its own). Lines were grouped by the line's first word
    only, the prose word: on main a unit missed it by hundredths of a point and was lost."""
    path = tmp_path / "unit.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 10)
    rows = [("Index", "1M", "2M", "3M"), ("Absolute", "7.18", "32.88", "80.86")]
    rows += [("Relative", "8.10", "25.93", "78.39"), ("Excess", "1.02", "6.95", "2.47")]
    for k, row in enumerate(rows):
        y = 700 - 13 * k
        c.drawString(30, y, row[0])
        if k:  # the unit in a face of its own (a Latin face beside a CJK label's, say)
            c.setFont("Times-Roman", 10)
            c.drawString(30 + stringWidth(row[0], "Helvetica", 10), y - 0.7, "(%)")
            c.setFont("Helvetica", 10)
        for x, text in zip((120, 150, 180), row[1:], strict=True):
            c.drawRightString(x + 15, y, text)
    words = " ".join(PROSE).split(" ")
    for k in range(-4, 10):  # the prose column, its lines 4.6 pt higher than the table's rows
        c.drawString(215, 700 - 13 * k + 4.6, " ".join(words[(3 * k) % 20 : (3 * k) % 20 + 13]))
    c.save()
    tables = parsed_rows(path)
    assert tables and [r[0] for r in tables[0]] == ["Index", "Absolute(%)", "Relative(%)", "Excess(%)"]


def _line(top: float, cells: Sequence[tuple[float, str]], size: float = 8.0, height: float = 8.0) -> Line:
    words = [Word(text=t, x0=x, top=top, x1=x + 6 * len(t), bottom=top + height, size=size) for x, t in cells]
    return split_chunks(words)


def test_a_chart_s_stacked_axis_glyphs_stop_the_header_search() -> None:
    """Above a table's block, under a chart: a legend line of two labels, then the chart's y-axis
    labels come as words several lines tall (glyphs stacked over one another). Those end the
    search for header lines; on main the legend and the axis glyphs became header rows."""
    block = [_line(400 + 12 * k, [(30, name), (110, "7.18"), (150, "32.88")]) for k, name in enumerate("ABC")]
    axis = _line(362, [(30, "2223"), (36, "4680"), (42, "%%%%")], size=7.0, height=27.0)
    legend = _line(340, [(60, "Firm"), (130, "Index")])
    assert extend_up(block, [legend, axis], [100.0, 140.0]) == block
    near = _line(380, [(60, "Firm"), (130, "Index")])
    assert extend_up(block, [near], [100.0, 140.0])[0] is near  # guard: a header line is taken
