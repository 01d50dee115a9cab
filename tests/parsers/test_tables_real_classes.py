"""Unruled-table layouts met on the real-table dev set's fit half (eval/pdf-real, issue 24), each
drawn anew with reportlab and read through the PDF parser: header labels wider than their figure
columns, a regression table with one model per column (stars set apart, standard errors on lines
of their own, the last one too), a value set once across a row's model columns, and prose columns
beside a few rows of figures (no table of them)."""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.pdf.tables.unruled_guards import rejection
from parsers.source import SourceFile

HEIGHT = A4[1]


def _tables(path: Path) -> list[list[tuple[str, ...]]]:
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    return [[tuple(r) for r in (*b.table.header, *b.table.body)] for b in doc.blocks if b.table is not None]


def _centred(c: canvas.Canvas, text: str, middle: float, y: float, size: float = 10.0) -> None:
    c.setFont("Helvetica", size)
    c.drawString(middle - c.stringWidth(text, "Helvetica", size) / 2, y, text)


def _right(c: canvas.Canvas, text: str, right: float, y: float, size: float = 10.0) -> None:
    c.setFont("Helvetica", size)
    c.drawString(right - c.stringWidth(text, "Helvetica", size), y, text)


# --- header labels wider than their columns -------------------------------------------------------

JOBS = (
    ("Total employee jobs", "38,900", "-", "-", "-"),
    ("Full-time", "26,800", "68.8", "69.0", "68.8"),
    ("Part-time", "12,200", "31.2", "31.0", "31.2"),
    ("Manufacturing", "5,300", "13.6", "8.1", "10.2"),
    ("Construction", "2,100", "5.5", "4.5", "4.8"),
    ("Services", "30,600", "78.5", "85.7", "83.5"),
    ("Distribution, hotels", "9,500", "24.5", "24.6", "23.4"),
    ("Transport", "1,600", "4.2", "5.9", "5.8"),
    ("Finance, IT", "8,100", "20.8", "24.0", "22.0"),
    ("Public admin", "7,700", "19.8", "25.6", "27.0"),
    ("Other services", "3,600", "9.2", "5.6", "5.3"),
    ("Tourism-related", "4,800", "12.4", "8.2", "8.2"),
)  # twelve rows: a body cell may overflow into a gap, so the labels' overlaps count as gaps
FIRST = ("West Oxon", "West Oxon", "South East", "GB")
SECOND = ("(employee jobs)", "(%)", "(%)", "(%)")
FIRST_X = (187.0, 256.0, 322.0, 380.0)  # labels set from the left of their columns
SECOND_X = (187.0, 290.0, 349.0, 382.0)
RIGHTS = (236.0, 306.0, 364.0, 398.0)  # right edges of the figure columns


def draw_wide_labels(path: Path) -> None:
    """Two header lines of labels wider than their figure columns: "West Oxon" twice, 17 pt
    apart, over "38,900" and "(%)"; "(employee jobs)" under the first reaches past the start of
    the second. The gaps between the labels are not where the gap between the figures is, and
    each header line parts its labels at its own place: on main the two "West Oxon" became one
    cell and the labels after them one column off."""
    c = canvas.Canvas(str(path), pagesize=A4)
    for labels, xs, y, size in ((FIRST, FIRST_X, HEIGHT - 100, 10.5), (SECOND, SECOND_X, HEIGHT - 112, 10)):
        c.setFont("Helvetica", size)
        for text, x in zip(labels, xs, strict=True):
            c.drawString(x, y, text)
    y = HEIGHT - 128
    for label, *values in JOBS:
        c.setFont("Helvetica", 10)
        c.drawString(30, y, label)
        for text, right in zip(values, RIGHTS, strict=True):
            _right(c, text, right, y)
        y -= 12
    c.save()


def test_header_labels_wider_than_their_columns_keep_apart(tmp_path: Path) -> None:
    path = tmp_path / "wide_labels.pdf"
    draw_wide_labels(path)
    (table,) = _tables(path)
    header = ("", *(f"{a}\n{b}" for a, b in zip(FIRST, SECOND, strict=True)))
    assert table == [header, *JOBS]


# --- a regression table: one model per column ---------------------------------------------------

MODELS = ("Z_score (1)", "Z_score (2)", "Z_score (3)", "Z_score (4)")
VARIABLES = (("ln_A", "2.195", "***", "(0.851)"), ("ln_B", "1.104", "*", "(0.608)"))
VARIABLES += (("ln_C", "2.341", "**", "(0.795)"), ("ln_D", "0.498", "", "(0.633)"))
MODEL_X = (180.0, 270.0, 360.0, 450.0)


def _coefficient(c: canvas.Canvas, value: str, stars: str, x: float, y: float) -> None:
    c.setFont("Times-Roman", 11)
    c.drawString(x, y, value)
    if stars:  # smaller, raised, touching the figure: the text layer keeps them a word apart
        c.setFont("Times-Roman", 7)
        c.drawString(x + c.stringWidth(value, "Times-Roman", 11), y + 4, stars)


def test_regression_table_one_model_per_column(tmp_path: Path) -> None:
    """Each variable's coefficient stands in its own model's column, its standard error on the
    line under it (1.5 line spacing), so most cells are empty and only the last row holds a
    figure without stars: on main the stars made "2.195 ***" no figure, every line above the last
    a header line, the label column joined the first model's, and the last standard error, a
    lone line under the table, was cut off."""
    path = tmp_path / "diagonal.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Times-Roman", 11)
    for text, x in zip(MODELS, MODEL_X, strict=True):
        c.drawString(x, HEIGHT - 100, text)
    y = HEIGHT - 122
    for k, (label, value, stars, error) in enumerate(VARIABLES):
        c.setFont("Times-Roman", 11)
        c.drawString(70, y, label)
        _coefficient(c, value, stars, MODEL_X[k] + 6, y)
        c.setFont("Times-Roman", 11)
        c.drawString(MODEL_X[k] + 6, y - 21.6, error)
        y -= 43.2
    c.save()
    (table,) = _tables(path)
    expected = [("", *MODELS)]
    for k, (label, value, stars, error) in enumerate(VARIABLES):
        expected.append((label, *("" if j != k else value + stars for j in range(4))))
        expected.append(("", *("" if j != k else error for j in range(4))))
    assert table == expected


def draw_fixed_effects(path: Path, models: int) -> list[tuple[str, ...]]:
    """A regression table of ``models`` model columns whose last two rows say "YES" once,
    centred across all the model columns; returns the rows as the table should read."""
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Times-Roman", 11)
    xs = MODEL_X[:models]
    for text, x in zip(MODELS, xs, strict=False):
        c.drawString(x, HEIGHT - 100, text)
    rows = [("Top1", "0.00592", "0.00595", "0.00603", "0.00643"), ("N", "5580", "5580", "5580", "5580")]
    rows = [r[: models + 1] for r in [*rows, ("R-squared", "0.279", "0.279", "0.279", "0.277")]]
    y = HEIGHT - 120
    for label, *values in rows:
        c.drawString(70, y, label)
        for text, x in zip(values, xs, strict=True):
            c.drawString(x + 6, y, text)
        y -= 20
    for label in ("Industry-FE", "Year-FE"):
        c.setFont("Times-Roman", 11)
        c.drawString(70, y, label)
        _centred(c, "YES", (xs[0] + xs[-1] + 60) / 2, y, 11)
        rows.append((label, "YES", *([""] * (models - 1))))
        y -= 20
    c.save()
    return [("", *MODELS[:models]), *rows]


def test_value_set_once_across_model_columns_sits_in_the_first(tmp_path: Path) -> None:
    """ "YES" centred across the model columns (fixed effects included in every model): across
    four it stands between the second and third columns, and main made a column of it there;
    across three it falls into the middle column, where main left it."""
    for models in (4, 3):
        path = tmp_path / f"spanning_yes_{models}.pdf"
        expected = draw_fixed_effects(path, models)
        (table,) = _tables(path)
        assert table == expected


# --- prose columns beside a few rows of figures ---------------------------------------------------


def test_prose_columns_beside_a_few_figure_rows_are_no_table() -> None:
    """Two columns of sentence-long cells down every row and figure columns in a third of the
    rows: text columns read together with a small table beside them (a page whose gutters the
    column finder missed), which main passed as one table."""
    prose = ("the pupils achieve good results", "There are two Church schools")
    rows = [(prose[0], prose[1], "", "", "") for _ in range(12)]
    for i in (3, 5, 7, 9):
        rows[i] = (prose[0], prose[1], "Wood Green School", "62%", "56%")
    rows.insert(0, ("", "", "", "2008", "2009"))
    assert rejection(rows, 1) is not None
    small = [("", "2008", "2009"), *(("Wood Green School", "62%", "56%") for _ in range(4))]
    assert rejection(small, 1) is None


# --- row labels over groups of rows, in a column of their own, beside prose -------------------------

GROUPS = (("DP", (("NLL", "44.9", "66.8"), ("Triplet", "41.6", "65.0"))),)
GROUPS += (("L2", (("NLL", "43.5", "64.7"), ("Triplet", "42.2", "66.0"))),)
GROUPS += (("Cos", (("NLL", "41.0", "62.2"), ("Triplet", "40.3", "63.9"))),)
PROSE = (
    "We compare the similarity functions and the",
    "losses used to train the dual encoder, with",
    "the rest of the setup fixed for all the runs",
    "of the model. The dot product with negative",
    "log likelihood wins.",  # shares its line with the group label "L2"
    "The other functions come close to it on every",
    "retrieval cut-off, and the triplet loss with",
    "the L2 distance is the weakest of the group,",
    "still far above the term-matching baseline.",
)


def draw_group_labels(path: Path) -> None:
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Times-Roman", 10.9)
    for k, text in enumerate(PROSE):  # left column, 13.6 pt pitch; the right column's rows: 13.5
        c.drawString(72, HEIGHT - 100 - 13.6 * k, text)
    top = HEIGHT - 100
    for text, x in (("Sim", 312.8), ("Loss", 338.9), ("Top-1", 380.0), ("Top-5", 413.7)):
        c.drawString(x, top, text)
    y = top - 20.0
    for label, rows in GROUPS:
        c.drawString(312.8, y - 6.75, label)  # centred beside its two rows
        for loss, *values in rows:
            c.drawString(338.9, y, loss)
            for text, x in zip(values, (380.0, 413.7), strict=True):
                c.drawString(x, y, text)
            y -= 13.5
        y -= 5.0
    c.save()


def test_row_labels_over_groups_of_rows_in_a_column_of_their_own(tmp_path: Path) -> None:
    """A label over each group of two rows ("DP", "L2", "Cos"), set once on a line of its own
    between them, left of the row labels, in the right column of a two-column page: no line
    with two cells reaches that column, and one label shares a line with a short prose line of
    the left column. On main the label column joined the row labels (each group label a row of
    its own) and the shared line stayed with the prose."""
    path = tmp_path / "group_labels.pdf"
    draw_group_labels(path)
    (table,) = _tables(path)
    expected = [("Sim", "Loss", "Top-1", "Top-5")]
    for label, rows in GROUPS:
        expected += [(label if k == 0 else "", *row) for k, row in enumerate(rows)]
    assert table == expected


# --- numbered headings drawn inside a table's frame ---------------------------------------------

SPEC = (("Cell temperature", "Charge profile"), ("< -20 C", "No charging"), ("-20 C to 0 C", "0.1 C to 90 %"))
SPEC += (("0 C to 45 C", "0.5 C to 100 %"),)


def draw_spec(path: Path, headings: tuple[str, ...]) -> None:
    """A two-column specification table whose frame's first cell, over the whole width, holds
    ``headings`` (one line each)."""
    c = canvas.Canvas(str(path), pagesize=A4)
    x0, xm, x1 = 60.0, 250.0, 480.0
    top = HEIGHT - 80  # the heading cell 14 pt a line plus 6, each row 20 pt
    first = top - 14 * len(headings) - 6
    ys = [top, first, *(first - 20.0 * k for k in range(1, len(SPEC) + 1))]
    c.setLineWidth(0.6)
    for y in ys:
        c.line(x0, y, x1, y)
    c.line(x0, ys[0], x0, ys[-1])
    c.line(x1, ys[0], x1, ys[-1])
    c.line(xm, ys[1], xm, ys[-1])
    c.setFont("Helvetica", 10)
    for k, text in enumerate(headings):
        c.drawString(x0 + 4, top - 13 - 14 * k, text)
    for k, (left, right) in enumerate(SPEC):
        c.drawString(x0 + 4, ys[k + 1] - 14, left)
        c.drawString(xm + 4, ys[k + 1] - 14, right)
    c.save()


def test_numbered_headings_in_the_frame_are_the_title(tmp_path: Path) -> None:
    """A specification table whose frame also boxes the document's numbered headings above it
    ("1.3 Other charge conditions" / "1.3.1 Step charge", one cell over the whole width): they
    are its title, not its first row (main kept them as a row). One numbered title line stays a
    row, as tabula's and pdfplumber's sets count a ruled title row."""
    path = tmp_path / "spec.pdf"
    draw_spec(path, ("1.3 Other charge conditions", "1.3.1 Step charge"))
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    (table,) = [b.table for b in doc.blocks if b.table is not None]
    assert [tuple(r) for r in (*table.header, *table.body)] == list(SPEC)
    assert table.title == "1.3 Other charge conditions 1.3.1 Step charge"
    path = tmp_path / "spec_one_title.pdf"
    draw_spec(path, ("1.3 Other charge conditions",))
    (rows,) = _tables(path)
    assert rows == [("1.3 Other charge conditions", ""), *SPEC]


# --- a diagram of boxes in a frame captioned as a figure ---------------------------------------------


def draw_framed_boxes(path: Path, caption: str) -> None:
    """Filled boxes meeting edge to edge (a grid to the ruled finder) with labels in them, an
    arrow and an axis label beside them, all inside a frame, ``caption`` under the frame."""
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setStrokeColorRGB(0, 0, 1)
    c.rect(130, HEIGHT - 450, 350, 215)  # the frame
    c.setStrokeColorRGB(0, 0, 0)
    for x, y, w, h, grey in ((235, 320, 108, 47, 0.2), (343, 320, 103, 47, 0.75), (235, 418, 151, 98, 0.75)):
        c.setFillGray(grey)
        c.rect(x, HEIGHT - y, w, h, fill=1, stroke=1)
    c.setFillGray(0)
    c.setFont("Helvetica-Bold", 14)
    for text, x, y in (("Mandatory", 249, 303), ("Optional", 352, 303), ("Optional", 243, 410)):
        c.drawString(x, HEIGHT - y, text)
    c.drawString(253, HEIGHT - 255, "Quantity of phenomenon")
    c.line(235, HEIGHT - 265, 443, HEIGHT - 265)
    c.setFont("Helvetica-Bold", 10)
    c.drawString(221, HEIGHT - 478, caption)
    c.save()


def test_boxes_in_a_frame_captioned_as_a_figure_are_no_table(tmp_path: Path) -> None:
    """Main read the boxes as a two-row table ("Mandatory | Optional" / "Optional")."""
    path = tmp_path / "figure.pdf"
    draw_framed_boxes(path, "Figure 1 – Specifications expansion")
    assert _tables(path) == []
    path = tmp_path / "table.pdf"  # the same drawing captioned as a table stays one
    draw_framed_boxes(path, "Table 1 – Specifications expansion")
    assert _tables(path) == [[("Mandatory", "Optional"), ("Optional", "")]]


# --- two open-frame tables of one width, close together ----------------------------------------------

SALES = (("Region", "2019", "2020"), ("North", "12", "14"), ("South", "9", "11"), ("West", "7", "8"))
STAFF = (("Region", "2019", "2020"), ("North", "120", "140"), ("South", "90", "110"))


def _open_frame(c: canvas.Canvas, top: float, rows: tuple[tuple[str, ...], ...]) -> float:
    """Rules between the rows and between the columns, no left or right border; the bottom."""
    xs, y = (60.0, 200.0, 340.0, 480.0), top
    c.setFont("Helvetica", 10)
    for row in rows:
        c.line(xs[0], HEIGHT - y, xs[-1], HEIGHT - y)
        for x, text in zip(xs, row, strict=False):
            c.drawString(x + 4, HEIGHT - y - 13, text)
        y += 18
    c.line(xs[0], HEIGHT - y, xs[-1], HEIGHT - y)
    for x in xs[1:-1]:
        c.line(x, HEIGHT - top, x, HEIGHT - y)
    return y


def test_two_open_frame_tables_of_one_width_stay_apart(tmp_path: Path) -> None:
    """Two open-frame tables of the same width 30 pt apart, the second's caption between them:
    the frame line implied down the rules' ends spans both, and main read one table with
    "Table 2: Staff by region" as a row."""
    path = tmp_path / "two_open_frames.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 10)
    c.drawString(60, HEIGHT - 90, "Table 1: Sales by region")
    bottom = _open_frame(c, 100.0, SALES)
    c.setFont("Helvetica", 10)
    c.drawString(60, HEIGHT - (bottom + 20), "Table 2: Staff by region")
    _open_frame(c, bottom + 30, STAFF)
    c.save()
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    tables = [b.table for b in doc.blocks if b.table is not None]
    assert [[tuple(r) for r in (*t.header, *t.body)] for t in tables] == [list(SALES), list(STAFF)]
    assert [t.title for t in tables] == ["Table 1: Sales by region", "Table 2: Staff by region"]
