"""Rows a ruled table does not rule: a band of the grid (between two horizontal rules) that holds
several data rows, one per line of text, as statistical tables draw them (rules between the
columns and under the header, none between the rows of the body).

The grid still says where the columns and the header rows are (``ruled.table_from_cells``); the
text says where the body rows are. ``row_cuts`` finds, per band, the lines of text that are rows
and where to cut between them; ``cut_boxes`` cuts the band's cell rectangles there, as if a rule
were drawn, so the rest of the ruled pipeline (text to cells, spans, header rows) runs unchanged.

The first band holding text is never cut (the header's, or a boxed caption's). A band is cut
only when ``MIN_STACKED`` lines have text in two cells or more, a column holds a figure on at
least ``MIN_STACKED`` of its lines (several values stacked in one cell are several rows; a wrapped
label or paragraph is not) and no column's lines hold several figures side by side (a ruled
column holding a whole unruled table: the parser re-reads such a frame for its own columns).
A label-only line joins the row it wraps (the next line's label starts in lower case, or it does
and follows a row with values), as the unruled detector's ``merge_wrapped`` does. Pure functions
over ``GridCell`` records and pdfplumber char dicts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from parsers.pdf.tables.cell_text import cell_text
from parsers.pdf.tables.header import is_value
from parsers.pdf.tables.row_gaps import rows_by_gaps
from parsers.pdf.tables.row_spans import Label, centred_groups
from parsers.pdf.tables.rules import BBox, Char

MIN_STACKED = 3  # figures stacked in one cell of a band: the band holds that many rows at least
GROUPED_STACKED = 2  # ... in a frame with no vertical rule inside (rules between groups of rows)
SIDE_GAP = 1.0  # x font size: a gap this wide inside one line of a cell parts two figures


class Placed(Protocol):  # read-only: frozen cells (ruled.GridCell) qualify
    @property
    def row(self) -> int: ...
    @property
    def col(self) -> int: ...
    @property
    def rowspan(self) -> int: ...
    @property
    def colspan(self) -> int: ...
    @property
    def bbox(self) -> BBox: ...


@dataclass
class _Line:
    """A line of text across a band: per cell (index into the band's cells) its characters."""

    top: float
    bottom: float
    cells: dict[int, list[Char]]

    def text(self, cell: int) -> str:
        return cell_text(self.cells.get(cell, []))


def band_lines(cells: Sequence[int], per_cell: Sequence[Sequence[Char]]) -> list[_Line]:
    """The characters of ``cells`` as lines across the band, top to bottom (a char joins the line
    whose first char its vertical centre falls within)."""
    tagged = sorted(
        ((float(ch["top"]), i, ch) for i in cells for ch in per_cell[i] if str(ch["text"]).strip()),
        key=lambda t: (t[0], float(t[2]["x0"])),
    )
    lines: list[_Line] = []
    for top, i, ch in tagged:
        bottom = float(ch["bottom"])
        mid = (top + bottom) / 2
        line = next((ln for ln in reversed(lines) if ln.top <= mid <= ln.bottom), None)
        if line is None:
            lines.append(_Line(top, bottom, {i: [ch]}))
        else:
            line.cells.setdefault(i, []).append(ch)
    for line in lines:
        line.bottom = max(float(ch["bottom"]) for chs in line.cells.values() for ch in chs)
    return lines


def _side_by_side(chars: Sequence[Char]) -> bool:
    """Two figures (or words) in one line of a cell with a gap over ``SIDE_GAP`` font sizes."""
    ordered = sorted(chars, key=lambda c: float(c["x0"]))
    return any(
        float(b["x0"]) - float(a["x1"]) > SIDE_GAP * float(a.get("size") or 10.0)
        for a, b in zip(ordered, ordered[1:], strict=False)
    )


def is_row_band(lines: Sequence[_Line], cells: Sequence[int], stacked: int = MIN_STACKED) -> bool:
    """Whether the band's lines are rows: ``MIN_STACKED`` lines with text in two cells or more,
    some cell stacking ``MIN_STACKED`` figures (not a list of figures in one cell of a ruled row,
    nor a two-line cell: "12" / "(3.4%)", "FY2013" / "FY2014" stay one ruled cell), and no cell
    with figures side by side on most of its lines."""
    if sum(len(ln.cells) >= 2 for ln in lines) < stacked:
        return False
    for i in cells:
        mine = [ln for ln in lines if i in ln.cells]
        if len(mine) >= 2 and sum(_side_by_side(ln.cells[i]) for ln in mine) * 2 >= len(mine):
            return False
    return any(sum(is_value(ln.text(i)) for ln in lines if i in ln.cells) >= stacked for i in cells)


def group_rows(lines: Sequence[_Line], label: int) -> list[list[_Line]]:
    """Lines grouped into rows: by the white space between them where rows are set apart by more
    than their lines (``rows_by_gaps``: wrapped cells, top-aligned or centred, each group holding a
    label and no cell two figures); else line by line: a line with text beside the label column
    is a row, unless it holds no label and no figure and only continues cells of the row above (a
    cell wrapped under its first line); a label-only line joins the next line when that one's
    label starts in lower case (a label wrapped before its values), or the row above when it
    starts in lower case itself (wrapped after them)."""
    by_gaps = rows_by_gaps([(ln.top, ln.bottom) for ln in lines])
    if by_gaps is not None:
        groups = [[lines[i] for i in row] for row in by_gaps]
        if all(_one_row(group, label) for group in groups):
            return groups
    rows: list[list[_Line]] = []
    pending: _Line | None = None
    for line in lines:
        text = line.text(label)
        label_only = bool(text) and set(line.cells) == {label}
        lower = text[:1].islower()
        if pending is not None:
            rows.append([pending, line] if lower else [pending])
            pending = None
            if lower:
                continue
        if label_only and lower and rows and any(set(ln.cells) - {label} for ln in rows[-1]):
            rows[-1].append(line)
        elif label_only:
            pending = line
        elif rows and _continues(line, rows[-1], label):
            rows[-1].append(line)
        else:
            rows.append([line])
    if pending is not None:
        rows.append([pending])
    return rows


def _extent(row: Sequence[_Line]) -> tuple[float, float]:
    return min(ln.top for ln in row), max(ln.bottom for ln in row)


def centred_spans(rows: Sequence[list[_Line]], label: int) -> tuple[list[list[_Line]], list[int]] | None:
    """Row labels centred beside the group of rows each names (``row_spans.centred_groups``): the
    rows holding values (a line holding only such a label is none) and the index of the last row
    of each label's group; None when the labels are not set so."""
    alone = [all(set(ln.cells) == {label} for ln in row) for row in rows]
    data = [row for row, lone in zip(rows, alone, strict=True) if not lone]
    labels: list[Label] = []
    at = 0  # value rows above
    for row, lone in zip(rows, alone, strict=True):
        lines = [ln for ln in row if ln.text(label)]
        if lines:
            labels.append((at, lone, _extent(lines), lines[0].text(label)[:1].islower()))
        at += not lone
    groups = centred_groups([_extent(row) for row in data], labels)
    return (data, groups[0]) if groups else None


def _one_row(group: Sequence[_Line], label: int) -> bool:
    """A group of lines that can be one row: a label on one of its lines, and no more label
    starting in upper case on a later line (a section label over its first row), no cell with a
    figure on two of them (figures stacked in one cell are rows)."""
    labels = [ln.text(label) for ln in group if ln.text(label)]
    if not labels or any(t[:1].isupper() for t in labels[1:]):
        return False
    cells = {i for ln in group for i in ln.cells}
    return all(sum(is_value(ln.text(i)) for ln in group if i in ln.cells) <= 1 for i in cells)


def _continues(line: _Line, row: Sequence[_Line], label: int) -> bool:
    """``line`` holds no label and no figure, and text only in cells the row above has text in,
    each starting in lower case: the rest of cells wrapped onto a second line."""
    above = {i for ln in row for i in ln.cells}
    return (
        label not in line.cells
        and set(line.cells) <= above
        and all(line.text(i)[:1].islower() for i in line.cells)
        and any(set(ln.cells) - {label} for ln in row)
    )


def row_cuts(
    cells: Sequence[Placed], per_cell: Sequence[Sequence[Char]], n_rows: int, stacked: int = MIN_STACKED
) -> dict[int, list[float]]:
    """Per band of the grid (row index) that holds several rows of text: where to cut it (y, page
    coordinates), between the bottom of one row's text and the top of the next. ``stacked``: the
    figures a column must stack in a band (2 in a frame of horizontal rules only, a booktabs table
    ruled between groups of rows, whose bands hold rows, not cells)."""
    return {r: _between(groups) for r, (_, groups, _) in _row_bands(cells, per_cell, n_rows, stacked).items()}


def span_cuts(
    cells: Sequence[Placed], per_cell: Sequence[Sequence[Char]], n_rows: int, stacked: int = MIN_STACKED
) -> dict[tuple[int, int], list[float]]:
    """Per (band, column) of a band ``row_cuts`` cuts whose row labels are centred beside groups
    of rows (``centred_spans``): the label cell's own cuts, between the groups only (the label
    cell spans its group's rows, as a ruled cell spanning rows does)."""
    out: dict[tuple[int, int], list[float]] = {}
    for r, (label, groups, ends) in _row_bands(cells, per_cell, n_rows, stacked).items():
        if ends:
            between = _between(groups)
            out[(r, cells[label].col)] = [between[e] for e in ends[:-1]]
    return out


def _between(groups: Sequence[Sequence[_Line]]) -> list[float]:
    return [
        (max(ln.bottom for ln in above) + min(ln.top for ln in below)) / 2
        for above, below in zip(groups, groups[1:], strict=False)
    ]


def _row_bands(
    cells: Sequence[Placed], per_cell: Sequence[Sequence[Char]], n_rows: int, stacked: int
) -> dict[int, tuple[int, list[list[_Line]], list[int]]]:
    """Per band holding rows of text: its label cell, its rows (lines grouped; without the lines
    of labels centred beside groups of rows) and the last row of each such group ([] if none)."""
    out: dict[int, tuple[int, list[list[_Line]], list[int]]] = {}
    first = min((c.row for c, chars in zip(cells, per_cell, strict=True) if chars), default=n_rows)
    bands: dict[int, list[int]] = {}
    for i, c in enumerate(cells):
        if c.rowspan == 1 and c.row > first:  # the first band is the header's (or a caption's)
            bands.setdefault(c.row, []).append(i)
    for r, band in sorted(bands.items()):
        if len(band) < 2 or r >= n_rows:
            continue
        lines = band_lines(band, per_cell)
        label = min(band, key=lambda i: cells[i].col)
        if not is_row_band(lines, band, stacked):
            continue
        groups = group_rows(lines, label)
        spans = centred_spans(groups, label)
        out[r] = (label, *spans) if spans else (label, groups, [])
    return out


def cut_boxes(
    cells: Sequence[Placed],
    cuts: dict[int, list[float]],
    tol: float = 1.0,
    own: dict[tuple[int, int], list[float]] | None = None,
) -> list[BBox]:
    """The cells' rectangles, those of a band with cuts cut there (cells spanning bands whole; a
    cell with cuts of its own in ``own``, by band and column, cut at those)."""
    out: list[BBox] = []
    for cell in cells:
        x0, top, x1, bottom = cell.bbox
        mine = (own or {}).get((cell.row, cell.col), cuts.get(cell.row, ()))
        inner = sorted(y for y in mine if top + tol < y < bottom - tol)
        if cell.rowspan != 1 or not inner:
            out.append(cell.bbox)
            continue
        edges = [top, *inner, bottom]
        out.extend((x0, a, x1, b) for a, b in zip(edges, edges[1:], strict=False))
    return out
