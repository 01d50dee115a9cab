"""Table layouts of issue 24 (session 16), drawn anew with reportlab (no dev-set page copied) and
read through the PDF parser. The behaviour tests failed on the code before session 16 (main at
d06bc2b); the drawn guards (named so) pass on both."""

from __future__ import annotations

import re
from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from tests.parsers.drawn import Rows, parsed_rows

FONT, SIZE = "Helvetica", 8
HEIGHT = A4[1]

PROSE = "The goods were delivered in one parcel, and the account was settled by card on the day."


def _prose(c: canvas.Canvas, y: float, lines: int) -> None:
    for k in range(lines):
        c.drawString(50, y - 12 * k, PROSE)


# --- tight labels over a column of its own --------------------------------------------------------

ITEMS: Rows = [
    ("A100", "Filter cartridge, two pack", "12,50", "9 %", "2 PCS", "25,00"),
    ("B220", "Descaler, one litre", "7,95", "21 %", "1 PCS", "7,95"),
    ("C310", "Cleaning brush", "3,20", "21 %", "4 PCS", "12,80"),
]


def _item_table(c: canvas.Canvas, top: float, labels: tuple[str, ...]) -> None:
    """An invoice's item table: the code and description flush left, the figures flush right;
    the rate and quantity labels set a word space apart ("VAT" ends where its figures end,
    "Quantity" starts right after it and ends where the quantities end); with five labels, the
    fourth centred over both columns."""
    space = c.stringWidth(" ", FONT, SIZE)
    quantity = 330 + space  # the quantity label starts a word space after the rate label
    rights = (0.0, 0.0, 300.0, 330.0, quantity + c.stringWidth("Quantity", FONT, SIZE) - 3, 450.0)
    lefts = (50.0, 100.0)
    y = top
    for j, text in enumerate(labels):
        if j < 2:
            c.drawString(lefts[j], y, text)
        elif len(labels) == 5 and j == 3:
            c.drawCentredString((315 + rights[4]) / 2, y, text)
        elif len(labels) == 5:
            c.drawRightString(rights[j + (j == 4)], y, text)
        elif j == 4:
            c.drawString(quantity, y, text)
        else:
            c.drawRightString(rights[j], y, text)
    c.line(50, y - 3, 450, y - 3)
    for row in ITEMS:
        y -= 12
        for j, text in enumerate(row):
            if j < 2:
                c.drawString(lefts[j], y, text)
            else:
                c.drawRightString(rights[j], y, text)


def _items_page(path: Path, labels: tuple[str, ...]) -> list[Rows]:
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    _prose(c, HEIGHT - 80, 3)
    _item_table(c, HEIGHT - 150, labels)
    _prose(c, HEIGHT - 260, 3)
    c.save()
    return parsed_rows(path)


def test_tight_labels_over_an_unlabelled_column_are_two_cells(tmp_path: Path) -> None:
    """ "VAT" ends at its column's right edge and "Quantity" starts a word space after it, over
    the next column, which has no label of its own: before, the two labels were one cell
    ("VAT Quantity") and the quantity column had an empty header."""
    labels = ("Code", "Description", "Price", "VAT", "Quantity", "Amount")
    assert _items_page(tmp_path / "tight.pdf", labels) == [[labels, *ITEMS]]


def test_guard_a_label_centred_over_two_columns_stays_whole(tmp_path: Path) -> None:
    """A label centred over the rate and quantity columns (its word gap over the white strip
    between them, its first word reaching past the rate figures) spans both: one cell, in the
    first."""
    labels = ("Code", "Description", "Price", "Tax and count", "Amount")
    assert _items_page(tmp_path / "centred.pdf", labels) == [[(*labels[:4], "", labels[4]), *ITEMS]]


# --- a title with a note flush right on its line ---------------------------------------------------

REGIONS: Rows = [
    ("North", "1,204", "1,311", "8.9"),
    ("South", "986", "1,020", "3.4"),
    ("East", "1,502", "1,488", "-0.9"),
    ("West", "744", "802", "7.8"),
]
RIGHTS = (250.0, 320.0, 390.0)


LABELS = ("Region", "2015", "2016", "Change %")


def _region_table(
    c: canvas.Canvas, top: float, title: tuple[str, str] | None, labels: tuple[str, ...]
) -> None:
    """A report table at one line spacing: (``title``) a title flush left at the table's left
    edge and a note flush right at its right edge on one line, then the column labels and rows."""
    y = top
    if title is not None:
        c.drawString(50, y, title[0])
        c.drawRightString(RIGHTS[-1], y, title[1])
        y -= 12
    for row in [labels, *REGIONS]:
        c.drawString(50, y, row[0])
        for x, text in zip(RIGHTS, row[1:], strict=True):
            c.drawRightString(x, y, text)
        y -= 12


def _regions_page(path: Path, title: tuple[str, str] | None, labels: tuple[str, ...] = LABELS) -> list[Rows]:
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    _prose(c, HEIGHT - 80, 3)
    _region_table(c, HEIGHT - 140, title, labels)
    _prose(c, HEIGHT - 260, 3)
    c.save()
    return parsed_rows(path)


def test_title_with_a_note_flush_right_is_no_header_row(tmp_path: Path) -> None:
    """A title flush left over the first columns and a note flush right over the last, on one
    line right above the column labels: before, the line was a header row."""
    tables = _regions_page(
        tmp_path / "note.pdf", ("Sales by region, fiscal years 2015 and 2016", "in thousands")
    )
    assert tables == [[LABELS, *REGIONS]]


def test_guard_wrapped_first_and_last_labels_stay_header(tmp_path: Path) -> None:
    """The first line of two wrapped labels, the stub's and the last column's, on a line of its
    own: the stub label stays inside its column, so the line is labels, not a title and a note."""
    tables = _regions_page(tmp_path / "wrapped.pdf", ("Sales", "Change"), ("Region", "2015", "2016", "in %"))
    assert len(tables) == 1 and tables[0][2:] == REGIONS
    assert "Sales" in " ".join(tables[0][0]) and "Change" in " ".join(tables[0][0])


# --- a key table of two lines ---------------------------------------------------------------------

KEYS = ("Customer", "Order", "Invoice date", "Invoice", "Due date")
VALUES = ("CU0303006280", "OR000000444", "8-9-2022", "INV1005193039", "22-9-2022")
KEY_X = (50.0, 150.0, 250.0, 340.0, 420.0)


def _key_page(path: Path, value_size: float = SIZE) -> list[Rows]:
    """An invoice: a title, a line of keys over a line of their values (each value flush left
    under its key), a line gap, the item table, prose."""
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica-Bold", 14)
    c.drawString(50, HEIGHT - 70, "Invoice copy")
    for x, key in zip(KEY_X, KEYS, strict=True):
        c.setFont(FONT, SIZE)
        c.drawString(x, HEIGHT - 90, key)
        c.setFont(FONT, value_size)
        c.drawString(x, HEIGHT - 90 - 5 - value_size, VALUES[KEY_X.index(x)])
    c.setFont(FONT, SIZE)
    _item_table(c, HEIGHT - 150, ("Code", "Description", "Price", "VAT", "Qty", "Amount"))
    _prose(c, HEIGHT - 260, 3)
    c.save()
    return parsed_rows(path)


def test_a_line_of_keys_over_a_line_of_values_is_a_table(tmp_path: Path) -> None:
    """Five keys over five values, each value under its key, standing apart from the item table
    below: before, a block needed three lines of two cells or more, so the pair was prose."""
    tables = _key_page(tmp_path / "keys.pdf")
    assert tables == [[KEYS, VALUES], [("Code", "Description", "Price", "VAT", "Qty", "Amount"), *ITEMS]]


def test_guard_key_figures_in_large_type_under_labels_are_no_table(tmp_path: Path) -> None:
    """The same keys over values set in large type (key figures on a report's cover): no table."""
    tables = _key_page(tmp_path / "figures.pdf", value_size=20)
    assert tables == [[("Code", "Description", "Price", "VAT", "Qty", "Amount"), *ITEMS]]


# --- two open-frame tables of one width, close together ------------------------------------------

STATIONS: Rows = [("Station", "Region", "Height"), ("Alder", "North", "120 m"), ("Birch", "South", "85 m")]
READINGS: Rows = [("Reading", "Date", "Value"), ("Alder", "2 May", "14.2"), ("Birch", "3 May", "11.8")]
COLUMNS = (50.0, 180.0, 290.0, 400.0)
PITCH = 16.0


def _ruled(c: canvas.Canvas, top: float, rows: Rows, sides: bool) -> float:
    """``rows`` ruled above and under each row and between the columns; (``sides``) the side
    borders drawn too. The y of the last rule."""
    bottom = top - len(rows) * PITCH
    for k in range(len(rows) + 1):
        c.line(COLUMNS[0], top - k * PITCH, COLUMNS[-1], top - k * PITCH)
    for x in COLUMNS if sides else COLUMNS[1:-1]:
        c.line(x, top, x, bottom)
    for k, row in enumerate(rows):
        for x, text in zip(COLUMNS, row, strict=False):
            c.drawString(x + 4, top - k * PITCH - 11, text)
    return bottom


def _two_grids_page(path: Path, gap: float) -> list[Rows]:
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, 9)
    c.drawString(50, HEIGHT - 60, "The first table lists the stations, the second the readings of each.")
    bottom = _ruled(c, HEIGHT - 80, STATIONS, sides=False)
    _ruled(c, bottom - gap, READINGS, sides=False)
    c.save()
    return parsed_rows(path)


def test_two_open_frame_tables_close_together_are_two_tables(tmp_path: Path) -> None:
    """Two tables ruled between their rows and columns, no side borders, of one width, 20 pt
    apart with nothing between: the frame line implied down their rule ends ran over both, and
    they were one grid (the white between them an empty row, dropped)."""
    assert _two_grids_page(tmp_path / "two.pdf", 20) == [STATIONS, READINGS]


def test_guard_a_blank_row_inside_a_bordered_table_stays_inside(tmp_path: Path) -> None:
    """One table with its side borders drawn and a blank row over its whole width between two
    groups of rows (no column rules there): one table, as drawn."""
    path = tmp_path / "blank.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, 9)
    top = HEIGHT - 80
    bottom = _ruled(c, top, STATIONS, sides=True)
    c.line(COLUMNS[0], bottom, COLUMNS[0], bottom - PITCH)
    c.line(COLUMNS[-1], bottom, COLUMNS[-1], bottom - PITCH)
    _ruled(c, bottom - PITCH, READINGS[1:], sides=True)
    c.save()
    assert parsed_rows(path) == [[*STATIONS, *READINGS[1:]]]


# --- check marks from the ZapfDingbats font ------------------------------------------------------

MODELS: Rows = [("Random", "7", "✗", "47.0"), ("Gold", "7", "✓", "51.1"), ("Gold", "31", "✓", "52.1")]


def test_dingbat_marks_without_a_unicode_map_are_read(tmp_path: Path) -> None:
    """A results table whose marks are ZapfDingbats glyphs (codes 0x33 and 0x37, pifont's
    ``\\ding{51}`` and ``\\ding{55}``), the font giving no Unicode: before, the marks were dropped
    and their column's label joined the next ("#N IB" over the figures)."""
    path = tmp_path / "marks.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Times-Roman", 9)
    _prose(c, HEIGHT - 80, 3)
    xs = (50.0, 120.0, 150.0, 200.0)
    y = HEIGHT - 140
    for row in [("Type", "#N", "IB", "Top-5"), *MODELS]:
        for k, (x, text) in enumerate(zip(xs, row, strict=True)):
            if k == 2 and row[0] != "Type":
                c.setFont("ZapfDingbats", 9)
                c.drawString(x, y, text)  # written as the font's codes 0x33 and 0x37
                c.setFont("Times-Roman", 9)
            else:
                c.drawString(x, y, text)
        y -= 12
    _prose(c, y - 30, 3)
    c.save()
    _name_dingbats(path)
    assert parsed_rows(path) == [[("Type", "#N", "IB", "Top-5"), *MODELS]]


DINGBATS_FONT = (
    b"%!PS-AdobeFont-1.0: Dingbats 002.000\n/Encoding 256 array\n"
    b"0 1 255 {1 index exch /.notdef put} for\ndup 51 /a19 put\ndup 55 /a23 put\nreadonly def\n"
)


def _name_dingbats(path: Path) -> None:
    """The file's ZapfDingbats font made an embedded subset ("ABCDEF+Dingbats") whose font
    program names its codes' glyphs by the font's own names (/a19, /a23: outside the Adobe glyph
    list) and no ToUnicode map, as LaTeX's pifont embeds it: the PDF reader finds no Unicode for
    them (``(cid:51)``). Only the program's header is written (the reader takes the encoding
    from it); the cross-reference table is rewritten for the longer file."""
    data = path.read_bytes()
    head, _, tail = data.partition(b"\nxref\n")
    size = int(re.search(rb"/Size (\d+)", tail).group(1))  # type: ignore[union-attr]
    font, program = size, size + 1
    head = head.replace(
        b"/BaseFont /ZapfDingbats",
        b"/BaseFont /ABCDEF+Dingbats /FirstChar 51 /LastChar 55 /Widths [ 834 0 0 0 838 ] "
        b"/FontDescriptor %d 0 R" % font,
        1,
    )
    head += (
        b"\n%d 0 obj\n<< /Type /FontDescriptor /FontName /ABCDEF+Dingbats /Flags 4 "
        b"/FontBBox [ -1 -143 981 820 ] /ItalicAngle 0 /Ascent 820 /Descent -143 /CapHeight 820 "
        b"/StemV 90 /FontFile %d 0 R >>\nendobj" % (font, program)
    )
    head += b"\n%d 0 obj\n<< /Length %d /Length1 %d /Length2 0 /Length3 0 >>\nstream\n" % (
        program,
        len(DINGBATS_FONT),
        len(DINGBATS_FONT),
    )
    head += DINGBATS_FONT + b"\nendstream\nendobj"
    offsets = {int(m.group(1)): m.start(1) for m in re.finditer(rb"(?m)^(\d+) 0 obj", head)}
    table = b"".join(b"%010d 00000 n \n" % offsets[k] for k in sorted(offsets))
    trailer = tail[tail.index(b"trailer") :].replace(b"/Size %d" % size, b"/Size %d" % (size + 2))
    trailer = re.sub(rb"startxref\s+\d+", b"startxref\n%d" % (len(head) + 1), trailer)
    xref = b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1) + table
    path.write_bytes(head + b"\n" + xref + trailer)


# --- a table ruled at its top and under its header, column rules down its body ----------------

COSTS: Rows = [
    ("Action", "Labor cost", "Parts cost", "Cost per product", "Cost on operators"),
    ("Software update", "1 work-hour", "$0", "$85", "$6,205"),
    ("Manual revision", "1 work-hour", "$0", "$85", "$6,205"),
    ("Sensor test", "2 work-hours", "$10", "$180", "$13,140"),
]
COST_X = (45.0, 190.0, 330.0, 410.0, 490.0, 567.0)


def _cost_table(c: canvas.Canvas, top: float, rows: Rows) -> None:
    """``rows`` under a rule across the table at ``top``, a rule under the header; rules between
    the columns from the top rule to the last row's foot; no side rules, none under the rows."""
    c.line(COST_X[0], top, COST_X[-1], top)
    c.line(COST_X[0], top - 16, COST_X[-1], top - 16)
    bottom = top - 16 - 12 * (len(rows) - 1) - 4
    for x in COST_X[1:-1]:
        c.line(x, top, x, bottom)
    y = top - 11
    for k, row in enumerate(rows):
        for x, text in zip(COST_X, row, strict=False):
            c.drawString(x + 3, y, text)
        y -= 16 if k == 0 else 12


def _three_columns(c: canvas.Canvas, top: float, lines: int) -> None:
    for x in (45.0, 225.0, 405.0):
        for k in range(lines):
            c.drawString(x, top - 11 * k, "the operators estimate the cost of")


def test_table_with_column_rules_and_open_sides_keeps_its_outer_columns(tmp_path: Path) -> None:
    """Under three text columns, a table ruled across at its top and under its header, with rules
    between its columns down to its last row and none at its sides nor under it: the line closing
    the column rules' feet was implied only between the outermost column rules, so the grid held
    the middle columns and the outer ones were read apart (two tables)."""
    path = tmp_path / "costs.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    _three_columns(c, HEIGHT - 60, 12)
    _cost_table(c, HEIGHT - 220, COSTS)
    c.save()
    assert parsed_rows(path) == [COSTS]


def test_a_continued_title_row_and_the_repeated_header_are_dropped(tmp_path: Path) -> None:
    """The same table continued on the next page, a ruled band over it holding a title that says
    so, then its header again: before, the title row and the repeated header stayed in as rows
    (only a header repeated on the first rows was dropped)."""
    path = tmp_path / "continued.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    _three_columns(c, HEIGHT - 60, 60)
    _cost_table(c, 80, COSTS)
    c.showPage()
    c.setFont(FONT, SIZE)
    top = HEIGHT - 60
    c.line(COST_X[0], top + 16, COST_X[-1], top + 16)  # a band over the table holds the title
    c.drawCentredString(306, top + 5, "ESTIMATED COSTS (continued)")
    more = [("Wiring change", "79 work-hours", "$3,790", "$10,505", "$766,865")]
    _cost_table(c, top, [COSTS[0], *more])
    _three_columns(c, top - 60, 20)
    c.save()
    assert parsed_rows(path) == [[*COSTS, *more]]
