"""Table layouts of issue 24 (session 11), drawn anew with reportlab (no dev-set page copied) and read
through the PDF parser: links underlined in the cells of a ruled table, a booktabs table ruled
between groups of rows, two booktabs tables side by side, group labels over a ruled column that
holds the row labels too. Each behaviour test failed on main's code (2f30c8e); the guards (named
so, or "stay" in their names) pass on both; ``test_underline_edges_tell_underlines_from_rules``
tests a function new in this session."""

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
Rows = Sequence[Sequence[str]]


def _tables(path: Path) -> list[list[tuple[str, ...]]]:
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    return [[tuple(r) for r in (*b.table.header, *b.table.body)] for b in doc.blocks if b.table is not None]


# --- links underlined in ruled cells ---------------------------------------------------------------

SERVICES = (
    ("Service", "In network", "Out of network", "Notes"),
    ("Primary care visit", "$20 copay/visit", "30% coinsurance", "None"),
    ("Specialist visit", "$50 copay/visit", "30% coinsurance", "None"),
    ("Diagnostic test", "10% coinsurance", "30% coinsurance", "None"),
    ("Imaging", "10% coinsurance", "30% coinsurance", "Penalty without approval"),
    ("Urgent care", "$20 copay/visit", "$20 copay/visit", "None"),
)
LINKED = ("copay", "coinsurance")  # the words printed as underlined links


def _linked_grid(path: Path, underline: bool) -> None:
    """A fully ruled table whose cells hold "10% coinsurance" and the like, the second word a link
    underlined just under its baseline (``underline``), the links starting at the same x row
    after row."""
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    xs, top, height = (50.0, 160.0, 280.0, 400.0, 540.0), HEIGHT - 100, 18.0
    for i, row in enumerate(SERVICES):
        y = top - i * height - 12
        for x, text in zip(xs, row, strict=False):
            c.drawString(x + 4, y, text)
            first, _, rest = text.partition(" ")
            word = next((w for w in LINKED if rest.startswith(w) or first.startswith(w)), None)
            if underline and i and word:
                start = x + 4 + (c.stringWidth(first + " ", FONT, SIZE) if rest.startswith(word) else 0)
                c.setLineWidth(0.5)
                c.line(start, y - 1.2, start + c.stringWidth(word, FONT, SIZE), y - 1.2)
                c.setLineWidth(1)
    bottom = top - len(SERVICES) * height
    for i in range(len(SERVICES) + 1):
        c.line(xs[0], top - i * height, xs[-1], top - i * height)
    for x in xs:
        c.line(x, top, x, bottom)
    c.save()


@pytest.mark.parametrize("underline", [True, False])
def test_underlined_links_in_ruled_cells_draw_no_column(tmp_path: Path, underline: bool) -> None:
    """Links underlined in the cells, starting at one x in several rows: their underlines' ends are
    no frame of an open table, the table keeps its four ruled columns and each cell its text. On
    main the underlines' aligned ends implied column lines: "10%" and "coinsurance" in two
    columns, "$20 c" / "opay/visit" cut inside a word. (Without underlines: a guard.)"""
    path = tmp_path / "links.pdf"
    _linked_grid(path, underline)
    assert _tables(path) == [list(SERVICES)]


def test_underline_edges_tell_underlines_from_rules() -> None:
    """Guard, on pdfplumber-style dicts: an edge hugging the bottom of the word over it is an
    underline; a rule under a tight row (below the glyphs' boxes) and a rule running on past the
    text are not."""
    from parsers.pdf.tables.underlines import underline_edges  # new in session 11

    chars = [
        {"text": t, "x0": 100.0 + 5 * k, "x1": 105.0 + 5 * k, "top": 91.0, "bottom": 100.0, "size": 9.0}
        for k, t in enumerate("coinsurance")
    ]

    def edge(y: float, x0: float, x1: float) -> dict[str, object]:
        return {"orientation": "h", "top": y, "bottom": y, "x0": x0, "x1": x1}

    edges = [edge(99.0, 100.0, 155.0), edge(101.5, 100.0, 155.0), edge(99.0, 60.0, 300.0)]
    assert underline_edges(edges, chars) == {0}


# --- a booktabs table ruled between groups of rows ----------------------------------------------

MODELS = (
    ("Model", "dev", "test"),
    ("Baseline (2020)", "–", "48.8"),
    ("Follow-up (2021)", "–", "51.5"),
    ("Small encoder", "23.6", "24.1"),
    ("Small with bias", "34.4", "34.8"),
    ("Large encoder", "40.8", "41.7"),
    ("Large with bias", "42.5", "43.9"),
)


def _grouped_rows(path: Path, groups: Sequence[int], x0: float = 90.0) -> None:
    """A booktabs table (no vertical rule): a top rule, a rule under the header, a rule after each
    group of ``groups`` rows, the bottom rule; row labels left, figures centred in their columns."""
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    x1, centres, y = x0 + 180, (x0 + 125, x0 + 160), HEIGHT - 120
    rules = [y + 12]
    bounds, k = [], 1
    for n in groups:
        k += n
        bounds.append(k)
    for i, row in enumerate(MODELS):
        c.drawString(x0 + 4, y, row[0])
        for cx, text in zip(centres, row[1:], strict=True):
            c.drawCentredString(cx, y, text)
        if i == 0 or i + 1 in bounds:
            rules.append(y - 4)
            y -= 6
        y -= 11
    for ry in rules:
        c.line(x0, ry, x1, ry)
    c.save()


@pytest.mark.parametrize("groups", [(2, 2, 2), (2, 4)])
def test_rows_between_group_rules_are_rows(tmp_path: Path, groups: Sequence[int]) -> None:
    """A booktabs table ruled after every second row (a paper's results grouped by model size):
    the rules group rows, each line is a row. On main the rules' ends framed a grid whose bands
    held two rows each: "Baseline (2020)\\nFollow-up (2021)" in one cell. (Groups of 2 and 4: a
    guard, main cut the band of four rows already.)"""
    path = tmp_path / "grouped.pdf"
    _grouped_rows(path, groups)
    assert _tables(path) == [list(MODELS)]


# --- two booktabs tables side by side ------------------------------------------------------------

SIZES = (("Model", "Parameters"), ("Small", "110 M"), ("Small tuned", "112 M"), ("Large", "340 M"))
VARIANTS = (
    ("Variant", "rc-gp", "c-gp", "gp"),
    ("Small", "57.6", "47.4", "46.4"),
    ("Small-SAT", "45.2", "-", "-"),
    ("Large-SO", "60.0", "60.2", "59.8"),
)


def _booktabs(c: canvas.Canvas, rows: Rows, xs: Sequence[float], right: float) -> None:
    y = HEIGHT - 120
    rules = [y + 12]
    for i, row in enumerate(rows):
        c.drawString(xs[0], y, row[0])
        for x, text in zip(xs[1:], row[1:], strict=True):
            c.drawRightString(x, y, text)
        if i == 0:
            rules.append(y - 4)
            y -= 4
        y -= 12
    rules.append(y + 8)
    for ry in rules:
        c.line(xs[0] - 4, ry, right, ry)


def test_booktabs_tables_side_by_side_are_two_tables(tmp_path: Path) -> None:
    """Two small booktabs tables set side by side at the top of a page, rows on the same
    baselines, each with its own top, header and bottom rules: no rule crosses the white space
    between them, two tables. On main one table of six columns."""
    path = tmp_path / "pair.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    _booktabs(c, SIZES, (80, 240), 244)
    _booktabs(c, VARIANTS, (310, 420, 470, 520), 524)
    c.save()
    assert _tables(path) == [list(SIZES), list(VARIANTS)]


def test_one_booktabs_table_with_a_wide_gap_stays_one(tmp_path: Path) -> None:
    """Guard: one table with the same wide gap between its label columns, its rules across the
    whole width: one table, as on main."""
    path = tmp_path / "one.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    rows = [(*a, *b) for a, b in zip(SIZES, VARIANTS, strict=True)]
    _booktabs(c, rows, (80, 240, 310, 420, 470, 520), 524)
    c.save()
    assert _tables(path) == [rows]


# --- group labels over a ruled column that holds the row labels too ------------------------------

RESULTS = [(f"Model {k}", *(f"{60 + 3 * k + 0.7 * j:.1f}" for j in range(6))) for k in range(6)]


def _ruled_groups(path: Path) -> None:
    """A results table with horizontal rules and one vertical rule only, between its two column
    groups; the first group's ruled column holds the row labels and three figure columns, "Before"
    centred over those figures, "After" over the other three."""
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    xs = (150, 190, 230, 280, 320, 360)  # right edges of the figure columns
    top, y = HEIGHT - 100, HEIGHT - 112
    c.drawCentredString((xs[0] - 25 + xs[2]) / 2, y, "Before")
    c.drawCentredString((xs[3] - 25 + xs[5]) / 2, y, "After")
    y -= 14
    for x, label in zip(xs, ("ALL", "SEQ", "DEV", "ALL", "SEQ", "DEV"), strict=True):
        c.drawRightString(x, y, label)
    head = y - 4
    for row in RESULTS:
        y -= 12
        c.drawString(60, y, row[0])
        for x, text in zip(xs, row[1:], strict=True):
            c.drawRightString(x, y, text)
    bottom = y - 5
    for ry in (top, top - 16, head, bottom):
        c.line(55, ry, 370, ry)
    c.line(255, top, 255, bottom)
    c.save()


def test_group_label_over_a_stub_column_sits_over_the_figures(tmp_path: Path) -> None:
    """ "Before" is centred over the first three figure columns, in a ruled column that also holds
    the row labels (no rule between them and the figures): it sits in the first figure column it
    spans, not in the row labels' column. On main it went to the row labels' column."""
    path = tmp_path / "groups.pdf"
    _ruled_groups(path)
    rows = _tables(path)[0]
    assert rows[0] == ("", "Before", "", "", "After", "", "")
    assert rows[1] == ("", "ALL", "SEQ", "DEV", "ALL", "SEQ", "DEV")
    assert rows[2:] == RESULTS


# --- a subscript set against small capitals ------------------------------------------------------


def _small_caps_rows(path: Path, gap: float) -> list[tuple[str, ...]]:
    """An unruled results table whose row labels are model names in small capitals (a capital at
    9 pt, the rest at 7.2 pt) with a subscript at 6.4 pt set ``gap`` points after them."""
    c = canvas.Canvas(str(path), pagesize=A4)
    y = HEIGHT - 120
    rows = [("Model", "ALL", "SEQ", "DEV")]
    c.setFont("Times-Roman", 9)
    c.drawString(60, y, "Model")
    for x, text in zip((160, 210, 260), rows[0][1:], strict=True):
        c.drawRightString(x, y, text)
    for k, (name, sub) in enumerate(
        (("BERT", "BASE"), ("TAPAS", "BASE"), ("TAPAS", "LARGE"), ("ROBERTA", "BASE"))
    ):
        y -= 12
        x = 60.0
        c.setFont("Times-Roman", 9)
        c.drawString(x, y, name[0])
        x += c.stringWidth(name[0], "Times-Roman", 9)
        c.setFont("Times-Roman", 7.2)
        c.drawString(x, y, name[1:])
        x += c.stringWidth(name[1:], "Times-Roman", 7.2) + gap
        c.setFont("Times-Roman", 6.4)
        c.drawString(x, y - 1.5, sub)
        figures = [f"{50 + 7 * k + j:.1f}" for j in range(3)]
        c.setFont("Times-Roman", 9)
        for fx, text in zip((160, 210, 260), figures, strict=True):
            c.drawRightString(fx, y, text)
        rows.append((name + (sub if gap < 1 else " " + sub), *figures))
    c.save()
    return rows


@pytest.mark.parametrize("gap", [0.0, 2.5])
def test_a_subscript_against_small_capitals_is_one_word(tmp_path: Path, gap: float) -> None:
    """A subscript set right against a small-capitals name ("TAPAS" + "BASE", sizes 11 % apart) is
    part of the name: "TAPASBASE". On main "TAPAS BASE" (sizes that close were kept apart as an
    OCR'd layer's words). With a space's gap between them (2.5 pt): two words, a guard."""
    path = tmp_path / "caps.pdf"
    rows = _small_caps_rows(path, gap)
    assert _tables(path) == [rows]
