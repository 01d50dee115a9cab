"""Columns a ruled table does not rule: a ruled column holding two or more sub-columns of words, as
tables of grammar or of forms draw them (a group label, "First person", boxed over "Sing." and
"Plural", no rule between those two; rules between the groups only).

The grid says where the groups are (``ruled.table_from_cells``); the text says where the
sub-columns are. ``column_cuts`` finds, per ruled column, an x strip inside it that no line of
text crosses but one group label above the rest, with text on both sides on most lines (the
sub-labels' line among them); ``cut_columns`` cuts the column's cell rectangles there, as if a rule
were drawn, leaving the group label's cell whole (it then spans the sub-columns and sits in the
first, as a spanning cell does), so the rest of the ruled pipeline runs unchanged.

A strip must be ``MIN_STRIP`` font sizes wide (a word space is narrower), hold text on both sides
on ``MIN_SIDED`` lines at least and on ``SIDED_SHARE`` of the column's lines, and the first of
those lines must be labels (words, no figures: the sub-columns' names). A column whose lines are
figures side by side is left to the re-read of partial grids (``page_reader``), which reads such a
frame as an unruled table. Pure functions over ``GridCell`` records and pdfplumber char dicts.
"""

from __future__ import annotations

from collections.abc import Sequence

from parsers.pdf.tables.header import is_value
from parsers.pdf.tables.ruled_rows import Placed, band_lines
from parsers.pdf.tables.rules import BBox, Char

MIN_STRIP = 1.0  # x font size: the white strip between two sub-columns
MIN_SIDED = 3  # lines with text on both sides of the strip, the sub-labels' line included
SIDED_SHARE = 0.75  # of the column's lines (the group label's apart)
MAX_CELL_LINES = 2  # lines in one ruled cell (a wrapped word); more: no rows drawn by the rules
Span = tuple[float, float]


def _runs(chars: Sequence[Char]) -> list[Span]:
    """The x extents of a line's characters, touching ones merged."""
    spans = sorted((float(c["x0"]), float(c["x1"])) for c in chars if str(c["text"]).strip())
    out: list[Span] = []
    for a, b in spans:
        if out and a <= out[-1][1] + 0.5:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _words(chars: Sequence[Char]) -> list[str]:
    """A line's words: parted at space glyphs and at gaps over a fifth of the font size (text
    layers without space glyphs)."""
    words: list[str] = []
    last = None
    for c in sorted(chars, key=lambda c: float(c["x0"])):
        text = str(c["text"])
        size = float(c.get("size") or 10.0)
        if not text.strip():
            last = None
            continue
        if last is None or float(c["x0"]) - last > 0.2 * size:
            words.append(text)
        else:
            words[-1] += text
        last = float(c["x1"])
    return words


def _gaps(lines: Sequence[list[Span]], size: float) -> list[Span]:
    """Strips between the lines' leftmost and rightmost text that no run of any line covers."""
    runs = sorted(r for line in lines for r in line)
    gaps, reach = [], runs[0][1]
    for a, b in runs[1:]:
        if a - reach >= MIN_STRIP * size:
            gaps.append((reach, a))
        reach = max(reach, b)
    return gaps


def _column_lines(cells: Sequence[int], per_cell: Sequence[Sequence[Char]]) -> list[tuple[float, list[Char]]]:
    """A ruled column's lines of text, top to bottom: (top, characters); none when a cell below
    the first holds more than ``MAX_CELL_LINES`` lines (a frame around an unruled table or around
    paragraphs: the re-read of partial grids reads those)."""
    lines: list[tuple[float, list[Char]]] = []
    for n, i in enumerate(sorted(cells, key=lambda i: float(min(c["top"] for c in per_cell[i])))):
        mine = band_lines([i], per_cell)
        if n and len(mine) > MAX_CELL_LINES:
            return []
        lines.extend((ln.top, ln.cells[i]) for ln in mine)
    return sorted(lines, key=lambda t: t[0])


def _strip_cuts(lines: Sequence[tuple[float, list[Char]]]) -> tuple[list[float], float]:
    """Where to cut one ruled column's lines into sub-columns (x), and the top of the first line
    the cuts part (lines above it, a group label, stay whole); ([], 0) for none."""
    if len(lines) < MIN_SIDED:
        return [], 0.0
    size = sorted(float(c.get("size") or 10.0) for _, chs in lines for c in chs)[0]
    spans = [_runs(chs) for _, chs in lines]
    for skip in (0, 1):  # the first line may be a group label over the sub-columns
        rest = spans[skip:]
        if len(rest) < MIN_SIDED or not all(rest):
            continue
        cuts = []
        for lo, hi in _gaps(rest, size):
            sided = [k for k, line in enumerate(rest) if line[0][0] < lo and line[-1][1] > hi]
            if len(sided) < max(MIN_SIDED, SIDED_SHARE * len(rest)) or sided[0] != 0:
                continue
            cut = (lo + hi) / 2
            labels = not any(is_value(w) for w in _words(lines[skip][1]))
            if not labels or not _words_in_lines(lines[skip:], sided, cut):
                continue
            cuts.append(cut)
        if cuts:
            return cuts, lines[skip][0]
    return [], 0.0


def _extent(chars: Sequence[Char]) -> Span:
    return min(float(c["x0"]) for c in chars), max(float(c["x1"]) for c in chars)


def _words_in_lines(lines: Sequence[tuple[float, list[Char]]], sided: Sequence[int], cut: float) -> bool:
    """Most lines with text on both sides of ``cut`` hold a word (figures side by side are the
    re-read's), and every one has a letter or digit on both sides (a bullet before its text is
    no sub-column)."""
    worded = 0
    for k in sided:
        chars = lines[k][1]
        worded += any(not is_value(w) for w in _words(chars))
        left = [c for c in chars if float(c["x1"]) <= cut]
        right = [c for c in chars if float(c["x0"]) >= cut]
        if not all(any(str(c["text"]).isalnum() for c in side) for side in (left, right)):
            return False
    return worded * 2 > len(sided)


Cuts = dict[int, tuple[list[float], float]]  # ruled column -> (x of each cut, top of the first line cut)


def column_cuts(cells: Sequence[Placed], per_cell: Sequence[Sequence[Char]]) -> Cuts:
    """Per ruled column (index) holding sub-columns of words: where to cut it (x), and from where
    down (the top of the sub-labels' line)."""
    if _packed(per_cell):
        return {}  # a frame around figure columns: the re-read of partial grids reads it
    columns: dict[int, list[int]] = {}
    for i, c in enumerate(cells):
        if c.colspan == 1 and per_cell[i]:
            columns.setdefault(c.col, []).append(i)
    out = {}
    for col, members in columns.items():
        cuts, top = _strip_cuts(_column_lines(members, per_cell))
        if cuts:
            out[col] = (cuts, top)
    return out


PACKED = 3  # figures side by side on one line of a cell: a ruled column holding figure columns


def _packed(per_cell: Sequence[Sequence[Char]]) -> bool:
    """Two cells or more with a line of ``PACKED`` figures side by side (as page_reader's
    ``_packed_figures`` counts them)."""
    packed = 0
    for chars in per_cell:
        for line in band_lines([0], [chars]) if chars else ():
            if sum(1 for w in _words(line.cells[0]) if is_value(w)) >= PACKED:
                packed += 1
                break
    return packed >= 2


def cut_columns(
    cells: Sequence[Placed], per_cell: Sequence[Sequence[Char]], cuts: Cuts, tol: float = 1.0
) -> list[BBox]:
    """The cells' rectangles, those of a column with cuts cut there; a cell wholly above the first
    line cut (the group label over the sub-columns), a cell with a word across a cut and cells
    spanning columns stay whole."""
    out: list[BBox] = []
    for cell, chars in zip(cells, per_cell, strict=True):
        x0, top, x1, bottom = cell.bbox
        xs, first = cuts.get(cell.col, ([], 0.0))
        inner = sorted(x for x in xs if x0 + tol < x < x1 - tol)
        above = bool(chars) and all(float(c["bottom"]) <= first + 0.5 for c in chars)
        crossed = any(a < x < b for x in inner for a, b in _runs(chars))
        if cell.colspan != 1 or not inner or above or crossed:
            out.append(cell.bbox)
            continue
        edges = [x0, *inner, x1]
        out.extend((a, top, b, bottom) for a, b in zip(edges, edges[1:], strict=False))
    return out
