"""Table layouts of issue 24's open classes, drawn anew with reportlab (no dev-set page copied) and
read through the PDF parser; each failed on main's code (0b4a15f): an empty ruled row, header
labels of tight columns ("2016 % Chg"), cells wrapped onto two lines (top-aligned or centred) in
a table ruled between its columns only and in a booktabs table, on rows set apart by padding and
on rows set at one line spacing. Plus the guards: figures stacked in one cell stay rows, and a
section label stays its own row."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.pdf.tables.row_gaps import rows_by_gaps
from parsers.source import SourceFile

HEIGHT = A4[1]
Cells = Sequence[Sequence[str]]  # a row: each cell's lines


def _tables(path: Path) -> list[list[tuple[str, ...]]]:
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    return [[tuple(r) for r in (*b.table.header, *b.table.body)] for b in doc.blocks if b.table is not None]


def _rules(c: canvas.Canvas, xs: Sequence[float], ys: Sequence[float], kind: str, header: int = 1) -> None:
    """``grid``: every rule; ``columns``: the frame, the rule under the header and rules between the
    columns; ``booktabs``: top, mid and bottom rules only."""
    for i, y in enumerate(ys):
        if kind == "grid" or i in (0, header, len(ys) - 1):
            c.line(xs[0], y, xs[-1], y)
    if kind != "booktabs":
        for x in xs:
            c.line(x, ys[0], x, ys[-1])


def _draw(
    path: Path, rows: Sequence[Cells], xs: Sequence[float], kind: str, centred: bool, pad: float
) -> None:
    """Rows of cells, each cell's lines at 11 pt leading, ``pad`` points between rows; a cell with
    fewer lines than its row is centred in it when ``centred``, else set at its top."""
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 9)
    y = HEIGHT - 100
    ys = [y]
    for row in rows:
        n = max(1, *(len(cell) for cell in row))
        for x, cell in zip(xs, row, strict=False):
            offset = (n - len(cell)) * 11 / 2 if centred else 0.0
            for k, text in enumerate(cell):
                c.drawString(x + 4, y - 11 - 11 * k - offset, text)
        y -= 11 * n + pad
        ys.append(y)
    _rules(c, xs, ys, kind)
    c.save()


def _expected(rows: Sequence[Cells]) -> list[tuple[str, ...]]:
    return [tuple("\n".join(cell) for cell in row) for row in rows]


# --- an empty ruled row ---------------------------------------------------------------------------

FIELDS = [["Name", "Type", "Length"], ["ROAD_ID", "Integer", "10"], ["NAME", "String", "80"]]
FIELDS += [["", "", ""], ["CODE", "String", "4"], ["DATE", "Date", "8"]]


@pytest.mark.parametrize("rows", [FIELDS, [*FIELDS[:3], *FIELDS[4:], FIELDS[3]]], ids=["middle", "last"])
def test_an_empty_ruled_row_is_a_row(tmp_path: Path, rows: list[list[str]]) -> None:
    """A row the rules draw with nothing in it (a record left blank, the last line of a form) is
    a row of empty cells: on main it was dropped, so every row under it stood one row up."""
    path = tmp_path / "empty_row.pdf"
    _draw(path, [[[t] if t else [] for t in row] for row in rows], (60, 180, 300, 420), "grid", False, 7)
    assert _tables(path) == [[tuple(r) for r in rows]]


def test_an_empty_band_over_the_whole_width_is_no_row(tmp_path: Path) -> None:
    """Guard: an empty band between two groups of rows drawn as one cell over the whole width (no
    column rules through it) is a spacer, not a row."""
    path = tmp_path / "spacer.pdf"
    rows = [("Run", "Recall", "Precision"), ("run1 (EN)", "0.62", "0.37"), ("run2 (EN)", "0.71", "0.44")]
    rows += [("run1 (DE)", "0.55", "0.31"), ("run2 (DE)", "0.60", "0.40")]
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 10)
    xs, top, y, ys = (60, 180, 260, 340), HEIGHT - 100, HEIGHT - 100, []
    for k, row in enumerate(rows):
        if k == 3:
            y -= 18  # the spacer band
        ys.append(y)
        for x, text in zip(xs, row, strict=False):
            c.drawString(x + 4, y - 13, text)
        y -= 18
    ys.append(y)
    for yy in sorted({*ys, ys[3] + 18}):
        c.line(xs[0], yy, xs[-1], yy)
    for x in xs:
        c.line(x, top, x, ys[3] + 18)
        c.line(x, ys[3], x, y)
    c.line(xs[0], ys[3] + 18, xs[0], ys[3])
    c.line(xs[-1], ys[3] + 18, xs[-1], ys[3])
    c.save()
    assert _tables(path) == [rows]


def test_a_double_rule_makes_no_empty_row(tmp_path: Path) -> None:
    """Two rules 5 pt apart under the header (a double rule): the slot between them is no row."""
    path = tmp_path / "double_rule.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 10)
    xs, ys = (60, 180, 300), [HEIGHT - 100, HEIGHT - 118, HEIGHT - 123, HEIGHT - 141, HEIGHT - 159]
    texts = (("Item", "Count"), ("Apples", "12"), ("Pears", "7"))
    for y, row in zip((ys[0], ys[2], ys[3]), texts, strict=True):
        for x, text in zip(xs, row, strict=False):
            c.drawString(x + 4, y - 13, text)
    _rules(c, xs, ys, "grid")
    c.save()
    assert _tables(path) == [[("Item", "Count"), ("Apples", "12"), ("Pears", "7")]]


# --- header labels of tight columns ---------------------------------------------------------------

YEARS = ("Region", "2015", "2016", "% Chg", "2017", "% Chg")
SALES = [("North", "1,204", "1,311", "8.9", "1,402", "6.9"), ("South", "982", "1,020", "3.9", "1,101", "7.9")]
SALES += [("East", "2,310", "2,205", "-4.5", "2,390", "8.4"), ("West", "744", "801", "7.7", "856", "6.9")]
SALES += [("Central", "1,530", "1,612", "5.4", "1,700", "5.5")]
SALES += [("Total", "6,770", "6,949", "2.6", "7,449", "7.2")]


def test_header_labels_of_tight_columns_part(tmp_path: Path) -> None:
    """Right-aligned columns whose labels stand 5 pt apart (0.55 font sizes, closer than a cell
    gap, wider than a word space) over figures 20 pt apart: "2016" and "% Chg" are two labels.
    On main they were one label spanning both columns ("2016 % Chg", then "")."""
    path = tmp_path / "tight.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 9)
    y = HEIGHT - 100
    for row in (YEARS, *SALES):
        c.drawString(60, y, row[0])
        for text, right in zip(row[1:], (200, 238, 270, 308, 340), strict=True):
            c.drawString(right - c.stringWidth(text, "Helvetica", 9), y, text)
        y -= 12
    c.save()
    assert _tables(path) == [[YEARS, *SALES]]


@pytest.mark.parametrize("gap", [4.0, 5.0])
def test_tight_figure_columns_part_in_the_body(tmp_path: Path, gap: float) -> None:
    """Columns as wide as their widest entry, ``gap`` points apart (0.45-0.55 font sizes, under a
    cell gap): "8.9" and "1,402" are two figures of two columns, and "% Chg" and "2017" over them
    two labels. On main they were one cell ("8.9 1,402", "% Chg 2017") in one column."""
    rows = [tuple(r[k] for k in (0, 2, 3, 4, 5)) for r in (YEARS, *SALES)]
    path = tmp_path / "tight_body.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 9)
    widths = [max(c.stringWidth(r[j], "Helvetica", 9) for r in rows) for j in range(1, 5)]
    rights, x = [], 140.0
    for width in widths:
        rights.append(x + width)
        x += width + gap
    y = HEIGHT - 100
    for row in rows:
        c.drawString(60, y, row[0])
        for text, right in zip(row[1:], rights, strict=True):
            c.drawString(right - c.stringWidth(text, "Helvetica", 9), y, text)
        y -= 12
    c.save()
    assert _tables(path) == [rows]


# --- wrapped cells --------------------------------------------------------------------------------

HEADER: Cells = (["Sample"], ["Dose"], ["Observed effect on growth"], ["Yield"])
BODY: list[Cells] = [
    (["Control"], ["0"], ["No change"], ["4.1"]),
    (["Low dose"], ["5"], ["Slight increase in", "shoot length"], ["4.4"]),
    (["Medium dose"], ["10"], ["Marked increase in", "shoot and root length"], ["4.9"]),
    (["High dose"], ["20"], ["Leaf burn on older", "plants"], ["3.8"]),
    (["Very high dose"], ["40"], ["Plants died"], ["0.0"]),
]
XS = (60, 170, 250, 420, 500)


@pytest.mark.parametrize("kind", ["columns", "booktabs"])
@pytest.mark.parametrize("centred", [False, True], ids=["top", "centred"])
def test_wrapped_cells_are_one_cell(tmp_path: Path, kind: str, centred: bool) -> None:
    """A text column whose cells wrap onto two lines, rows set 6 pt apart (cell padding), in a
    table ruled between its columns (no rules between body rows) and in a booktabs table: each
    wrapped cell is one cell, whether the other cells of its row stand at its top or centred
    beside it. On main the second lines were rows of their own (centred: the first line too)."""
    path = tmp_path / f"wrapped_{kind}.pdf"
    _draw(path, [HEADER, *BODY], XS, kind, centred, 6)
    assert _tables(path) == [_expected([HEADER, *BODY])]


@pytest.mark.parametrize("kind", ["columns", "booktabs"])
def test_wrapped_cells_at_one_line_spacing(tmp_path: Path, kind: str) -> None:
    """The same table set at one line spacing throughout (no padding between rows, as LaTeX sets
    a p{} column): the gaps do not say where rows end, a lower-case line under a row's text cell
    continues it."""
    path = tmp_path / f"uniform_{kind}.pdf"
    _draw(path, [HEADER, *BODY], XS, kind, False, 0)
    assert _tables(path) == [_expected([HEADER, *BODY])]


def test_stacked_figures_and_section_labels_stay_rows(tmp_path: Path) -> None:
    """Guard: extra space before each section label ("Current assets") makes the gaps two-sized,
    but the groups they would make hold a section label over its first row and figures stacked in
    one cell: every line stays a row."""
    rows: list[Cells] = [(["Item"], ["2019"], ["2020"])]
    sections = {"Current assets": [("Cash", "120", "135"), ("Stock", "80", "95"), ("Debtors", "60", "71")]}
    sections["Fixed assets"] = [("Land", "400", "400"), ("Plant", "210", "190"), ("Vehicles", "55", "48")]
    path = tmp_path / "sections.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 9)
    y = HEIGHT - 100
    ys = [y]
    for text, x in zip(("Item", "2019", "2020"), (64, 204, 284), strict=True):
        c.drawString(x, y - 11, text)
    y -= 15
    ys.append(y)
    for label, items in sections.items():
        y -= 6
        c.drawString(64, y - 11, label)
        rows.append(([label], [], []))
        y -= 12
        for item in items:
            for text, x in zip(item, (64, 204, 284), strict=True):
                c.drawString(x, y - 11, text)
            rows.append(tuple([t] for t in item))
            y -= 12
    ys.append(y - 4)
    _rules(c, (60, 200, 280, 360), ys, "columns")
    c.save()
    assert _tables(path) == [_expected(rows)]


def test_rows_by_gaps() -> None:
    one_spacing = [(0.0, 9.0), (11.0, 20.0), (22.0, 31.0), (33.0, 42.0)]
    assert rows_by_gaps(one_spacing) is None
    padded = [(0.0, 9.0), (17.0, 26.0), (28.0, 37.0), (45.0, 54.0)]
    assert rows_by_gaps(padded) == [[0], [1, 2], [3]]
    centred = [(0.0, 9.0), (17.0, 26.0), (22.5, 31.5), (28.0, 37.0), (45.0, 54.0)]
    assert rows_by_gaps(centred) == [[0], [1, 2, 3], [4]]


def test_labels_centred_beside_wrapped_labels_and_a_wrapped_last_label(tmp_path: Path) -> None:
    """A booktabs table set centred throughout: "Sample" centred beside labels wrapped over two
    lines ("Dose" / "(mg)") is in the one header row with them, and the last row's label wrapped
    over two lines ("Very high dose" / "applied twice") beside its centred values keeps its second
    line. On main the header was three rows and "applied twice" was lost."""
    header: Cells = (["Sample"], ["Dose", "(mg)"], ["Observed effect on", "growth"], ["Yield", "(t/ha)"])
    body = [*BODY[:-1], (["Very high dose", "applied twice"], ["40"], ["Plants died"], ["0.0"])]
    path = tmp_path / "centred_header.pdf"
    _draw(path, [header, *body], XS, "booktabs", True, 6)
    assert _tables(path) == [_expected([header, *body])]


# --- title lines right above a table --------------------------------------------------------------

ITEMS = [("North", "1,204", "31,100", "12.1"), ("South", "982", "24,020", "10.9")]
ITEMS += [
    ("East", "2,310", "52,205", "14.5"),
    ("West", "744", "18,801", "9.7"),
    ("Central", "1,530", "41,612", "11.4"),
]
LABELS = ("Region", "Units", "Revenue", "Margin")


def _report(path: Path, above: Sequence[str], centre: float, font: str = "Helvetica") -> list[str]:
    """``above`` centred at ``centre`` over a table (label column at 60, figures right-aligned at
    200 / 280 / 360), at the table's own 12 pt line spacing; returns the page's prose blocks."""
    c = canvas.Canvas(str(path), pagesize=A4)
    y = HEIGHT - 80
    for text in above:
        c.setFont(font, 9)
        c.drawString(centre - c.stringWidth(text, font, 9) / 2, y, text)
        y -= 12
    c.setFont("Helvetica", 9)
    for row in (LABELS, *ITEMS):
        c.drawString(60, y, row[0])
        for text, right in zip(row[1:], (200, 280, 360), strict=True):
            c.drawString(right - c.stringWidth(text, "Helvetica", 9), y, text)
        y -= 12
    c.save()
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    return [" ".join(b.text.split()) for b in doc.blocks if b.table is None]


@pytest.mark.parametrize(
    ("above", "font"),
    [
        (("Monthly Sales Report", "Fiscal year 2016, all regions"), "Helvetica-Bold"),
        (("Sales by region", "(in thousands of dollars)"), "Helvetica"),
    ],
    ids=["bold", "plain"],
)
def test_title_lines_centred_over_a_table_are_no_header_rows(
    tmp_path: Path, above: tuple[str, str], font: str
) -> None:
    """Two report title lines centred over the whole table, right above its column labels at the
    table's line spacing: they stay prose, the table starts at its labels. On main they were two
    header rows (in the second column)."""
    path = tmp_path / "titled.pdf"
    prose = _report(path, above, (60 + 360) / 2, font)
    assert _tables(path) == [[LABELS, *ITEMS]]
    assert " ".join(above) in prose


@pytest.mark.parametrize("run", [(175, 360), (175, 280), (250, 360)], ids=["all", "first-two", "last-two"])
def test_a_group_label_centred_over_its_columns_stays_a_header_row(
    tmp_path: Path, run: tuple[int, int]
) -> None:
    """Guard: one label centred over a run of the figure columns (not over the whole table) is a
    group label: a header row of the table, as on main."""
    path = tmp_path / "group.pdf"
    prose = _report(path, ["Value ($000)"], sum(run) / 2)
    (table,) = _tables(path)
    assert table[1:] == [LABELS, *ITEMS]
    assert "Value ($000)" in table[0] and "Value ($000)" not in prose
