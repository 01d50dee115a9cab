"""Bordered tables: ruling-line cells -> grid -> cell text -> rows, from small pure steps.

pdfplumber's lines strategy supplies the cell rectangles (``find_tables`` is the only I/O here);
everything after is pure and unit-tested:

``grid_lines`` (cell edges -> column/row boundaries) -> ``place_cells`` (each cell's row/column
span) -> ``assign_chars`` (a character belongs to the cell holding its centre point, so text that
touches a ruling line is never cut) -> ``cell_text`` (characters -> lines -> words) ->
``build_rows`` (merged-cell rule) -> ``drop_empty_lines`` -> ``detect_header_rows``.

Merged cells: the text of a cell spanning several grid slots goes in its top-left slot and the
other slots it covers are "" (tabula's rule), so every row has the same width and a column's
values stay in that column.

Rotated tables (characters drawn with a 90/180/270 degree matrix) are turned upright first
(``upright_transform``), so their rows come out as rows.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from parsers import bidi_text
from parsers.model import Table
from parsers.table_rules import (
    BBox,
    Char,
    cluster,
    dashed_rules,
    dominant_angle,
    frame_lines_upright,
    transform_box,
    transform_char,
    upright_transform,
)

_SETTINGS = {"vertical_strategy": "lines", "horizontal_strategy": "lines"}
SLIVER = 4.0  # points: a grid slot thinner than this cannot hold a line of text
# a grid where fewer cells than this hold text is a chart or a figure drawn with lines, not a table
MIN_FILLED = 0.15
# a grid with more of its text outside its cells than this is a diagram with boxes, not a table
MAX_IN_GAPS = 0.2
# ... or with more words cut in two by its lines (3 at least) than this fraction of its text cells
MAX_SPLIT_WORDS = 0.25


@dataclass(frozen=True)
class GridCell:
    row: int
    col: int
    rowspan: int
    colspan: int
    bbox: BBox


@dataclass(frozen=True)
class PageTable:
    """A table found on a page: its box (page coordinates) and the relative column boundaries
    used to recognise its continuation on the next page."""

    bbox: BBox
    table: Table
    columns: tuple[float, ...]


def centre_in(obj: Char, box: BBox) -> bool:
    cx = (float(obj["x0"]) + float(obj["x1"])) / 2
    cy = (float(obj["top"]) + float(obj["bottom"])) / 2
    return box[0] <= cx <= box[2] and box[1] <= cy <= box[3]


def centre_in_any(obj: Char, boxes: Sequence[BBox]) -> bool:
    return any(centre_in(obj, b) for b in boxes)


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


def dedupe_chars(chars: Sequence[Char], tolerance: float = 1.0) -> list[Char]:
    """``chars`` without copies of a glyph drawn again within ``tolerance`` of itself (fake bold
    by overprinting, shadows), which would otherwise read "RReeggiioonn"."""
    out: list[Char] = []
    seen: dict[str, list[Char]] = {}
    for ch in sorted(chars, key=lambda c: (float(c["top"]), float(c["x0"]))):
        same = seen.setdefault(str(ch["text"]), [])
        x0, top = float(ch["x0"]), float(ch["top"])
        if any(
            abs(float(o["x0"]) - x0) <= tolerance and abs(float(o["top"]) - top) <= tolerance for o in same
        ):
            continue
        same.append(ch)
        out.append(ch)
    return out


def cell_text(chars: Sequence[Char], space_ratio: float = 0.2) -> str:
    """Cell characters as text: lines top to bottom joined by "\\n", a space wherever the gap
    between neighbours exceeds ``space_ratio`` x the font size (PDFs often omit space glyphs)."""
    lines: list[list[Char]] = []
    for ch in sorted(chars, key=lambda c: (float(c["top"]), float(c["x0"]))):
        mid = (float(ch["top"]) + float(ch["bottom"])) / 2
        line = next((ln for ln in lines if float(ln[0]["top"]) <= mid <= float(ln[0]["bottom"])), None)
        if line is None:
            lines.append([ch])
        else:
            line.append(ch)
    texts = []
    for line in lines:
        line.sort(key=lambda c: float(c["x0"]))
        parts: list[str] = []
        prev: Char | None = None
        for ch in line:
            gap_limit = space_ratio * float(ch.get("size") or 10.0)
            if prev is not None and float(ch["x0"]) - float(prev["x1"]) > gap_limit:
                parts.append(" ")
            parts.append(str(ch["text"]))
            prev = ch
        text = bidi_text.logical_line(" ".join("".join(parts).split()))  # drawn order -> reading order
        if text:
            texts.append(text)
    return "\n".join(texts)


def build_rows(cells: Sequence[GridCell], texts: Sequence[str], n_rows: int, n_cols: int) -> list[list[str]]:
    """Rows of exactly ``n_cols`` strings; a merged cell's text sits in its top-left slot."""
    rows = [[""] * n_cols for _ in range(n_rows)]
    for cell, text in zip(cells, texts, strict=True):
        if 0 <= cell.row < n_rows and 0 <= cell.col < n_cols:
            current = rows[cell.row][cell.col]
            rows[cell.row][cell.col] = f"{current}\n{text}" if current and text else current or text
    return rows


def drop_empty_lines(
    rows: list[list[str]],
    cells: Sequence[GridCell],
    thin_rows: Collection[int] = (),
    thin_cols: Collection[int] = (),
) -> list[list[str]]:
    """Drop grid rows/columns that hold no text and that no cell starts in or that are slivers
    (made by short ruling lines, lines drawn a little off, double borders); real empty columns of
    the table are kept."""
    starts_r = {c.row for c in cells} - set(thin_rows)
    starts_c = {c.col for c in cells} - set(thin_cols)
    keep_r = [i for i, r in enumerate(rows) if i in starts_r or any(r)]
    keep_c = [j for j in range(len(rows[0]) if rows else 0) if j in starts_c or any(r[j] for r in rows)]
    return [[rows[i][j] for j in keep_c] for i in keep_r]


def _is_numeric(text: str) -> bool:
    stripped = text.replace(",", "").replace(".", "").replace("%", "").replace("$", "").replace("-", "")
    return stripped.strip().isdigit()


def detect_header_rows(rows: Sequence[Sequence[str]], bold_rows: Sequence[bool] = ()) -> int:
    """Leading header rows: bold leading rows if the body is not bold; else 1 when the first row is
    all text (no numbers) while some later row has numbers, or the first row is fully labelled;
    0 when the first row looks like data. A spanning group label above labels adds a second row."""
    if not rows:
        return 0
    if bold_rows and bold_rows[0] and not all(bold_rows):
        n = 0
        while n < len(bold_rows) and bold_rows[n]:
            n += 1
        return min(n, 3)
    first = [c for c in rows[0] if c.strip()]
    if not first or any(_is_numeric(c) for c in first):
        return 0
    # a group label spanning several columns above the column labels: both rows are the header
    second = [c for c in rows[1] if c.strip()] if len(rows) > 2 else []
    if len(first) < len(rows[0]) and len(second) * 2 >= len(rows[1]) and not any(map(_is_numeric, second)):
        return 2
    return 1


# --- rotation -----------------------------------------------------------------------------------


def upright_cell(chars: Sequence[Char], table_angle: int) -> list[Char]:
    """A cell's characters turned upright when they run at another angle than the table's text
    (a column label printed sideways), so they read as one line, not one letter per line."""
    relative = (dominant_angle(chars) - table_angle) % 360
    if not relative:
        return list(chars)
    fn = upright_transform(relative)
    return [transform_char(c, fn) for c in chars]


# --- assembly -----------------------------------------------------------------------------------


def table_from_cells(cells: Sequence[BBox], chars: Sequence[Char]) -> tuple[Table, tuple[float, ...]] | None:
    """A Table from cell rectangles and the page's characters; None when it is not a real table
    (fewer than two rows or columns: a framed paragraph, a page border; or almost every cell
    empty: a bar chart's gridlines, a figure's boxes)."""
    frame = (
        min(b[0] for b in cells),
        min(b[1] for b in cells),
        max(b[2] for b in cells),
        max(b[3] for b in cells),
    )
    inside = [c for c in chars if centre_in(c, frame)]
    angle = dominant_angle(inside)
    if angle:
        fn = upright_transform(angle)
        cells = [transform_box(b, fn) for b in cells]
        inside = [transform_char(c, fn) for c in inside]
    xs, ys = grid_lines(cells)
    placed = place_cells(cells, xs, ys)
    located = locate_chars(inside, placed, xs, ys)
    in_gaps = sum(1 for c, i in zip(inside, located, strict=True) if i is None and str(c["text"]).strip())
    if in_gaps > MAX_IN_GAPS * len(inside):  # most text outside the cells: a diagram, not a table
        return None
    split = split_words(inside, located)
    if split >= 3 and split > MAX_SPLIT_WORDS * len({i for i in located if i is not None}):
        return None  # words cut by the lines: boxes drawn over free text (an infographic)
    per_cell = [upright_cell(dedupe_chars(cs), angle) for cs in assign_chars(inside, placed, located)]
    texts = [cell_text(cs) for cs in per_cell]
    rows = build_rows(placed, texts, len(ys) - 1, len(xs) - 1)
    rows = drop_empty_lines(rows, placed, slivers(ys), slivers(xs))
    rows = [r for r in rows if any(c.strip() for c in r)] if rows else rows
    if len(rows) < 2 or len(rows[0]) < 2 or sum(map(bool, texts)) < MIN_FILLED * len(texts):
        return None
    bold = _bold_rows(placed, per_cell)
    header = detect_header_rows(rows, bold)
    width = (xs[-1] - xs[0]) or 1.0
    columns = tuple(round((x - xs[0]) / width, 3) for x in xs)
    return Table(tuple(tuple(r) for r in rows), header), columns


def _bold_rows(cells: Sequence[GridCell], per_cell: Sequence[Sequence[Char]]) -> list[bool]:
    rows: dict[int, list[bool]] = {}
    for cell, chars in zip(cells, per_cell, strict=True):
        for ch in chars:
            rows.setdefault(cell.row, []).append("bold" in str(ch.get("fontname", "")).lower())
    return [sum(v) * 2 > len(v) for _, v in sorted(rows.items())]


def find_tables(page: Any) -> list[PageTable]:
    """Bordered tables on a pdfplumber page, top to bottom (the only function that touches a page)."""
    edges = page.edges
    if len(edges) < 4:  # a bordered table needs two ruling lines each way; most prose pages have none
        return []
    dashed_v, dashed_h = dashed_rules(edges)
    verticals, horizontals = frame_lines_upright([*edges, *dashed_v, *dashed_h], dominant_angle(page.chars))
    settings = {
        **_SETTINGS,
        "explicit_vertical_lines": [*dashed_v, *verticals],
        "explicit_horizontal_lines": [*dashed_h, *horizontals],
    }
    found = page.find_tables(settings)
    out = []
    for t in found:
        cells = [(float(c[0]), float(c[1]), float(c[2]), float(c[3])) for c in t.cells]
        result = table_from_cells(cells, page.chars)
        if result is not None:
            table, columns = result
            x0, top, x1, bottom = (float(v) for v in t.bbox)
            out.append(PageTable((x0, top, x1, bottom), table, columns))
    return sorted(out, key=lambda pt: pt.bbox[1])


def continues(previous: PageTable, current: PageTable, tolerance: float = 0.02) -> bool:
    """Whether ``current`` (top of a page) continues ``previous`` (end of the page before):
    same number of columns at the same relative positions."""
    a, b = previous.columns, current.columns
    return len(a) == len(b) and all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


def merge_continuation(first: Table, more: Table) -> Table:
    """``more``'s rows appended to ``first``, minus a repeated header."""
    rows = more.rows
    if first.header_rows and rows[: first.header_rows] == first.header:
        rows = rows[first.header_rows :]
    return Table(first.rows + rows, first.header_rows, first.title)
