"""Title lines set right above an unruled table's column labels, centred over the whole table
("Monthly Sales Report" / "Fiscal year 2016, all regions", at the table's own line spacing): they
are the report's title, not header rows (parsers.pdf.tables.unruled).

A header line is such a title when it is one run of words crossing a column boundary, the lines
above it in the header are titles too, a header line with labels in two columns or more follows,
and it is centred on the whole table (within ``CENTRED`` x the table's width, or a font size)
better than on any run of two or more of the columns right of the label column: a group label
("Sales" over "Units" and "Revenue") is centred over the columns it spans, and stays a header row.
Pure functions over the grid of word boxes and the column boundaries.
"""

from __future__ import annotations

from collections.abc import Sequence

from parsers.pdf.tables.unruled_cells import Grid, Word

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
    for row in grid[: head - 1]:
        words = [w for cell in row for w in cell]
        if sum(1 for cell in row if cell) != 1 or not _centred(words, left, right, seps, runs):
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
