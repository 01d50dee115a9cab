"""Text columns of a page, cut before unruled tables are searched (parsers.pdf.tables.unruled):
the gutter between two text columns of prose (``page_gutter``), or the fold between two halves set
independently of each other, such as the two pages of a spread (``page_fold``). Pure functions
over parsers.pdf.tables.unruled_cells lines."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from parsers.pdf.labels import FIGURE_CAPTION
from parsers.pdf.tables.unruled_cells import Chunk, Line, word_count

PROSE_WORDS = 5  # a chunk this long and wide (PROSE_WIDTH of the text width) is prose
PROSE_WIDTH = 0.25
FOLD_WIDTH = 0.03  # x text width: the narrowest strip free of text that may be a fold
MIN_SIDE_LINES = 3  # lines with text on each side of a fold
NEAR_PROSE = 1.5  # x line height: a line this close to a prose line is cut at the gutter too
FAR_PROSE = 3.0  # x line height: a line next to prose but farther from it is not cut for it


def _is_prose(chunk: Chunk, text_width: float) -> bool:
    return word_count(chunk) >= PROSE_WORDS and chunk.x1 - chunk.x0 >= PROSE_WIDTH * text_width


def page_gutter(lines: Sequence[Line], text_width: float) -> float | None:
    """The x of a gutter between text columns: the widest strip in the middle of the text that no
    prose chunk crosses, with at least three prose chunks on each side; None on a one-column page.
    A figure's caption centred across both columns ("Figure 8. Comparison of ...") is no column's
    prose and may cross the gutter."""
    prose = [
        c
        for line in lines
        if not FIGURE_CAPTION.match(line.chunks[0].text)
        for c in line.chunks
        if _is_prose(c, text_width)
    ]
    if len(prose) < 6:
        return None
    lo, hi = min(c.x0 for c in prose), max(c.x1 for c in prose)
    a, b = lo + 0.2 * (hi - lo), hi - 0.2 * (hi - lo)
    best: tuple[float, float] | None = None
    edge = a  # sweep the prose extents left to right: the free strips are the gaps between them
    for x0, x1 in sorted((c.x0, c.x1) for c in prose if c.x1 > a and c.x0 < b):
        if x0 > edge and (best is None or x0 - edge > best[1] - best[0]):
            best = (edge, x0)
        edge = max(edge, x1)
    if edge < b and (best is None or b - edge > best[1] - best[0]):
        best = (edge, b)
    if best is None:
        return None
    mid = (best[0] + best[1]) / 2
    left = sum(1 for c in prose if c.x1 <= mid)
    right = sum(1 for c in prose if c.x0 >= mid)
    return mid if left >= 3 and right >= 3 else None


def lanes(lines: Sequence[Line], text_width: float, depth: int = 2) -> list[list[Line]]:
    """Sequences of lines to search for tables: the whole page, or, on a page with a gutter, the
    lines cut at it (only lines near prose: a full-width table below two text columns stays whole)."""
    if depth <= 0:
        return [list(lines)]
    mid = page_gutter(lines, text_width)
    if mid is None:
        fold = page_fold(lines, text_width)
        if fold is None:
            return [list(lines)]
        before = [Line(lc) for ln in lines if (lc := tuple(c for c in ln.chunks if c.x1 <= fold))]
        after = [Line(rc) for ln in lines if (rc := tuple(c for c in ln.chunks if c.x0 >= fold))]
        return [*lanes(before, text_width / 2, depth - 1), *lanes(after, text_width / 2, depth - 1)]
    crossing = [any(c.x0 < mid < c.x1 for c in line.chunks) for line in lines]
    prose_line = [
        not crossing[i]
        and (any(_is_prose(c, text_width) for c in line.chunks) or _justified(line, mid, text_width))
        for i, line in enumerate(lines)
    ]
    left: list[Line] = []
    right: list[Line] = []
    whole: list[Line] = []
    prose_tops = sorted(line.top for i, line in enumerate(lines) if prose_line[i])
    # near prose: a prose line next to it (within FAR_PROSE line heights), or one less than
    # NEAR_PROSE line heights away (two columns whose line pitches differ interleave their lines:
    # "setting.  L2" shares a line)
    cut = [
        not crossing[i]
        and (
            _next_to_prose(lines, prose_line, prose_tops, i)
            or _within(prose_tops, line.top, NEAR_PROSE * line.size)
        )
        for i, line in enumerate(lines)
    ]
    cut = _along_side(lines, crossing, _between_cuts(lines, crossing, cut), mid)
    for i, line in enumerate(lines):
        if not cut[i]:
            whole.append(line)
            continue
        lc = tuple(c for c in line.chunks if c.x1 <= mid)
        rc = tuple(c for c in line.chunks if c.x0 >= mid)
        if lc:
            left.append(Line(lc))
        if rc:
            right.append(Line(rc))
    width = text_width / 2
    return [*lanes(left, width, depth - 1), *lanes(right, width, depth - 1), whole]


def _between_cuts(lines: Sequence[Line], crossing: Sequence[bool], cut: Sequence[bool]) -> list[bool]:
    """``cut``, and each line with text on both sides of the gutter, crossing it nowhere, whose
    lines right above and right below are cut at the gutter too (within ``FAR_PROSE`` line
    heights): two tables side by side, one in each text column, whose rows share a line there (a
    total row on the left beside the header on the right) are cut like the rows around them. A
    full-width table under two text columns has whole lines above or below its rows: it stays
    whole."""
    out = list(cut)
    for i in range(1, len(lines) - 1):
        line = lines[i]
        if cut[i] or crossing[i] or len(line.chunks) < 2 or not (cut[i - 1] and cut[i + 1]):
            continue
        reach = FAR_PROSE * line.size
        if line.top - lines[i - 1].top <= reach and lines[i + 1].top - line.top <= reach:
            out[i] = True
    return out


def _along_side(
    lines: Sequence[Line], crossing: Sequence[bool], cut: Sequence[bool], mid: float
) -> list[bool]:
    """``cut``, and each line with text on one side of the gutter only that follows a cut line on
    that side (the next line with text there, above or below, within ``FAR_PROSE`` line heights),
    and so on along the side: a table inside one text column whose last row is near a prose line
    (a figure caption in the other column below it) but whose first rows are not is cut at the
    gutter row by row alike, so its rows stay in one lane. A line with text on both sides, or
    crossing the gutter, stops the walk: a full-width table under two columns stays whole."""
    out = list(cut)
    sides = [(any(c.x1 <= mid for c in ln.chunks), any(c.x0 >= mid for c in ln.chunks)) for ln in lines]
    for s in (0, 1):
        seq = sorted((i for i in range(len(lines)) if sides[i][s]), key=lambda i: lines[i].top)

        def one_sided(i: int) -> bool:
            return not crossing[i] and not sides[i][1 - s]  # noqa: B023 (s is this loop's side)

        for order in (seq, seq[::-1]):
            for a, b in zip(order, order[1:], strict=False):
                near = abs(lines[b].top - lines[a].top) <= FAR_PROSE * lines[b].size
                if out[a] and not out[b] and near and one_sided(a) and one_sided(b):
                    out[b] = True
    return out


JUSTIFIED_CHUNKS = 4  # a justified line cut into this many chunks by its stretched word spaces
EVEN_GAPS = 1.5  # x the narrowest: the widest gap between a justified line's chunks


def _justified(line: Line, mid: float, text_width: float) -> bool:
    """The line's text on one side of the gutter is a justified line of prose whose stretched word
    spaces cut it into short chunks: ``JUSTIFIED_CHUNKS`` chunks or more, ``PROSE_WORDS`` words,
    ``PROSE_WIDTH`` of the text width, evenly spaced, no figures, most chunks starting in lower
    case ("information  about  nodes  currently  sending  data  for")."""
    for side in ([c for c in line.chunks if c.x1 <= mid], [c for c in line.chunks if c.x0 >= mid]):
        if len(side) < JUSTIFIED_CHUNKS or side[-1].x1 - side[0].x0 < PROSE_WIDTH * text_width:
            continue
        if sum(word_count(c) for c in side) < PROSE_WORDS or any(ch.isdigit() for c in side for ch in c.text):
            continue
        gaps = [b.x0 - a.x1 for a, b in zip(side, side[1:], strict=False)]
        lower = sum(c.text[:1].islower() for c in side)
        if max(gaps) <= EVEN_GAPS * max(min(gaps), 0.1) and lower * 2 >= len(side):
            return True
    return False


def _next_to_prose(lines: Sequence[Line], prose_line: Sequence[bool], tops: Sequence[float], i: int) -> bool:
    """A prose line is next to line ``i`` (above or below) and within ``FAR_PROSE`` line heights of
    it: the first and last rows of a full-width table set apart from text columns above or below
    it by a paragraph's gap are not cut at the columns' gutter."""
    adjacent = any(prose_line[k] for k in (i - 1, i + 1) if 0 <= k < len(lines))
    return adjacent and _within(tops, lines[i].top, FAR_PROSE * lines[i].size)


def _within(tops: Sequence[float], top: float, reach: float) -> bool:
    """Some value of the sorted ``tops`` lies within ``reach`` of ``top``."""
    k = bisect_left(tops, top - reach)
    return k < len(tops) and tops[k] <= top + reach


def page_fold(lines: Sequence[Line], text_width: float) -> float | None:
    """The x of a fold: the widest strip in the middle of the text that no chunk of any line
    crosses (at least ``FOLD_WIDTH`` of the text width), prose on one side at least, text lines on
    both, and the lines holding text on both sides mostly not sharing a baseline: a table's label
    and its figures do share one, the two pages of a spread (or a sidebar and its page) do not."""
    chunks = [c for ln in lines for c in ln.chunks]
    if len(chunks) < 2 * MIN_SIDE_LINES:
        return None
    lo, hi = min(c.x0 for c in chunks), max(c.x1 for c in chunks)
    a, b = lo + 0.2 * (hi - lo), hi - 0.2 * (hi - lo)
    best: tuple[float, float] | None = None
    edge = lo
    for x0, x1 in sorted((c.x0, c.x1) for c in chunks):
        wide = x0 - edge >= FOLD_WIDTH * (hi - lo) and a <= (edge + x0) / 2 <= b
        if wide and (best is None or x0 - edge > best[1] - best[0]):
            best = (edge, x0)
        edge = max(edge, x1)
    if best is None:
        return None
    mid = (best[0] + best[1]) / 2
    if (
        max(sum(_is_prose(c, text_width) for c in chunks if (c.x1 <= mid) is side) for side in (True, False))
        < 3
    ):
        return None
    left = [ln for ln in lines if ln.chunks[0].x1 <= mid]
    right = [ln for ln in lines if ln.chunks[-1].x0 >= mid]
    if len(left) < MIN_SIDE_LINES or len(right) < MIN_SIDE_LINES:
        return None
    on_right = {id(ln) for ln in right}
    both = [ln for ln in left if id(ln) in on_right]
    shared = sum(1 for ln in both if _shares_baseline(ln, mid))
    return None if both and shared * 2 >= len(both) else mid


def _shares_baseline(line: Line, mid: float) -> bool:
    last = [c for c in line.chunks if c.x1 <= mid][-1].words[-1]
    first = next(c for c in line.chunks if c.x0 >= mid).words[0]
    return abs(last.bottom - first.bottom) < 0.5
