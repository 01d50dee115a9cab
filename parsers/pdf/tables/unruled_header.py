"""Header rows of an unruled table from the partial rules drawn in its header (booktabs'
``\\cmidrule``: a short rule under a group label, over the sub-labels it groups).

Without rules, each header line of an unruled table is a header row (parsers.pdf.tables.unruled).
A partial rule says more: the label above it spans the columns the rule covers, the labels under
it form the next header row, and a label with no partial rule above it belongs to the row of the
sub-labels whose line it is drawn on ("Price" beside "Animal" and "Description"), else (a column
label set beside the group, its text centred vertically on both rows: "State", "n") to the first
header row. The lines of one label under the rule ("Read &" /
"Write") are one cell. ``header_by_rules`` rebuilds the header rows that way; ``column_names``
flattens them ("Literacy Status / Read & Write"). Pure functions over word boxes and
(x0, x1, y) rules.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from parsers.pdf.tables.rules import Char
from parsers.pdf.tables.unruled_cells import Word, cell_text
from parsers.pdf.tables.unruled_guards import is_figure

Rule = tuple[float, float, float]  # x0, x1, y (top-down)
Grid = list[list[list[Word]]]
MIN_RULE = 20.0  # points: a shorter horizontal stroke is an underline or a glyph, not a rule
UNIT_LEADING = 2.0  # x text height: white over a line of units that still joins it to its labels
# one unit in parentheses: a letter or a sign other than a lone digit run, letter or roman numeral
_UNIT = re.compile(r"\((?!\d+\)|[a-zA-Z]\)|[ivxIVX]+\))[^()]*[^\s()][^()]*\)")


def horizontal_rules(edges: Sequence[Char], tolerance: float = 1.0) -> list[Rule]:
    """The page's horizontal rules as (x0, x1, y): segments at one height (within ``tolerance``)
    that touch joined, one sort and one pass (a chart's or a map's thousands of edges stay cheap)."""
    flat = sorted(
        (float(e["top"]), float(e["x0"]), float(e["x1"])) for e in edges if e.get("orientation") == "h"
    )
    rows: list[list[tuple[float, float, float]]] = []
    for seg in flat:
        if rows and seg[0] - rows[-1][0][0] <= tolerance:
            rows[-1].append(seg)
        else:
            rows.append([seg])
    out: list[Rule] = []
    for row in rows:
        y = sum(s[0] for s in row) / len(row)
        runs: list[list[float]] = []
        for _, a, b in sorted(row, key=lambda s: s[1]):
            if runs and a <= runs[-1][1] + tolerance:
                runs[-1][1] = max(runs[-1][1], b)
            else:
                runs.append([a, b])
        out.extend((a, b, y) for a, b in runs if b - a >= MIN_RULE)
    return out


def _mid(w: Word) -> float:
    return (w.x0 + w.x1) / 2


def _covers(rule: Rule, x: float, tol: float = 2.0) -> bool:
    return rule[0] - tol <= x <= rule[1] + tol


Spans = dict[tuple[int, int], int]  # (header row, first column) of a group label -> its columns


def header_by_rules(
    grid: Grid, header: int, seps: Sequence[float], rules: Sequence[Rule]
) -> tuple[Grid, int, Spans]:
    """``grid`` with its first ``header`` rows rebuilt from the partial rules crossing the header
    (shorter than the table's own rules by two font sizes, covering two columns or more but not
    all, with labels in two columns or more under them): a word's header row is the number of such rules
    above it over its centre; a word with such a rule right below it goes to the first column the
    rule covers (a group label), any other to the column holding its centre. Returns the grid,
    its header rows and each group label's span; unchanged when no partial rule crosses the
    header."""
    words = [w for row in grid[:header] for cell in row for w in cell]
    body = [w for row in grid[header:] for cell in row for w in cell]
    if header < 2 or not words or not body or not rules:
        return grid, header, {}
    mids = _column_middles(grid, header, seps)
    top, body_top = min(w.top for w in words), min(w.top for w in body)

    def covered(rule: Rule) -> list[int]:
        return [j for j, m in enumerate(mids) if _covers(rule, m)]

    size = sorted(w.bottom - w.top for w in words)[len(words) // 2]
    near = [r for r in rules if top - 2 * size < r[2] < body_top + size]
    longest = max((r[1] - r[0] for r in near), default=0.0)

    def groups(rule: Rule) -> bool:
        """Shorter than the table's own rules, over 2+ columns (not all), sub-labels under it."""
        cols = covered(rule)
        under = {
            sum(1 for s in seps if _mid(w) > s) for w in words if w.top > rule[2] and _covers(rule, _mid(w))
        }
        return rule[1] - rule[0] < longest - 2 * size and 2 <= len(cols) < len(mids) and len(under) >= 2

    partial = [r for r in rules if top < r[2] < body_top and groups(r)]
    if not partial:
        return grid, header, {}
    spans: Spans = {}
    placed: list[tuple[int, int, Word]] = []
    home = {id(w): j for row in grid[:header] for j, cell in enumerate(row) for w in cell}
    ruled = {id(w): sum(1 for r in partial if r[2] < w.top and _covers(r, _mid(w))) for w in words}
    for w in words:
        level = ruled[id(w)] or _line_level(w, words, ruled)
        below = [r for r in partial if r[2] > w.bottom and _covers(r, _mid(w))]
        if below:
            cols = covered(min(below, key=lambda r: r[2]))
            col = cols[0]
            spans[level, col] = max(spans.get((level, col), 1), len(cols))
        else:  # the column its line's label was given (a label's words stay together)
            col = home[id(w)]
        placed.append((level, col, w))
    depth = 1 + max(level for level, _, _ in placed)
    rows: Grid = [[[] for _ in mids] for _ in range(depth)]
    for level, col, w in placed:
        rows[level][col].append(w)
    return [*rows, *grid[header:]], depth, spans


def _line_level(word: Word, words: Sequence[Word], ruled: dict[int, int]) -> int:
    """The header row of a label with no group rule over it: that of the sub-labels it is set
    level with (the same bottom within a fifth of its height: "Price" on the line of "Animal" and
    "Description", under "Item"'s rule), else the first (a label centred beside the group's rows:
    "State", "n")."""
    tol = 0.2 * (word.bottom - word.top)
    return max(
        (ruled[id(w)] for w in words if ruled[id(w)] and abs(w.bottom - word.bottom) <= tol), default=0
    )


def _column_middles(grid: Grid, header: int, seps: Sequence[float]) -> list[float]:
    """Each column's middle: that of its body words' extent, or, for a column with none, the
    middle between its separators. A column of figures set right in a wide band (a narrow
    "Coda" column before a wide gap) is covered by a group rule over its figures even where
    the rule stops short of the band's middle."""
    left = min(w.x0 for row in grid for cell in row for w in cell)
    right = max(w.x1 for row in grid for cell in row for w in cell)
    bounds = [left, *seps, right]
    mids = [(a + b) / 2 for a, b in zip(bounds, bounds[1:], strict=False)]
    for j in range(len(mids)):
        body = [w for row in grid[header:] for w in row[j]]
        if body:
            mids[j] = (min(w.x0 for w in body) + max(w.x1 for w in body)) / 2
    return mids


def kept_spans(spans: Spans, used: Sequence[int]) -> Spans:
    """``spans`` in the columns left once the empty ones (not in ``used``) are dropped."""
    out: Spans = {}
    for (row, col), n in spans.items():
        if col in used:
            out[row, used.index(col)] = sum(1 for j in used if col <= j < col + n)
    return out


def column_names(grid: Grid, header: int, spans: Spans) -> tuple[str, ...]:
    """One label per column: the header cells over it (a group label over every column it
    spans), top to bottom, joined with " / "."""
    width = len(grid[0]) if grid else 0
    parts: list[list[str]] = [[] for _ in range(width)]
    for r, row in enumerate(grid[:header]):
        for j, cell in enumerate(row):
            text = " ".join(cell_text(cell).split())
            for k in range(j, min(j + spans.get((r, j), 1), width)) if text else ():
                parts[k].append(text)
    return tuple(" / ".join(p) for p in parts)


def join_wrapped_header(
    grid: Grid, header: int, leading: float = 0.8, unit_leading: float = UNIT_LEADING
) -> tuple[Grid, int]:
    """``grid`` with header lines that continue the labels of the line above joined to it
    ("Inhibitor" / "concentration (g)", "West Oxon" / "(employee jobs)"): a line whose every label
    stands under a label of the line above, at most ``leading`` x the text height below it, and
    that holds no figure, is the rest of those labels, so a label wrapped over two lines is one
    cell. A line of units alone ("(km s⁻¹)" under "Shift", ``_units``) continues its labels from
    farther down (``unit_leading``: a table's header set with open leading) and its exponents are
    no figures. A line with a label where the line above has none (sub-labels under a group
    label) starts a header row."""
    if header < 2:
        return grid, header
    rows: Grid = [[list(c) for c in grid[0]]]
    for line in grid[1:header]:
        above = rows[-1]
        filled = [j for j, cell in enumerate(line) if cell]
        upper = [w for cell in above for w in cell]
        lower = [w for cell in line for w in cell]
        height = sorted(w.bottom - w.top for w in lower)[len(lower) // 2] if lower else 0.0
        units = _units([line[j] for j in filled])
        reach = (unit_leading if units else leading) * height
        close = bool(upper) and min(w.top for w in lower) - max(w.bottom for w in upper) <= reach
        figures = not units and any(is_figure(w.text) for w in lower)
        if filled and close and not figures and all(above[j] for j in filled):
            for j in filled:
                above[j].extend(line[j])
        else:
            rows.append([list(c) for c in line])
            if close and _stub_goes_on(above[0], rows[-1][0]):  # "Percentage of" / "data used"
                above[0].extend(rows[-1][0])
                rows[-1][0] = []
    return [*rows, *grid[header:]], len(rows)


def _stub_goes_on(upper: Sequence[Word], lower: Sequence[Word]) -> bool:
    """The first column's header cell ``lower`` continues the label ``upper`` above it: it opens
    with a lower-case letter and holds no figure ("Percentage of GSM8K" / "data used to train",
    wrapped beside a group label over its sub-labels, "CoT finetuned" / "Acc.  Acc. with Calc.").
    The first column holds the row labels' own label, no group label, so its lines are one cell;
    in other columns a lower-case sub-label may stand under a group label."""
    return (
        bool(upper)
        and bool(lower)
        and lower[0].text[:1].islower()
        and not upper[-1].text.endswith((".", ":"))
        and not any(is_figure(w.text) for w in lower)
    )


def _units(cells: Sequence[Sequence[Word]]) -> bool:
    """Each cell is one unit in parentheses, "(km s−1)", "(%)", "(10−17 erg s−1 cm−2)": not a
    column number "(3)" nor a sub-label "(a)" (``_UNIT``)."""
    return bool(cells) and all(_UNIT.fullmatch(" ".join(cell_text(c).split())) for c in cells)


def lift_centred_labels(grid: Grid, header: int) -> tuple[Grid, int]:
    """``grid`` with each header line strictly between the first and the last whose labels stand
    only in columns no other header line has text in (a column label centred vertically beside
    wrapped or stacked labels: "Sample" between "Dose" and "(mg)") moved into the first header row,
    which it spans with them."""
    if header < 3:
        return grid, header
    rows: Grid = [[list(c) for c in row] for row in grid[:header]]
    keep = [rows[0]]
    for i in range(1, header - 1):
        mine = {j for j, cell in enumerate(rows[i]) if cell}
        others = {j for k, row in enumerate(rows) if k != i for j, cell in enumerate(row) if cell}
        if mine and not mine & others:
            for j in mine:
                rows[0][j].extend(rows[i][j])
        else:
            keep.append(rows[i])
    keep.append(rows[header - 1])
    return [*keep, *grid[header:]], len(keep)
