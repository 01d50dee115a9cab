"""Rules across a whole unruled table (parsers.pdf.tables.unruled): a three-line table (a rule
above the header, one under it, one under the last row) or a box drawn around the table.

Such rules say where the table begins and ends, which the text alone does not: a running head or
a report title above the top rule, and notes under the bottom rule, are not rows (they were read
as the first or last rows when their words lined up with the columns); a single line between the
top rule and the header rule ("S4 classes defined by TIMP") is the table's title. They also make
a table of two text columns believable (a list of terms and their descriptions drawn as a
three-line table), which the guards reject without them. Pure functions over word boxes and
(x0, x1, y) rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from parsers.pdf.tables.unruled_cells import Word
from parsers.pdf.tables.unruled_guards import is_figure
from parsers.pdf.tables.unruled_header import Rule

Grid = list[list[list[Word]]]
SPAN = 0.95  # a rule covering this share of the table's width spans it
NEAR = 2.5  # x the table's median word height: how far above / below its rows a rule may lie
MAX_OUTSIDE = 2  # rows above the top rule or below the bottom rule that may be cut off


@dataclass(frozen=True)
class Framed:
    grid: Grid
    header: int
    title: tuple[Word, ...] = ()


def frame(grid: Grid, header: int, rules: Sequence[Rule]) -> Framed | None:
    """``grid`` cut to its spanning rules, its header rows those above the header rule and its
    title the lone line between the top rule and the header rule; None when no three rules span
    the table (the top one above its first kept row, the bottom one under its last). Header rows
    (by the text) above the top rule stay when a figure stands right under it: that rule is the
    header's (a table with no rule above its header), not a top rule with a title over it."""
    words = [w for row in grid for cell in row for w in cell]
    if len(grid) < 3 or not words:
        return None
    x0, x1 = min(w.x0 for w in words), max(w.x1 for w in words)
    size = sorted(w.bottom - w.top for w in words)[len(words) // 2]
    lo, hi = min(w.top for w in words) - NEAR * size, max(w.bottom for w in words) + NEAR * size
    tol = (x1 - x0) * (1 - SPAN)
    ys = sorted({round(y, 1) for a, b, y in rules if a <= x0 + tol and b >= x1 - tol and lo <= y <= hi})
    if len(ys) < 3:
        return None
    extents = [_extent(row) for row in grid]
    top, bottom = ys[0], ys[-1]
    first = next((i for i, (t, _) in enumerate(extents) if t >= top - 1.0), len(grid))
    last = max((i for i, (_, b) in enumerate(extents) if b <= bottom + 1.0), default=-1)
    if 0 < first <= header and _has_figure(grid[first]):
        first = 0  # the top rule is the header's rule: the header rows above it are the table's
    if first > MAX_OUTSIDE or len(grid) - 1 - last > MAX_OUTSIDE or last - first < 2:
        return None
    rows, extents = grid[first : last + 1], extents[first : last + 1]
    between = [
        k
        for k in range(len(rows) - 1)
        if any(extents[k][1] - 1.0 <= y <= extents[k + 1][0] + 1.0 for y in ys)
    ]
    if not between:
        return None
    cut = between[0] + 1  # rows above the first inner rule: the header (or a title line)
    title: tuple[Word, ...] = ()
    if (
        cut == 1
        and sum(1 for c in rows[0] if c) == 1
        and sum(1 for c in rows[1] if c) >= 2
        and len(between) > 1
    ):
        title = tuple(w for c in rows[0] for w in c)
        rows, cut = rows[1:], between[1]
    if len(rows) < 3:
        return None
    # the header rows the text says, less the rows cut off above the top rule and the title (the
    # rules only add header rows when the text found none: partial rules in a header are read by
    # unruled_header, which needs the header lines as the text has them)
    kept = header - first - (1 if title else 0)
    return Framed([list(r) for r in rows], kept if kept > 0 else min(cut, len(rows) - 1), title)


def _has_figure(row: Sequence[Sequence[Word]]) -> bool:
    """A cell of ``row`` is a figure: a data row (in a three-line table the row under the top
    rule is the header, labels only)."""
    return any(cell and is_figure(" ".join(w.text for w in cell)) for cell in row)


def _extent(row: Sequence[Sequence[Word]]) -> tuple[float, float]:
    words = [w for cell in row for w in cell]
    return min(w.top for w in words), max(w.bottom for w in words)
