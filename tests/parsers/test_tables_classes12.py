"""Table layouts of issue 24 (session 17, helper), drawn anew with reportlab (no dev-set page
copied) and read through the PDF parser. The behaviour tests failed on the code before session
17 (main at 6f2cdcf); the drawn guards (named so) pass on both."""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from tests.parsers.drawn import Rows, parsed_rows

FONT, SIZE = "Times-Roman", 9
HEIGHT = A4[1]
PITCH = 10.5

LEFT_PROSE = "The measured values were taken on three days in a row at noon."
RIGHT_PROSE = "A figure stands in this column beside the table on the left side."
CAPTION = "FIG. 1. A figure caption under the box, as wide as this column."

HEADER = ("Left", "Centered", "Decimal", "Right")
ROWS: Rows = [("1", "2", "3.001", "4"), ("10", "20", "30", "40"), ("100", "200", "300.0", "400")]
XS = (56.0, 160.0, 230.0, 285.0)  # each column's right edge (the first: its left edge)


def _table(c: canvas.Canvas, top: float, notes: bool) -> float:
    """The table in the left text column (x 56-285), its header then its rows at ``PITCH``;
    with ``notes``, two note lines under it, each opening with a raised marker set smaller.
    Returns the y of its last line."""
    y = top
    for row in (HEADER, *ROWS):
        c.setFont(FONT, SIZE)
        c.drawString(XS[0], y, row[0])
        for j in range(1, 4):
            c.drawRightString(XS[j], y, row[j])
        y -= PITCH
    if notes:  # the first a paragraph's gap under the last row, the second at the note's pitch
        y -= 9.5
        for mark, text in (("a", "Note a."), ("b", "Note b.")):
            c.setFont(FONT, 6)
            c.drawString(XS[0], y + 3, mark)
            c.setFont(FONT, 8)
            c.drawString(XS[0] + 6, y, text)
            y -= 9.9
    return y


def test_table_in_one_column_near_a_caption_in_the_other_keeps_its_last_row(tmp_path: Path) -> None:
    """A table in the left text column of a two-column page; beside it, in the right column, a
    figure box with no text, and under the box a figure caption (prose) level with the table's
    last row and the line after. Only that last row was near prose, so only it was cut at the
    gutter: the rows above stayed in the page's whole lane, the last row went to the left lane,
    and the table lost it."""
    path = tmp_path / "two_columns.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    y = HEIGHT - 60
    for _ in range(8):
        c.drawString(56, y, LEFT_PROSE)
        c.drawString(310, y, RIGHT_PROSE)
        y -= PITCH
    y -= 2 * PITCH
    c.rect(360, y - 3 * PITCH, 100, 4 * PITCH)  # the figure box beside the table
    last = y - 3 * PITCH
    _table(c, y, notes=False)
    c.setFont(FONT, SIZE)
    c.drawString(310, last - 1.7 * PITCH, CAPTION)
    c.drawString(310, last - 2.7 * PITCH, "continued on a second line of the caption text.")
    c.save()
    assert parsed_rows(path) == [[HEADER, *ROWS]]


def test_note_lines_under_a_table_are_no_part_of_its_last_row(tmp_path: Path) -> None:
    """Two note lines under a table, each opening with a raised marker set smaller ("a Note a.",
    "b Note b."): the second, close under the first and starting in lower case, passed for a
    wrapped continuation, so both joined the last row's first cell ("100 a Note a. b Note b.")."""
    path = tmp_path / "notes.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    y = HEIGHT - 60
    for _ in range(4):
        c.drawString(56, y, LEFT_PROSE)
        y -= PITCH
    end = _table(c, y - 2 * PITCH, notes=True)
    c.setFont(FONT, SIZE)
    for k in range(4):
        c.drawString(56, end - 2 * PITCH - k * PITCH, LEFT_PROSE)
    c.save()
    assert parsed_rows(path) == [[HEADER, *ROWS]]


def test_display_formula_with_an_equation_number_is_no_table(tmp_path: Path) -> None:
    """A display formula set between paragraphs: two fractions over a bracket, so its numerators,
    its main line ("Y =", "1 +", "+") and its denominators are three lines of separate pieces,
    and its equation number "(3)" at the right margin. Read as a 3 x 6 table before."""
    path = tmp_path / "formula.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    y = HEIGHT - 60
    for _ in range(5):
        c.drawString(56, y, LEFT_PROSE + " It went on as planned.")
        y -= PITCH
    y -= 14
    for x, text in ((120, "m"), (150, "−3"), (230, "3 ln(m/GeV)"), (330, "ln(c2/5)")):
        c.drawString(x, y, text)
    y -= 11
    for x, text in ((70, "Y ="), (190, "1 +"), (300, "+"), (520, ". (3)")):
        c.drawString(x, y, text)
    y -= 11
    for x, text in ((118, "GeV"), (245, "15"), (340, "15")):
        c.drawString(x, y, text)
    y -= 24
    for _ in range(5):
        c.drawString(56, y, LEFT_PROSE + " It went on as planned.")
        y -= PITCH
    c.save()
    assert parsed_rows(path) == []


def test_guard_a_table_of_column_numbers_and_plus_signs_stays(tmp_path: Path) -> None:
    """A table whose header numbers its columns "(1)" ... "(3)" and whose first column holds age
    groups ending in a plus sign ("65 +") is a table still."""
    path = tmp_path / "ages.pdf"
    rows: Rows = [
        ("Age", "Men", "Women", "All"),
        ("", "(1)", "(2)", "(3)"),
        ("18 - 39", "1,204", "1,311", "2,515"),
        ("40 - 64", "986", "1,020", "2,006"),
        ("65 +", "412", "530", "942"),
    ]
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    y = HEIGHT - 80
    for row in rows:
        c.drawString(60, y, row[0])
        for j, x in enumerate((200, 280, 360), start=1):
            c.drawRightString(x, y, row[j])
        y -= 12
    c.save()
    assert parsed_rows(path) == [rows]


GROUPED: Rows = [
    ("", "Group A", "", "Group B", ""),
    ("Ion", "1st choice", "2nd choice", "1st choice", "2nd choice"),
    ("K", "(2e) + (2f)", "(4i)", "(2c) + (2d)", "(4f)"),
    ("Mn", "(2g)", "(a) + (b)", "(4e)", "(2a) + (2b)"),
    ("Cl", "(a) + (b)", "(2g)", "(4e)", ""),
    ("He", "(8r)", "(4j)", "(4g)", ""),
]


def _grouped_page(path: Path, notes: bool) -> list[Rows]:
    """A text table (no figures) with no rules: two group labels, each centred over the gap
    between the two column labels it groups, over "Ion" and four column labels; with ``notes``,
    a note line under it opening with a raised marker and running into its columns."""
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 9)
    rights = (200, 320, 440, 560)
    y = HEIGHT - 80
    c.drawString(60, y + 30, "Table 2. Positions of the ions, two choices in each group")
    for text, (left, right) in (("Group A", (200, 320)), ("Group B", (440, 560))):
        start = left - c.stringWidth("1st choice", "Helvetica", 9)  # over both column labels
        c.drawCentredString((start + right) / 2, y, text)
    for row in GROUPED[1:]:
        y -= 12
        c.drawString(60, y, row[0])
        for x, text in zip(rights, row[1:], strict=True):
            c.drawRightString(x, y, text)
    if notes:  # "ᵃ The z parameter of these positions is z = ¹⁄₄.": its raised pieces a line above
        y -= 20
        c.setFont("Helvetica", 6)
        c.drawString(60, y + 4, "a")
        c.setFont("Helvetica", 8)
        for x, text in ((85, "z"), (210, "z = 1")):
            c.drawString(x, y + 3, text)
        for x, text in ((68, "The"), (92, "parameter of these positions is"), (227, "4.")):
            c.drawString(x, y - 1, text)
    c.save()
    return parsed_rows(path)


def test_group_labels_over_a_text_table_without_rules_span_their_columns(tmp_path: Path) -> None:
    """Each group label stands in the white between its two sub-columns, centred over both: it
    went to the second, where its centre falls (or, read with every line of a table without
    figures, made column strips of its own). It spans both and goes to the first."""
    assert _grouped_page(tmp_path / "grouped.pdf", notes=False) == [GROUPED]


def test_a_note_line_under_a_text_table_ends_it(tmp_path: Path) -> None:
    """A note line under the table, its marker raised and smaller, its text running under the
    first columns and a formula set apart after it ("z = 4."): a line of two cells with a
    figure, it was taken as the table's first data line, so every line above became a header
    line."""
    assert _grouped_page(tmp_path / "notes.pdf", notes=True) == [GROUPED]


def test_guard_labels_over_text_of_the_columns_set_the_columns_as_before(tmp_path: Path) -> None:
    """Two labels on the first line, each set flush over the text of a column under it (not in
    the white between columns): they are no group labels in a gap, so the columns are read from
    every line as before, the labels in the columns they stand over."""
    path = tmp_path / "over_text.pdf"
    rows: Rows = [
        ("Need", "", "Source", "", ""),
        ("Store", "the files", "Users", "yes", "high"),
        ("Search", "the text", "Users", "yes", "high"),
        ("Export", "the data", "Admins", "no", "low"),
        ("Import", "the data", "Admins", "no", "low"),
    ]
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 9)
    y = HEIGHT - 80
    for row in rows:
        for x, text in zip((60, 150, 260, 360, 440), row, strict=True):
            c.drawString(x, y, text)
        y -= 12
    c.save()
    assert parsed_rows(path) == [rows]


def test_a_subscript_after_a_subscript_stays_in_its_header_cell(tmp_path: Path) -> None:
    """Group labels "D¹₄ₕ" as physics tables set them: a superscript "1" and a subscript "4"
    against the "D", and the subscript's "h", in an italic face, against the "4". The "h" touches
    no full-size word, so it was read as a line of its own under the labels: a header row of its
    own ("", "h", "", "h", ""). It hangs on the "4" it touches, in the label's cell."""
    path = tmp_path / "scripts.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    y = HEIGHT - 80
    rights = (200, 320, 440, 560)
    width = c.stringWidth("1st choice", "Helvetica", 9)
    for sup, (left, right) in (("1", (200, 320)), ("5", (440, 560))):
        x = (left - width + right) / 2 - 6
        c.setFont("Helvetica", 9)
        c.drawString(x, y, "D")
        x += c.stringWidth("D", "Helvetica", 9)
        c.setFont("Helvetica", 6)
        c.drawString(x, y + 3.5, sup)
        c.drawString(x, y - 2.5, "4")
        c.setFont("Helvetica-Oblique", 6)
        c.drawString(x + c.stringWidth("4", "Helvetica", 6), y - 2.5, "h")
    c.setFont("Helvetica", 9)
    for row in GROUPED[1:]:
        y -= 12
        c.drawString(60, y, row[0])
        for x, text in zip(rights, row[1:], strict=True):
            c.drawRightString(x, y, text)
    c.save()
    (table,) = parsed_rows(path)
    assert table[1:] == GROUPED[1:]
    assert [cell.replace(" ", "") for cell in table[0]] == ["", "D14h", "", "D54h", ""]
