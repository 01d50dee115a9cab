"""Table layouts of issue 24 (session 15), drawn anew with reportlab (no dev-set page copied) and
read through the PDF parser: a double-spaced table whose group rule covers two narrow figure
columns set in wide bands. The behaviour tests failed on the code before session 15 (the
branch's base, d50acc4); the drawn guards (named so) pass on both."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from tests.parsers.drawn import Rows, parsed_rows

FONT, SIZE = "Times-Roman", 11
HEIGHT = A4[1]


def _prose(c: canvas.Canvas, y: float, lines: int) -> None:
    for k in range(lines):
        c.drawString(60, y - 24 * k, PROSE)


PROSE = "The trials were run in two sessions a week apart, and every answer was kept."
BODY = [
    ("Category one", "100", "0", "196"),
    ("Balanced", "80", "20", "200"),
    ("Category two", "0", "100", "196"),
]


def _between_prose(
    path: Path, draw: Callable[[canvas.Canvas], None], size: float = SIZE, lines: int = 3, below: float = 420
) -> list[Rows]:
    """A page of ``lines`` prose lines, what ``draw`` draws, ``lines`` more from ``below`` pt
    under the top; parsed."""
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, size)
    _prose(c, HEIGHT - 80, lines)
    draw(c)
    _prose(c, HEIGHT - below, lines)
    c.save()
    return parsed_rows(path)


def _grouped(c: canvas.Canvas, top: float, pitch: float = 24.0) -> None:
    """A table with a two-line group label over a short rule that covers only the two narrow
    figure columns (right edges 230 and 268) under it; the total column far to the right, so
    the band between their separators is wider than the figures."""
    c.line(60, top, 380, top)
    y = top - 14
    c.drawString(60, y, "Distribution type")
    c.drawString(196, y, "Share of")
    c.drawRightString(380, y, "Total number")
    y -= pitch
    c.drawString(196, y, "responses in")
    c.drawRightString(380, y, "of trials")
    c.line(196, y - 8, 268, y - 8)
    y -= pitch
    c.drawRightString(230, y, "Early")
    c.drawRightString(268, y, "Late")
    c.line(60, y - 8, 380, y - 8)
    for row in BODY:
        y -= pitch
        c.drawString(60, y, row[0])
        for x, text in zip((230, 268, 380), row[1:], strict=True):
            c.drawRightString(x, y, text)
    c.line(60, y - 8, 380, y - 8)


def test_group_rule_over_narrow_figure_columns_spans_them(tmp_path: Path) -> None:
    """A group rule drawn over two right-aligned figure columns, stopping short of the middle
    of the second one's band (its figures end well left of the next separator): before, the
    rule counted as covering one column, the header was not read by the rules, and the group
    label's lines and the sub-labels came out as four header rows with the label's second
    line in the wrong column."""
    assert _between_prose(tmp_path / "group.pdf", lambda c: _grouped(c, HEIGHT - 170)) == [
        [
            ("Distribution type", "Share of responses in", "", "Total number of trials"),
            ("", "Early", "Late", ""),
            *BODY,
        ]
    ]


ITEMS: Rows = [("Gnat", "per gram", "13.65"), ("Gnu", "stuffed", "92.50"), ("Armadillo", "frozen", "8.99")]


def _items(c: canvas.Canvas, top: float, group: bool) -> None:
    """A title flush left over the top rule; (``group``) "Item" centred over a group rule under
    the stub and the description column, starting left of the boundary between them (the stub's
    longest label reaches close to it); the column labels; three rows; double spacing."""
    c.drawString(60, top + 10, "Sample basic table")
    c.line(60, top, 250, top)
    y = top - 18
    if group:
        c.drawCentredString(132, y, "Item")
        c.line(60, y - 9, 205, y - 9)
        y -= 30
    c.drawString(60, y, "Animal")
    c.drawString(150, y, "Description")
    c.drawRightString(250, y, "Price")
    c.line(60, y - 9, 250, y - 9)
    for row in ITEMS:
        y -= 30
        c.drawString(60, y, row[0])
        c.drawString(150, y, row[1])
        c.drawRightString(250, y, row[2])
    c.line(60, y - 9, 250, y - 9)


def _items_page(path: Path, group: bool) -> list[Rows]:
    return _between_prose(path, lambda c: _items(c, HEIGHT - 180, group))


def test_group_label_over_a_group_rule_above_the_header_is_a_header_row(tmp_path: Path) -> None:
    """A one-word group label centred over a rule under the stub and the next column, a line gap
    and more above the column labels: before, a label-only line starting left of the first column
    boundary stayed out of the table (as a heading would), so the group label was lost."""
    assert _items_page(tmp_path / "group.pdf", group=True) == [
        [("Item", "", ""), ("Animal", "Description", "Price"), *ITEMS]
    ]


def test_guard_title_over_the_top_rule_stays_out(tmp_path: Path) -> None:
    """The same table without the group label: the title over the top rule (a rule across the
    whole table) is no header row."""
    assert _items_page(tmp_path / "plain.pdf", group=False) == [[("Animal", "Description", "Price"), *ITEMS]]


LINES: Rows = [
    ("Model 1", "BELs", "-97.13", "9117"),
    ("", "IELs", "-4049.123", "1974"),
    ("", "NELs", "12.5", "641"),
    ("Model 2", "BELs", "-85", "8991"),
    ("", "IELs", "-51000", "2025"),
    ("", "NELs", "52", "637"),
]


def _numbered(c: canvas.Canvas, top: float, numbers: tuple[str, ...]) -> None:
    """Column labels, a line of ``numbers`` under them, and rows whose model label is set on the
    middle row of its three (vertically centred beside them); three-line rules, single spacing."""
    xs = (60, 130, 230, 300)
    c.line(60, top, 320, top)
    y = top - 12
    for x, text in zip(xs, ("Model", "Component", "Shift", "Width"), strict=True):
        c.drawString(x, y, text)
    y -= 14
    for x, text in zip(xs, numbers, strict=True):
        c.drawString(x, y, text)
    c.line(60, y - 5, 320, y - 5)
    for k, row in enumerate(LINES):
        y -= 13
        label = LINES[k - 1][0] if k % 3 == 1 else ""  # the group's label, on its middle row
        for x, text in zip(xs, (label, *row[1:]), strict=True):
            c.drawString(x, y, text)
    c.line(60, y - 5, 320, y - 5)


def _numbered_page(path: Path, numbers: tuple[str, ...]) -> list[Rows]:
    return _between_prose(path, lambda c: _numbered(c, HEIGHT - 160, numbers), size=9, lines=2, below=400)


def test_line_of_column_numbers_is_header_and_centred_labels_go_up(tmp_path: Path) -> None:
    """A line "(1) (2) (3) (4)" under the column labels (journals' and statistical releases'
    column numbers): before, it was the first body row (all figures), and a body whose first row
    has a row label is not one of labels centred beside groups, so "Model 1" stayed on its
    group's middle row."""
    numbers = ("(1)", "(2)", "(3)", "(4)")
    assert _numbered_page(tmp_path / "numbers.pdf", numbers) == [
        [("Model", "Component", "Shift", "Width"), numbers, *LINES]
    ]


def test_guard_figures_in_parentheses_that_do_not_count_are_a_row(tmp_path: Path) -> None:
    """Negative amounts in parentheses ("(12) (40) (7)", not counting up) are data: the row stays
    in the body, as before (the model labels then stay where they are drawn)."""
    numbers = ("(12)", "(40)", "(7)", "(3)")
    tables = _numbered_page(tmp_path / "negatives.pdf", numbers)
    assert len(tables) == 1
    assert tables[0][:2] == [("Model", "Component", "Shift", "Width"), numbers]
    assert tables[0][3][0] == "Model 1"  # on the middle row of its group, where it is drawn


SYMBOLS: Rows = [
    ("Symbol", "Frequency", "Comments"),
    ("O", "1 in 1,000", "For Swedish names"),
    ("pi", "1 in 5", "Common in math"),
    ("$", "4 in 5", "Used in business"),
    ("Psi", "1 in 40,000", "Unexplained usage"),
]
PROSE_LINES = [
    "Regardless of the rights management choice, the author will",
    "receive a copy of the completed rights form once it has been sub-",
    "mitted. This form contains commands that must be copied",
    "into the source document. When the document source is compiled,",
    "these commands and their parameters add formatted text to several",
    "areas of the final document:",
    "the Reference Format text on the first page.",
    "the rights management text on the first page.",
    "the conference information in the page header.",
]


def _symbols_page(path: Path, raise_pi: float) -> list[Rows]:
    """A two-column page: prose in both columns at an 11 pt pitch, and in the right one, under
    four lines of prose, a booktabs table whose rows stand at another pitch (some level with a
    prose line of the left column, some between two), its "pi" drawn ``raise_pi`` pt above its
    row's baseline (a math font's glyph box sits higher than the text's)."""
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, 9)
    base = HEIGHT - 100
    for k, text in enumerate(PROSE_LINES * 2):
        c.drawString(50, base - 11 * k, text)
    for k, text in enumerate(PROSE_LINES[:4]):
        c.drawString(330, base - 11 * k, text)
    top = base - 44
    c.line(330, top - 5, 540, top - 5)
    for row, down in zip(SYMBOLS, (11.0, 28.4, 39.4, 50.3, 61.4), strict=True):
        y = top - down
        c.drawString(340, y + (raise_pi if row[0] == "pi" else 0.0), row[0])
        c.drawRightString(450, y, row[1])
        c.drawString(460, y, row[2])
        if row[0] == "Symbol":
            c.line(330, y - 3, 540, y - 3)
    c.line(330, top - 65, 540, top - 65)
    for k, text in enumerate(PROSE_LINES):
        c.drawString(330, top - 90 - 11 * k, text)
    c.save()
    return parsed_rows(path)


def test_raised_glyph_in_a_table_beside_prose_stays_in_its_row(tmp_path: Path) -> None:
    """A table cell whose glyph box is set 2 pt above its row, beside a prose line of the other
    text column that it overlaps over half its height: before, it was grouped with that prose
    line, came out between two table rows and was joined to the row above ("O pi")."""
    assert _symbols_page(tmp_path / "raised.pdf", 2.0) == [SYMBOLS]


def test_guard_level_glyph_in_a_table_beside_prose(tmp_path: Path) -> None:
    """The same page with "pi" level with its row: one table, as drawn (as before)."""
    assert _symbols_page(tmp_path / "level.pdf", 0.0) == [SYMBOLS]
