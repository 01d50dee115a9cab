"""Rows of a table from the white space between its lines of text, where no rule says where a row
ends: a row whose cells wrap onto several lines is set with its lines close together (the
leading) and a wider gap (the cell padding) before the next row. With that gap the lines group into
rows whatever the cells' vertical alignment (top, centred, bottom): the lines of a centred cell
sit above and below the row's one-line cells, inside the row.

``rows_by_gaps`` finds the two gap sizes (a clear jump between the smaller and the larger gaps,
``MIN_JUMP`` x the text height) and groups the lines at the larger ones; a table set with one line
spacing throughout (no jump) gets None, and its callers keep their line-by-line rules (a lower-case
label continues the row above). Callers check the grouping against their cells (two figures
stacked in one cell of a group are two rows, so a table with extra space between sections of
rows is not read as a few tall rows). Pure functions over (top, bottom) extents, top-down.
"""

from __future__ import annotations

from collections.abc import Sequence

MIN_JUMP = 0.3  # x text height: larger gaps this much wider than the smaller ones end rows
MIN_ROW_GAP = 0.15  # x text height: the larger gaps are at least this wide (not touching lines)

Extent = tuple[float, float]  # top, bottom of a line of text


def rows_by_gaps(lines: Sequence[Extent]) -> list[list[int]] | None:
    """Indices of ``lines`` (top to bottom) grouped into rows at the wider gaps between them, or
    None when the gaps are of one size, or no row holds several lines."""
    if len(lines) < 3:  # two gaps at least
        return None
    heights = sorted(b - t for t, b in lines)
    height = heights[len(heights) // 2] or 1.0
    gaps = [b[0] - a[1] for a, b in zip(lines, lines[1:], strict=False)]
    ordered = sorted(gaps)
    jump, k = max((ordered[i + 1] - ordered[i], i) for i in range(len(ordered) - 1))
    if jump < MIN_JUMP * height or ordered[k + 1] < MIN_ROW_GAP * height:
        return None
    cut = (ordered[k] + ordered[k + 1]) / 2
    rows: list[list[int]] = [[0]]
    for i, gap in enumerate(gaps, start=1):
        if gap > cut:
            rows.append([i])
        else:
            rows[-1].append(i)
    return rows if any(len(r) > 1 for r in rows) else None
