"""Words grouped into a line of the other text column (parsers.pdf.tables.unruled_cells.group_lines
groups words by vertical overlap with a line's first word): a table cell's glyph whose box sits
higher than its row's text (a math font's "𝜋") can overlap a prose line of the other column over
half its height and join that line, between two rows of its table. ``rehome_lone_words`` moves
such a word back. Pure functions over word boxes (text_layout.Segment and its subclasses).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from parsers.pdf.text_layout import Segment, vertical_overlap

W = TypeVar("W", bound=Segment)

GUTTER = 3.0  # x the font size: a word this far from every other word of its line stands apart


def rehome_lone_words(lines: list[list[W]]) -> None:
    """Move each word that stands apart from the rest of its line (a gutter away: a cell of a
    table in the other text column) to a neighbouring line holding a word it overlaps more than
    any word of its own line (in place): a glyph of a math font, its box set higher than the
    text's ("𝜋" in a table row), overlapped a prose line of the other column over half its
    height and was grouped there, between two of its table's rows."""
    for i, line in enumerate(lines):
        if len(line) < 2 or not _any_lone(line):  # a prose line: every word has a neighbour
            continue
        for word in list(line):
            rest = [w for w in line if w is not word]
            gap = min((_h_gap(word, w) for w in rest), default=0.0)
            if gap <= GUTTER * max(word.size, 1.0):
                continue
            best, target = max(vertical_overlap(word, w) for w in rest), None
            for k in (i - 1, i + 1):
                if 0 <= k < len(lines):
                    score = max((vertical_overlap(word, w) for w in lines[k]), default=0.0)
                    if score > best + 0.1 * word.height:
                        best, target = score, k
            if target is not None:
                line.remove(word)
                lines[target].append(word)


def _any_lone(line: Sequence[Segment]) -> bool:
    """Some word of ``line`` stands a gutter (``GUTTER`` x its size) from every other: by x, the
    white to its left reaches back to the farthest right end before it, to its right up to the
    next start (one sort, one pass)."""
    ordered = sorted(line, key=lambda w: w.x0)
    reach = float("-inf")
    for j, word in enumerate(ordered):
        right = ordered[j + 1].x0 - word.x1 if j + 1 < len(ordered) else float("inf")
        if min(word.x0 - reach, right) > GUTTER * max(word.size, 1.0):
            return True
        reach = max(reach, word.x1)
    return False


def _h_gap(a: Segment, b: Segment) -> float:
    return max(b.x0 - a.x1, a.x0 - b.x1, 0.0)
