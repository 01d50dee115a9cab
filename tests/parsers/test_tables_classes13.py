"""Ruled-table layouts of issue 24 (session 17, second helper), drawn anew with reportlab (no
dev-set page copied) and read through the PDF parser. The three behaviour tests failed on main's
code (0f4c0ee); the two guards (named so) pass on both."""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from tests.parsers.drawn import Rows, parsed_rows

FONT, SIZE = "Helvetica", 9
XS = (60.0, 220.0, 280.0, 540.0)
HEAD, ROW = 27.0, 14.0
GREY = 0.8


def _blocks(path: Path, label_shaded_rows: int) -> None:
    """Two blocks one under the other, each a grey header row over white cells (its fills, one a
    cell, meeting the cells under them with no rule drawn) and body rows whose label cell is
    shaded the same grey, touching the header's fill (colortbl's ``\\cellcolor`` over a missing
    ``\\hline``); rules down the columns, across the top, between the blocks and at the bottom."""
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    top = 700.0
    c.setFont(FONT, SIZE)
    c.drawString(XS[0], top + 20, "Costs of large research infrastructure per participant")
    y = top
    rules = [y]
    for n, who in ((1, "UoC"), (3, "UoP3")):
        c.setFillGray(GREY)
        for k in range(3):
            c.rect(XS[k], y - HEAD, XS[k + 1] - XS[k], HEAD, stroke=0, fill=1)
        c.setFillGray(0)
        for k, text in enumerate((f"Participant no. {n} ({who})", "Cost", "Justification")):
            c.drawString(XS[k] + 4, y - 11, text)
        c.drawString(XS[1] + 4, y - 22, "(EUR)")
        y -= HEAD
        for r in range(label_shaded_rows):
            c.setFillGray(GREY)
            c.rect(XS[0], y - ROW, XS[1] - XS[0], ROW, stroke=0, fill=1)
            c.setFillGray(0)
            c.drawString(XS[0] + 4, y - 10, f"Infrastructure {r + 1}")
            c.drawString(XS[1] + 4, y - 10, f"{400000 + r}")
            c.drawString(XS[2] + 4, y - 10, f"Synchrotron {r + 1}")
            y -= ROW
            if r < label_shaded_rows - 1:
                rules.append(y)
        rules.append(y)
    for x in XS:
        c.line(x, top, x, y)
    for at in rules:
        c.line(XS[0], at, XS[-1], at)
    c.showPage()
    c.save()


def _expected(label_rows: int) -> Rows:
    rows: Rows = []
    for n, who in ((1, "UoC"), (3, "UoP3")):
        rows.append((f"Participant no. {n} ({who})", "Cost (EUR)", "Justification"))
        rows += [
            (f"Infrastructure {r + 1}", f"{400000 + r}", f"Synchrotron {r + 1}") for r in range(label_rows)
        ]
    return rows


def test_a_shaded_label_under_a_shaded_header_cell_is_a_row_of_its_own(tmp_path: Path) -> None:
    """The label cell's grey fill meets the header cell's grey fill over it with no rule between:
    that seam was taken for no line at all (a band of one colour), so the label joined the
    header's first cell ("Participant no. 1 (UoC) Infrastructure 1") and the row lost its label,
    though the header's shading ends on that very line in the other columns."""
    path = tmp_path / "seam.pdf"
    _blocks(path, label_shaded_rows=1)
    assert parsed_rows(path) == [_expected(1)]


def test_shaded_labels_of_rows_ruled_apart_under_a_shaded_header_stay_apart(tmp_path: Path) -> None:
    """Two shaded labels in a block, ruled apart: the first still joined the header's cell."""
    path = tmp_path / "seam2.pdf"
    _blocks(path, label_shaded_rows=2)
    assert parsed_rows(path) == [_expected(2)]


def test_guard_a_shaded_label_over_two_rows_stays_one_cell(tmp_path: Path) -> None:
    """Guard: a label cell spanning two rows, shaded as two touching fills of one grey (one a
    row) beside white cells ruled apart, with nothing shaded ending on that line: one cell, its
    text in the first row."""
    path = tmp_path / "span.pdf"
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    c.setFont(FONT, SIZE)
    top = 700.0
    ys = [top - k * ROW for k in range(5)]  # header, then "Group A" over two rows, then one row
    c.setFillGray(GREY)
    c.rect(XS[0], ys[3], XS[1] - XS[0], ROW, stroke=0, fill=1)
    c.rect(XS[0], ys[2], XS[1] - XS[0], ROW, stroke=0, fill=1)
    c.setFillGray(0)
    for k, text in enumerate(("Group", "Count", "Note")):
        c.drawString(XS[k] + 4, ys[0] - 10, text)
    c.drawString(XS[0] + 4, ys[1] - 17, "Group A")
    for r, (n, note) in enumerate((("12", "first"), ("14", "second"), ("9", "third"))):
        c.drawString(XS[1] + 4, ys[1 + r] - 10, n)
        c.drawString(XS[2] + 4, ys[1 + r] - 10, note)
    c.drawString(XS[0] + 4, ys[3] - 10, "Group B")
    for x in XS:
        c.line(x, ys[0], x, ys[4])
    for at in (ys[0], ys[1], ys[3], ys[4]):
        c.line(XS[0], at, XS[-1], at)
    c.line(XS[1], ys[2], XS[-1], ys[2])  # the rule between the two rows stops at the label
    c.showPage()
    c.save()
    assert parsed_rows(path) == [
        [
            ("Group", "Count", "Note"),
            ("Group A", "12", "first"),
            ("", "14", "second"),
            ("Group B", "9", "third"),
        ]
    ]


QUESTIONS = (
    ("Does the site plan to subcontract certain tasks", "Y/N"),
    ("Does the site envisage that part of its work is done by others", "Y/N"),
    ("Does the site use contributions in kind", "Y/N"),
)


def _stacked(path: Path, first: str | None) -> None:
    """Grey one-cell bands over the whole width, each over the same two-column rows, ruled all
    round, the blocks touching (one grid to the ruled finder). With ``first`` None the grid opens
    with a header row of two cells instead of a band, and one inner band stays."""
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    c.setFont(FONT, SIZE)
    x0, mid, x1 = 80.0, 460.0, 520.0
    y = 700.0
    rules = [y]
    inner = []  # the tops of the two-cell rows (their column rule)
    blocks = (
        [(first, QUESTIONS), ("Site B", QUESTIONS)]
        if first
        else [(None, (("Question", "Answer"),)), ("Site B", QUESTIONS)]
    )
    for title, rows in blocks:
        if title is not None:
            c.setFillGray(GREY)
            c.rect(x0, y - ROW, x1 - x0, ROW, stroke=0, fill=1)
            c.setFillGray(0)
            c.drawString(x0 + 4, y - 10, title)
            y -= ROW
            rules.append(y)
        for q, a in rows:
            inner.append((y, y - ROW))
            c.drawString(x0 + 4, y - 10, q)
            c.drawString(mid + 4, y - 10, a)
            y -= ROW
            rules.append(y)
    for at in rules:
        c.line(x0, at, x1, at)
    c.line(x0, 700.0, x0, y)
    c.line(x1, 700.0, x1, y)
    for hi, lo in inner:
        c.line(mid, hi, mid, lo)
    c.showPage()
    c.save()


def test_blocks_each_under_a_shaded_title_band_are_tables_of_their_own(tmp_path: Path) -> None:
    """Two blocks of one form stacked with no gap, each under a shaded one-cell band naming it
    ("Site A", "Site B"): the first band was taken for the grid's title, the second stayed a row
    of one table holding both blocks."""
    path = tmp_path / "stacked.pdf"
    _stacked(path, first="Site A")
    assert parsed_rows(path) == [list(QUESTIONS), list(QUESTIONS)]


def test_guard_a_shaded_band_inside_a_table_without_a_title_band_stays_a_row(tmp_path: Path) -> None:
    """Guard: the grid opens with a header row of two cells, not a title band; the shaded band
    inside it is a section row of the one table."""
    path = tmp_path / "section.pdf"
    _stacked(path, first=None)
    assert parsed_rows(path) == [[("Question", "Answer"), ("Site B", ""), *QUESTIONS]]
