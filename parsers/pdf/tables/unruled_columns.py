"""Column boundaries of an unruled table and its words put in columns (parsers.pdf.tables.unruled).

``separators`` (x strips no chunk covers, where enough lines have text on both sides) ->
``column_separators`` (from the data lines first: header labels are often wider than their
columns; a label column of row labels set only on lines of their own) -> ``build_grid`` (words
to the columns; each header line parts its labels at its own gaps inside the body's; a header
label spanning columns stays whole, in the first column it covers). Pure functions over word
boxes.
"""

from __future__ import annotations

from collections.abc import Sequence

from parsers.pdf.tables.unruled_cells import Chunk, Grid, Line, Word, first_data_line
from parsers.pdf.tables.unruled_guards import is_figure

CHUNK_GAP = 0.6  # x font size: a gap wider than this between two words may separate two cells
TIGHT_GAP = 0.4  # x font size: wider than a word space; in a column gap of the body, parts two labels


def _slot(x: float, seps: Sequence[float]) -> int:
    return sum(1 for s in seps if x > s)


def separators(block: Sequence[Line], head: int = 0) -> list[float]:
    """Column boundaries: the middle of each x-strip that (almost) no chunk of the block's
    multi-chunk lines covers, where enough lines have text on both sides; then a column holding
    only header text (lines before ``head``) joins the body column its text stands over (a label
    wider than its figures, or one between two boundaries)."""
    multi = [ln for ln in block if len(ln.chunks) >= 2]
    lo = int(min(c.x0 for ln in multi for c in ln.chunks))
    hi = int(max(c.x1 for ln in multi for c in ln.chunks)) + 1
    cover = [0] * (hi - lo + 1)
    for ln in multi:
        for c in ln.chunks:
            for x in range(int(c.x0) - lo, min(int(c.x1) - lo + 1, len(cover))):
                cover[x] += 1
    allow = len(multi) // 6  # a body cell may overflow into a column gap
    need = max(2, int(0.3 * len(multi) + 0.5))
    out: list[float] = []
    x = 0
    while x < len(cover):
        if cover[x] > allow:
            x += 1
            continue
        end = x
        while end < len(cover) and cover[end] <= allow:
            end += 1
        if x > 0 and end < len(cover):
            sep = lo + _best_strip(cover[x:end], x)
            both = sum(1 for ln in multi if ln.chunks[0].x0 < sep < ln.chunks[-1].x1)
            if both >= need:
                out.append(sep)
        x = end
    return _drop_header_only(block, head, out)


def _drop_header_only(block: Sequence[Line], head: int, seps: list[float]) -> list[float]:
    body = [w for ln in block[head:] for w in ln.words]
    header = [w for ln in block[:head] for w in ln.words]
    seps = list(seps)
    changed = True
    while changed and seps:
        changed = False
        bounds = [-1e9, *seps, 1e9]
        for j in range(len(bounds) - 1):
            in_slot = [w for w in body if bounds[j] < (w.x0 + w.x1) / 2 <= bounds[j + 1]]
            if in_slot:
                continue
            labels = [w for w in header if bounds[j] < (w.x0 + w.x1) / 2 <= bounds[j + 1]]
            right = [
                w for w in body if bounds[j + 1] < (w.x0 + w.x1) / 2 <= bounds[min(j + 2, len(bounds) - 1)]
            ]
            joins_right = j + 1 < len(seps) + 1 and any(
                min(a.x1, b.x1) > max(a.x0, b.x0) for a in labels for b in right
            )
            if joins_right and j < len(seps):
                del seps[j]
            elif j > 0:
                del seps[j - 1]
            else:
                continue
            changed = True
            break
    return seps


def _best_strip(strip: Sequence[int], offset: int) -> float:
    """Middle of the longest run of the lowest coverage in ``strip`` (offsets from ``lo``)."""
    low = min(strip)
    best = (0, 0)
    i = 0
    while i < len(strip):
        if strip[i] != low:
            i += 1
            continue
        j = i
        while j < len(strip) and strip[j] == low:
            j += 1
        if j - i > best[1] - best[0]:
            best = (i, j)
        i = j
    return offset + (best[0] + best[1]) / 2


MIN_BODY_LINES = 2  # data lines with two cells or more that set the columns without the header


def column_separators(block: Sequence[Line]) -> list[float]:
    """The block's column boundaries, from its data lines when at least ``MIN_BODY_LINES`` of
    them have two cells or more: header labels are centred over their columns and often wider
    than them ("West Oxon" over "38,900", "West Oxon" over "(%)"), or are a chart's axis labels
    above the table, so their gaps do not stand where the figures' gaps do; a header label
    crossing a boundary is then placed by ``build_grid``. A boundary every line gives and the
    data lines alone do not (a sparse column the header names) is kept where no data boundary
    stands in the same gap. Otherwise from every line."""
    head = first_data_line(block)
    seps = separators(block, head)
    body = block[head:]
    figures = any(is_figure(c.text) for c in block[head].chunks[1:])
    if head == 0 or not figures or sum(len(ln.chunks) >= 2 for ln in body) < MIN_BODY_LINES:
        lead = group_label_lines(block)
        if lead:  # group labels over the text table's column labels: its columns from the rest
            return separators(block[lead:]) or seps
        return seps  # no data line: a text table's columns (or prose) set by all its lines
    own = separators(body)
    if not own:
        return seps
    chunks = [c for ln in body for c in ln.chunks]

    def same_gap(a: float, b: float) -> bool:
        lo, hi = min(a, b), max(a, b)
        return not any(c.x1 > lo and c.x0 < hi for c in chunks)

    out = sorted([*own, *(s for s in seps if not any(same_gap(s, b) for b in own))])
    outer = outer_label_column(block, head)
    return [outer, *out] if outer is not None and outer < out[0] else out


def group_label_lines(block: Sequence[Line]) -> int:
    """How many lines at the top of ``block`` hold group labels: each with fewer than half as
    many cells as the block's fullest line, which comes right after them ("Group A" and "Group
    B", each centred over two column labels, over "Ion  1st choice  2nd choice  1st choice  2nd
    choice"), each cell over white only (no text of the lines under it below it), with
    ``MIN_BODY_LINES`` lines of two cells or more from there on. A group label
    centred over the gap between its sub-columns leaves white on both sides of it where the
    columns below are set, so the columns are read from the lines under it; ``build_grid`` then
    places it in the first column it spans. 0 when there are none."""
    most = max((len(ln.chunks) for ln in block), default=0)
    k = 0
    while k < len(block) and 2 * len(block[k].chunks) < most:
        k += 1
    if k == 0 or k == len(block) or len(block[k].chunks) != most:
        return 0
    rest = [c for ln in block[k:] for c in ln.chunks]
    in_white = all(
        not any(r.x0 < c.x1 and c.x0 < r.x1 for r in rest) for ln in block[:k] for c in ln.chunks
    )  # each label over white only: no text of the lines under it below any part of it
    return k if in_white and sum(len(ln.chunks) >= 2 for ln in block[k:]) >= MIN_BODY_LINES else 0


def outer_label_column(block: Sequence[Line], head: int) -> float | None:
    """A boundary left of the row labels for a column of labels set only on lines of their own
    ("DP" between its "NLL" and "Triplet" rows, "L2" between the next two: a label over a group
    of rows, centred beside it), which no line with two cells reaches: two such lines or more in
    the body, wholly left of every data line's first cell, under a header label over them."""
    multi = [ln for ln in block[head:] if len(ln.chunks) >= 2]
    if not multi:
        return None
    left = min(ln.chunks[0].x0 for ln in multi)
    outer = [
        ln.chunks[0]
        for ln in block[head:]
        if len(ln.chunks) == 1 and ln.chunks[0].x1 < left - CHUNK_GAP * ln.size
    ]
    if len(outer) < 2:
        return None
    lo, hi = min(c.x0 for c in outer), max(c.x1 for c in outer)
    sep = (hi + left) / 2
    named = any(c.x0 < hi and c.x1 > lo and c.x1 < sep for ln in block[:head] for c in ln.chunks)
    return sep if named else None


def build_grid(block: Sequence[Line], seps: Sequence[float]) -> tuple[Grid, int]:
    """Each line as a row of columns (words per cell), and how many leading lines are header
    lines. In a header line a chunk overlapping several columns is one spanning label, placed in
    the first column it covers; elsewhere words go to the column holding their centre."""
    n = len(seps) + 1
    head = first_data_line(block)
    strips = _body_gaps(block[head:], seps)
    grid: Grid = []
    for i, line in enumerate(block):
        row: list[list[Word]] = [[] for _ in range(n)]
        if i < head:
            line = part_tight_labels(line, strips)
        own = _line_seps(line, seps, strips) if i < head else seps
        for c in line.chunks:
            gap = _group_gap(c, strips, seps, block[i + 1]) if i < head and i + 1 < len(block) else None
            if gap is not None:  # a group label set in the white between its two sub-columns
                row[gap].extend(c.words)
                continue
            first, last = _slot(c.x0 + 1, own), _slot(c.x1 - 1, own)
            if i < head and first != last:
                row[_label_slot(c, own, first, last)].extend(c.words)
                continue
            for w in c.words:
                row[_slot((w.x0 + w.x1) / 2, own)].append(w)
        grid.append(row)
    return grid, head


def _group_gap(
    chunk: Chunk, strips: Sequence[tuple[float, float]], seps: Sequence[float], below: Line
) -> int | None:
    """The column a header label goes to when it stands wholly inside the body's white strip
    around a boundary, over a line with a label on each side of that boundary (a group label
    centred over two sub-columns, "D₄ₕ" over "1st alternative" and "2nd alternative"): the
    first of the two it spans. None for any other chunk."""
    for k, (lo, hi) in enumerate(strips):
        if lo - 1 <= chunk.x0 and chunk.x1 <= hi + 1 and hi > lo:
            sides = {_slot((c.x0 + c.x1) / 2, seps) for c in below.chunks}
            return k if {k, k + 1} <= sides else None
    return None


def _body_gaps(body: Sequence[Line], seps: Sequence[float]) -> list[tuple[float, float]]:
    """For each boundary, the white strip around it between the body's chunks."""
    chunks = [c for ln in body for c in ln.chunks]
    return [
        (
            max((c.x1 for c in chunks if c.x1 <= s), default=s),
            min((c.x0 for c in chunks if c.x0 >= s), default=s),
        )
        for s in seps
    ]


def part_tight_labels(line: Line, strips: Sequence[tuple[float, float]], tol: float = 1.0) -> Line:
    """A header line with its chunks cut at word gaps wider than a word space (``TIGHT_GAP`` x the
    font size) that lie inside the body's white strip around a column boundary: the labels of two
    tight columns set closer than a cell gap ("2016 % Chg" over "1,311" and "8.9") are two labels,
    not one spanning both. A label spanning columns has word spaces only, so it stays whole, as do
    labels set with wide spaces throughout (the gap must be half as wide again as the line's other
    word gaps) and two words with digits ("2021-06-04 09:00": figures part at the chunk level)."""
    chunks: list[Chunk] = []
    gaps = sorted(b.x0 - a.x1 for c in line.chunks for a, b in zip(c.words, c.words[1:], strict=False))
    for chunk in line.chunks:
        parts: list[list[Word]] = [[chunk.words[0]]]
        for a, b in zip(chunk.words, chunk.words[1:], strict=False):
            gap = b.x0 - a.x1
            others = [g for g in gaps if g != gap]
            spaced = bool(others) and gap < 1.5 * others[len(others) // 2]  # words set wide apart
            wide = gap > TIGHT_GAP * max(a.size, b.size, 1.0) and not spaced
            words = not (_digits(a.text) and _digits(b.text))  # a date and its time: one value
            if wide and words and any(_in_strip(a.x1, b.x0, lo, hi, tol) for lo, hi in strips):
                parts.append([b])
            else:
                parts[-1].append(b)
        chunks.extend(Chunk(tuple(p)) for p in parts)
    return line if len(chunks) == len(line.chunks) else Line(tuple(chunks))


def _in_strip(a: float, b: float, lo: float, hi: float, tol: float) -> bool:
    """The gap (a, b) between two header words lies in the body's white strip (lo, hi): inside
    it, or straddling one of its edges with its middle inside (centred labels, one wider than its
    figures and reaching into the strip, the next narrower and starting past it: "Jaccard ↑" and
    "DDI ↓" over "0.3810" and "0.0675")."""
    inside = lo - tol <= a and b <= hi + tol
    return inside or (a < hi and b > lo and lo <= (a + b) / 2 <= hi)


def _digits(text: str) -> bool:
    return any(ch.isdigit() for ch in text)


def _line_seps(line: Line, seps: Sequence[float], strips: Sequence[tuple[float, float]]) -> list[float]:
    """A header line's own boundaries: where the line has a gap between two chunks inside the
    body's white strip around a boundary, its boundary there is the middle of that gap (header
    labels wider than their figures part where they part, not where the figures do: "West Oxon"
    twice over "38,900" and "(%)", each label line with its own gaps)."""
    out = list(seps)

    def meets(gap: tuple[float, float], strip: tuple[float, float]) -> bool:
        return gap[0] < strip[1] and gap[1] > strip[0]

    pairs = zip(line.chunks, line.chunks[1:], strict=False)
    gaps = [(a.x1, b.x0) for a, b in pairs]
    gaps = [g for g in gaps if sum(meets(g, st) for st in strips) == 1]  # not one across columns
    for k, (lo, hi) in enumerate(strips):
        inside = [(a, b) for a, b in gaps if meets((a, b), (lo, hi))]
        if len(inside) == 1:
            a, b = inside[0]
            mid = (max(a, lo) + min(b, hi)) / 2
            left = out[k - 1] if k else -1e9
            right = seps[k + 1] if k + 1 < len(seps) else 1e9
            if left < mid < right:
                out[k] = mid
    return out


def _label_slot(chunk: Chunk, seps: Sequence[float], first: int, last: int) -> int:
    """Column of a header label crossing a column boundary: the one holding 70 % of its width
    (a label overhanging its column), else the first it covers (a label spanning columns)."""
    bounds = [-1e9, *seps, 1e9]
    width = (chunk.x1 - chunk.x0) or 1.0
    for j in range(first, last + 1):
        if min(chunk.x1, bounds[j + 1]) - max(chunk.x0, bounds[j]) >= 0.7 * width:
            return j
    return first


def part_over_unlabelled(grid: Grid, header: int, tol: float = 1.0) -> Grid:
    """``grid`` with header labels parted at a word space where the next column has no label in
    any header row: the labels of two tight columns set a word space apart ("VAT Quantity", the
    first flush with its figures, the second starting past them) were one cell in the first
    column and left the second unlabelled. A header cell is parted between two words when the
    words before end within its column's body text (``tol`` pt past its right edge at most), the
    words after start past that edge and overlap the next column's body text; a label spanning
    two columns has its middle word gap inside the white strip between them, so it stays whole, and
    a label and its value ("Time: 20:12") stay one cell."""
    if not 0 < header < len(grid):
        return grid
    out = [[list(cell) for cell in row] for row in grid]
    for j in range(len(grid[0]) - 1):
        if any(out[i][j + 1] for i in range(header)):
            continue
        own = [w for row in out[header:] for w in row[j]]
        nxt = [w for row in out[header:] for w in row[j + 1]]
        if not own or not nxt:
            continue
        edge, lo, hi = max(w.x1 for w in own), min(w.x0 for w in nxt), max(w.x1 for w in nxt)
        for i in range(header):
            words = sorted(out[i][j], key=lambda w: w.x0)
            for k in range(1, len(words)):
                before, after = words[:k], words[k:]
                if (
                    not before[-1].text.endswith(":")  # "Time: 20:12", a label and its value
                    and max(w.x1 for w in before) <= edge + tol
                    and after[0].x0 >= edge
                    and min(w.x0 for w in after) < hi
                    and max(w.x1 for w in after) > lo
                ):
                    out[i][j], out[i][j + 1] = before, after
                    break
    return out
