"""Table layouts of issue 24 (session 18, second helper), drawn anew with reportlab (no dev-set page
copied) and read through the PDF parser: a quote's head (address blocks beside a column of
"label : value" lines) over its item grid, a thin space between figures and their currency or
percent signs, a Han column label wrapped over two lines (and a Han cell wrapped in a grid), and a
line of units in parentheses set with open leading under its labels. Each test failed on the code
of branch tables33 (3679b44)."""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

from tests.parsers.drawn import Rows, parsed_rows

SERIF = Path("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf")  # has € and the Latin-1 letters
PROSE = "The figures below were read from the ledger of the year and checked against each account."


def _serif() -> str:
    pdfmetrics.registerFont(TTFont("DejaVuSerif", str(SERIF)))
    return "DejaVuSerif"


def _grid(c: canvas.Canvas, xs: tuple[float, ...], top: float, rows: int, pitch: float) -> None:
    """A bordered grid: a rule over every row and under the last, a rule at every column edge."""
    for r in range(rows + 1):
        c.line(xs[0], top - r * pitch, xs[-1], top - r * pitch)
    for x in xs:
        c.line(x, top, x, top - rows * pitch)


ITEMS: Rows = [
    ("Item", "Quantity", "Unit price", "Total"),
    ("Lamp shade", "2", "25,00 €", "50,00 €"),
    ("Brass hook", "10", "1,50 €", "15,00 €"),
]


def _figure_and_sign(c: canvas.Canvas, font: str, size: float, x1: float, y: float, text: str) -> None:
    """``text`` ("25,00 €") set flush right at ``x1`` with a thin space (1/6 em) for its space,
    as TeX's ``\\,`` and French typesetting set a figure and its unit sign, no space glyph."""
    figure, sign = text.split(" ")
    thin = size / 6
    sign_w = c.stringWidth(sign, font, size)
    c.drawString(x1 - sign_w, y, sign)
    c.drawString(x1 - sign_w - thin - c.stringWidth(figure, font, size), y, figure)


def _items(c: canvas.Canvas, font: str, top: float) -> None:
    """``ITEMS`` in a bordered grid, labels left, figures flush right with thin spaces."""
    xs = (60.0, 200.0, 290.0, 400.0, 520.0)
    _grid(c, xs, top, len(ITEMS), 20.0)
    c.setFont(font, 10)
    for r, row in enumerate(ITEMS):
        y = top - r * 20.0 - 14
        c.drawString(xs[0] + 5, y, row[0])
        for k, text in enumerate(row[1:], start=1):
            if " " in text and text[-1] in "€%":
                _figure_and_sign(c, font, 10, xs[k + 1] - 5, y, text)
            else:
                c.drawRightString(xs[k + 1] - 5, y, text)


def test_figures_keep_a_thin_space_before_their_currency_sign(tmp_path: Path) -> None:
    """ "25,00 €" set with a 1.7 pt space (1/6 em) and no space glyph reads as the page shows it,
    not "25,00€": a gap between a figure and its unit sign that the word gap (0.2 em) misses."""
    pdf = tmp_path / "thin.pdf"
    font = _serif()
    c = canvas.Canvas(str(pdf), pagesize=A4, invariant=1)
    c.setFont(font, 10)
    for k in range(3):
        c.drawString(60, 760 - 14 * k, PROSE)
    _items(c, font, 700.0)
    c.showPage()
    c.save()
    assert parsed_rows(pdf) == [ITEMS]


def test_percent_sign_after_a_thin_space_is_apart(tmp_path: Path) -> None:
    """ "5,50 %" with a thin space reads "5,50 %"; "12%" set tight stays one word."""
    pdf = tmp_path / "percent.pdf"
    font = _serif()
    rows: Rows = [("Rate", "Reduced", "Standard"), ("VAT", "5,50 %", "20%"), ("Duty", "2,10 %", "12%")]
    c = canvas.Canvas(str(pdf), pagesize=A4, invariant=1)
    xs = (60.0, 200.0, 300.0, 400.0)
    _grid(c, xs, 700.0, len(rows), 20.0)
    c.setFont(font, 10)
    for r, row in enumerate(rows):
        y = 700.0 - r * 20.0 - 14
        c.drawString(xs[0] + 5, y, row[0])
        for k, text in enumerate(row[1:], start=1):
            if " " in text:
                _figure_and_sign(c, font, 10, xs[k + 1] - 5, y, text)
            else:
                c.drawRightString(xs[k + 1] - 5, y, text)
    c.showPage()
    c.save()
    assert parsed_rows(pdf) == [rows]


def test_quote_head_beside_its_address_blocks_is_no_table(tmp_path: Path) -> None:
    """A quote's head: two address blocks (a heading over two or three lines) beside a column of
    "label : value" lines, aligned like three columns of text, over the item grid. The head is no
    table; the grid is the only one."""
    pdf = tmp_path / "quote.pdf"
    font = _serif()
    c = canvas.Canvas(str(pdf), pagesize=A4, invariant=1)
    c.setFont(font, 16)
    c.drawString(440, 780, "Quote")
    c.setFont(font, 10)
    blocks = (
        (60.0, ("Billing", "Ada Lovelace Hill Street", "NW1 LONDON")),
        (220.0, ("Delivery", "Ada Lovelace", "Hill Street", "NW1 LONDON")),
        (380.0, ("Date : 12 April 2024", "Quote no 24", "Client code : Ent", "Pay before : 12 May 2024")),
    )
    for x, lines in blocks:
        for k, line in enumerate(lines):
            c.drawString(x, 740 - 12 * k, line)
    _items(c, font, 680.0)
    c.showPage()
    c.save()
    assert parsed_rows(pdf) == [ITEMS]


def _three_line(
    c: canvas.Canvas,
    xs: tuple[float, ...],
    top: float,
    header: list[tuple[str, ...]],
    lead: float,
    body: Rows,
) -> None:
    """A three-line table: a top rule, header lines ``lead`` apart (baseline to baseline), a rule,
    the body rows, a bottom rule; labels centred over their columns."""
    c.line(xs[0] - 20, top, xs[-1] + 40, top)
    y = top - 14
    for line in header:
        for x, text in zip(xs, line, strict=True):
            if text:
                c.drawCentredString(x, y, text)
        y -= lead
    y += lead - 6
    c.line(xs[0] - 20, y, xs[-1] + 40, y)
    for row in body:
        y -= 15
        for x, text in zip(xs, row, strict=True):
            c.drawCentredString(x, y, text)
    c.line(xs[0] - 20, y - 6, xs[-1] + 40, y - 6)


def test_han_label_wrapped_over_two_lines_joins_without_a_space(tmp_path: Path) -> None:
    """A Chinese column label wrapped inside its column ("正常运行" / "时间 (s)") is one label with
    no space at the wrap, as wrapped Han prose is joined (``text_layout.join_lines``)."""
    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    pdf = tmp_path / "han.pdf"
    c = canvas.Canvas(str(pdf), pagesize=A4, invariant=1)
    c.setFont("STSong-Light", 10)
    c.drawCentredString(300, 750, "表 3.6 测试程序的运行时间")
    xs = (120.0, 220.0, 320.0, 420.0)
    header = [("测试程序", "正常运行", "同步", "检查点"), ("", "时间 (s)", "时间 (s)", "时间 (s)")]
    body: Rows = [
        ("CG.A.2", "23.05", "0.002", "0.116"),
        ("CG.A.4", "15.06", "0.003", "0.067"),
        ("CG.A.8", "13.38", "0.004", "0.072"),
        ("CG.B.2", "867.45", "0.002", "0.864"),
    ]
    _three_line(c, xs, 735.0, header, 13.0, body)
    c.showPage()
    c.save()
    assert parsed_rows(pdf) == [[("测试程序", "正常运行时间 (s)", "同步时间 (s)", "检查点时间 (s)"), *body]]


def test_unit_line_under_open_leading_joins_its_labels(tmp_path: Path) -> None:
    """Column labels over a line of units in parentheses set with open leading (7 pt type, 11 pt
    of white between the lines: a deluxetable's header), an exponent raised in each unit: each
    label and its unit are one header cell, and the exponents are no figures."""
    pdf = tmp_path / "units.pdf"
    c = canvas.Canvas(str(pdf), pagesize=A4, invariant=1)
    c.setFont("Times-Roman", 10)
    for k in range(3):
        c.drawString(100, 780 - 13 * k, PROSE)
    xs = (160.0, 240.0, 320.0, 400.0)
    top = 730.0
    c.line(xs[0] - 30, top, xs[-1] + 40, top)
    c.setFont("Times-Roman", 7)
    for x, label in zip(xs, ("Model", "Component", "Shift", "FWHM"), strict=True):
        c.drawCentredString(x, top - 10, label)
    for x in xs[2:]:  # "(km s" + raised "-1" + ")", 18 pt below the labels' baseline
        y = top - 28
        width = c.stringWidth("(km s", "Times-Roman", 7) + c.stringWidth("-1", "Times-Roman", 5) + 2.5
        left = x - width / 2
        c.drawString(left, y, "(km s")
        c.setFont("Times-Roman", 5)
        c.drawString(left + c.stringWidth("(km s", "Times-Roman", 7), y + 3, "-1")
        c.setFont("Times-Roman", 7)
        c.drawString(left + width - 2.5, y, ")")
    c.line(xs[0] - 30, top - 33, xs[-1] + 40, top - 33)
    body: Rows = [
        ("Model 1", "BELs", "-97.13", "9117±38"),
        ("", "IELs", "-4049.12", "1974±22"),
        ("Model 2", "BELs", "-85.02", "8991±41"),
        ("", "IELs", "-510.06", "2025±26"),
    ]
    y = top - 33
    for row in body:
        y -= 11
        for x, text in zip(xs, row, strict=True):
            c.drawCentredString(x, y, text)
    c.line(xs[0] - 30, y - 5, xs[-1] + 40, y - 5)
    c.setFont("Times-Roman", 10)
    for k in range(3):
        c.drawString(100, y - 30 - 13 * k, PROSE)
    c.showPage()
    c.save()
    assert parsed_rows(pdf) == [[("Model", "Component", "Shift (km s-1)", "FWHM (km s-1)"), *body]]


def test_han_cell_wrapped_in_a_grid_joins_without_a_space(tmp_path: Path) -> None:
    """A bordered grid's Han cell wrapped over two lines ("为替换算" / "调整勘定") reads as one word,
    as the same wrap in an unruled table and in prose; a Latin cell's wrap keeps its space."""
    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    pdf = tmp_path / "grid.pdf"
    c = canvas.Canvas(str(pdf), pagesize=A4, invariant=1)
    xs = (100.0, 220.0, 320.0)
    _grid(c, xs, 700.0, 3, 30.0)
    c.setFont("STSong-Light", 10)
    cells = [(("项目",), ("金额",)), (("为替换算", "调整勘定"), ("1,250",)), (("Net", "income"), ("3,400",))]
    for r, row in enumerate(cells):
        for k, lines in enumerate(row):
            for i, text in enumerate(lines):
                c.drawString(xs[k] + 5, 700.0 - r * 30.0 - 12 - 12 * i, text)
    c.showPage()
    c.save()
    assert parsed_rows(pdf) == [[("项目", "金额"), ("为替换算调整勘定", "1,250"), ("Net income", "3,400")]]
