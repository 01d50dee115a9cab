"""Table layouts of issue 24 (session 12), drawn anew with reportlab (no dev-set page copied) and read
through the PDF parser: row labels centred vertically beside the group of rows they name, in a
table ruled between its columns and under its two-row header (a group label over three
sub-labels, a partial rule between them) but not between its body rows, and in booktabs; section
label rows there; a header row over ruled rows left empty; a booktabs table whose first row's
text cell is centred on two lines; section rows interrupting a table's column rules. Each
behaviour test failed on main's
code (c70e55b); the guards (named so) pass on both."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.source import SourceFile

HEIGHT = A4[1]
FONT, SIZE = "Helvetica", 9
XS = (60.0, 130.0, 180.0, 250.0, 320.0, 390.0, 460.0)
PITCH = 18.0
Cell = tuple[int, int, int, int, str]  # row, column, rows spanned, columns spanned, text

HEADER: list[Cell] = [
    (0, 0, 2, 1, "Region"),
    (0, 1, 2, 1, "Year"),
    (0, 2, 1, 3, "Quarterly sales"),
    (0, 5, 2, 1, "Total"),
    (1, 2, 1, 1, "Q1"),
    (1, 3, 1, 1, "Q2"),
    (1, 4, 1, 1, "Q3"),
]
# (label, rows it spans: year and three quarters; the total follows)
GROUPS = (
    ("North", (("2022", "120", "135", "150"), ("2023", "128", "141", "162"))),
    ("South", (("2021", "90", "95", "99"), ("2022", "97", "101", "104"), ("2023", "102", "110", "118"))),
    ("West", (("2023", "77", "80", "83"),)),
    ("East", (("2020", "61", "66", "70"), ("2021", "64", "69", "73"))),
)


def _body(sections: bool = False) -> list[Cell]:
    """The body's cells from row 2 on; with ``sections`` each group's label has a row of its own
    above the group (a section label row) instead of spanning the group's rows."""
    cells: list[Cell] = []
    row = 2
    for label, rows in GROUPS:
        if sections:
            cells.append((row, 0, 1, 1, label))
            row += 1
        else:
            cells.append((row, 0, len(rows), 1, label))
        for values in rows:
            total = str(sum(int(v) for v in values[1:]))
            cells.extend((row, k + 1, 1, 1, text) for k, text in enumerate((*values, total)))
            row += 1
    return cells


def _draw(path: Path, cells: Sequence[Cell], centred: bool = True, columns: bool = True) -> int:
    """The table: rules around it, between all its columns (not through a cell spanning columns)
    and under each header row (not through a cell spanning both); none between body rows. Text
    centred vertically in its cell (``centred``) or set at its top. Without ``columns``, booktabs:
    horizontal rules only (a partial one under the group label). Returns the row count."""
    n_rows = max(r + rs for r, _, rs, _, _ in cells)
    top = HEIGHT - 120
    ys = [top - i * PITCH for i in range(n_rows + 1)]
    owner = {(i, j): (r, k) for r, k, rs, cs, _ in cells for i in range(r, r + rs) for j in range(k, k + cs)}
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    for r, k, rs, _cs, text in cells:
        middle = (ys[r] + ys[r + rs]) / 2 if centred else ys[r] - PITCH / 2
        c.drawString(XS[k] + 3, middle - SIZE * 0.35, text)
    c.setLineWidth(0.6)
    for i in (0, 1, 2, n_rows):
        for j in range(len(XS) - 1):
            if i in (0, n_rows) or owner.get((i - 1, j), (i - 1, j)) != owner.get((i, j), (i, j)):
                c.line(XS[j], ys[i], XS[j + 1], ys[i])
    for j, x in enumerate(XS if columns else ()):
        for i in range(n_rows):
            if j in (0, len(XS) - 1) or owner.get((i, j - 1), (i, j - 1)) != owner.get((i, j), (i, j)):
                c.line(x, ys[i], x, ys[i + 1])
    c.save()
    return n_rows


def _expected(cells: Sequence[Cell], n_rows: int) -> list[tuple[str, ...]]:
    """A spanning cell's text in the first row and column it spans, the others empty."""
    grid = [[""] * (len(XS) - 1) for _ in range(n_rows)]
    for r, k, _, _, text in cells:
        grid[r][k] = text
    return [tuple(row) for row in grid]


def _tables(path: Path) -> list[list[tuple[str, ...]]]:
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    return [[tuple(r) for r in (*b.table.header, *b.table.body)] for b in doc.blocks if b.table is not None]


@pytest.mark.parametrize("columns", [True, False])
def test_row_labels_centred_beside_their_groups_span_them(tmp_path: Path, columns: bool) -> None:
    """ "North" centred between its two rows and "South" on the middle one of its three: each
    label is in the first row of its group, and the body has one row a year. On main, with ruled
    columns, "North" and "East" were rows of their own between their groups' rows (one row more
    each, all values under them one row off) and "South" sat on its second row; in booktabs (the
    unruled reader) "South" sat on its second row."""
    path = tmp_path / "spans.pdf"
    cells = HEADER + _body()
    n_rows = _draw(path, cells, columns=columns)
    assert _tables(path) == [_expected(cells, n_rows)]


@pytest.mark.parametrize(("sections", "columns"), [(False, True), (False, False), (True, True)])
def test_guard_labels_at_the_top_of_their_group_or_on_rows_of_their_own_stay(
    tmp_path: Path, sections: bool, columns: bool
) -> None:
    """Guards: labels set at the top of their group (the first row's line), and section label
    rows, each in a place of its own above its group, are read as drawn."""
    path = tmp_path / "top.pdf"
    cells = HEADER + _body(sections)
    n_rows = _draw(path, cells, centred=sections, columns=columns)
    assert _tables(path) == [_expected(cells, n_rows)]


def test_section_label_rows_in_booktabs_stay_rows(tmp_path: Path) -> None:
    """Section label rows of a booktabs table (the unruled reader), each in a place of its own
    between the last row of one group and the first of the next: rows of their own. On main each
    was taken for a label centred beside the rows around it and moved into the previous group
    ("South" on North's first row)."""
    path = tmp_path / "sections.pdf"
    cells = HEADER + _body(sections=True)
    n_rows = _draw(path, cells, columns=False)
    assert _tables(path) == [_expected(cells, n_rows)]


# --- a header row over empty ruled rows ------------------------------------------------------------


def _blank_form(
    path: Path, empty_rows: int, text_rows: Sequence[Sequence[str]], spacer: bool = False
) -> None:
    """A full grid: rows of labels (``text_rows``), then ``empty_rows`` rows left blank, each as
    tall as a row of text (``spacer``: one band a third as tall, a double rule's gap)."""
    xs, top, height = (60.0, 180.0, 300.0, 420.0), HEIGHT - 150, 18.0
    heights = [height] * (len(text_rows) + empty_rows) + ([height / 3] if spacer else [])
    ys = [top]
    for h in heights:
        ys.append(ys[-1] - h)
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    for i, row in enumerate(text_rows):
        for x, text in zip(xs, row, strict=False):
            c.drawString(x + 4, ys[i] - 12, text)
    for y in ys:
        c.line(xs[0], y, xs[-1], y)
    for x in xs:
        c.line(x, ys[0], x, ys[-1])
    c.save()


@pytest.mark.parametrize("empty_rows", [1, 2])
def test_header_row_over_empty_ruled_rows_is_a_table(tmp_path: Path, empty_rows: int) -> None:
    """A grid whose only text is its header row, over rows drawn empty (a form's blank lines, a
    record table with no record yet): a table of that many rows. On main it was no table (an
    empty row was measured against two rows of text at least)."""
    path = tmp_path / "blank.pdf"
    labels = ("Attribute", "Type", "Default")
    _blank_form(path, empty_rows, [labels])
    assert _tables(path) == [[labels, *[("", "", "")] * empty_rows]]


def test_guard_a_double_rules_gap_under_one_row_is_no_row(tmp_path: Path) -> None:
    """Guard: under a one-row grid, a band a third as tall (a double rule's gap) is no row."""
    path = tmp_path / "double.pdf"
    labels = ("Attribute", "Type", "Default")
    rows = [labels, ("name", "text", "none")]
    _blank_form(path, 0, rows, spacer=True)
    assert _tables(path) == [rows]


# --- a booktabs table whose first row's text cell is centred on two lines ------------------------

SAMPLES = (
    ("Sample", "Count", "pH", "Organisms found"),
    ("Control", "120", "6.1", "Bacillus subtilis and\nEscherichia coli"),
    ("Day 1", "135", "6.3", "Bacillus cereus"),
    ("Day 2", "150", "6.4", "Aspergillus niger and\nPenicillium sp."),
    ("Day 3", "162", "6.6", "Rhizopus sp."),
)


def _booktabs_wrapped(path: Path, centred: bool) -> None:
    """Three rules (top, under the header, bottom); the last column's two-line cells centred on
    their row beside the one-line cells (``centred``), or all cells set at the row's top."""
    xs, top, lead = (60.0, 160.0, 230.0), HEIGHT - 150, SIZE * 1.2
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    y = top - 13
    for i, row in enumerate(SAMPLES):
        lines = row[-1].split("\n")
        tall = i and len(lines) == 2
        middle = y - (lead / 2 if tall and centred else 0)  # the one-line cells' line
        for x, text in zip(xs, row[:-1], strict=True):
            c.drawString(x, middle, text)
        first = y  # the last cell's first line: half a line above the others when centred
        for k, line in enumerate(lines):
            c.drawString(380.0, first - k * lead, line)
        y -= 20 + (lead if tall else 0)
        if i == 0:
            c.line(55, y + 13, 520, y + 13)
    c.line(55, top, 520, top)
    c.line(55, y + 8, 520, y + 8)
    c.save()


@pytest.mark.parametrize("centred", [True, False])
def test_first_rows_wrapped_cell_centred_on_its_row_stays_in_it(tmp_path: Path, centred: bool) -> None:
    """A booktabs table (the unruled reader) whose first body row's last cell is centred on two
    lines beside the row's one-line cells: its first line, above the first line with figures, is
    not a row of its own (on main: "Bacillus subtilis and" a row with nothing else). Set at the
    top of the row (``centred`` False): a guard."""
    path = tmp_path / "wrapped.pdf"
    _booktabs_wrapped(path, centred)
    tables = _tables(path)
    assert [[tuple(" ".join(c.split()) for c in row) for row in t] for t in tables] == [
        [tuple(c.replace("\n", " ") for c in row) for row in SAMPLES]
    ]


# --- section rows interrupting the column rules ------------------------------------------------------

ASSETS = (
    ("Item", "Unit", "2022", "2023"),
    ("Current assets", "", "", ""),
    ("Cash", "EUR", "10", "12"),
    ("Receivables", "EUR", "20", "22"),
    ("Inventory", "EUR", "25", "27"),
    ("Fixed assets", "", "", ""),
    ("Buildings", "EUR", "30", "33"),
    ("Machines", "EUR", "40", "44"),
    ("Vehicles", "EUR", "50", "55"),
)


def _sectioned(path: Path, interrupted: bool) -> None:
    """A table in a frame, ruled under its header and between its columns, not between its rows;
    its section rows ("Current assets") span the whole width, the column rules stopping above
    and starting again below each (``interrupted``), or running through them."""
    xs, top, pitch = (60.0, 200.0, 260.0, 330.0, 400.0), HEIGHT - 150, 18.0
    ys = [top - i * pitch for i in range(len(ASSETS) + 1)]
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    for i, row in enumerate(ASSETS):
        for x, text in zip(xs, row, strict=False):
            if text:
                c.drawString(x + 4, ys[i] - 12, text)
    for y in (ys[0], ys[1], ys[-1]):
        c.line(xs[0], y, xs[-1], y)
    for j, x in enumerate(xs):
        for i in range(len(ASSETS)):
            section = ASSETS[i][0] and not any(ASSETS[i][1:])
            if j in (0, len(xs) - 1) or not (interrupted and section):
                c.line(x, ys[i], x, ys[i + 1])
    c.save()


@pytest.mark.parametrize("interrupted", [True, False])
def test_section_rows_interrupting_the_column_rules_are_rows(tmp_path: Path, interrupted: bool) -> None:
    """Where the column rules stop at a section row spanning the width (no horizontal rule drawn
    there), the rows are still apart: each section row a row, each data row a row. On main the
    column rules met no horizontal rule, so the whole body was one cell. The column rules
    running through the section rows (``interrupted`` False): a guard."""
    path = tmp_path / "sections.pdf"
    _sectioned(path, interrupted)
    assert _tables(path) == [list(ASSETS)]


def _edge(orientation: str, x0: float, top: float, x1: float, bottom: float) -> dict[str, object]:
    return {"orientation": orientation, "x0": x0, "top": top, "x1": x1, "bottom": bottom}


def test_guard_column_rules_stopping_outside_a_frame_imply_no_row_line() -> None:
    """Guard (``rule_ends.interrupted_lines``): vertical lines stopping at one height and going on
    below, with text in the gap, between two long lines, but no horizontal rule drawn across
    above and below (a chart's gridlines around a legend, boxes of a diagram): no line. With the
    frame's rules across: the line."""
    from parsers.pdf.tables import rule_ends  # new in session 12: the other tests run on main too

    sides = [_edge("v", 60, 100, 60, 300), _edge("v", 400, 100, 400, 300)]
    inner = [_edge("v", x, t, x, b) for x in (200, 260, 330) for t, b in ((100, 180), (200, 300))]
    text = [{"text": "Section", "x0": 64.0, "top": 185.0}]
    assert rule_ends.interrupted_lines([*sides, *inner], text) == []
    frame = [_edge("h", 60, 100, 400, 100), _edge("h", 60, 300, 400, 300)]
    lines = rule_ends.interrupted_lines([*sides, *inner, *frame], text)
    assert sorted(round(ln["top"]) for ln in lines) == [180, 200]
    assert rule_ends.interrupted_lines([*sides, *inner, *frame], []) == []  # no text in the gap


# --- a row label wrapped onto two lines, centred beside its group ----------------------------------

FOODS: list[Cell] = [
    (0, 0, 1, 1, "Group"),
    (0, 1, 1, 1, "Item"),
    (0, 2, 1, 1, "Value"),
    (1, 0, 3, 1, "Fruit and\nvegetables"),
    (1, 1, 1, 1, "Apples"),
    (1, 2, 1, 1, "12"),
    (2, 1, 1, 1, "Pears"),
    (2, 2, 1, 1, "7"),
    (3, 1, 1, 1, "Carrots"),
    (3, 2, 1, 1, "9"),
    (4, 0, 2, 1, "Dairy"),
    (4, 1, 1, 1, "Milk"),
    (4, 2, 1, 1, "30"),
    (5, 1, 1, 1, "Cheese"),
    (5, 2, 1, 1, "14"),
]


def _wrapped_labels(path: Path, columns: bool) -> None:
    """Three columns; each label's lines centred beside its group (ruled columns, a rule under
    the header, none between body rows; or booktabs without ``columns``)."""
    xs, top, pitch, lead = (60.0, 180.0, 280.0, 360.0), HEIGHT - 150, 18.0, SIZE * 1.2
    ys = [top - i * pitch for i in range(7)]
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    for r, k, rs, _cs, text in FOODS:
        lines = text.split("\n")
        middle = (ys[r] + ys[r + rs]) / 2 + (len(lines) - 1) * lead / 2 - SIZE * 0.35
        for n, line in enumerate(lines):
            c.drawString(xs[k] + 3, middle - n * lead, line)
    for y in (ys[0], ys[1], ys[-1]):
        c.line(xs[0] if columns else 55, y, xs[-1], y)
    for x in xs if columns else ():
        c.line(x, ys[0], x, ys[-1])
    c.save()


@pytest.mark.parametrize("columns", [True, False])
def test_row_label_wrapped_on_two_lines_centred_beside_its_group(tmp_path: Path, columns: bool) -> None:
    """ "Fruit and" / "vegetables" centred beside its three rows (its lines half a line above and
    below the middle row's), "Dairy" between its two: each label whole in its group's first
    row. On main "Fruit and" was a row of its own, "vegetables" sat on the second row (and, with
    ruled columns, "Dairy" was a row of its own)."""
    path = tmp_path / "foods.pdf"
    _wrapped_labels(path, columns)
    got = [[tuple(" ".join(c.split()) for c in row) for row in t] for t in _tables(path)]
    assert got == [[tuple(c.replace("\n", " ") for c in row) for row in _expected3(FOODS, 6)]]


def _expected3(cells: Sequence[Cell], n_rows: int) -> list[tuple[str, ...]]:
    grid = [[""] * 3 for _ in range(n_rows)]
    for r, k, _, _, text in cells:
        grid[r][k] = text
    return [tuple(row) for row in grid]
