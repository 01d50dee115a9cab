"""A bordered table's grid, in small pure steps: ``grid_lines`` (cell edges -> column and row
boundaries) -> ``place_cells`` (each cell's row and column span) -> ``assign_chars`` (a character
belongs to the cell holding its centre point, so text that touches a ruling line is never cut;
``upright_cell`` turns a sideways label upright) -> ``build_rows`` (the merged-cell rule) ->
``kept_lines`` (empty and sliver lines dropped) -> ``spans_in_rows`` (for the header rows).
parsers.pdf.tables.ruled runs them on each table pdfplumber finds."""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from parsers.pdf.tables.captions import Caption as Caption
from parsers.pdf.tables.captions import find_caption as find_caption
from parsers.pdf.tables.cell_text import centre_in
from parsers.pdf.tables.cell_text import centre_in_any as centre_in_any
from parsers.pdf.tables.header import (
    Span,
)
from parsers.pdf.tables.rules import (
    BBox,
    Char,
    cluster,
    dominant_angle,
    transform_char,
    upright_transform,
)

SLIVER = 4.0  # points: a grid slot thinner than this cannot hold a line of text
EMPTY_ROW = 0.6  # x the median text row height: an empty ruled row at least this tall is a row


@dataclass(frozen=True)
class GridCell:
    row: int
    col: int
    rowspan: int
    colspan: int
    bbox: BBox


def grid_lines(cells: Sequence[BBox], tolerance: float = 2.0) -> tuple[list[float], list[float]]:
    """Column boundaries (x) and row boundaries (y) from all cell edges."""
    xs = cluster([c[0] for c in cells] + [c[2] for c in cells], tolerance)
    ys = cluster([c[1] for c in cells] + [c[3] for c in cells], tolerance)
    return xs, ys


def _index(value: float, bounds: Sequence[float]) -> int:
    return min(range(len(bounds)), key=lambda i: abs(bounds[i] - value))


def slivers(bounds: Sequence[float], min_size: float = SLIVER) -> set[int]:
    """Slots narrower than ``min_size``: too thin to hold text, made by a double rule or a ruling
    line drawn a little off its neighbours (a row whose inner line is 3 pt to the right)."""
    return {i for i in range(len(bounds) - 1) if bounds[i + 1] - bounds[i] < min_size}


def _anchor(start: int, stop: int, thin: set[int]) -> int:
    """First slot of ``start``..``stop`` that is not a sliver (``start`` if all are)."""
    return next((i for i in range(start, stop) if i not in thin), start)


def place_cells(
    cells: Sequence[BBox], xs: Sequence[float], ys: Sequence[float], min_size: float = SLIVER
) -> list[GridCell]:
    """Each cell rectangle as a span of grid slots (at least one slot each way), anchored at its
    first slot that is not a sliver, so a line drawn slightly off in one row does not shift that
    row's text into another column than the rows above."""
    thin_x, thin_y = slivers(xs, min_size), slivers(ys, min_size)
    placed = []
    for c in cells:
        c0, c1 = _index(c[0], xs), _index(c[2], xs)
        r0, r1 = _index(c[1], ys), _index(c[3], ys)
        col, row = _anchor(c0, c1, thin_x), _anchor(r0, r1, thin_y)
        placed.append(GridCell(row, col, max(1, r1 - row), max(1, c1 - col), c))
    return placed


def locate_chars(
    chars: Sequence[Char], cells: Sequence[GridCell], xs: Sequence[float], ys: Sequence[float]
) -> list[int | None]:
    """Index of the cell holding each char's centre (None in a gap no cell covers), looked up
    through the grid slot the centre falls in, so a page of text costs no chars x cells scan."""
    owner: dict[tuple[int, int], int] = {}
    for i, cell in enumerate(cells):
        c0, c1 = _index(cell.bbox[0], xs), _index(cell.bbox[2], xs)
        r0, r1 = _index(cell.bbox[1], ys), _index(cell.bbox[3], ys)
        for r in range(r0, max(r1, r0 + 1)):
            for c in range(c0, max(c1, c0 + 1)):
                owner.setdefault((r, c), i)
    out: list[int | None] = []
    for ch in chars:
        cx = (float(ch["x0"]) + float(ch["x1"])) / 2
        cy = (float(ch["top"]) + float(ch["bottom"])) / 2
        col = min(max(bisect.bisect_right(xs, cx) - 1, 0), max(len(xs) - 2, 0))
        row = min(max(bisect.bisect_right(ys, cy) - 1, 0), max(len(ys) - 2, 0))
        found = owner.get((row, col))
        if found is None or not centre_in(ch, cells[found].bbox):  # near a boundary or in a gap
            found = next((k for k, cell in enumerate(cells) if centre_in(ch, cell.bbox)), None)
        out.append(found)
    return out


def split_words(chars: Sequence[Char], located: Sequence[int | None]) -> int:
    """How many times two glyphs of one word (consecutive in the content stream, same line, no gap)
    fall in different cells: rare in a real table (text overflowing a border), common when boxes
    are drawn over free text."""
    count = 0
    for (a, i), (b, j) in itertools.pairwise(zip(chars, located, strict=True)):
        if i is None or j is None or i == j or not str(a["text"]).strip() or not str(b["text"]).strip():
            continue
        size = float(a.get("size") or 10.0)
        same_line = abs(float(a["top"]) - float(b["top"])) < 0.5 * size
        if same_line and -0.5 * size < float(b["x0"]) - float(a["x1"]) < 0.1 * size:
            count += 1
    return count


def assign_chars(
    chars: Sequence[Char], cells: Sequence[GridCell], located: Sequence[int | None] | None = None
) -> list[list[Char]]:
    """Characters of each cell (same order as ``cells``), each char to the cell holding its centre,
    or, in a gap no cell covers (a group label whose box the rules leave open), to the nearest
    cell: text inside a table is never dropped. ``located``: ``locate_chars``' answer, if known."""
    out: list[list[Char]] = [[] for _ in cells]
    if not cells:
        return out
    if located is None:
        located = [
            next((k for k, cell in enumerate(cells) if centre_in(ch, cell.bbox)), None) for ch in chars
        ]
    for ch, i in zip(chars, located, strict=True):
        if i is None:
            i = min(range(len(cells)), key=lambda k: _distance(ch, cells[k].bbox))
        out[i].append(ch)
    return out


def _distance(ch: Char, box: BBox) -> float:
    cx = (float(ch["x0"]) + float(ch["x1"])) / 2
    cy = (float(ch["top"]) + float(ch["bottom"])) / 2
    return math.hypot(max(box[0] - cx, 0.0, cx - box[2]), max(box[1] - cy, 0.0, cy - box[3]))


def build_rows(cells: Sequence[GridCell], texts: Sequence[str], n_rows: int, n_cols: int) -> list[list[str]]:
    """Rows of exactly ``n_cols`` strings; a merged cell's text sits in its top-left slot."""
    rows = [[""] * n_cols for _ in range(n_rows)]
    for cell, text in zip(cells, texts, strict=True):
        if 0 <= cell.row < n_rows and 0 <= cell.col < n_cols:
            current = rows[cell.row][cell.col]
            rows[cell.row][cell.col] = f"{current}\n{text}" if current and text else current or text
    return rows


def kept_lines(
    rows: list[list[str]],
    cells: Sequence[GridCell],
    thin_rows: Collection[int] = (),
    thin_cols: Collection[int] = (),
    heights: Sequence[float] = (),
) -> tuple[list[int], list[int]]:
    """Grid rows and columns to keep: rows holding text, and empty rows the rules draw as rows
    (``ruled_empty_rows``: two cells or more cross it, every one starting there, so a rule runs
    over the whole row, and it is about as tall as the rows of text, given ``heights``); columns
    holding text or where a cell starts that is no sliver (made by short ruling lines, lines drawn
    a little off, double borders): real empty columns of the table are kept."""
    starts_r = {c.row for c in cells} - set(thin_rows)
    starts_c = {c.col for c in cells} - set(thin_cols)
    keep_r = [i for i, r in enumerate(rows) if (i in starts_r or any(r)) and any(c.strip() for c in r)]
    if heights:  # one cell over the width: a spacer band; a cell from above across it: rules out of line
        crossing = {i: [c for c in cells if c.row <= i < c.row + c.rowspan] for i in starts_r}
        drawn = [i for i, cs in crossing.items() if len(cs) >= 2 and all(c.row == i for c in cs)]
        keep_r = sorted({*keep_r, *ruled_empty_rows(keep_r, drawn, heights)})
    keep_c = [j for j in range(len(rows[0]) if rows else 0) if j in starts_c or any(r[j] for r in rows)]
    return keep_r, keep_c


def ruled_empty_rows(filled: Sequence[int], starts: Collection[int], heights: Sequence[float]) -> list[int]:
    """Empty rows a table draws as rows (a blank line of a form, a record left empty): among
    ``starts`` (rows ruled across), below the first row holding text, and as tall as a row of text
    (``EMPTY_ROW`` x the median height of the rows holding text, at most twice it): not a double
    rule's gap, a spacer, nor the empty rest of a frame; a header row over empty rows, a form's
    blank lines, measures them by its own height)."""
    if not filled:
        return []
    tall = sorted(heights[i] for i in filled)
    median = tall[len(tall) // 2]
    return [
        i
        for i in starts
        if filled[0] < i < len(heights) and i not in filled and EMPTY_ROW * median <= heights[i] <= 2 * median
    ]


def drop_empty_lines(
    rows: list[list[str]],
    cells: Sequence[GridCell],
    thin_rows: Collection[int] = (),
    thin_cols: Collection[int] = (),
) -> list[list[str]]:
    """``rows`` restricted to ``kept_lines``."""
    keep_r, keep_c = kept_lines(rows, cells, thin_rows, thin_cols)
    return [[rows[i][j] for j in keep_c] for i in keep_r]


def spans_in_rows(
    cells: Sequence[GridCell],
    texts: Sequence[str],
    bold: Sequence[bool],
    keep_r: list[int],
    keep_c: list[int],
) -> list[Span]:
    """Each cell's place in the kept rows/columns (cells wholly in dropped lines left out)."""
    out = []
    for cell, text, heavy in zip(cells, texts, bold, strict=True):
        r0, r1 = bisect.bisect_left(keep_r, cell.row), bisect.bisect_left(keep_r, cell.row + cell.rowspan)
        c0, c1 = bisect.bisect_left(keep_c, cell.col), bisect.bisect_left(keep_c, cell.col + cell.colspan)
        if r1 > r0 and c1 > c0:
            out.append(Span(r0, c0, r1 - r0, c1 - c0, text, heavy))
    return out


def upright_cell(chars: Sequence[Char], table_angle: int) -> list[Char]:
    """A cell's characters turned upright when they run at another angle than the table's text
    (a column label printed sideways), so they read as one line, not one letter per line."""
    relative = (dominant_angle(chars) - table_angle) % 360
    if not relative:
        return list(chars)
    fn = upright_transform(relative)
    return [transform_char(c, fn) for c in chars]
