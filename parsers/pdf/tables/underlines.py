"""Text underlines among a page's horizontal edges: the line under a hyperlink or an underlined
word is drawn like a rule, but it is part of the text, not of a table's grid.

A horizontal edge is an underline when it lies along the bottom of a run of characters (from
``ABOVE`` font sizes above their glyph boxes' bottom, the baseline's side, to ``BELOW`` under it) and those
characters cover ``COVER`` of its length or more. A table's rule has white space between it and
the text above (cell padding) or runs on past the text; an underline hugs it. Links that begin at
the same x in several rows (a column of "10% coinsurance") otherwise line their underlines' ends
up into what ``rules.missing_frame_lines`` takes for an open frame's column line. Pure functions
over pdfplumber edge and char dicts.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from parsers.pdf.tables.rules import Char

ABOVE = 0.35  # x font size: an underline sits at most this far above the glyph boxes' bottom ...
BELOW = 0.05  # ... and at most this far below it (a rule under a tight row lies lower)
COVER = 0.7  # share of the edge's length under characters of that line
MAX_SIZE = 40.0  # points: the largest font size looked for (bounds the search window)


def underline_edges(edges: Sequence[Char], chars: Sequence[Char]) -> set[int]:
    """Indices of the horizontal ``edges`` that underline text (see the module's docstring)."""
    marks = sorted(
        (float(c["bottom"]), float(c["x0"]), float(c["x1"]), float(c.get("size") or 10.0))
        for c in chars
        if str(c.get("text", "")).strip() and c.get("upright", True)
    )
    if not marks:
        return set()
    bottoms = [m[0] for m in marks]
    out: set[int] = set()
    for i, e in enumerate(edges):
        if e.get("orientation") != "h":
            continue
        y, x0, x1 = float(e["top"]), float(e["x0"]), float(e["x1"])
        if x1 - x0 < 1.0:
            continue
        lo = bisect_left(bottoms, y - BELOW * MAX_SIZE)
        hi = bisect_right(bottoms, y + ABOVE * MAX_SIZE)
        spans = [
            (max(a, x0), min(b, x1))
            for bottom, a, b, size in marks[lo:hi]
            if -BELOW * size <= bottom - y <= ABOVE * size and a < x1 and b > x0
        ]
        if spans and _covered(spans) >= COVER * (x1 - x0):
            out.add(i)
    return out


def _covered(spans: list[tuple[float, float]]) -> float:
    """The length of the union of ``spans``, widened by a word space (0.6 points a side) so the
    spaces between underlined words count as covered."""
    total, reach = 0.0, None
    for a, b in sorted((a - 0.6, b + 0.6) for a, b in spans):
        if reach is None or a > reach:
            total += b - a
            reach = b
        elif b > reach:
            total += b - reach
            reach = b
    return total
