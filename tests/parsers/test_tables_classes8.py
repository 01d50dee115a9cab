"""Table layouts of issue 24 (session 13), drawn anew with reportlab (no dev-set page copied) and
read through the PDF parser: a grid with no rule above its header or under its last row (the
column rules run on past the outermost row rule); two figure columns stacked in one ruled cell,
beside the labels of their rows; a caption under a table in a two-column page beside the next
column's prose; two tables side by side in two text columns, a row of one on the line of the
other's header; a table ruled under its header (no top rule), its rows labelled by years over
worded rows after a total. The behaviour tests failed on main's code (87572bb); the drawn
guards (named so) pass on both; the connector guard tests a function new here."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.source import SourceFile

WIDTH, HEIGHT = A4
FONT, SIZE = "Times-Roman", 9
PITCH = 12.0

Rows = list[tuple[str, ...]]


def _parse(path: Path) -> tuple[list[Rows], list[str | None], str]:
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    tables = [b.table for b in doc.blocks if b.table is not None]
    rows = [[tuple(" ".join(c.split()) for c in r) for r in (*t.header, *t.body)] for t in tables]
    prose = " ".join(b.text for b in doc.blocks if b.table is None)
    return rows, [t.title for t in tables], prose


def _grid(
    c: canvas.Canvas,
    rows: Sequence[Sequence[str]],
    xs: Sequence[float],
    top: float,
    *,
    rule_xs: Sequence[float],
    top_rule: bool,
    bottom_rule: bool,
) -> None:
    """A table of ``rows`` at column starts ``xs`` (a label column, then centred cells), its first
    line's baseline ``PITCH`` under ``top``: rules between all rows, the top and bottom rules only
    when asked, column rules at ``rule_xs`` from the table's top to its bottom."""
    left, right = xs[0] - 4, xs[-1] + 60
    ys = [top - k * PITCH for k in range(len(rows) + 1)]  # row boundaries, y up
    for k, row in enumerate(rows):
        base = ys[k] - PITCH + 3.5
        for j, text in enumerate(row):
            if j == 0:
                c.drawString(xs[0], base, text)
            else:
                c.drawCentredString(xs[j] + 28, base, text)
    for k, y in enumerate(ys):
        if (k == 0 and not top_rule) or (k == len(ys) - 1 and not bottom_rule):
            continue
        c.line(left, y, right, y)
    for x in rule_xs:
        c.line(x, ys[0], x, ys[-1])


SCORES = [
    ("", "Random", "HoG", "SIFT"),
    ("Curve plot", "73%", "64%", "48%"),
    ("Maps", "84%", "68%", "52%"),
    ("Pareto plot", "85%", "67%", "51%"),
    ("Pie plot", "79%", "71%", "42%"),
    ("Average", "80%", "68%", "40%"),
]
XS4 = (120.0, 200.0, 270.0, 340.0)


def _open_grid(path: Path, top_rule: bool, bottom_rule: bool) -> None:
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    c.drawString(120, 760, "Accuracy of three descriptors by chart type, on the held-out images.")
    _grid(
        c,
        SCORES,
        XS4,
        720,
        rule_xs=(196.0, 266.0, 336.0),
        top_rule=top_rule,
        bottom_rule=bottom_rule,
    )
    c.save()


def test_grid_without_top_and_bottom_rules_keeps_its_header_and_last_row(tmp_path: Path) -> None:
    """Column rules run one row past the first and last row rules (no rule above the header, none
    under "Average"): main lost "SIFT" into the row below and ran "Average" into "Pie plot"."""
    path = tmp_path / "open.pdf"
    _open_grid(path, top_rule=False, bottom_rule=False)
    assert _parse(path)[0] == [SCORES]


def test_guard_the_same_grid_closed_reads_the_same(tmp_path: Path) -> None:
    path = tmp_path / "closed.pdf"
    _open_grid(path, top_rule=True, bottom_rule=True)
    assert _parse(path)[0] == [SCORES]


def test_guard_column_rules_drawn_long_past_a_closed_grid_add_no_row(tmp_path: Path) -> None:
    """The closed grid with its column rules running 8 pt past its top rule, nothing printed
    there: no empty row above. (Past the bottom rule such stubs give an empty last row, on main
    too: ``rules.missing_frame_lines`` closes them; not changed here.)"""
    path = tmp_path / "long.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    _grid(c, SCORES, XS4, 720, rule_xs=(), top_rule=True, bottom_rule=True)
    bottom = 720 - len(SCORES) * PITCH
    for x in (196.0, 266.0, 336.0):
        c.line(x, 728, x, bottom)
    c.save()
    assert _parse(path)[0] == [SCORES]


HEURISTICS = [
    ("Class", "Heuristics for classification"),
    ("X-axis value", "A number within a tenth of the image height from the bottom."),
    ("X-axis label", "Not a number, and nothing below the text."),
    ("Y-axis value", "A number within a tenth of the image width from the left."),
    ("Legend", "Near the top of the plot, nothing above the text."),
]


def _heuristics_grid(path: Path) -> tuple[canvas.Canvas, list[float]]:
    """HEURISTICS drawn as two columns under a rule per row boundary (none above the first row),
    no column rule yet: the canvas and the rules' heights, top first."""
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    ys = [700.0 - k * PITCH for k in range(len(HEURISTICS) + 1)]
    for k, (label, text) in enumerate(HEURISTICS):
        c.drawString(100, ys[k] - PITCH + 3.5, label)
        c.drawString(180, ys[k] - PITCH + 3.5, text)
    for y in ys[1:]:
        c.line(96, y, 470, y)
    return c, ys


def test_two_column_grid_with_one_column_rule_keeps_its_header(tmp_path: Path) -> None:
    """One column rule, rising a row above the first row rule: main dropped the header row (no
    cell there had a rule on both sides)."""
    path = tmp_path / "one_rule.pdf"
    c, ys = _heuristics_grid(path)
    c.line(175, ys[0], 175, ys[-1])
    c.save()
    assert _parse(path)[0] == [HEURISTICS]


def test_two_column_grid_keeps_a_tall_last_row_under_no_rule(tmp_path: Path) -> None:
    """The one-rule grid again, its last row a cell wrapped over six lines, the column rule
    stopping with that text, no rule under it: the row stays (main lost it, and the header)."""
    path = tmp_path / "tall.pdf"
    long_text = [
        "Investing in active transport is a wise use of public money,",
        "and the benefits it brings depend on measurable increases in",
        "the share of trips made on foot or by bicycle; the council",
        "should set firm and ambitious targets for that share and",
        "monitor progress against them every year, so as to inform",
        "the policies that come after this plan.",
    ]
    rows = [*HEURISTICS, ("Safety", " ".join(long_text))]
    c, ys = _heuristics_grid(path)
    c.drawString(100, ys[-1] - PITCH + 3.5, "Safety")
    for n, line in enumerate(long_text):
        c.drawString(180, ys[-1] - (n + 1) * PITCH + 3.5, line)
    c.line(175, ys[0], 175, ys[-1] - len(long_text) * PITCH - 2)
    c.save()
    assert _parse(path)[0] == [rows]


def test_guard_a_connector_through_a_box_of_text_implies_no_row() -> None:
    """Two boxes of a flow chart one under the other, a connector line from above down through
    the lower box's text (drawn under it): its end inside the box is no column rule's end."""
    from parsers.pdf.tables.rule_overhang import overhang_lines

    def h(y: float) -> dict[str, object]:
        return {"orientation": "h", "x0": 377.0, "x1": 447.0, "top": y, "bottom": y}

    edges = [h(537.0), h(554.0), h(591.0), h(636.0)]
    edges.append({"orientation": "v", "x0": 412.0, "x1": 412.0, "top": 518.0, "bottom": 611.0})
    word = "acidose"
    chars = [
        {"text": ch, "x0": 405.0 + 3 * k, "x1": 408.0 + 3 * k, "top": 596.0, "bottom": 604.0, "size": 8.0}
        for k, ch in enumerate(word)
    ]
    assert overhang_lines(edges, chars)[1] == []


MULTILINGUAL = [
    ("Model", "MLS", "VoxPopuli"),
    ("VP-10K + FT", "-", "15.3"),
    ("XLS-R (1B)", "10.9", "10.6"),
    ("mSLAM-CTC (2B)", "9.7", "9.1"),
    ("Maestro", "-", "8.1"),
    ("Zero-Shot model", "7.3", "13.6"),
]


def test_figure_columns_stacked_in_one_ruled_cell_are_read_as_columns(tmp_path: Path) -> None:
    """Rules above and under the header, above the last row and under it, one column rule after
    the labels, none between the two figure columns nor between the body's rows: main read the
    four rows' figures as one cell ("- 15.3" / "10.9 10.6" / ...)."""
    path = tmp_path / "stacked.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    top, xs = 700.0, (100.0, 190.0, 250.0)
    bounds = [top, top - PITCH, top - 5 * PITCH, top - 6 * PITCH]
    for k, row in enumerate(MULTILINGUAL):
        base = top - (k + 1) * PITCH + 3.5
        c.drawString(xs[0], base, row[0])
        for j in (1, 2):
            c.drawCentredString(xs[j] + 20, base, row[j])
    for y in bounds:
        c.line(96, y, 300, y)
    c.line(182, bounds[0], 182, bounds[-1])
    c.save()
    assert _parse(path)[0] == [MULTILINGUAL]


def test_guard_a_ruled_cell_listing_figures_beside_a_one_line_label_stays_one_cell(tmp_path: Path) -> None:
    """A bordered table whose second row's value cell lists three lines of figure pairs beside a
    one-line label (a list in one cell, not rows of their own): read as the grid draws it."""
    path = tmp_path / "listing.pdf"
    rows = [("Item", "Readings"), ("Pressure", "12 14"), ("Flow", "3.1 3.4"), ("Level", "7 9")]
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    top, heights = 700.0, (PITCH, PITCH, 3 * PITCH, PITCH)
    y = top
    for k, row in enumerate(rows):
        lines = ("12 14", "13 15", "11 16") if k == 2 else (row[1],)
        c.drawString(100, y - PITCH + 3.5, row[0])
        for n, text in enumerate(lines):
            c.drawString(190, y - (n + 1) * PITCH + 3.5, text)
        y -= heights[k]
    ys = [top - sum(heights[:k]) for k in range(len(heights) + 1)]
    for yy in ys:
        c.line(96, yy, 260, yy)
    for x in (96, 182, 260):
        c.line(x, ys[0], x, ys[-1])
    c.save()
    expected = [("Item", "Readings"), ("Pressure", "12 14"), ("Flow", "12 14 13 15 11 16"), ("Level", "7 9")]
    assert _parse(path)[0] == [expected]


PROSE = (
    "the pre-training data of each language predicts its zero-shot score closely, and a few",
    "languages with their own scripts stand apart from the line fitted to the others, which",
    "is why we report them on their own in the appendix; the tokenizer is another likely",
    "cause for those languages, as their text is split into many more tokens per word than",
    "the other languages are, and the model sees fewer words of them per hour of audio.",
    "We also report the translation results of the same models on the same language sets,",
)


def test_caption_under_a_table_takes_no_text_of_the_next_column(tmp_path: Path) -> None:
    """A two-column page: the caption under a table in the left column is set in 8 pt beside the
        right column's 10 pt prose, 15 pt across the gutter (the caption justified to its column's
    edge), on baselines a few points off. Main
        joined the two columns' lines into the caption (the title took the other column's words and
        the prose lost them)."""
    path = tmp_path / "caption.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    top = 700.0
    c.setFont(FONT, SIZE)
    for k, row in enumerate(
        [("Model", "Score", "Size"), ("Small", "10.9", "39"), ("Base", "9.7", "74"), ("Large", "7.3", "1550")]
    ):
        base = top - (k + 1) * PITCH + 3.5
        c.drawString(60, base, row[0])
        c.drawRightString(200, base, row[1])
        c.drawRightString(260, base, row[2])
    for y in (top, top - PITCH, top - 4 * PITCH):
        c.line(56, y, 266, y)
    caption = (
        "Table 3. Multilingual speech recognition. The zero-shot",
        "model improves on the supervised baselines in three",
    )
    c.setFont(FONT, 8)
    for k, line in enumerate(caption):  # justified to the column's edge, x 266
        words = line.split()
        widths = [stringWidth(w, FONT, 8) for w in words]
        space = (266 - 56 - sum(widths)) / (len(words) - 1)
        x = 56.0
        for word, width in zip(words, widths, strict=True):
            c.drawString(x, top - 4 * PITCH - 14 - k * 9.5, word)
            x += width + space
    c.setFont(FONT, 10)
    for k, line in enumerate(PROSE):
        c.drawString(281, top - 4 * PITCH - 10 - k * 11, line[:60])
    c.save()
    rows, titles, prose = _parse(path)
    assert titles == [" ".join(caption)]
    assert "languages with their own scripts stand apart" in " ".join(prose.split())


LEASES = [
    ("", "Capital Leases", "Operating Leases"),
    ("2004", "$ 44", "$ 1,368"),
    ("2005", "125", "1,285"),
    ("2006", "102", "1,192"),
    ("2007", "11", "1,155"),
    ("Thereafter", "238", "8,342"),
    ("", "520", "$13,342"),
    ("Less amount representing interest", "109", ""),
    ("Present value of net minimum lease payments", "$411", ""),
]
OPTIONS = [
    ("", "2003", "2002", "2001"),
    ("Dividend yield", ".3785%", "0%", "0%"),
    ("Expected volatility", "35%", "30%", "35%"),
    ("Risk-free interest rate", "4.017%", "4.777%", "6.419%"),
    ("Expected lives", "4 years", "4 years", "4 years"),
]
LEFT_PROSE = (
    "A summary of future minimum lease payments under capital",
    "leases and noncancelable operating leases with an initial or",
    "remaining term in excess of one year is as follows (in millions):",
)
RIGHT_PROSE = (
    "Beginning with the grants made on or after June 1, 1995, the",
    "fair value of each option grant was estimated on the grant date",
    "using the Black-Scholes option-pricing model. The weighted-",
    "average assumptions for each year's grants were as follows:",
)


def _leases(c: canvas.Canvas, top: float) -> None:
    """The lease table in the left column (x 60-300): a two-line header over a rule, year-labelled
    rows, a rule over and under the total, two worded rows, a rule under the last; no top rule."""
    c.setFont(FONT, SIZE)
    for x, (a, b) in ((255, ("Capital", "Leases")), (298, ("Operating", "Leases"))):
        c.drawRightString(x, top - 8, a)
        c.drawRightString(x, top - 16, b)
    y = top - 20
    c.line(60, y, 300, y)
    for k, row in enumerate(LEASES[1:]):
        base = y - 10 - k * PITCH
        c.drawString(60, base, row[0])
        c.drawRightString(255, base, row[1])
        if row[2]:
            c.drawRightString(298, base, row[2])
        if k in (4, 5, 7):  # over and under the total, under the last row
            c.line(60, base - 3, 300, base - 3)


def test_table_ruled_under_its_header_keeps_the_header_and_worded_rows(tmp_path: Path) -> None:
    """No rule above the header, a rule under it, rows labelled by years, a total, then two rows
    of words: main took the header rule for a top rule and cut the header off, and cut the two
    worded rows as a paragraph's words in the (year) label column."""
    path = tmp_path / "leases.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    for k, line in enumerate(LEFT_PROSE):
        c.drawString(60, 760 - k * 11, line)
    _leases(c, 720)
    c.save()
    assert _parse(path)[0] == [LEASES]


def test_two_tables_side_by_side_in_text_columns_sharing_a_line(tmp_path: Path) -> None:
    """Two text columns, a table in each; the right column's prose runs beside the left table down
    to the right table, whose header is on the line of the left table's total row ("520
    $13,342" beside "2003  2002  2001"). Main read that line whole across the gutter (no prose
    next to it): the left table ended above it, the right one lost its header."""
    path = tmp_path / "sides.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    for k, line in enumerate(LEFT_PROSE):
        c.drawString(60, 760 - k * 11, line)
    _leases(c, 720)
    header_base = 720 - 20 - 10 - 5 * PITCH  # the left table's total row
    for k, line in enumerate((RIGHT_PROSE * 3)[:11]):  # beside the left table, down to 20 pt above
        c.drawString(320, 760 - k * 11, line)
    for k, row in enumerate(OPTIONS):
        base = header_base - k * PITCH
        c.drawString(320, base, row[0])
        for j, x in ((1, 470), (2, 510), (3, 550)):
            c.drawRightString(x, base, row[j])
        if k == 0:
            c.line(320, base - 3, 552, base - 3)
    c.line(320, header_base - 4 * PITCH - 3, 552, header_base - 4 * PITCH - 3)
    for k, line in enumerate(LEFT_PROSE + LEFT_PROSE):
        c.drawString(60, 560 - k * 11, line)
    for k, line in enumerate(RIGHT_PROSE + RIGHT_PROSE):
        c.drawString(320, 560 - k * 11, line)
    c.save()
    assert _parse(path)[0] == [LEASES, OPTIONS]
