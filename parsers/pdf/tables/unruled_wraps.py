"""Body rows of an unruled table whose cells wrap onto several lines (parsers.pdf.tables.unruled):
``wrapped_rows`` groups the grid's lines into rows by the white space between them
(parsers.pdf.tables.row_gaps: rows set apart by more than their lines, the cells top-aligned or
centred), else joins the lines of a wrapped label (``merge_wrapped``) and then a line that only
continues text cells of the row above in lower case ("Slight increase in" / "shoot length"). Pure
functions over the grid of word boxes.
"""

from __future__ import annotations

from collections.abc import Sequence

from parsers.pdf.tables.row_gaps import rows_by_gaps
from parsers.pdf.tables.unruled_cells import Grid, Word, body_start, merge_wrapped
from parsers.pdf.tables.unruled_guards import is_figure


def wrapped_rows(grid: Grid, head: int) -> Grid:
    """``grid`` with the lines of each body row joined: by the gaps between rows when they say
    where rows end and every group can be one row, else line by line."""
    start = body_start(grid, head)
    body = [row for row in grid[start:] if any(row)]
    extents = [(min(w.top for c in row for w in c), max(w.bottom for c in row for w in c)) for row in body]
    groups = rows_by_gaps(extents) if start == head else None  # label lines over the data: line by line
    if groups is not None:
        rows = [[body[i] for i in group] for group in groups]
        if all(_one_row(r) for r in rows):
            return [*grid[:start], *(_joined(r) for r in rows)]
    out: Grid = []
    merged = merge_wrapped(grid, head)
    for k, row in enumerate(merged):
        if k > start and out and _continues(row, out[-1]):
            out[-1] = _joined([out[-1], row])
        else:
            out.append(row)
    return out


def _joined(rows: Sequence[Sequence[list[Word]]]) -> list[list[Word]]:
    return [[w for row in rows for w in row[j]] for j in range(len(rows[0]))]


def _figure(cell: Sequence[Word]) -> bool:
    return any(is_figure(w.text) for w in cell)


def _one_row(rows: Sequence[Sequence[list[Word]]]) -> bool:
    """Lines that can be one row: a label on one of them and no later label starting in upper
    case (a section label over its first row), no column with figures on two of them."""
    labels = [row[0] for row in rows if row[0]]
    if not labels or any(cell[0].text[:1].isupper() for cell in labels[1:]):
        return False
    return all(sum(_figure(row[j]) for row in rows) <= 1 for j in range(len(rows[0])))


def _continues(row: Sequence[list[Word]], above: Sequence[list[Word]]) -> bool:
    """A line with no label and no figure whose text stands only in cells the row above has text
    in, each starting in lower case: the rest of wrapped cells."""
    filled = [j for j, cell in enumerate(row) if cell]
    return (
        bool(filled)
        and not row[0]
        and any(above[1:])
        and all(above[j] and row[j][0].text[:1].islower() and not _figure(row[j]) for j in filled)
    )
