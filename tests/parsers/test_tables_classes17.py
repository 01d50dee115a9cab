"""Table layouts of issue 24 (session 19, second helper), drawn anew with reportlab (no dev-set
page copied) and read through the PDF parser: a three-line table whose notes ("Notes:", then
numbered lines) stand under its bottom rule, close enough to run into it as rows; a three-line
table of a package's options set to values ("mode=4C") and their descriptions, which the code
guard took for a listing. Both class tests failed on main's code (2053b49) and pass; the guards
pass on both. (Found while drawing the second: option labels in Courier 9 beside Times 10 text
on one line were not counted by ``unruled.wide_gap_lines``, whose (top, x0) order puts the
smaller font's word after the line's other words; left alone, the real page passes the gate.)"""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from tests.parsers.drawn import Rows, parsed_rows

PROSE = "The fields below are read from the report's front matter and checked against the form."

FIELDS: Rows = [
    ("Field", "Required", "Default", "Lines", "Chars."),
    ("ReportTitle", "Yes", "none", "3", "45"),
    ("ReportDate", "No", "(1)", "1", "12"),
    ("ReportNumber", "Yes", "none", "1", "57"),
    ("Distribution", "No", "(2)", "1", "55"),
    ("MarginTitle", "No", "none", "2", "85"),
]


def _table_with_notes(path: Path, label: str) -> None:
    """``FIELDS`` as a three-line table (labels left, the other columns centred), then under its
    bottom rule a line ``label`` and two numbered notes whose text runs across the columns, at
    the rows' own pitch."""
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    c.setFont("Times-Roman", 10)
    c.drawString(90, 780, PROSE)
    xs = (90.0, 200.0, 260.0, 320.0, 370.0, 420.0)
    top = 760.0
    c.line(xs[0], top, xs[-1], top)
    y = top - 11
    for r, row in enumerate(FIELDS):
        c.drawString(xs[0] + 4, y, row[0])
        for k, text in enumerate(row[1:], start=1):
            c.drawCentredString((xs[k] + xs[k + 1]) / 2, y, text)
        if r == 0:
            c.line(xs[0], y - 4, xs[-1], y - 4)
            y -= 4
        y -= 12
    c.line(xs[0], y + 8, xs[-1], y + 8)
    y -= 4
    c.setFont("Times-Bold", 10)
    c.drawString(xs[0], y, label)
    c.setFont("Times-Roman", 9)
    c.drawString(xs[0] + 10, y - 12, "(1)")
    c.drawString(xs[0] + 26, y - 12, "Defaults to the current date in the format of the series.")
    c.drawString(xs[0] + 10, y - 24, "(2)")
    c.drawString(xs[0] + 26, y - 24, "Defaults to approved for public release, unlimited.")
    c.showPage()
    c.save()


def test_notes_under_the_bottom_rule_are_no_rows(tmp_path: Path) -> None:
    """A "Notes:" line under a three-line table's bottom rule and numbered notes under it (each
    two chunks, a marker and a sentence across the columns): the table is its rows above the
    rule, its columns kept apart."""
    pdf = tmp_path / "notes.pdf"
    _table_with_notes(pdf, "Notes:")
    assert parsed_rows(pdf) == [FIELDS]


def test_a_row_label_ending_in_a_colon_under_a_rule_stays(tmp_path: Path) -> None:
    """Guard: a total row under a rule whose label is no notes label ("Total:") is a row."""
    pdf = tmp_path / "total.pdf"
    c = canvas.Canvas(str(pdf), pagesize=A4, invariant=1)
    c.setFont("Times-Roman", 10)
    c.drawString(90, 780, PROSE)
    rows: Rows = [
        ("Region", "2021", "2022", "2023"),
        ("North", "112.4", "118.9", "121.0"),
        ("South", "80.2", "84.7", "86.1"),
        ("West", "41.0", "44.2", "47.9"),
        ("Total:", "233.6", "247.8", "255.0"),
    ]
    xs = (90.0, 200.0, 260.0, 320.0, 380.0)
    top = 760.0
    c.line(xs[0], top, xs[-1], top)
    y = top - 11
    for r, row in enumerate(rows):
        c.drawString(xs[0] + 4, y, row[0])
        for k, text in enumerate(row[1:], start=1):
            c.drawRightString(xs[k + 1] - 5, y, text)
        if r in (0, 3):  # under the header, above the total
            c.line(xs[0], y - 4, xs[-1], y - 4)
            y -= 4
        y -= 12
    c.line(xs[0], y + 8, xs[-1], y + 8)
    c.showPage()
    c.save()
    assert parsed_rows(pdf) == [rows]


OPTIONS: Rows = [
    ("Option", "Description"),
    ("mode=4C", "Define colours in the CMYK colour space (default)."),
    ("mode=CMYK", "Alias for the previous."),
    ("mode=RGB", "Define colours in the RGB colour space."),
    ("mode=BW", "Define colours in black and white."),
    ("gray", "Alias for the previous."),
]


def _three_line_text_table(path: Path, rows: Rows) -> None:
    """``rows`` as a two-column three-line table of text (a rule above, one under the header, one
    under the last row) under its caption, between lines of prose."""
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    c.setFont("Times-Roman", 10)
    c.drawString(145, 780, "Several colours are specific to the university and we want to have them at hand.")
    c.drawString(145, 768, "The package provides this feature and is loaded in the preamble of a document.")
    c.drawString(250, 740, "Table 1: Options provided by the package.")
    top = 725.0
    c.line(200, top, 473, top)
    y = top - 11
    for r, (key, text) in enumerate(rows):
        c.setFont("Courier" if r else "Times-Roman", 10)
        c.drawString(205, y, key)
        c.setFont("Times-Roman", 10)
        c.drawString(265, y, text)
        if r == 0:
            c.line(200, y - 4, 473, y - 4)
            y -= 5
        y -= 12
    c.line(200, y + 8, 473, y + 8)
    c.drawString(145, y - 20, "We define two basic colours that are taken from the logo of the university.")
    c.showPage()
    c.save()


def test_three_line_table_of_options_set_to_values(tmp_path: Path) -> None:
    """A three-line table of a package's options ("mode=4C") and what each does: a table (the
    "=" of its option labels is no code punctuation)."""
    pdf = tmp_path / "options.pdf"
    _three_line_text_table(pdf, OPTIONS)
    assert parsed_rows(pdf) == [OPTIONS]


def test_three_line_frame_around_code_is_no_table(tmp_path: Path) -> None:
    """Guard: code statements in both columns of a framed block ("x <- f(y);", "{ z = 1; }")
    stay a code listing, not a table."""
    pdf = tmp_path / "code.pdf"
    rows: Rows = [
        ("Call", "Effect"),
        ("init();", "{ count = 0; }"),
        ("step(x);", "{ count = count + x; }"),
        ("reset();", "{ count = 0; flag = 1; }"),
        ("stop();", "{ flag = 0; }"),
    ]
    _three_line_text_table(pdf, rows)
    assert parsed_rows(pdf) == []
