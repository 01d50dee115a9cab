"""parsers.pdf.tables.ruled: the pure geometry steps (no files), plus a rotated table drawn with reportlab."""

from __future__ import annotations

from pathlib import Path

import pytest
from reportlab.lib.pagesizes import letter
from reportlab.pdfgen import canvas

from parsers.model import Table
from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.pdf.tables import ruled as tables
from parsers.pdf.tables import rules as table_rules
from parsers.pdf.tables.ruled_grid import GridCell
from parsers.source import SourceFile


def char(text: str, x0: float, top: float, size: float = 10.0, **extra: object) -> dict[str, object]:
    return {
        "text": text,
        "x0": x0,
        "x1": x0 + 0.5 * size,
        "top": top,
        "bottom": top + size,
        "size": size,
        **extra,
    }


def word(text: str, x0: float, top: float) -> list[dict[str, object]]:
    return [char(ch, x0 + 5 * i, top) for i, ch in enumerate(text)]


# a 2x3 grid whose bottom row is one cell spanning all three columns
CELLS = [
    (0.0, 0.0, 50.0, 20.0),
    (50.0, 0.0, 100.0, 20.0),
    (100.0, 0.0, 150.0, 20.0),
    (0.0, 20.0, 150.0, 40.0),
]


def test_cluster_merges_close_values() -> None:
    assert table_rules.cluster([0.0, 0.5, 10.0, 10.4, 30.0], 1.0) == [0.25, 10.2, 30.0]


def test_grid_and_spans() -> None:
    xs, ys = tables.grid_lines(CELLS)
    assert xs == [0.0, 50.0, 100.0, 150.0] and ys == [0.0, 20.0, 40.0]
    placed = tables.place_cells(CELLS, xs, ys)
    assert [(c.row, c.col, c.rowspan, c.colspan) for c in placed] == [
        (0, 0, 1, 1),
        (0, 1, 1, 1),
        (0, 2, 1, 1),
        (1, 0, 1, 3),
    ]


def test_chars_assigned_by_centre_not_by_overlap() -> None:
    placed = tables.place_cells(CELLS, *tables.grid_lines(CELLS))
    # "x" sticks out over the border into the next cell but its centre is in the first
    chars = [char("x", 46.0, 5.0), char("y", 52.0, 5.0)]
    assert tables.assign_chars(chars, placed)[:2] == [[chars[0]], [chars[1]]]


def test_cell_text_lines_and_spaces() -> None:
    chars = word("ab", 0, 0) + word("cd", 20, 0) + word("ef", 0, 12)
    assert tables.cell_text(chars) == "ab cd\nef"


def test_merged_cell_text_goes_to_top_left_slot() -> None:
    placed = [GridCell(0, 0, 1, 1, (0, 0, 1, 1)), GridCell(0, 1, 2, 2, (1, 0, 3, 2))]
    rows = tables.build_rows(placed, ["a", "merged"], n_rows=2, n_cols=3)
    assert rows == [["a", "merged", ""], ["", "", ""]]


def test_sliver_columns_from_double_rules_are_dropped() -> None:
    placed = [GridCell(0, 0, 1, 1, (0, 0, 1, 1)), GridCell(0, 2, 1, 1, (2, 0, 3, 1))]
    rows = [["a", "", "b"], ["c", "", "d"]]
    assert tables.drop_empty_lines(rows, placed) == [["a", "b"], ["c", "d"]]


def test_header_detection() -> None:
    assert tables.detect_header_rows([["Plan", "Monthly"], ["Basic", "10"]]) == 1
    assert tables.detect_header_rows([["2019", "10"], ["2020", "12"]]) == 0
    assert tables.detect_header_rows([["Prices", ""], ["Plan", "Monthly"], ["Basic", "10"]]) == 2
    assert tables.detect_header_rows([["a", "b"], ["c", "d"]], bold_rows=[True, False]) == 1


def test_table_from_cells_end_to_end() -> None:
    chars = word("Plan", 2, 4) + word("Fee", 52, 4) + word("Note", 102, 4) + word("all", 2, 24)
    result = tables.table_from_cells(CELLS, chars)
    assert result is not None
    table, columns = result
    assert table.rows == (("Plan", "Fee", "Note"), ("all", "", ""))
    assert columns == (0.0, 0.333, 0.667, 1.0)


def test_single_box_is_not_a_table() -> None:
    assert tables.table_from_cells([(0.0, 0.0, 100.0, 50.0)], word("framed note", 5, 5)) is None


def test_upright_transform_turns_rotated_text() -> None:
    fn = table_rules.upright_transform(90)  # text reading bottom to top
    # two chars going up the page become two chars going right
    a, b = fn(10.0, 100.0), fn(10.0, 90.0)
    assert b[0] > a[0] and a[1] == b[1]
    assert table_rules.char_angle({"matrix": (0, 1, -1, 0, 0, 0)}) == 90
    assert table_rules.char_angle({"matrix": (0, -1, 1, 0, 0, 0)}) == 270
    assert table_rules.char_angle({"matrix": (1, 0, 0, 1, 0, 0)}) == 0


def test_missing_frame_lines_close_an_open_table() -> None:
    rules = [{"orientation": "h", "x0": 10.0, "x1": 200.0, "top": t, "bottom": t} for t in (0.0, 20.0, 40.0)]
    inner = [{"orientation": "v", "x0": 100.0, "x1": 100.0, "top": 0.0, "bottom": 40.0}]
    verticals, _ = table_rules.missing_frame_lines(rules + inner)
    assert sorted((v["x0"], v["top"], v["bottom"]) for v in verticals) == [
        (10.0, 0.0, 40.0),
        (200.0, 0.0, 40.0),
    ]
    framed = inner + [{**inner[0], "x0": 10.0, "x1": 10.0}, {**inner[0], "x0": 200.0, "x1": 200.0}]
    assert table_rules.missing_frame_lines(rules + framed)[0] == []


def test_continuation_and_repeated_header() -> None:
    first = Table((("A", "B"), ("1", "2")))
    more = Table((("A", "B"), ("3", "4")))
    merged = tables.merge_continuation(first, more)
    assert merged.rows == (("A", "B"), ("1", "2"), ("3", "4"))
    a = tables.PageTable((0, 0, 1, 1), first, (0.0, 0.5, 1.0))
    assert tables.continues(a, tables.PageTable((0, 0, 1, 1), more, (0.0, 0.51, 1.0)))
    assert not tables.continues(a, tables.PageTable((0, 0, 1, 1), more, (0.0, 0.3, 1.0)))


@pytest.mark.parametrize(("angle", "origin"), [(90, (400, 200)), (270, (200, 600)), (180, (500, 600))])
def test_rotated_table_reads_as_rows(tmp_path: Path, angle: int, origin: tuple[int, int]) -> None:
    """A table printed sideways (landscape table on a portrait page) comes out upright."""
    path = tmp_path / "rotated-table.pdf"
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    c.translate(*origin)
    c.rotate(angle)
    rows = [["Region", "Lamps"], ["North ridge", "12"], ["Valley", "7"]]
    for r, row in enumerate(rows):
        for k, text in enumerate(row):
            c.rect(k * 120, -r * 24, 120, 24)
            c.setFont("Helvetica", 10)
            c.drawString(k * 120 + 4, -r * 24 + 8, text)
    c.save()
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False))[0]
    table = next(b.table for b in doc.blocks if b.table is not None)
    assert [list(r) for r in table.rows] == rows
