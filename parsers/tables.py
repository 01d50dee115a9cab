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
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

from parsers import bidi_text
from parsers.model import Table
from parsers.table_rules import (
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


@dataclass(frozen=True)
class Span:
    """A cell in the rows a table is read as (grid rows and columns dropped, spans recounted)."""

    row: int
    col: int
    rowspan: int
    colspan: int
    text: str
    bold: bool = False


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


MAX_HEADER_ROWS = 4


def header_depth(spans: Sequence[Span], rows: Sequence[Sequence[str]], first_guess: int) -> int:
    """``first_guess`` header rows grown to what the spans say: a header label spanning several
    header rows ("District" beside a two-row column group) takes the header down to its bottom; a
    group label over some (not all) columns whose row below holds a label under each of them
    ("Literacy Status" over "Illiterate", "Read & Write", ...) takes that row in. A body row never
    joins: the header stops above the last row and at ``MAX_HEADER_ROWS``."""
    depth = first_guess
    if depth == 0:
        return 0
    width = len(rows[0]) if rows else 0
    limit = min(MAX_HEADER_ROWS, len(rows) - 1)
    grown = True
    while grown and depth < limit:
        grown = False
        for span in spans:
            if span.row >= depth or not span.text:
                continue
            bottom = span.row + span.rowspan
            if bottom > depth:
                depth, grown = min(bottom, limit), True
            elif bottom == depth and 1 < span.colspan < width and _labels_under(rows[depth], span):
                depth, grown = depth + 1, True
            if grown:
                break
    return depth


def _labels_under(row: Sequence[str], span: Span) -> bool:
    under = row[span.col : span.col + span.colspan]
    return all(c.strip() and not _is_numeric(c) for c in under)


def column_names(spans: Sequence[Span], header_rows: int, width: int) -> tuple[str, ...]:
    """One label per column: the header cells over it, top to bottom, joined with " / "."""
    parts: list[list[str]] = [[] for _ in range(width)]
    for span in sorted(spans, key=lambda s: (s.row, s.col)):
        text = " ".join(span.text.split())
        if span.row >= header_rows or not text:
            continue
        for j in range(span.col, min(span.col + span.colspan, width)):
            if not parts[j] or parts[j][-1] != text:
                parts[j].append(text)
    return tuple(" / ".join(p) for p in parts)


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
    empty: a bar chart's gridlines, a figure's boxes). A caption boxed onto the table (a first or
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
    bold = [_is_bold(cs) for cs in per_cell]
    spans = spans_in_rows(placed, texts, bold, keep_r, keep_c)
    header = header_depth(spans, rows, detect_header_rows(rows, _bold_rows(spans, len(rows))))
    names = column_names(spans, header, len(rows[0])) if header > 1 else ()
    width = (xs[-1] - xs[0]) or 1.0
    columns = tuple(round((x - xs[0]) / width, 3) for x in xs)
    return Table(tuple(tuple(r) for r in rows), header, title, names), columns


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
        if full_width and at_edge and bottom - top < 0.5 * (ys[-1] - ys[0]) and CAPTION.match(text):
            return text, [k for k in everything if k != i]
    return None, everything


def _is_bold(chars: Sequence[Char]) -> bool:
    heavy = sum("bold" in str(ch.get("fontname", "")).lower() for ch in chars)
    return heavy * 2 > len(chars) if chars else False


def _bold_rows(spans: Sequence[Span], n_rows: int) -> list[bool]:
    """Per row: whether most of the cells starting in it that hold text are bold."""
    votes: list[list[bool]] = [[] for _ in range(n_rows)]
    for span in spans:
        if span.text.strip():
            votes[span.row].append(span.bold)
    return [sum(v) * 2 > len(v) for v in votes]


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
    boxes: list[_Line] = []  # captions printed in a box of their own (one or two cells)
    for t in found:
        cells = [(float(c[0]), float(c[1]), float(c[2]), float(c[3])) for c in t.cells]
        x0, top, x1, bottom = (float(v) for v in t.bbox)
        result = table_from_cells(cells, page.chars)
        if result is not None:
            table, columns = result
            out.append(PageTable((x0, top, x1, bottom), table, columns))
        elif len(cells) <= 2:
            box = _caption_box(page.chars, (x0, top, x1, bottom))
            boxes.extend([box] if box is not None else [])
    if out:
        out = _with_captions(out, page.chars, boxes)
    return sorted(out, key=lambda pt: pt.bbox[1])


def continues(previous: PageTable, current: PageTable, tolerance: float = 0.02) -> bool:
    """Whether ``current`` (top of a page) continues ``previous`` (end of the page before):
    same number of columns at the same relative positions."""
    a, b = previous.columns, current.columns
    return len(a) == len(b) and all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


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


# --- captions -----------------------------------------------------------------------------------

# "Table 7: ...", "TABLE 3 - ...", "Tab. 2 Results", "Table 4.1 (continued)", "Tableau 2 –", "表 3":
# the label and its number, then punctuation, the end, or a capitalised word. "Table 3 shows ..."
# (prose that refers to a table) is not a caption.
CAPTION = re.compile(
    r"^(?i:table|tab\.|tableau|tabelle|tabla|tabela)\s*(?:\d+[A-Za-z]?(?:[.\-]\d+)*|[IVXLC]+\b)"
    r"(?:\s*[:.\-|\u2013\u2014]|\s*$|\s+(?=[A-Z(\d\"\u201c]))"
    r"|^表\s*[\d一二三四五六七八九十]"
)
CAPTION_GAP = 2.0  # font sizes: the farthest a caption stands from its table
LINE_GAP = 0.9  # font sizes: the largest gap between two lines of one caption
CAPTION_REACH = 80.0  # points above and below a table searched for its caption
MAX_CAPTION_LINES = 3


@dataclass(frozen=True)
class Caption:
    """A table's caption: its text (lines joined by spaces) and its box on the page."""

    text: str
    bbox: BBox


@dataclass(frozen=True)
class _Line:
    text: str
    bbox: BBox
    size: float


def text_lines(chars: Sequence[Char]) -> list[_Line]:
    """Characters as lines of text, top to bottom, a line cut where a gap wider than two font
    sizes separates columns of a page."""
    rows: list[list[Char]] = []
    for ch in sorted(chars, key=lambda c: (float(c["top"]), float(c["x0"]))):
        mid = (float(ch["top"]) + float(ch["bottom"])) / 2
        row = next((r for r in reversed(rows) if float(r[0]["top"]) <= mid <= float(r[0]["bottom"])), None)
        if row is None:
            rows.append([ch])
        else:
            row.append(ch)
    out = []
    for row in rows:
        row.sort(key=lambda c: float(c["x0"]))
        piece: list[Char] = []
        ends: list[Char | None] = [*row, None]
        for ch in ends:
            size = float(piece[-1].get("size") or 10.0) if piece else 10.0
            if ch is not None and (not piece or float(ch["x0"]) - float(piece[-1]["x1"]) <= 2 * size):
                piece.append(ch)
                continue
            text = cell_text(piece)
            if text:
                box = (
                    min(float(c["x0"]) for c in piece),
                    min(float(c["top"]) for c in piece),
                    max(float(c["x1"]) for c in piece),
                    max(float(c["bottom"]) for c in piece),
                )
                sizes = sorted(float(c.get("size") or 10.0) for c in piece)
                out.append(_Line(text.replace("\n", " "), box, sizes[len(sizes) // 2]))
            piece = [ch] if ch is not None else []
    return out


def _caption_box(chars: Sequence[Char], box: BBox) -> _Line | None:
    """A box of one or two cells (not a table) holding only a caption, as one caption line."""
    inside = [c for c in chars if centre_in(c, box)]
    lines = text_lines(inside)
    if not lines or len(lines) > 2 or not CAPTION.match(lines[0].text):
        return None
    return _Line(" ".join(ln.text for ln in lines), box, lines[0].size)


def _overlaps_x(line: _Line, box: BBox) -> bool:
    return line.bbox[2] > box[0] + 1 and line.bbox[0] < box[2] - 1


def _nearer_other(line: _Line, gap: float, box: BBox, others: Sequence[BBox], tie: float) -> bool:
    """Whether another table stands closer to ``line`` (vertically, sharing columns) than ``gap``
    (+ ``tie``: ties go to the table below the line, captions above a table being the rule)."""
    for other in others:
        if other == box or not _overlaps_x(line, other):
            continue
        other_gap = min(abs(other[1] - line.bbox[3]), abs(line.bbox[1] - other[3]))
        if other_gap < gap + tie:
            return True
    return False


def _caption_above(lines: Sequence[_Line], box: BBox, others: Sequence[BBox]) -> list[int]:
    above = sorted(
        (i for i, ln in enumerate(lines) if ln.bbox[3] <= box[1] + 2 and _overlaps_x(ln, box)),
        key=lambda i: -lines[i].bbox[3],
    )
    group: list[int] = []
    edge = box[1]
    for i in above[:MAX_CAPTION_LINES]:
        line = lines[i]
        gap = edge - line.bbox[3]
        if gap > (LINE_GAP if group else CAPTION_GAP) * line.size:
            break
        if not group and _nearer_other(line, gap, box, others, tie=-2.0):
            break
        group.insert(0, i)
        if CAPTION.match(line.text):
            return group
        edge = line.bbox[1]
    return []


def _caption_below(lines: Sequence[_Line], box: BBox, others: Sequence[BBox]) -> list[int]:
    below = sorted(
        (i for i, ln in enumerate(lines) if ln.bbox[1] >= box[3] - 2 and _overlaps_x(ln, box)),
        key=lambda i: lines[i].bbox[1],
    )
    group: list[int] = []
    edge = box[3]
    for i in below[:MAX_CAPTION_LINES]:
        line = lines[i]
        gap = line.bbox[1] - edge
        first = lines[group[0]] if group else None
        if first is None:
            if gap > CAPTION_GAP * line.size or not CAPTION.match(line.text):
                return []
            if _nearer_other(line, gap, box, others, tie=2.0):
                return []
        elif gap > LINE_GAP * line.size or abs(line.size - first.size) > 0.6 or CAPTION.match(line.text):
            break
        group.append(i)
        edge = line.bbox[3]
    return group


def _caption_of(lines: Sequence[_Line], group: Sequence[int]) -> Caption:
    chosen = [lines[i] for i in group]
    box = (
        min(ln.bbox[0] for ln in chosen),
        min(ln.bbox[1] for ln in chosen),
        max(ln.bbox[2] for ln in chosen),
        max(ln.bbox[3] for ln in chosen),
    )
    return Caption(" ".join(" ".join(ln.text for ln in chosen).split()), box)


def _near_lines(chars: Sequence[Char], boxes: Sequence[BBox], exclude: Sequence[BBox]) -> list[_Line]:
    """Text lines within ``CAPTION_REACH`` above or below any of ``boxes``, outside ``exclude``."""
    bands = [(b[1] - CAPTION_REACH, b[3] + CAPTION_REACH) for b in boxes]
    near = [
        c
        for c in chars
        if any(lo <= float(c["top"]) <= hi for lo, hi in bands) and not centre_in_any(c, exclude)
    ]
    return text_lines(near)


def find_caption(page: Any, bbox: BBox, other_tables: Sequence[BBox] = ()) -> Caption | None:
    """The caption of the table at ``bbox`` on a pdfplumber page: a line (or up to three lines)
    starting "Table N" / "TABLE N" / "Tab. N" directly above the table, else directly below it,
    within two font sizes; a line standing closer to one of ``other_tables`` is theirs. For any
    table reader (bordered or not); its box is the caption's, to keep it out of the prose."""
    exclude = [bbox, *other_tables]
    lines = _near_lines(page.chars, [bbox], exclude)
    group = _caption_above(lines, bbox, other_tables) or _caption_below(lines, bbox, other_tables)
    return _caption_of(lines, group) if group else None


def _with_captions(found: list[PageTable], chars: Sequence[Char], boxed: list[_Line]) -> list[PageTable]:
    """Each table titled by the caption nearest to it: captions above first (for every table),
    then below for the rest; a line serves one table; the caption's box joins the table's."""
    found = sorted(found, key=lambda pt: pt.bbox[1])
    boxes = [pt.bbox for pt in found]
    untitled = [i for i, pt in enumerate(found) if not pt.table.title]
    if not untitled:
        return found
    lines = _near_lines(chars, [boxes[i] for i in untitled], [*boxes, *(b.bbox for b in boxed)]) + boxed
    claimed: set[int] = set()
    captions: dict[int, Caption] = {}
    for finder in (_caption_above, _caption_below):
        for k in untitled:
            if k in captions:
                continue
            free = [ln if i not in claimed else _Line("", ln.bbox, ln.size) for i, ln in enumerate(lines)]
            group = finder(free, boxes[k], boxes)
            if group and all(i not in claimed for i in group):
                claimed.update(group)
                captions[k] = _caption_of(lines, group)
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
