"""Multi-row headers of statistical tables (issue 24), drawn here with reportlab, read through the
real parser (pdfplumber + the ruled and unruled detectors), compared cell by cell.

The shape: "State" and "n" span both header rows with their text centred vertically, a group
label "Literacy Status" spans six columns in the first header row over six sub-labels in the
second, one sub-label wraps onto two lines ("Read &" / "Write"). Columns are ruled, body rows are
not (one ruled band holds every data row), so the rows of the body come from the text and the
rows of the header from the rules. Drawn booktabs-style (horizontal rules only, a partial rule
under the group label) it is an unruled table whose header rows the partial rule gives."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from parsers.model import Table
from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.pdf.tables import header, ruled, ruled_rows, unruled_header
from parsers.pdf.tables.unruled_cells import Word
from parsers.source import SourceFile

H = A4[1]
XS = [40.0, 110.0, 150.0, 210.0, 270.0, 330.0, 390.0, 450.0, 510.0]
SUB: list[Sequence[str]] = [
    ["Illiterate"],
    ["Read &", "Write"],
    ["Primary"],
    ["Middle"],
    ["Secondary"],
    ["Graduate"],
]
HEADER = (
    ("State", "n", "Literacy Status", "", "", "", "", ""),
    ("", "", "Illiterate", "Read &\nWrite", "Primary", "Middle", "Secondary", "Graduate"),
)
NAMES = ("State", "n", *(f"Literacy Status / {' '.join(s)}" for s in SUB))
LINE = 10.0  # line pitch of 9 pt text


def body_rows(n: int, first: int = 1) -> list[tuple[str, ...]]:
    return [
        (f"State {i}", str(100 + i), *(f"{10 * i + k}.{k}" for k in range(6)))
        for i in range(first, first + n)
    ]


class Drawing:
    def __init__(self, c: canvas.Canvas) -> None:
        self.c = c
        c.setFont("Helvetica", 9)

    def hline(self, x0: float, x1: float, y: float) -> None:
        self.c.line(x0, H - y, x1, H - y)

    def vline(self, x: float, top: float, bottom: float) -> None:
        self.c.line(x, H - top, x, H - bottom)

    def text(self, x0: float, x1: float, top: float, bottom: float, lines: Sequence[str], how: str) -> None:
        """Lines centred across x0..x1; vertically centred in top..bottom or set at its bottom."""
        height = len(lines) * LINE
        start = (top + bottom - height) / 2 if how == "centre" else bottom - 3 - height
        for i, line in enumerate(lines):
            width = self.c.stringWidth(line, "Helvetica", 9)
            self.c.drawString((x0 + x1 - width) / 2, H - (start + (i + 0.8) * LINE), line)


def draw_literacy(
    c: canvas.Canvas, top: float, rows: Sequence[Sequence[str]], sub_align: str, rules: str
) -> float:
    """The table at ``top``; ``rules``: "columns" (verticals, header rules, no rules between body
    rows), "grid" (every row ruled too), "booktabs" (horizontal rules only: top, a partial rule
    under the group label, under the header, bottom). Returns its bottom."""
    d = Drawing(c)
    y1, y2 = top + 16, top + 44
    pitch = 14.0
    body = [y2 + 2 + i * pitch for i in range(len(rows) + 1)]
    bottom = body[-1] + 2
    d.hline(XS[0], XS[-1], top)
    inset = 4.0 if rules == "booktabs" else 0.0  # \cmidrule stops short of the table's edge
    d.hline(XS[2] + inset, XS[-1] - inset, y1)  # a partial rule: under the group label only
    d.hline(XS[0], XS[-1], y2)
    d.hline(XS[0], XS[-1], bottom)
    if rules == "grid":
        for y in body[1:-1]:
            d.hline(XS[0], XS[-1], y)
    for i, x in enumerate(XS if rules != "booktabs" else ()):
        d.vline(x, top if i in (0, 1, 2, len(XS) - 1) else y1, bottom)
    d.text(XS[0], XS[1], top, y2, ["State"], "centre")
    d.text(XS[1], XS[2], top, y2, ["n"], "centre")
    d.text(XS[2], XS[-1], top, y1, ["Literacy Status"], "centre")
    for k, lines in enumerate(SUB):
        d.text(XS[2 + k], XS[3 + k], y1, y2, lines, sub_align)
    for i, row in enumerate(rows):
        for k, value in enumerate(row):
            d.text(XS[k], XS[k + 1], body[i], body[i + 1], [value], "centre")
    return bottom


def parsed_tables(path: Path) -> list[Table]:
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False))[0]
    return [b.table for b in doc.blocks if b.table is not None]


@pytest.mark.parametrize("sub_align", ["bottom", "centre"])
@pytest.mark.parametrize("rules", ["columns", "grid", "booktabs"])
def test_two_row_merged_header_over_unruled_body_rows(tmp_path: Path, sub_align: str, rules: str) -> None:
    """Before issue 24 the "columns" and "booktabs" drawings came out with three or four header
    rows (the centred "State" and "n" on a row of their own, "Read &" and "Write" on two more;
    "Literacy Status" over one column) and no column names, every data row one row off."""
    rows = body_rows(12)
    path = tmp_path / f"literacy-{rules}-{sub_align}.pdf"
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    draw_literacy(c, 80, rows, sub_align, rules)
    c.save()
    [table] = parsed_tables(path)
    assert table.rows == (*HEADER, *rows)
    assert table.header_rows == 2
    assert table.column_names == NAMES


def test_two_such_tables_on_one_page(tmp_path: Path) -> None:
    """One table on each half of the page (as in the real report the shape came from)."""
    first, second = body_rows(10), body_rows(9, first=11)
    path = tmp_path / "literacy-two-tables.pdf"
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    bottom = draw_literacy(c, 60, first, "bottom", "columns")
    c.setFont("Helvetica", 10)
    c.drawString(XS[0], H - (bottom + 40), "The second half of the states follows.")
    draw_literacy(c, bottom + 80, second, "bottom", "columns")
    c.save()
    found = parsed_tables(path)
    assert [t.rows for t in found] == [(*HEADER, *first), (*HEADER, *second)]
    assert [t.header_rows for t in found] == [2, 2]
    assert [t.column_names for t in found] == [NAMES, NAMES]


# --- the pure steps -------------------------------------------------------------------------------


def _char(text: str, x0: float, top: float, size: float = 9.0) -> dict[str, object]:
    return {
        "text": text,
        "x0": x0,
        "x1": x0 + 0.5 * size * len(text),
        "top": top,
        "bottom": top + size,
        "size": size,
    }


def _band(lines: Sequence[Sequence[tuple[int, str]]], gap: float = 14.0) -> list[list[dict[str, object]]]:
    """Per cell of ``_cells()``: a header cell's "chars", then columns 0, 1, 2 of the body band
    (one char per word, as wide as the word) for the given lines."""
    per_cell: list[list[dict[str, object]]] = [[_char("Name", 2, 80)], [], [], []]
    for i, line in enumerate(lines):
        for col, text in line:
            words = text.split()
            per_cell[1 + col].extend(
                _char(w, 100.0 * col + 2 + 30 * k, 100 + gap * i) for k, w in enumerate(words)
            )
    return per_cell


def _cells(band: int = 1) -> list[ruled.GridCell]:
    """A header cell over the whole width (row 0), then three columns of the body band."""
    head = ruled.GridCell(0, 0, 1, 3, (0.0, 75.0, 300.0, 95.0))
    return [
        head,
        *(ruled.GridCell(band, k, 1, 1, (100.0 * k, 95.0, 100.0 * k + 100, 400.0)) for k in range(3)),
    ]


def test_a_band_of_stacked_figures_is_cut_between_its_lines() -> None:
    per_cell = _band(
        [
            [(0, "Ada"), (1, "12"), (2, "3.5")],
            [(0, "Bo"), (1, "7"), (2, "1.0")],
            [(0, "Cy"), (1, "9"), (2, "2")],
        ]
    )
    cuts = ruled_rows.row_cuts(_cells(), per_cell, 2)
    assert list(cuts) == [1] and len(cuts[1]) == 2
    assert all(109 < y < 114 or 123 < y < 128 for y in cuts[1])


def test_a_wrapped_label_stays_with_its_row() -> None:
    """ "Coastal districts" / "and islands": the label-only line in lower case joins the row above."""
    per_cell = _band(
        [
            [(0, "North"), (1, "12"), (2, "3")],
            [(0, "Coastal districts"), (1, "7"), (2, "1")],
            [(0, "and islands")],
            [(0, "South"), (1, "9"), (2, "2")],
        ]
    )
    assert len(ruled_rows.row_cuts(_cells(), per_cell, 2)[1]) == 2  # three rows


def test_bands_that_are_not_rows_of_figures_are_not_cut() -> None:
    wrapped_text = _band([[(0, "A long"), (1, "12")], [(0, "label that")], [(0, "wraps")]])
    one_cell_list = _band([[(0, "Pages"), (1, "12")], [(1, "14")], [(1, "19")]])
    side_by_side = _band([[(0, "A"), (1, "12 34")], [(0, "B"), (1, "7 8")], [(0, "C"), (1, "9 10")]])
    for per_cell in (wrapped_text, one_cell_list, side_by_side):
        assert ruled_rows.row_cuts(_cells(), per_cell, 2) == {}
    stacked = _band([[(0, "Ada"), (1, "12")], [(0, "Bo"), (1, "7")], [(0, "Cy"), (1, "9")]])
    assert list(ruled_rows.row_cuts(_cells(), stacked, 2)) == [1]
    assert ruled_rows.row_cuts(_cells()[1:], stacked[1:], 2) == {}  # the first band: the header's


def test_cut_boxes_cuts_only_the_band_cells() -> None:
    cells = [
        ruled.GridCell(0, 0, 2, 1, (0.0, 0.0, 50.0, 100.0)),
        ruled.GridCell(1, 1, 1, 1, (50.0, 20.0, 90.0, 100.0)),
    ]
    assert ruled_rows.cut_boxes(cells, {1: [40.0, 70.0]}) == [
        (0.0, 0.0, 50.0, 100.0),
        (50.0, 20.0, 90.0, 40.0),
        (50.0, 40.0, 90.0, 70.0),
        (50.0, 70.0, 90.0, 100.0),
    ]


def test_a_title_row_over_a_two_row_header() -> None:
    rows = [
        ["Checks, November", "", "", ""],
        ["State", "Pre-Pawn", "", "Totals"],
        ["", "Handgun", "Long Gun", ""],
        ["Alabama", "14", "15", "71,137"],
    ]
    assert header.detect_header_rows(rows) == 3
    spans = [
        header.Span(0, 0, 1, 4, "Checks, November"),
        header.Span(1, 0, 2, 1, "State"),
        header.Span(1, 1, 1, 2, "Pre-Pawn"),
        header.Span(1, 3, 2, 1, "Totals"),
        header.Span(2, 1, 1, 1, "Handgun"),
        header.Span(2, 2, 1, 1, "Long Gun"),
    ]
    assert header.column_names(spans, 3, 4) == (
        "State",
        "Pre-Pawn / Handgun",
        "Pre-Pawn / Long Gun",
        "Totals",
    )
    assert header.detect_header_rows([["Rural", "", ""], ["Ward 1", "1", "2"], ["Ward 2", "3", "4"]]) == 1


def test_two_line_cells_stay_one_ruled_cell() -> None:
    """Two lines are not enough to call a band rows: "FY2013" / "FY2014" stays one ruled cell (as
    pdfplumber's own grid has it), as do a wrapped label beside wrapped text and "12" / "(3.4%)"."""
    two_years = _band(
        [[(0, "FY2013"), (1, "269,360"), (2, "108.6")], [(0, "FY2014"), (1, "300,226"), (2, "121.4")]]
    )
    wrapped = _band([[(0, "Network"), (1, "Configure the")], [(0, "settings"), (1, "proxy server")]])
    two_figures = _band([[(0, "Total"), (1, "12")], [(1, "(3.4%)")]])
    for per_cell in (two_years, wrapped, two_figures):
        assert ruled_rows.row_cuts(_cells(), per_cell, 2) == {}


def test_a_group_over_sub_groups_takes_every_header_row() -> None:
    """ "International" over "Cargo" and "Mail" (each over "Ton" and "y.o.y(%)"): three header rows
    although the row under the group has empty slots (the sub-groups' spans)."""
    spans = [
        header.Span(0, 1, 1, 4, "International"),
        header.Span(1, 1, 1, 2, "Cargo"),
        header.Span(1, 3, 1, 2, "Mail"),
        *(header.Span(2, 1 + k, 1, 1, t) for k, t in enumerate(["Ton", "y.o.y(%)", "Ton", "y.o.y(%)"])),
        *(
            header.Span(3, k, 1, 1, t)
            for k, t in enumerate(["FY2013", "269,360", "108.6", "32,111", "119.7"])
        ),
    ]
    rows = [
        ["", "International", "", "", ""],
        ["", "Cargo", "", "Mail", ""],
        ["", "Ton", "y.o.y(%)", "Ton", "y.o.y(%)"],
    ]
    rows.append(["FY2013", "269,360", "108.6", "32,111", "119.7"])
    assert header.header_depth(spans, rows, header.detect_header_rows(rows)) == 3
    assert header.column_names(spans, 3, 5)[1:3] == (
        "International / Cargo / Ton",
        "International / Cargo / y.o.y(%)",
    )


def test_group_spans_follow_the_columns_kept() -> None:
    """Columns left empty are dropped after the header is built: a group's span shrinks with them."""
    assert unruled_header.kept_spans({(0, 2): 4, (0, 0): 1}, [0, 2, 3, 5, 6]) == {(0, 1): 3, (0, 0): 1}


def test_horizontal_rules_join_touching_segments() -> None:
    def edge(x0: float, x1: float, top: float) -> dict[str, object]:
        return {"orientation": "h", "x0": x0, "x1": x1, "top": top}

    edges = [
        edge(10, 60, 100),
        edge(60.5, 120, 100.4),
        edge(200, 210, 100),
        edge(10, 300, 150),
        {"orientation": "v"},
    ]
    (x0, x1, y), wide = unruled_header.horizontal_rules(edges)  # the 10 pt stroke is no rule
    assert (x0, x1, wide) == (10.0, 120.0, (10.0, 300.0, 150.0)) and 100 < y < 100.4


def _word(text: str, x0: float, top: float) -> Word:
    return Word(text=text, x0=x0, top=top, x1=x0 + 5.0 * len(text), bottom=top + 9.0, size=9.0)


def test_a_label_wrapped_over_two_header_lines_is_one_cell() -> None:
    """ "Inhibitor" / "concentration (g)" under it, 2 pt apart: one header cell; a line of
    sub-labels where the line above has no label, or a line of figures, starts a row of its own."""
    first = [[_word("Inhibitor", 0, 100)], [_word("bc", 100, 100)], [_word("Polarization", 200, 100)]]
    wrapped = [[_word("concentration", 0, 111)], [], [_word("resistance", 200, 111)]]
    body = [[_word("0", 0, 130)], [_word("0.0335", 100, 130)], [_word("24.0910", 200, 130)]]
    grid, header = unruled_header.join_wrapped_header([first, wrapped, body], 2)
    assert header == 1 and [len(c) for c in grid[0]] == [2, 1, 2] and grid[1] == body
    group = [[], [_word("Male", 100, 100)], []]
    subs = [[_word("Region", 0, 111)], [_word("Number", 100, 111)], [_word("Percent", 200, 111)]]
    assert unruled_header.join_wrapped_header([group, subs, body], 2)[1] == 2
    figures = [[], [_word("2019", 100, 111)], [_word("41,682", 200, 111)]]
    assert unruled_header.join_wrapped_header([first, figures, body], 2)[1] == 2
