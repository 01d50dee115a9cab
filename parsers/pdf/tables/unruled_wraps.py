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


def wrapped_rows(grid: Grid, head: int) -> tuple[Grid, int]:
    """``grid`` with the lines of each body row joined, and the first data line's index then: by
    the gaps between rows when they say where rows end and every group can be one row, else line
    by line. By the gaps, the first row may open above the first data line: the first lines of
    its text cells centred (or set at the bottom) beside the data line (``_opening_lines``)."""
    start = body_start(grid, head)
    if start == head:  # label lines over the data: line by line
        for lead in (_opening_lines(grid, head), 0):
            body = [row for row in grid[start - lead :] if any(row)]
            extents = [
                (min(w.top for c in row for w in c), max(w.bottom for c in row for w in c)) for row in body
            ]
            groups = rows_by_gaps(extents)
            if groups is None or any(i < lead for group in groups[1:] for i in group):
                continue
            rows = [[body[i] for i in group] for group in groups]
            if all(_one_row(r) for r in rows):
                return [*grid[: start - lead], *(_joined(r) for r in rows)], head - lead
    out: Grid = []
    merged = merge_wrapped(grid, head)
    for k, row in enumerate(merged):
        if k > start and out and _continues(row, out[-1]):
            out[-1] = _joined([out[-1], row])
        else:
            out.append(row)
    return out, head


def _opening_lines(grid: Grid, head: int) -> int:
    """How many lines right above the first data line (up to two, a header line above them) hold
    only the first lines of its wrapped text cells: words and no figure, in some of the columns
    only, each a column where the data line holds words and no figure too ("Bacillus subtilis
    and" over "Control  120  6.1  Escherichia coli", set at the bottom of the row) or nothing and
    the line under it does ("Bacillus subtilis and" / "Escherichia coli" centred on the row)."""
    data, under = grid[head], grid[head + 1] if head + 1 < len(grid) else []
    lead = 0
    while lead < 2 and head - lead - 1 >= 1:
        row = grid[head - lead - 1]
        filled = [j for j, cell in enumerate(row) if cell]
        if not filled or len(filled) * 2 > len(row) or any(_figure(row[j]) for j in filled):
            break
        if not all(_words(data[j]) or (not data[j] and under and _words(under[j])) for j in filled):
            break
        lead += 1
    return lead


def _words(cell: Sequence[Word]) -> bool:
    return bool(cell) and not _figure(cell)


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
