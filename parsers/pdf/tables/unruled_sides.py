"""Two unruled tables set side by side whose rows do not line up (different row spacing, one set a
little lower): their lines interleave, so one block holds both, and read as one table each row
would be half empty (parsers.pdf.tables.unruled).

``side_cut`` finds the column boundary between them: a boundary with complete rows on one side
only, on both sides (a label and a figure, with nothing across the boundary: ``MIN_ONE_SIDED`` such
rows at least, one on each side), and a label column right of it. One table has no such rows: its
rows span the boundary (a row with data missing on one side still has its label on the left, and
a wrapped cell's second line holds no figure). Pure functions over the block's lines.

Rows that line up exactly leave no row on one side only; there the labels tell: a header line
whose labels right of a boundary repeat, in order, those left of it, from the label column on (a
long list folded into two halves, "Country Population Share" twice), with text (not figures)
right of the boundary in most rows, is two tables (``repeated_labels_cut``). Labels repeated
under two column groups ("Units Revenue Units Revenue") stand over figures and stay one table.

Booktabs tables side by side whose rows do line up (two small tables at the top of a two-column
page) each draw their own rules: a boundary that no horizontal rule near the block crosses, with
rules on both sides, parts them (``rules_cut``).
"""

from __future__ import annotations

from collections.abc import Sequence

from parsers.pdf.tables.unruled_cells import Chunk, Line
from parsers.pdf.tables.unruled_guards import is_figure
from parsers.pdf.tables.unruled_header import Rule

MIN_ONE_SIDED = 3  # complete rows on one side only (both sides together) that part two tables
MIN_SIDE_RULES = 2  # rules at different heights on each side of a boundary no rule crosses
RULES_APART = 2.0  # text sizes of white between the rules of two side-by-side tables
TWIN_RULES = 3  # rule heights of a three-line table: top, under the header, bottom


def _row(chunks: Sequence[Chunk]) -> bool:
    """A complete row: a label first and a figure after it."""
    return len(chunks) >= 2 and not is_figure(chunks[0].text) and any(is_figure(c.text) for c in chunks[1:])


def side_cut(block: Sequence[Line], seps: Sequence[float], rules: Sequence[Rule] = ()) -> float | None:
    """The boundary between two side-by-side tables in ``block``, or None (one table)."""
    return _one_sided_cut(block, seps) or repeated_labels_cut(block, seps) or rules_cut(block, seps, rules)


def rules_cut(block: Sequence[Line], seps: Sequence[float], rules: Sequence[Rule]) -> float | None:
    """The boundary that the block's horizontal rules keep clear of, with ``MIN_SIDE_RULES`` rules
    (at different heights) wholly left of it and as many wholly right: two booktabs tables set side
    by side, each drawing its own top, header and bottom rules. One table's rules cross its column
    boundaries (its top rule at least spans them all). When the two sides' rules stand clearly
    apart (``_twin_three_line``), a rule crossing the boundary above or below both sides' rules (a
    running head's rule over sub-tables under their sub-captions) does not join them."""
    near = _near_rules(block, rules)
    size = max(ln.size for ln in block)
    for s in seps:
        left, right = _split_at(near, s)
        if (
            len({round(y) for *_, y in left}) < MIN_SIDE_RULES
            or len({round(y) for *_, y in right}) < MIN_SIDE_RULES
        ):
            continue
        crossing = [y for x0, x1, y in near if x0 < s < x1]
        if not crossing and _text_right_of(block, s):
            return s
        ys = [y for *_, y in (*left, *right)]
        if _twin_three_line(left, right, size) and not any(min(ys) <= y <= max(ys) for y in crossing):
            return s
    return None


def side_spans(
    block: Sequence[Line], rules: Sequence[Rule], cut: float
) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """From the top to the bottom rule of the table on each side of ``cut`` (left, right), when
    the two sides are twin three-line tables (``_twin_three_line``): its rows lie between them, a
    sub-caption over it lies above."""
    lefts, rights = _split_at(_near_rules(block, rules), cut)
    if not _twin_three_line(lefts, rights, max(ln.size for ln in block)):
        return None
    return _extent(lefts), _extent(rights)


def _split_at(rules: Sequence[Rule], cut: float) -> tuple[list[Rule], list[Rule]]:
    """The rules wholly left of ``cut`` and those wholly right of it."""
    return [r for r in rules if r[1] < cut], [r for r in rules if r[0] > cut]


def _extent(rules: Sequence[Rule]) -> tuple[float, float]:
    ys = [y for *_, y in rules]
    return min(ys), max(ys)


def _near_rules(block: Sequence[Line], rules: Sequence[Rule]) -> list[Rule]:
    """The rules from two text sizes above ``block`` to two below it."""
    size = max(ln.size for ln in block)
    top, bottom = block[0].top - 2 * size, max(ln.bottom for ln in block) + 2 * size
    return [r for r in rules if top <= r[2] <= bottom]


def _twin_three_line(left: Sequence[Rule], right: Sequence[Rule], size: float) -> bool:
    """Two three-line tables side by side (sub-tables (a) and (b) of figures only, whose right one
    opens with a figure column: no label column to tell it by): each side's rules (three heights or
    more, top, under the header, bottom) as wide as each other, at the same heights on both sides,
    and the left ones ending ``RULES_APART`` text sizes or more before the right ones begin. The
    trimmed group rules (``\\cmidrule``) of one table stand a word space apart at most."""
    heights = {round(y) for *_, y in left}
    if len(heights) < TWIN_RULES or heights != {round(y) for *_, y in right}:
        return False
    if any(max(r[k] for r in side) - min(r[k] for r in side) > 1.0 for side in (left, right) for k in (0, 1)):
        return False
    return min(x0 for x0, _, _ in right) - max(x1 for _, x1, _ in left) >= RULES_APART * size


def _one_sided_cut(block: Sequence[Line], seps: Sequence[float]) -> float | None:
    for s in seps:
        left = [ln for ln in block if ln.chunks[-1].x1 < s]
        right = [ln for ln in block if ln.chunks[0].x0 > s]
        only_left = sum(_row(ln.chunks) for ln in left)
        only_right = sum(_row(ln.chunks) for ln in right)
        if only_left and only_right and only_left + only_right >= MIN_ONE_SIDED and _text_right_of(block, s):
            return s
    return None


def _text_right_of(block: Sequence[Line], s: float) -> bool:
    """Most lines crossing ``s`` start their right part with text (a label column right of it)."""
    labels = [ln.chunks[0] for ln in block if ln.chunks[-1].x1 > s]
    firsts = [next((c for c in ln.chunks if c.x0 > s), None) for ln in block]
    text = [c for c in firsts if c is not None and not is_figure(c.text)]
    return len(text) * 2 >= len(labels)


def repeated_labels_cut(block: Sequence[Line], seps: Sequence[float]) -> float | None:
    """The boundary right of which a header line (a line before the first figure) repeats its
    labels left of it, two labels at least, starting at the block's left edge."""
    left_edge = min(ln.chunks[0].x0 for ln in block)
    for line in block[:3]:
        if any(is_figure(c.text) for c in line.chunks):
            return None  # the body has started: no header line left
        if line.chunks[0].x0 > left_edge + line.size:
            continue  # a group label line, not the line of column labels
        for s in seps:
            left = [" ".join(c.text.split()) for c in line.chunks if c.x1 < s]
            right = [" ".join(c.text.split()) for c in line.chunks if c.x0 > s]
            if len(left) >= 2 and left == right and _text_right_of(block, s):
                return s
    return None
