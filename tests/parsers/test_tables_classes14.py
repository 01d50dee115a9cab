"""Table layouts of issue 24 (session 18, helper), drawn anew with reportlab (no dev-set page
copied) and read through the PDF parser: two small booktabs sub-tables "(a)" and "(b)" of figures
only, side by side under their sub-captions, each drawing its own three rules. The behaviour tests
failed on main's code (3cbea49); the guard (named so) passes on both."""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from tests.parsers.drawn import Rows, parsed_rows

FONT, SIZE = "Times-Roman", 10.5
LEFT, RIGHT = (120.0, 280.0), (346.0, 507.0)  # each sub-table's rules: 66 pt of white between them
TOP = 700.0
PROSE = "The two sub-tables show the figures of both runs, read from the logs of each job in turn."


def _subtables(path: Path, left: Rows, right: Rows, head_rule: bool) -> None:
    """Sub-captions over two three-line tables side by side (top rule, a rule under the first row,
    a bottom rule, each as wide as its own table), optionally under a running head's rule across
    the page 17 pt above the sub-captions; full-width prose above and below (one text column, so
    the sub-captions' line comes before both tables in reading order)."""
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    c.setFont(FONT, SIZE)
    if head_rule:
        c.drawString(100, TOP + 22, "Chapter 3 Results")
        c.line(99, TOP + 17, 524, TOP + 17)
    for k in range(4):  # full-width prose above: one text column
        c.drawString(100, TOP + 90 - 14 * k, PROSE)
    c.drawString(270, TOP + 14, "Table 3.5 Sub-tables")
    c.drawString(LEFT[0] + 40, TOP, "(a) First sub-table")
    c.drawString(RIGHT[0] + 40, TOP, "(b) Second sub-table")
    for (x0, x1), rows in ((LEFT, left), (RIGHT, right)):
        y = TOP - 15
        c.line(x0, y, x1, y)
        for i, row in enumerate(rows):
            c.drawString(x0 + 12, y - 15, row[0])
            c.drawString(x0 + 93, y - 15, row[1])
            y -= 24
            if i == 0 or i == len(rows) - 1:
                c.line(x0, y, x1, y)
    for k in range(4):
        c.drawString(100, TOP - 120 - 14 * k, PROSE)
    c.showPage()
    c.save()


SAME: Rows = [("111", "222"), ("222", "333")]


def test_subtables_under_a_running_head_rule_are_two_tables(tmp_path: Path) -> None:
    """The running head's rule crosses the white between the sub-tables above both sides' rules:
    it does not make them one table, and the sub-captions are no header row."""
    pdf = tmp_path / "sub.pdf"
    other: Rows = [("444", "555"), ("666", "777")]
    _subtables(pdf, SAME, other, head_rule=True)
    assert parsed_rows(pdf) == [SAME, other]


def test_equal_subtables_side_by_side_stay_two(tmp_path: Path) -> None:
    """Two sub-tables of the same rows set side by side on one page, no prose between them in
    reading order: each sub-caption titles its table, so the second is no continuation of the
    first (its repeated header dropped), as a table halved beside itself would be."""
    pdf = tmp_path / "same.pdf"
    _subtables(pdf, SAME, SAME, head_rule=False)
    assert parsed_rows(pdf) == [SAME, SAME]


def test_guard_one_table_with_group_rules_stays_one(tmp_path: Path) -> None:
    """One booktabs table whose group rules under two group labels stop a word space apart (trimmed
    ``\\cmidrule``s), its top, middle and bottom rules across both groups: one table."""
    pdf = tmp_path / "one.pdf"
    c = canvas.Canvas(str(pdf), pagesize=A4, invariant=1)
    c.setFont(FONT, SIZE)
    xs = (120.0, 200.0, 260.0, 320.0, 380.0)
    c.line(110, TOP + 15, 420, TOP + 15)
    c.drawString(xs[1], TOP, "SER")
    c.drawString(xs[3], TOP, "RE")
    c.line(195, TOP - 4, 300, TOP - 4)
    c.line(310, TOP - 4, 420, TOP - 4)
    for x, t in zip(xs, ("Methods", "ZH", "ES", "ZH", "ES"), strict=True):
        c.drawString(x, TOP - 16, t)
    c.line(110, TOP - 21, 420, TOP - 21)
    body = [("Base", "0.89", "0.75", "0.70", "0.68"), ("Ours", "0.91", "0.76", "0.74", "0.72")]
    for i, row in enumerate(body):
        for x, t in zip(xs, row, strict=True):
            c.drawString(x, TOP - 36 - 14 * i, t)
    c.line(110, TOP - 44 - 14 * len(body), 420, TOP - 44 - 14 * len(body))
    c.showPage()
    c.save()
    tables = parsed_rows(pdf)
    assert len(tables) == 1 and tables[0][-1] == body[-1]


LABELS = ("Program", "Normal", "Sync", "Check", "Rollback", "Migrate", "Check")
UNITS = ("", "time (s)", "time (s)", "time (s)", "time (s)", "time (s)", "file (KB)")
CENTRES = (132.0, 198.0, 262.0, 326.0, 390.0, 456.0, 522.0)


def test_one_word_labels_at_even_gaps_are_the_header_not_a_title(tmp_path: Path) -> None:
    """A three-line table whose first header line holds one label per column, centred over
    evenly spaced columns of right-aligned figures (its gaps as even as a letter-spaced title's),
    over a line of units: the labels are the header's first line, not a title left to the prose."""
    pdf = tmp_path / "labels.pdf"
    c = canvas.Canvas(str(pdf), pagesize=A4, invariant=1)
    c.setFont(FONT, SIZE)
    c.drawString(100, TOP + 40, "Table 3.6 Data in experiment")
    c.line(99, TOP + 15, 555, TOP + 15)
    for y, texts in ((TOP, LABELS), (TOP - 17, UNITS)):
        for x, t in zip(CENTRES, texts, strict=True):
            c.drawCentredString(x, y, t)
    c.line(99, TOP - 25, 555, TOP - 25)
    body = []
    for i in range(8):
        row = (f"CG.A.{i + 2}", f"{23.05 + 7 * i:.2f}", "0.002", f"0.1{i}6", "0.035", f"0.5{i}9", f"3249{i}")
        body.append(row)
        y = TOP - 42 - 17 * i
        c.drawString(116, y, row[0])
        for x, t in zip(CENTRES[1:], row[1:], strict=True):
            c.drawRightString(x + 18, y, t)
    c.line(99, TOP - 60 - 17 * 8, 555, TOP - 60 - 17 * 8)
    c.showPage()
    c.save()
    (table,) = parsed_rows(pdf)
    assert table[0] == ("Program", *(f"{a} {b}" for a, b in zip(LABELS[1:], UNITS[1:], strict=True)))
    assert table[1:] == body
