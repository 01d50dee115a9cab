"""Three-line tables stacked one under another (parsers.pdf.tables.unruled): a run of lines the
whitespace reads as one block can hold two tables, each between its own top, header and bottom
rules, when the lines between them (a numbered heading, a line of code, a short caption) are few
and short enough to pass for label rows ("2.6  prcomp" / "pr1 <- prcomp(USArrests)" between a
table of deviances and a table of loadings). The rules say where one table ends and the next
begins: the block is cut at a run of text-only bands between rules, with a band of rows above it
(the first table's body, closed by its bottom rule) and a header band below it (labels with no
figure between two rules) over a band of rows (the second table's header and body). A label row
fenced by two rules between body rows ("Panel B") has figures right under it, so it cuts
nothing. Pure functions over lines and (x0, x1, y) rules.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from parsers.pdf.tables.unruled_cells import MIN_MULTI_LINES, Line
from parsers.pdf.tables.unruled_guards import is_figure
from parsers.pdf.tables.unruled_header import Rule

COVER = 0.5  # share of the block's width a rule must cover to part its lines
# the label a table's notes open with, on the first line under its bottom rule ("Notes:", "Source:")
_NOTES_LABEL = re.compile(r"(?i)^(notes?|sources?|anmerkungen?|quellen?|remarques?|fuentes?|notas?)\s*[:.]")


def _row_like(line: Line) -> bool:
    """A line that reads as a table row: three chunks or more, or a figure after its first chunk."""
    return len(line.chunks) >= 3 or any(is_figure(c.text) for c in line.chunks[1:])


def _bands(block: Sequence[Line], rules: Sequence[Rule]) -> list[list[int]]:
    """``block``'s line indices grouped by the rules across the block between them: a new group
    after each gap between two lines that a rule covering half the block's width or more
    crosses; the groups of lines above the first such rule and below the last one included."""
    x0 = min(ln.chunks[0].x0 for ln in block)
    x1 = max(ln.chunks[-1].x1 for ln in block)
    need = COVER * (x1 - x0)
    ys = [y for a, b, y in rules if min(b, x1) - max(a, x0) >= need]
    bands: list[list[int]] = [[0]]
    for i in range(1, len(block)):
        upper, lower = block[i - 1].bottom, block[i].top
        if any(upper <= y <= lower for y in ys):
            bands.append([i])
        else:
            bands[-1].append(i)
    return bands


def stacked_parts(block: Sequence[Line], rules: Sequence[Rule]) -> list[list[Line]]:
    """``block`` cut into the tables stacked in it (see the module's docstring), the text-only
    bands between them left out; ``[block]`` when its rules show no such stack."""
    if not rules or len(block) < 2 * MIN_MULTI_LINES:
        return [list(block)]
    bands = _bands(block, rules)
    if len(bands) < 4:
        return [list(block)]
    kinds = []  # per band: "rows" (a figure row or a line of three chunks), "labels", "text"
    for band in bands:
        lines = [block[i] for i in band]
        if any(_row_like(ln) and any(is_figure(c.text) for c in ln.chunks) for ln in lines):
            kinds.append("rows")
        elif any(_row_like(ln) for ln in lines):
            kinds.append("labels")
        else:
            kinds.append("text")
    parts: list[list[Line]] = []
    start, k = 0, 1
    while k < len(bands) - 2:
        if kinds[k] != "text" or kinds[k - 1] != "rows":
            k += 1
            continue
        end = k
        while end < len(bands) and kinds[end] == "text":
            end += 1
        if end + 1 < len(bands) and kinds[end] == "labels" and kinds[end + 1] == "rows":
            upper = [block[i] for band in bands[start:k] for i in band]
            if sum(len(ln.chunks) >= 2 for ln in upper) >= MIN_MULTI_LINES:
                parts.append(upper)
                start = end
        k = end + 1
    if not parts:
        return [list(block)]
    parts.append([block[i] for band in bands[start:] for i in band])
    return parts


def noted_tail(block: Sequence[Line], rules: Sequence[Rule]) -> list[Line]:
    """``block`` without the lines under its last rule when the first of them opens with a notes
    label ("Notes:", "Source:"): a table's notes under its bottom rule ("(1) Defaults to ..."),
    numbered lines of two chunks that the whitespace ran into the table as rows, closing its
    column gaps. ``block`` itself when no rule parts it so or too few rows stay above the rule."""
    if not rules or len(block) < MIN_MULTI_LINES + 1:
        return list(block)
    bands = _bands(block, rules)
    if len(bands) < 2 or not _NOTES_LABEL.match(block[bands[-1][0]].chunks[0].text):
        return list(block)
    kept = [block[i] for band in bands[:-1] for i in band]
    return kept if sum(len(ln.chunks) >= 2 for ln in kept) >= MIN_MULTI_LINES else list(block)
