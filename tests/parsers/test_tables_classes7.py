"""Table layouts of issue 24 (session 12, second round), drawn anew with reportlab (no dev-set page
copied) and read through the PDF parser: a market report's frame split by a rule into a table
(rules under its header and its section rows only, so the ruled bands hold many lines of aligned
figures and are read again for columns) and a panel of boxed charts beside it, whose axis labels
and legends were read into the table; a statistical table's long title (twelve words) set in
larger type on a coloured band inset in its first ruled row, read as a row. The behaviour tests
failed on main's code (1f63dcd); the guards (named so) pass on both."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from reportlab.lib.pagesizes import A4, landscape
from reportlab.pdfgen import canvas

from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.pdf.page_reader import chart_boxes
from parsers.source import SourceFile

WIDTH, HEIGHT = landscape(A4)
FONT, SIZE = "Helvetica", 9
XS = (40.0, 230.0, 310.0, 390.0)  # the table's column starts; its frame ends at PANEL
PANEL, RIGHT = 480.0, 780.0
PITCH = 13.0
HEADER = ("", "This week", "Last week", "Year ago")
SECTIONS = (
    (
        "Wheat ($/bu)",
        (
            ("Kansas City", "6.12", "6.05", "7.40"),
            ("Minneapolis", "6.80", "6.71", "8.02"),
            ("Portland", "6.95", "6.90", "8.15"),
            ("St. Louis", "5.88", "5.80", "7.11"),
            ("Chicago", "5.91", "5.84", "7.20"),
        ),
    ),
    (
        "Corn ($/bu)",
        (
            ("Omaha", "4.10", "4.02", "5.55"),
            ("Des Moines", "4.05", "3.98", "5.49"),
            ("Decatur", "4.31", "4.25", "5.80"),
            ("Memphis", "4.44", "4.40", "5.92"),
            ("Toledo", "4.20", "4.11", "5.66"),
        ),
    ),
    (
        "Soybeans ($/bu)",
        (
            ("Decatur", "11.90", "11.75", "13.40"),
            ("Memphis", "12.02", "11.88", "13.61"),
            ("Toledo", "11.71", "11.60", "13.22"),
            ("Kansas City", "11.55", "11.49", "13.05"),
            ("Omaha", "11.48", "11.40", "12.98"),
        ),
    ),
)


def _chart(c: canvas.Canvas, box: tuple[float, float, float, float], title: str) -> None:
    """A boxed line chart: a title, a plot area with gridlines, value labels on its left, month
    initials under it, a plotted series (one path of 12 points) and a legend line."""
    x0, y0, x1, y1 = box  # reportlab's coordinates: y up
    c.rect(x0, y0, x1 - x0, y1 - y0)
    c.drawString(x0 + 60, y1 - 14, title)
    px0, py0, px1, py1 = x0 + 40, y0 + 30, x1 - 12, y1 - 24
    c.rect(px0, py0, px1 - px0, py1 - py0)
    for k, label in enumerate(("1.20", "1.40", "1.60", "1.80")):
        y = py0 + k * (py1 - py0) / 3
        c.line(px0, y, px1, y)
        c.drawString(x0 + 12, y - 3, label)
    step = (px1 - px0) / 11
    for k, month in enumerate("JFMAMJJASOND"):
        c.drawString(px0 + k * step - 2, py0 - 12, month)
    path = c.beginPath()
    values = (0.2, 0.5, 0.4, 0.8, 0.6, 0.9, 0.7, 0.3, 0.5, 0.6, 0.4, 0.7)
    for k, v in enumerate(values):
        point = (px0 + k * step, py0 + v * (py1 - py0))
        if k == 0:
            path.moveTo(*point)
        else:
            path.lineTo(*point)
    c.drawPath(path, stroke=1, fill=0)
    c.line(px0 + 20, y0 + 6, px0 + 40, y0 + 6)
    c.drawString(px0 + 44, y0 + 3, "2024")


def _report(path: Path, charts: bool) -> list[tuple[str, ...]]:
    """The frame: the table left of a full-height rule at PANEL, ruled under its header and under
    each section label only; with ``charts`` the panel right of the rule holds two boxed charts.
    Returns the table's rows as printed."""
    c = canvas.Canvas(str(path), pagesize=(WIDTH, HEIGHT))
    c.setFont(FONT, SIZE)
    c.setLineWidth(0.6)
    top = HEIGHT - 60
    rows: list[tuple[str, ...]] = [HEADER]
    y = top - PITCH
    rules = [top, y - 4]
    for k, text in enumerate(HEADER):
        c.drawString(XS[k] + 3, y, text)
    y -= PITCH + 2
    for label, body in SECTIONS:
        c.drawString(XS[0] + 3, y, label)
        rows.append((label, "", "", ""))
        rules.append(y - 4)
        y -= PITCH + 2
        for values in body:
            for k, text in enumerate(values):
                c.drawString(XS[k] + (3 if k == 0 else 20), y, text)
            rows.append(values)
            y -= PITCH
        y -= 2
    bottom = y + PITCH - 6
    for r in rules:
        c.line(XS[0] - 4, r, PANEL, r)
    c.rect(XS[0] - 4, bottom, RIGHT - XS[0] + 4, top - bottom)
    c.line(PANEL, bottom, PANEL, top)
    if charts:
        middle = (top + bottom) / 2
        _chart(c, (PANEL + 6, middle + 4, RIGHT - 6, top - 6), "Kansas City Wheat")
        _chart(c, (PANEL + 6, bottom + 6, RIGHT - 6, middle - 4), "Omaha Corn")
    c.save()
    return rows


def _tables(path: Path) -> list[list[tuple[str, ...]]]:
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    return [[tuple(r) for r in (*b.table.header, *b.table.body)] for b in doc.blocks if b.table is not None]


def test_charts_boxed_beside_a_framed_table_are_no_columns(tmp_path: Path) -> None:
    path = tmp_path / "report.pdf"
    rows = _report(path, charts=True)
    assert _tables(path) == [rows]


def test_guard_the_same_frame_without_charts_reads_the_same_table(tmp_path: Path) -> None:
    path = tmp_path / "report.pdf"
    rows = _report(path, charts=False)
    assert _tables(path) == [rows]


def _page(curves: list[dict[str, object]], rects: list[dict[str, object]]) -> SimpleNamespace:
    return SimpleNamespace(curves=curves, rects=rects)


def _box(x0: float, top: float, x1: float, bottom: float, **extra: object) -> dict[str, object]:
    return {"x0": x0, "top": top, "x1": x1, "bottom": bottom, **extra}


def test_guard_only_boxes_holding_a_plotted_line_inside_the_frame_are_charts() -> None:
    frame = (0.0, 0.0, 500.0, 400.0)
    series = _box(320, 40, 480, 140, pts=[(320 + 15 * k, 40 + (k % 3) * 30) for k in range(11)])
    corner = _box(20, 200, 40, 220, pts=[(20, 220), (20, 205), (25, 200), (40, 200)])  # a rounded corner
    chart, cell, outside = _box(300, 20, 490, 160), _box(10, 190, 200, 260), _box(520, 20, 700, 160)
    whole = _box(0, 0, 500, 400)  # the frame drawn as one box holds the chart too
    page = _page([series, corner], [whole, chart, cell, outside])
    assert chart_boxes(page, frame) == [(300.0, 20.0, 490.0, 160.0)]
    assert chart_boxes(_page([corner], [chart, cell]), frame) == []


TITLE = "Rate of Accidental Deaths and Suicides and Population Growth, 1967 to 1969"
YEARS = (
    ("1967", "4999", "126762", "25.4"),
    ("1968", "5111", "126232", "24.7"),
    ("1969", "5225", "130755", "25.0"),
)


def _titled(path: Path, title_size: float) -> list[tuple[str, ...]]:
    """A ruled grid whose first row is one cell over the whole width holding TITLE in bold type of
    ``title_size`` on a coloured band that stops 2.5 pt short of the row's bottom rule; a header
    row and three rows of figures in 8 pt type under it. Returns the rows under the title."""
    xs, row, top = (60.0, 160.0, 260.0, 380.0, 520.0), 20.0, A4[1] - 100
    header = ("Year", "Population", "Incidence", "Rate")
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFillColorRGB(0.5, 0.1, 0.5)
    c.rect(xs[0], top - row + 2.5, xs[-1] - xs[0], row - 2.5, stroke=0, fill=1)
    c.setFillColorRGB(1, 1, 1)
    c.setFont("Helvetica-Bold", title_size)
    c.drawCentredString((xs[0] + xs[-1]) / 2, top - 14, TITLE)
    c.setFillColorRGB(0, 0, 0)
    c.setFont("Helvetica", 8)
    body = [header, *YEARS]
    n = len(body) + 1
    for k in range(n + 1):
        c.line(xs[0], top - k * row, xs[-1], top - k * row)
    for x in (xs[0], xs[-1]):
        c.line(x, top, x, top - n * row)
    for x in xs[1:-1]:
        c.line(x, top - row, x, top - n * row)
    for r, values in enumerate(body, start=1):
        for k, text in enumerate(values):
            c.drawString(xs[k] + 4, top - r * row - 13, text)
    c.save()
    return body


def _blocks(path: Path) -> list[tuple[str | None, list[tuple[str, ...]]]]:
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    return [
        (b.table.title, [tuple(r) for r in (*b.table.header, *b.table.body)])
        for b in doc.blocks
        if b.table is not None
    ]


def test_long_title_in_larger_type_on_an_inset_band_is_the_title(tmp_path: Path) -> None:
    path = tmp_path / "titled.pdf"
    body = _titled(path, title_size=10.0)
    assert _blocks(path) == [(TITLE, body)]


def test_guard_the_long_line_in_the_tables_own_type_stays_a_row(tmp_path: Path) -> None:
    path = tmp_path / "titled.pdf"
    body = _titled(path, title_size=8.0)
    ((title, rows),) = _blocks(path)
    assert title != TITLE
    assert rows == [(TITLE, "", "", ""), *body]
