"""Title lines set right above an unruled table's column labels, centred over the whole table
("Monthly Sales Report" / "Fiscal year 2016, all regions", at the table's own line spacing): they
are the report's title, not header rows (parsers.pdf.tables.unruled).

A header line is such a title when it is one run of words crossing a column boundary, the lines
above it in the header are titles too, a header line with labels in two columns or more follows,
and it is centred on the whole table (within ``CENTRED`` x the table's width, or a font size)
better than on any run of two or more of the columns right of the label column: a group label
("Sales" over "Units" and "Revenue") is centred over the columns it spans, and stays a header row.

A title set flush left (or centred) whose words are spaced evenly but wider than a cell gap (a
justified or letter-spaced title line, "Sales  by  region,  fiscal  year  2016"), cut into
several cells by those gaps, is a title too (``_spaced_title``): its words run over a column
boundary with no gap standing out from the others (a row of column labels parts at
its column gaps, wider than its word spaces), and some gap between its words falls over text of
the body (column labels part over the body's white strips), unless its words are one per column,
each over its column's text (one-word labels of evenly spaced columns). A line right above a line of column
numbers ("(1) (2) (3)") is the labels they count, never a title. A title flush left over a column
boundary with a note flush right on its line ("Sales by region" ... "in thousands") and no label
between is a title too (``_noted_title``).
Pure functions over the grid of word boxes and the column boundaries.
"""

from __future__ import annotations

from collections.abc import Sequence

from parsers.pdf.tables.unruled_cells import Grid, Word
from parsers.pdf.tables.unruled_guards import counts_columns

CENTRED = 0.05  # x table width: a title's middle is this close to the table's
Runs = Sequence[tuple[float, float]]  # x extents of runs of columns


def title_lines(grid: Grid, head: int, seps: Sequence[float]) -> int:
    """How many of ``grid``'s first lines (header lines, before ``head``) are a title centred over
    the table; 0 when none."""
    body = [w for row in grid[head:] for cell in row for w in cell]
    if head < 2 or not body or not seps:
        return 0
    left, right = min(w.x0 for w in body), max(w.x1 for w in body)
    runs = _column_runs(grid[head:], len(seps) + 1)
    count = 0
    for i, row in enumerate(grid[: head - 1]):
        if counts_columns([" ".join(w.text for w in cell) for cell in grid[i + 1]]):
            break  # the labels a line of column numbers counts, not a title
        words = [w for cell in row for w in cell]
        one_run = sum(1 for cell in row if cell) == 1 and _centred(words, left, right, seps, runs)
        titled = one_run or _noted_title(row, left, right, seps)
        if not (titled or _spaced_title(words, left, right, seps, grid[head:])):
            break
        count += 1
    below = grid[count] if count else []
    return count if count and sum(1 for cell in below if cell) >= 2 else 0


def _column_runs(body: Grid, width: int) -> list[tuple[float, float]]:
    """Extents of every run of two or more columns right of the label column, from the body."""
    extents = []
    for j in range(width):
        words = [w for row in body for w in row[j]]
        extents.append((min(w.x0 for w in words), max(w.x1 for w in words)) if words else None)
    return [
        (extents[a][0], extents[b][1])  # type: ignore[index]
        for a in range(1, width)
        for b in range(a + 1, width)
        if extents[a] is not None and extents[b] is not None
    ]


def _centred(
    words: Sequence[Word],
    left: float,
    right: float,
    seps: Sequence[float],
    runs: Sequence[tuple[float, float]],
) -> bool:
    x0, x1 = min(w.x0 for w in words), max(w.x1 for w in words)
    if not any(x0 < s < x1 for s in seps):
        return False  # inside one column: a label
    mid, size = (x0 + x1) / 2, max(w.size for w in words)
    off = abs(mid - (left + right) / 2)
    if off > max(CENTRED * (right - left), size):
        return False
    return all(off < abs(mid - (a + b) / 2) for a, b in runs)


def _noted_title(row: Sequence[Sequence[Word]], left: float, right: float, seps: Sequence[float]) -> bool:
    """``row`` (one header line) is a title flush left at the table's left edge and running over
    a column boundary, with a note flush right at its right edge, in the last column ("Sales by
    region" ... "in thousands"), a column boundary between them and nothing else on the line: a
    row of labels has a label per column, a group label does not start in the label column."""
    filled = [j for j, cell in enumerate(row) if cell]
    if len(filled) != 2 or filled[0] != 0 or filled[1] != len(row) - 1 or filled[1] < 2:
        return False
    title, note = row[0], row[-1]
    size = max(w.size for w in (*title, *note))
    t0, t1 = min(w.x0 for w in title), max(w.x1 for w in title)
    n0, n1 = min(w.x0 for w in note), max(w.x1 for w in note)
    return (
        abs(t0 - left) <= size
        and any(t0 < s < t1 for s in seps)
        and abs(n1 - right) <= size
        and any(t1 < s < n0 for s in seps)
    )


SPACED = 1.5  # x the median gap: a gap this much wider stands out (a column gap, not a word space)


def _spaced_title(
    words: Sequence[Word], left: float, right: float, seps: Sequence[float], body: Grid
) -> bool:
    """``words`` (one header line) are one evenly spaced run of three words or more, flush left
    at the table's left edge or centred on it, over a column boundary, with a gap
    over the body's text."""
    if len(words) < 3:
        return False
    ws = sorted(words, key=lambda w: w.x0)
    x0, x1, size = ws[0].x0, ws[-1].x1, max(w.size for w in ws)
    flush = abs(x0 - left) <= size or abs((x0 + x1) / 2 - (left + right) / 2) <= size
    if not flush or not any(x0 < s < x1 for s in seps) or _label_per_column(ws, body, len(seps) + 1):
        return False
    gaps = [(a.x1, b.x0) for a, b in zip(ws, ws[1:], strict=False)]
    widths = sorted(b - a for a, b in gaps)
    if widths[-1] > SPACED * max(widths[len(widths) // 2], 0.1 * size):
        return False
    texts = [(w.x0, w.x1) for row in body for cell in row for w in cell]
    return any(any(a < t1 and t0 < b for t0, t1 in texts) for a, b in gaps)


def _label_per_column(words: Sequence[Word], body: Grid, width: int) -> bool:
    """``words`` (sorted left to right) are one per column, each over its own column's text in the
    body: a line of column labels set at even gaps because the columns are (a Chinese table's
    "测试程序 正常运行 同步 ..."), not a letter-spaced title, whose words fall anywhere."""
    extents = []
    for j in range(width):
        xs = [(w.x0, w.x1) for row in body for w in row[j]]
        extents.append((min(a for a, _ in xs), max(b for _, b in xs)) if xs else None)
    filled = [e for e in extents if e is not None]
    if len(words) != len(filled):
        return False
    return all(w.x0 < x1 and x0 < w.x1 for w, (x0, x1) in zip(words, filled, strict=True))
