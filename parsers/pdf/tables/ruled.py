"""Bordered tables: ruling-line cells -> grid -> cell text -> rows, from small pure steps.

pdfplumber's lines strategy supplies the cell rectangles (``find_tables`` is the only I/O here);
everything after is pure and unit-tested:

``grid_lines`` (cell edges -> column/row boundaries) -> ``place_cells`` (each cell's row/column
span) -> ``assign_chars`` (a character belongs to the cell holding its centre point, so text that
touches a ruling line is never cut) -> ``cell_text`` (characters -> lines -> words) ->
``build_rows`` (merged-cell rule) -> ``kept_lines`` (empty and sliver lines dropped) ->
``spans_in_rows`` -> header rows and flattened column names (parsers.pdf.tables.header) -> the
caption as title (parsers.pdf.tables.captions).

Merged cells: the text of a cell spanning several grid slots goes in its top-left slot and the
other slots it covers are "" (tabula's rule), so every row has the same width and a column's
values stay in that column; where no rule separates two slots they are one cell, and the lines of
text inside one cell are one cell's text. Shading bands meeting without a rule are no rule
(``table_rules.fill_seams``).

Captions: a caption printed in a box of its own (one or two cells, "Table 7 : ...") is no table,
a caption boxed onto the table (its first or last row, one cell over the whole width) is no row;
both, and plain caption lines above or below, become ``Table.title``, and the caption's box is
part of ``PageTable.bbox`` so the reader keeps it out of the prose.

Rotated tables (characters drawn with a 90/180/270 degree matrix) are turned upright first
(``upright_transform``), so their rows come out as rows.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

from parsers.model import Table
from parsers.pdf.labels import TABLE_CAPTION
from parsers.pdf.tables.captions import Caption as Caption
from parsers.pdf.tables.captions import assign_captions, caption_box
from parsers.pdf.tables.captions import find_caption as find_caption
from parsers.pdf.tables.cell_text import TextLine, cell_text, centre_in, dedupe_chars
from parsers.pdf.tables.cell_text import centre_in_any as centre_in_any
from parsers.pdf.tables.header import (
    Span,
    bold_rows,
    column_names,
    detect_header_rows,
    header_depth,
    is_bold,
)
from parsers.pdf.tables.ruled_rows import cut_boxes, row_cuts
from parsers.pdf.tables.rules import (
    BBox,
    Char,
    cluster,
    dashed_rules,
    dominant_angle,
    fill_seams,
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
    """A table found on a page: its box (page coordinates; its caption's box included, so the
    caption is not read again as prose) and the relative column boundaries used to recognise its
    continuation on the next page."""

    bbox: BBox
    table: Table
    columns: tuple[float, ...]


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
) -> tuple[list[int], list[int]]:
    """Grid rows and columns to keep: rows holding text; columns holding text or where a cell
    starts that is no sliver (made by short ruling lines, lines drawn a little off, double
    borders): real empty columns of the table are kept."""
    starts_r = {c.row for c in cells} - set(thin_rows)
    starts_c = {c.col for c in cells} - set(thin_cols)
    keep_r = [i for i, r in enumerate(rows) if (i in starts_r or any(r)) and any(c.strip() for c in r)]
    keep_c = [j for j in range(len(rows[0]) if rows else 0) if j in starts_c or any(r[j] for r in rows)]
    return keep_r, keep_c


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
    (fewer than two rows or columns, or only one column with any text: a framed paragraph, a
    page border, boxes around prose lines; or almost every cell empty: a bar chart's gridlines,
    a figure's boxes). A caption boxed onto the table (a first or
    last row of one cell over the whole width, "Table 7: ...") becomes its title, not a row."""
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
    read = _read_grid(cells, inside, angle)
    if read is None:
        return None
    xs, ys, placed, per_cell = read
    cuts = row_cuts(placed, per_cell, len(ys) - 1)
    if cuts:  # bands holding several rows of text, one a line: cut as if ruled
        read = _read_grid(cut_boxes(placed, cuts), inside, angle)
        if read is None:
            return None
        xs, ys, placed, per_cell = read
    texts = [cell_text(cs) for cs in per_cell]
    title, keep = _boxed_caption(placed, texts, xs, ys)
    if title is not None:
        placed, per_cell, texts = (
            [placed[i] for i in keep],
            [per_cell[i] for i in keep],
            [texts[i] for i in keep],
        )
    grid = build_rows(placed, texts, len(ys) - 1, len(xs) - 1)
    keep_r, keep_c = kept_lines(grid, placed, slivers(ys), slivers(xs))
    rows = [[grid[i][j] for j in keep_c] for i in keep_r]
    if len(rows) < 2 or len(rows[0]) < 2 or sum(map(bool, texts)) < MIN_FILLED * len(texts):
        return None
    if sum(any(row[j] for row in rows) for j in range(len(rows[0]))) < 2:
        return None  # text in one column only, the rest empty: boxes drawn around prose lines
    bold = [is_bold(cs) for cs in per_cell]
    spans = spans_in_rows(placed, texts, bold, keep_r, keep_c)
    header = header_depth(spans, rows, detect_header_rows(rows, bold_rows(spans, len(rows))))
    names = column_names(spans, header, len(rows[0])) if header > 1 else ()
    width = (xs[-1] - xs[0]) or 1.0
    columns = tuple(round((x - xs[0]) / width, 3) for x in xs)
    return Table(tuple(tuple(r) for r in rows), header, title, names), columns


def _read_grid(
    cells: Sequence[BBox], inside: Sequence[Char], angle: int
) -> tuple[list[float], list[float], list[GridCell], list[list[Char]]] | None:
    """Grid boundaries, placed cells and each cell's characters (upright, overprints dropped);
    None for a diagram (most text outside the cells) or boxes drawn over free text (words cut)."""
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
    return xs, ys, placed, per_cell


def _boxed_caption(
    cells: Sequence[GridCell],
    texts: Sequence[str],
    xs: Sequence[float],
    ys: Sequence[float],
    tol: float = 2.0,
) -> tuple[str | None, list[int]]:
    """(caption, indices of the other cells) when the first or last row of the grid is one cell
    over the whole width whose text is a caption; (None, all cells) otherwise."""
    everything = list(range(len(cells)))
    if len(cells) < 3:
        return None, everything
    for i, cell in enumerate(cells):
        x0, top, x1, bottom = cell.bbox
        full_width = x0 <= xs[0] + tol and x1 >= xs[-1] - tol
        at_edge = top <= ys[0] + tol or bottom >= ys[-1] - tol
        text = " ".join(texts[i].split())
        if full_width and at_edge and bottom - top < 0.5 * (ys[-1] - ys[0]) and TABLE_CAPTION.match(text):
            return text, [k for k in everything if k != i]
    return None, everything


def find_tables(page: Any) -> list[PageTable]:
    """Bordered tables on a pdfplumber page, top to bottom, each titled by its caption when it has
    one (the only function that touches a page)."""
    edges = page.edges
    if len(edges) < 4:  # a bordered table needs two ruling lines each way; most prose pages have none
        return []
    seams = fill_seams(page.rects, edges)
    if seams:  # shading bands meeting without a rule: their common edge is not a ruling line
        edges = [e for i, e in enumerate(edges) if i not in seams]
    dashed_v, dashed_h = dashed_rules(edges)
    verticals, horizontals = frame_lines_upright([*edges, *dashed_v, *dashed_h], dominant_angle(page.chars))
    settings = {
        **_SETTINGS,
        "explicit_vertical_lines": [*dashed_v, *verticals],
        "explicit_horizontal_lines": [*dashed_h, *horizontals],
    }
    if seams:
        kept_v = [e for e in edges if e.get("orientation") == "v"]
        kept_h = [e for e in edges if e.get("orientation") == "h"]
        if len(kept_v) < 2 or len(kept_h) < 2:
            return []
        settings = {
            "vertical_strategy": "explicit",
            "horizontal_strategy": "explicit",
            "explicit_vertical_lines": [*kept_v, *dashed_v, *verticals],
            "explicit_horizontal_lines": [*kept_h, *dashed_h, *horizontals],
        }
    found = page.find_tables(settings)
    out = []
    boxes: list[TextLine] = []  # captions printed in a box of their own (one or two cells)
    for t in found:
        cells = [(float(c[0]), float(c[1]), float(c[2]), float(c[3])) for c in t.cells]
        x0, top, x1, bottom = (float(v) for v in t.bbox)
        result = table_from_cells(cells, page.chars)
        if result is not None:
            table, columns = result
            out.append(PageTable((x0, top, x1, bottom), table, columns))
        elif len(cells) <= 2:
            box = caption_box(page.chars, (x0, top, x1, bottom))
            boxes.extend([box] if box is not None else [])
    return _titled_by_captions(out, page.chars, boxes)


def _titled_by_captions(
    found: list[PageTable], chars: Sequence[Char], boxed: list[TextLine]
) -> list[PageTable]:
    """Tables top to bottom, each titled by its caption (``assign_captions``), the caption's box
    joined to the table's so the caption is kept out of the prose."""
    found = sorted(found, key=lambda pt: pt.bbox[1])
    skip = {i for i, pt in enumerate(found) if pt.table.title}
    captions = assign_captions(chars, [pt.bbox for pt in found], boxed, skip) if found else {}
    out = []
    for k, pt in enumerate(found):
        caption = captions.get(k)
        if caption is None:
            out.append(pt)
            continue
        union = (
            min(pt.bbox[0], caption.bbox[0]),
            min(pt.bbox[1], caption.bbox[1]),
            max(pt.bbox[2], caption.bbox[2]),
            max(pt.bbox[3], caption.bbox[3]),
        )
        out.append(PageTable(union, replace(pt.table, title=caption.text), pt.columns))
    return out


def continues(previous: PageTable, current: PageTable, tolerance: float = 0.02) -> bool:
    """Whether ``current`` (top of a page) continues ``previous`` (end of the page before):
    same number of columns at the same relative positions, starting higher on its page than the
    previous one ended (a table below another is a second table of the same page), and no caption
    of its own unless that caption says it continues ("Table 3 (continued)")."""
    a, b = previous.columns, current.columns
    if current.bbox[1] >= previous.bbox[3]:
        return False
    title = current.table.title
    if title and not _CONTINUED.search(title):
        return False
    return len(a) == len(b) and all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


_CONTINUED = re.compile(r"\bcont(?:inued|inues|d)?\b|\(cont", re.IGNORECASE)


def merge_continuation(first: Table, more: Table) -> Table:
    """``more``'s rows appended to ``first``, minus a repeated header (``first``'s title and
    column names kept)."""
    rows = more.rows
    if first.header_rows and rows[: first.header_rows] == first.header:
        rows = rows[first.header_rows :]
    return replace(first, rows=first.rows + rows)


def titled(table: Table, fallback: str | None) -> Table:
    """``table`` with its own caption as title, else ``fallback`` (the heading it stands under)."""
    return table if table.title else replace(table, title=fallback)
