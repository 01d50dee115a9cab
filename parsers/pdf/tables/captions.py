"""Table captions ("Table 7: ...", "TABLE 3 - ...", "Tab. 2 ..."), above or below a table, plain
or in a box of their own: found from the text lines next to the table's box, so the caption
becomes the table's title and is not read again as prose. Used by the bordered tables
(parsers.pdf.tables.ruled) and open to any table reader (``find_caption``)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from parsers.pdf.labels import FIGURE_CAPTION, TABLE_CAPTION
from parsers.pdf.tables.cell_text import TextLine, centre_in, centre_in_any, text_lines
from parsers.pdf.tables.rules import BBox, Char

CAPTION_GAP = 2.0  # font sizes: the farthest a caption stands from its table
LINE_GAP = 0.9  # font sizes: the largest gap between two lines of one caption
CAPTION_REACH = 80.0  # points above and below a table searched for its caption
MAX_CAPTION_LINES = 3


@dataclass(frozen=True)
class Caption:
    """A table's caption: its text (lines joined by spaces) and its box on the page."""

    text: str
    bbox: BBox


def caption_box(chars: Sequence[Char], box: BBox) -> TextLine | None:
    """A box of one or two cells (not a table) holding only a caption (at most
    ``MAX_CAPTION_LINES`` lines), as one caption line."""
    inside = [c for c in chars if centre_in(c, box)]
    lines = text_lines(inside)
    if not lines or len(lines) > MAX_CAPTION_LINES or not TABLE_CAPTION.match(lines[0].text):
        return None
    return TextLine(" ".join(ln.text for ln in lines), box, lines[0].size)


def _overlaps_x(line: TextLine, box: BBox) -> bool:
    return line.bbox[2] > box[0] + 1 and line.bbox[0] < box[2] - 1


def _nearer_other(line: TextLine, gap: float, box: BBox, others: Sequence[BBox], tie: float) -> bool:
    """Whether another table stands closer to ``line`` (vertically, sharing columns) than ``gap``
    (+ ``tie``: ties go to the table below the line, captions above a table being the rule)."""
    for other in others:
        if other == box or not _overlaps_x(line, other):
            continue
        other_gap = min(abs(other[1] - line.bbox[3]), abs(line.bbox[1] - other[3]))
        if other_gap < gap + tie:
            return True
    return False


def _caption_above(lines: Sequence[TextLine], box: BBox, others: Sequence[BBox]) -> list[int]:
    above = sorted(
        (i for i, ln in enumerate(lines) if ln.bbox[3] <= box[1] + 2 and _overlaps_x(ln, box)),
        key=lambda i: -lines[i].bbox[3],
    )
    group: list[int] = []
    edge = box[1]
    for i in above[:MAX_CAPTION_LINES]:
        line = lines[i]
        gap = edge - line.bbox[3]
        if gap > (LINE_GAP if group else CAPTION_GAP) * line.size:
            break
        if not group and _nearer_other(line, gap, box, others, tie=-2.0):
            break
        group.insert(0, i)
        if TABLE_CAPTION.match(line.text):
            return group
        edge = line.bbox[1]
    return []


def _caption_below(lines: Sequence[TextLine], box: BBox, others: Sequence[BBox]) -> list[int]:
    below = sorted(
        (i for i, ln in enumerate(lines) if ln.bbox[1] >= box[3] - 2 and _overlaps_x(ln, box)),
        key=lambda i: lines[i].bbox[1],
    )
    group: list[int] = []
    edge = box[3]
    for i in below[:MAX_CAPTION_LINES]:
        line = lines[i]
        gap = line.bbox[1] - edge
        first = lines[group[0]] if group else None
        if first is None:
            if gap > CAPTION_GAP * line.size or not TABLE_CAPTION.match(line.text):
                return []
            if _nearer_other(line, gap, box, others, tie=2.0):
                return []
        elif gap > LINE_GAP * line.size or abs(line.size - first.size) > 0.6:
            break
        elif TABLE_CAPTION.match(line.text):
            break  # another caption starts
        elif _ended(lines[group[-1]], line):
            break  # the caption's last line stopped short: a paragraph follows
        group.append(i)
        edge = line.bbox[3]
    return group


def _ended(line: TextLine, after: TextLine) -> bool:
    """``line`` ends its paragraph before ``after``: both flush left, and ``line`` stops short of
    ``after``'s right edge by more than ``after``'s first word would take (with a space), so that
    word would have fitted on it: a short last line (a caption's) followed by the next paragraph
    at the same size and leading. (Words are measured by the line's mean character width.)"""
    words = after.text.split()
    if not words or abs(line.bbox[0] - after.bbox[0]) > 0.5 * after.size:
        return False
    char = (after.bbox[2] - after.bbox[0]) / max(len(after.text), 1)
    return after.bbox[2] - line.bbox[2] > (len(words[0]) + 1) * char + 0.5 * after.size


def _caption_of(lines: Sequence[TextLine], group: Sequence[int]) -> Caption:
    chosen = [lines[i] for i in group]
    box = (
        min(ln.bbox[0] for ln in chosen),
        min(ln.bbox[1] for ln in chosen),
        max(ln.bbox[2] for ln in chosen),
        max(ln.bbox[3] for ln in chosen),
    )
    return Caption(" ".join(" ".join(ln.text for ln in chosen).split()), box)


def _near_lines(chars: Sequence[Char], boxes: Sequence[BBox], exclude: Sequence[BBox]) -> list[TextLine]:
    """Text lines within ``CAPTION_REACH`` above or below any of ``boxes``, outside ``exclude``."""
    bands = [(b[1] - CAPTION_REACH, b[3] + CAPTION_REACH) for b in boxes]
    near = [
        c
        for c in chars
        if any(lo <= float(c["top"]) <= hi for lo, hi in bands) and not centre_in_any(c, exclude)
    ]
    return text_lines(near)


def find_caption(page: Any, bbox: BBox, other_tables: Sequence[BBox] = ()) -> Caption | None:
    """The caption of the table at ``bbox`` on a pdfplumber page: a line (or up to three lines)
    starting "Table N" / "TABLE N" / "Tab. N" directly above the table, else directly below it,
    within two font sizes; a line standing closer to one of ``other_tables`` is theirs. For any
    table reader (bordered or not); its box is the caption's, to keep it out of the prose."""
    exclude = [bbox, *other_tables]
    lines = _near_lines(page.chars, [bbox], exclude)
    group = _caption_above(lines, bbox, other_tables) or _caption_below(lines, bbox, other_tables)
    return _caption_of(lines, group) if group else None


def assign_captions(
    chars: Sequence[Char], boxes: Sequence[BBox], boxed: Sequence[TextLine], skip: Collection[int] = ()
) -> dict[int, Caption]:
    """Captions of the tables at ``boxes`` (by index; those in ``skip`` already have one): captions
    above first, for every table, then below for the rest; a line serves one table. ``boxed``:
    captions printed in a box of their own (``caption_box``)."""
    wanted = [i for i in range(len(boxes)) if i not in skip]
    if not wanted:
        return {}
    exclude = [*boxes, *(b.bbox for b in boxed)]
    lines = [*_near_lines(chars, [boxes[i] for i in wanted], exclude), *boxed]
    claimed: set[int] = set()
    captions: dict[int, Caption] = {}
    for finder in (_caption_above, _caption_below):
        for k in wanted:
            if k in captions:
                continue
            free = [ln if i not in claimed else TextLine("", ln.bbox, ln.size) for i, ln in enumerate(lines)]
            group = finder(free, boxes[k], boxes)
            if group and all(i not in claimed for i in group):
                claimed.update(group)
                captions[k] = _caption_of(lines, group)
    return captions


def framed_figure(chars: Sequence[Char], rects: Sequence[Any], box: BBox, page_area: float) -> bool:
    """The grid at ``box`` is drawn inside a frame (a rectangle around it, with room for more: axis
    labels, arrows) captioned as a figure (the line nearest under or over the frame, within
    ``FIGURE_GAP`` font sizes: "Figure 1 – Specifications expansion"): a diagram of boxes, not a
    table."""
    frame = _frame_around(rects, box, page_area)
    if frame is None:
        return False
    lines = [ln for ln in _near_lines(chars, [frame], [frame]) if _overlaps_x(ln, frame)]
    below = [(ln.bbox[1] - frame[3], ln) for ln in lines if ln.bbox[1] >= frame[3] - 2]
    above = [(frame[1] - ln.bbox[3], ln) for ln in lines if ln.bbox[3] <= frame[1] + 2]
    nearest = [min(side, key=lambda g: g[0]) for side in (below, above) if side]
    return any(gap <= FIGURE_GAP * ln.size and FIGURE_CAPTION.match(ln.text) for gap, ln in nearest)


FIGURE_GAP = 3.0  # font sizes: the farthest a figure's caption stands from its frame
FRAME_MARGIN = 6.0  # points: the least room a figure's frame leaves around the grid on some side


def _frame_around(rects: Sequence[Any], box: BBox, page_area: float) -> BBox | None:
    """The smallest drawn rectangle enclosing ``box`` with room to spare, smaller than half the
    page (not a page border)."""
    best: BBox | None = None
    for r in rects:
        x0, top, x1, bottom = (float(r["x0"]), float(r["top"]), float(r["x1"]), float(r["bottom"]))
        inside = x0 <= box[0] + 1 and top <= box[1] + 1 and x1 >= box[2] - 1 and bottom >= box[3] - 1
        room = max(box[0] - x0, box[1] - top, x1 - box[2], bottom - box[3]) >= FRAME_MARGIN
        area = (x1 - x0) * (bottom - top)
        smaller = best is None or area < (best[2] - best[0]) * (best[3] - best[1])
        if inside and room and area < 0.5 * page_area and smaller:
            best = (x0, top, x1, bottom)
    return best
