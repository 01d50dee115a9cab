"""parsers.pdf.tables.ruled regressions, each on a bordered table we draw ourselves with reportlab.

One test per general failure class found on third-party ruled tables (issue 3): a ruling line
drawn a little off in one row, stray short segments, rules drawn column by column on an unruled
table, spanning cells, a page with /Rotate, CJK cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pdfplumber
from reportlab.lib.pagesizes import letter
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas

from parsers.model import ParsedDocument
from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.pdf.tables import ruled as tables
from parsers.source import SourceFile

ROWS = [["Region", "Lamps", "Owner"], ["North ridge", "12", "Ada"], ["Valley", "7", "Bo"]]
XS = [100.0, 220.0, 300.0, 380.0]
YS = [700.0, 676.0, 652.0, 628.0]  # reportlab y grows upwards


def _fill(c: canvas.Canvas, rows: Sequence[Sequence[str]], font: str = "Helvetica") -> None:
    c.setFont(font, 10)
    for r, row in enumerate(rows):
        for k, text in enumerate(row):
            c.drawString(XS[k] + 4, YS[r] - 15, text)


def _grid(c: canvas.Canvas) -> None:
    for y in YS:
        c.line(XS[0], y, XS[-1], y)
    for x in XS:
        c.line(x, YS[0], x, YS[-1])


def _parse(path: Path) -> ParsedDocument:
    return pdf.parse(SourceFile.read(path), ParseOptions(ocr=False))[0]


def _tables(doc: ParsedDocument) -> list[list[list[str]]]:
    return [[list(r) for r in b.table.rows] for b in doc.blocks if b.table is not None]


def test_sliver_slots_are_found() -> None:
    assert tables.slivers([100.0, 220.0, 223.5, 300.0]) == {1}
    assert tables.slivers([0.0, 10.0, 20.0]) == set()


def test_line_drawn_off_in_one_row_keeps_columns_aligned(tmp_path: Path) -> None:
    """The inner line of the last row is 3.5 pt right of the rows above: that row's text used to
    land one column to the right of the rest (a sliver column appeared between them)."""
    path = tmp_path / "table-line-off-in-one-row.pdf"
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    for y in YS:
        c.line(XS[0], y, XS[-1], y)
    for x in (XS[0], XS[2], XS[3]):
        c.line(x, YS[0], x, YS[-1])
    c.line(XS[1], YS[0], XS[1], YS[2])
    c.line(XS[1] + 3.5, YS[2], XS[1] + 3.5, YS[3])
    _fill(c, ROWS)
    c.save()
    assert _tables(_parse(path)) == [ROWS]


def test_stray_short_segments_do_not_split_cells(tmp_path: Path) -> None:
    """A tick hanging from a border and an underline inside a cell are not ruling lines."""
    path = tmp_path / "table-stray-segments.pdf"
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    _grid(c)
    c.line(150, YS[0], 150, YS[0] - 6)  # tick from the top border, not reaching the next rule
    c.line(104, YS[1] - 17, 190, YS[1] - 17)  # underline under "North ridge"
    c.line(XS[2], YS[3] + 5, XS[2] + 30, YS[3] + 5)  # short stub off an inner line
    _fill(c, ROWS)
    c.save()
    assert _tables(_parse(path)) == [ROWS]


def test_rules_drawn_column_by_column_are_not_a_bordered_table(tmp_path: Path) -> None:
    """An unruled (stream) table whose horizontal rules are drawn one segment per column: the
    segment ends used to imply vertical frame lines and made a bogus grid of the header."""
    path = tmp_path / "stream-table-segmented-rules.pdf"
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    xs = [100.0 + 40 * k for k in range(9)]
    for y in (700.0, 676.0, 640.0, 604.0):
        for a, b in zip(xs, xs[1:], strict=False):
            c.line(a, y, b, y)
    c.setFont("Helvetica", 9)
    for k, x in enumerate(xs[:-1]):
        c.drawString(x + 6, 684, str(2011 + k))
        for r in range(4):
            c.drawString(x + 10, 664 - 18 * r, str(100 + 7 * k + r))
    c.save()
    # not a *bordered* table (parsers.pdf.tables.unruled may read it as a whitespace-aligned one)
    with pdfplumber.open(path) as doc:
        assert tables.find_tables(doc.pages[0]) == []


def test_spanning_cells_text_in_top_left_slot(tmp_path: Path) -> None:
    """A header spanning two columns and a cell spanning two rows: the text goes in the top-left
    slot of the span, the covered slots are empty, every row keeps the table's width."""
    path = tmp_path / "table-spanning-cells.pdf"
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    ys = [*YS, 604.0]
    for y in ys:
        c.line(XS[0] if y != YS[2] else XS[1], y, XS[-1], y)  # no rule under "North ridge"
    for x in (XS[0], XS[1], XS[3]):
        c.line(x, ys[0], x, ys[-1])
    c.line(XS[2], ys[1], XS[2], ys[-1])  # "Counts" spans the last two columns
    c.setFont("Helvetica", 10)
    for x, y, text in [
        (104, 686, "Region"),
        (250, 686, "Counts"),
        (224, 662, "Lamps"),
        (304, 662, "Poles"),
        (104, 640, "North ridge"),
        (224, 638, "12"),
        (304, 638, "3"),
        (224, 614, "7"),
        (304, 614, "4"),
        (104, 614, "Valley"),
    ]:
        c.drawString(x, y, text)
    c.save()
    assert _tables(_parse(path)) == [
        [
            ["Region", "Counts", ""],
            ["North ridge", "Lamps", "Poles"],
            ["", "12", "3"],
            ["Valley", "7", "4"],
        ]
    ]


def test_table_on_page_with_rotate_attribute(tmp_path: Path) -> None:
    """A landscape page stored portrait with /Rotate 90, its table drawn sideways so that it reads
    upright on screen, and a /Rotate 90 page with an upright-drawn table: both come out as rows.
    (Both are moved onto the page: they were drawn outside the media box, at negative x and at
    y 628-700 of a 612 pt high box, where a viewer shows nothing and the parser now drops them.)"""
    for name, turn in (("table-rotate-90-landscape.pdf", True), ("table-rotate-90.pdf", False)):
        path = tmp_path / name
        c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
        c.setPageRotation(90)
        if turn:
            c.translate(750, 100)
            c.rotate(90)
        else:
            c.translate(0, -200)  # reportlab stores this page's media box as 792 x 612
        _grid(c)
        _fill(c, ROWS)
        c.save()
        assert _tables(_parse(path)) == [ROWS], name


def test_chinese_cells(tmp_path: Path) -> None:
    """CJK cells: no spaces invented between ideographs, real spaces kept."""
    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    rows = [["地区", "灯数", "负责人"], ["北山脊", "12", "王小明"], ["山谷 东区", "7", "李华"]]
    path = tmp_path / "table-chinese-cells.pdf"
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    _grid(c)
    _fill(c, rows, font="STSong-Light")
    c.save()
    assert _tables(_parse(path)) == [rows]


def test_sideways_column_label_reads_as_one_line(tmp_path: Path) -> None:
    """Column labels printed sideways in an upright table (either direction) used to come out one
    letter per line, backwards."""
    path = tmp_path / "table-sideways-column-labels.pdf"
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    ys = [700.0, 640.0, 616.0, 592.0]
    for y in ys:
        c.line(XS[0], y, XS[-1], y)
    for x in XS:
        c.line(x, ys[0], x, ys[-1])
    c.setFont("Helvetica", 10)
    c.drawString(104, 680, "Region")
    for x, y, angle, text in ((255.0, 645.0, 90, "Lamps lit"), (345.0, 695.0, -90, "Owner")):
        c.saveState()
        c.translate(x, y)
        c.rotate(angle)
        c.drawString(0, 0, text)
        c.restoreState()
    for r, row in enumerate(ROWS[1:]):
        for k, text in enumerate(row):
            c.drawString(XS[k] + 4, ys[r + 1] - 15, text)
    c.save()
    assert _tables(_parse(path)) == [[["Region", "Lamps lit", "Owner"], *ROWS[1:]]]


def test_overprinted_fake_bold_is_read_once(tmp_path: Path) -> None:
    """A header drawn twice 0.3 pt apart (fake bold) used to read "RReeggiioonn"."""
    path = tmp_path / "table-overprinted-header.pdf"
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    _grid(c)
    _fill(c, ROWS)
    for k, text in enumerate(ROWS[0]):
        c.drawString(XS[k] + 4.3, YS[0] - 15, text)
    c.save()
    assert _tables(_parse(path)) == [ROWS]


def test_dedupe_keeps_real_double_letters() -> None:
    chars = [
        {"text": "l", "x0": 0.0, "x1": 2.2, "top": 0.0, "bottom": 10.0},
        {"text": "l", "x0": 2.2, "x1": 4.4, "top": 0.0, "bottom": 10.0},
        {"text": "l", "x0": 2.5, "x1": 4.7, "top": 0.1, "bottom": 10.1},
    ]
    assert [c["x0"] for c in tables.dedupe_chars(chars)] == [0.0, 2.2]


def test_open_frame_table_with_a_tall_row(tmp_path: Path) -> None:
    """No left/right border and a last row 72 pt tall: the implied outer lines used to stop at the
    last short row, losing the tall row's first and last cells."""
    path = tmp_path / "table-open-frame-tall-row.pdf"
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    ys = [700.0, 676.0, 652.0, 580.0]
    for y in ys:
        c.line(XS[0], y, XS[-1], y)
    for x in XS[1:-1]:
        c.line(x, ys[0], x, ys[-1])
    c.setFont("Helvetica", 10)
    rows = [*ROWS[:2], ["Valley", "7", "Bo"]]
    for r, row in enumerate(rows):
        for k, text in enumerate(row):
            c.drawString(XS[k] + 4, ys[r] - 15 - (30 if r == 2 else 0), text)
    c.drawString(XS[2] + 4, ys[2] - 60, "and Cy")
    c.save()
    assert _tables(_parse(path)) == [[*ROWS[:2], ["Valley", "7", "Bo\nand Cy"]]]


def _group_header_table(c: canvas.Canvas) -> None:
    """ "Counts" over four sub-columns, with no rule under it: only the sub-column lines start
    there (as where a header row is set off by a fill colour, not a line)."""
    xs = [100.0, 180.0, 240.0, 300.0, 360.0, 420.0]
    ys = [700.0, 682.0, 664.0, 640.0]
    for y in (ys[0], ys[2], ys[3]):
        c.line(xs[0], y, xs[-1], y)
    for x in (xs[0], xs[1], xs[-1]):
        c.line(x, ys[0], x, ys[-1])
    for x in xs[2:-1]:
        c.line(x, ys[1], x, ys[-1])
    c.setFont("Helvetica", 10)
    c.drawString(104, 670, "Region")
    c.drawString(270, 688, "Counts")
    for x, text in zip(xs[1:], ["Lamps", "Poles", "Masts", "Huts"], strict=False):
        c.drawString(x + 4, 668, text)
    for x, text in zip(xs, ["North ridge", "12", "3", "1", "0"], strict=False):
        c.drawString(x + 4, 648, text)


GROUP_ROWS = [
    ["Region", "Counts", "", "", ""],
    ["", "Lamps", "Poles", "Masts", "Huts"],
    ["North ridge", "12", "3", "1", "0"],
]


def test_column_group_without_a_rule_under_its_label(tmp_path: Path) -> None:
    """The sub-column lines imply the missing rule under the group label, reaching on to the
    group's borders so its last sub-column is closed too; upright and printed sideways alike."""
    for name, angle in (("table-group-header.pdf", 0), ("table-group-header-sideways.pdf", 90)):
        path = tmp_path / name
        c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
        if angle:
            c.translate(900, 200)
            c.rotate(angle)
        _group_header_table(c)
        c.save()
        assert _tables(_parse(path)) == [GROUP_ROWS], name


def test_text_in_a_gap_no_cell_covers_goes_to_the_nearest_cell() -> None:
    cells = [tables.GridCell(0, 0, 1, 1, (0, 0, 50, 20)), tables.GridCell(1, 0, 1, 1, (0, 30, 50, 50))]
    stray = {"text": "x", "x0": 10.0, "x1": 15.0, "top": 21.0, "bottom": 26.0}  # between the cells
    assert tables.assign_chars([stray], cells) == [[stray], []]


def test_chart_gridlines_are_not_a_table(tmp_path: Path) -> None:
    """A bar chart's framed gridlines with a value label on a few bars: a grid of cells, almost all
    empty, used to come out as a table (and its labels vanished from the text)."""
    path = tmp_path / "bar-chart-gridlines.pdf"
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    xs = [200.0 + 30 * k for k in range(11)]
    ys = [700.0 - 20 * r for r in range(8)]
    for x in xs:
        c.line(x, ys[0], x, ys[-1])
    for y in (ys[0], ys[-1]):
        c.line(xs[0], y, xs[-1], y)
    for r in range(7):
        c.line(xs[0], ys[r] - 5, xs[0] + 40 + 25 * r, ys[r] - 5)  # bars as rules: more edges
        c.line(xs[0], ys[r] - 15, xs[0] + 40 + 25 * r, ys[r] - 15)
        c.drawString(xs[1] + 5, ys[r] - 13, str(40 + 9 * r))
    c.save()
    doc = _parse(path)
    assert _tables(doc) == []
    assert "58" in " ".join(b.text for b in doc.blocks)


def _dashed(c: canvas.Canvas, x0: float, y0: float, x1: float, y1: float, dash: float = 4.0) -> None:
    """A rule drawn as separate segments, ``dash`` on and ``dash`` off (as some generators do)."""
    length = max(abs(x1 - x0), abs(y1 - y0))
    a = 0.0
    while a < length:
        b = min(a + dash, length)
        c.line(
            x0 + (x1 - x0) * a / length,
            y0 + (y1 - y0) * a / length,
            x0 + (x1 - x0) * b / length,
            y0 + (y1 - y0) * b / length,
        )
        a += 2 * dash


def test_rules_drawn_dash_by_dash(tmp_path: Path) -> None:
    """A grid whose rules are runs of separate 4 pt dashes 4 pt apart used to give no table."""
    path = tmp_path / "table-dashed-rules.pdf"
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    for y in YS:
        _dashed(c, XS[0], y, XS[-1], y)
    for x in XS:
        _dashed(c, x, YS[0], x, YS[-1])
    _fill(c, ROWS)
    c.save()
    assert _tables(_parse(path)) == [ROWS]


def test_boxes_drawn_over_free_text_are_not_a_table(tmp_path: Path) -> None:
    """A grid of boxes laid over running text that they cut through mid-word (an infographic)."""
    path = tmp_path / "boxes-over-text.pdf"
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    xs = [100.0 + 50 * k for k in range(7)]
    ys = [700.0 - 30 * r for r in range(4)]
    for y in ys:
        c.line(xs[0], y, xs[-1], y)
    for x in xs:
        c.line(x, ys[0], x, ys[-1])
    c.setFont("Helvetica", 10)
    for r, line in enumerate(
        ["Lumen lamps light the northern ridge", "Valley crews maintain every pole", "Huts"]
    ):
        c.drawString(xs[0] + 20, ys[r] - 18, line)
    c.save()
    doc = _parse(path)
    assert _tables(doc) == []
    assert "northern ridge" in " ".join(b.text for b in doc.blocks)


def test_open_frame_table_next_to_a_framed_one(tmp_path: Path) -> None:
    """A table without outer verticals 30 pt above a taller framed table at the same x: one
    implied frame line's run reached over both, the framed table's border covered most of it, and
    no line was implied, so the open table lost its first and last columns."""
    path = tmp_path / "open-frame-above-framed-table.pdf"
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    c.setFont("Helvetica", 10)
    for top, framed, n in ((760.0, False, 4), (658.0, True, 6)):  # 30 pt between the two tables
        ys = [top - 24 * k for k in range(n)]
        for y in ys:
            c.line(XS[0], y, XS[-1], y)
        for x in XS if framed else XS[1:-1]:  # the open table: inner verticals only
            c.line(x, ys[0], x, ys[-1])
        for r, row in enumerate(ROWS + ROWS[1:] if framed else ROWS):
            for k, text in enumerate(row):
                c.drawString(XS[k] + 4, ys[r] - 15, text)
    c.save()
    with pdfplumber.open(path) as doc:
        found = tables.find_tables(doc.pages[0])
    assert [[list(r) for r in t.table.rows] for t in found] == [ROWS, ROWS + ROWS[1:]]


def test_boxes_drawn_around_prose_lines_are_not_a_table(tmp_path: Path) -> None:
    """Each prose line in a box of its own, the boxes sharing a second, empty column (a page
    drawn that way by its tool): the grid is two columns wide but only one holds text, so it is
    framed prose; its lines stay prose, none is lost."""
    path = tmp_path / "boxed-prose-lines.pdf"
    lines = [
        "The harbour pilots board every inbound vessel at the outer buoy before dawn.",
        "Their launches keep station in heavy swell while the ladder is rigged amidships.",
        "A pilot who misses the ladder waits for the next ship in the anchorage queue.",
        "Tug masters follow the pilot's orders until the vessel is alongside the quay.",
    ]
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    c.setFont("Helvetica", 10)
    top, height, x0, x_text_end, x1 = 700.0, 18.0, 72.0, 470.0, 480.0
    for i, text in enumerate(lines):
        y = top - i * height
        c.rect(x0, y - height, x_text_end - x0, height)
        c.rect(x_text_end, y - height, x1 - x_text_end, height)
        c.drawString(x0 + 3, y - 13, text)
    c.showPage()
    c.save()
    with pdfplumber.open(path) as document:
        assert tables.find_tables(document.pages[0]) == []
    doc = _parse(path)
    assert _tables(doc) == []
    prose = " ".join(b.text for b in doc.blocks)
    assert all(text in prose for text in lines)
