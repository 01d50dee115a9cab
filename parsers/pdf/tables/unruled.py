"""Unruled tables: columns aligned by whitespace, found from word boxes alone (pure functions).

A page's words outside ruled tables go through small steps, each unit-tested without files:

``group_lines`` (words -> lines by vertical overlap) -> ``split_chunks`` (a line -> runs of words
separated by gaps wider than ``CHUNK_GAP`` x the font size: the would-be cells) -> ``lanes``
(a page laid out in text columns is cut at its gutter first, so a table inside one text column is
not read as one with the prose beside it) -> ``blocks`` (runs of consecutive lines most of which
have two chunks or more) -> ``separators`` (x positions that no chunk of the block's lines
covers, kept when enough lines have text on both sides: the column gaps that persist down the
block) -> ``extend_up`` (header lines the blocking left out) -> (parsers.pdf.tables.unruled_cells)
``build_grid`` (words to columns; a header label spanning columns stays whole, in the
first column it covers) -> ``merge_wrapped`` (a row label drawn on two lines is one cell) ->
``header_count`` -> ``is_data_table`` (the false-positive guards). Lines left out of every block
may still be a key table of two lines (a line of keys over their values: ``unruled_keys``).

What is *not* a data table, and which guard says so (parsers.pdf.tables.unruled_guards): two text columns of
prose (long cells), a numbered or bulleted list (a marker column), a table of contents (dotted
leaders, or page numbers rising down a two-column layout), a form of ``Label:`` / value pairs, a
code listing (monospace font, code punctuation), a justified paragraph (its wide gaps do not line
up across lines, so no block forms).

Coordinates are top-down, in points, as pdfplumber gives them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from operator import attrgetter

from parsers.pdf.labels import TABLE_OR_FIGURE_LABEL
from parsers.pdf.tables.unruled_cells import (
    MIN_MULTI_LINES,
    Chunk,
    Line,
    Word,
    cell_text,
    first_data_line,
    group_lines,
    header_count,
    labels_on_the_right,
    lift_column_spans,
    lift_row_spans,
    trim_tail,
)
from parsers.pdf.tables.unruled_columns import (
    CHUNK_GAP,
    TIGHT_GAP,
    build_grid,
    column_separators,
    part_over_unlabelled,
    separators,
)
from parsers.pdf.tables.unruled_frame import frame
from parsers.pdf.tables.unruled_guards import MIN_ROWS, is_data_table, is_figure, is_numeric
from parsers.pdf.tables.unruled_header import (
    Rule,
    Spans,
    column_names,
    header_by_rules,
    join_wrapped_header,
    kept_spans,
    lift_centred_labels,
)
from parsers.pdf.tables.unruled_keys import key_pairs
from parsers.pdf.tables.unruled_lanes import lanes, page_fold, page_gutter
from parsers.pdf.tables.unruled_sides import side_cut, side_spans
from parsers.pdf.tables.unruled_stack import noted_tail, stacked_parts
from parsers.pdf.tables.unruled_titles import title_lines
from parsers.pdf.tables.unruled_wraps import wrapped_rows

__all__ = [
    "Chunk",
    "Line",
    "UnruledTable",
    "Word",
    "find_tables",
    "group_lines",
    "lanes",
    "page_fold",
    "page_gutter",
    "separators",
]

MAX_LINE_GAP = 2.2  # x line height: a wider vertical gap ends a table
MAX_SINGLE_RUN = 2  # label-only lines in a row inside a table (section labels, wrapped labels)
RULED_APART_ROWS = 2  # rows of a three-line sub-table ruled apart from the one beside it
_READING = attrgetter("top", "x0")  # sort key: top to bottom, then left to right
# a caption line: a table or figure label and its number ("Table 3:", "Fig. 2", "表 4.6", "续表 4.7");
# stricter than labels.TABLE_OR_FIGURE_LABEL, which would also take a row label like "TableBank"
_CAPTION_START = re.compile(
    r"^(?:(?:table|tab\.|tableau|tabelle|figure|fig\.)\s*(?:\d|[ivxlc]+\b)|[续續]?\s*[表图]\s*[\d一二三四五六七八九十])",
    re.IGNORECASE,
)
# a plain figure: "1,402", "-4.5", "(0.63)", "62%" (no date, time, "8," of a date)
_PLAIN = re.compile(r"^[-+\u2212]?\(?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?%?\)?$")
HEADER_GAP = 6.0  # x line height: a header row may stand this far above the body (a rule between)


@dataclass(frozen=True)
class UnruledTable:
    """A table found from whitespace: its box, rows of cell text, header rows, the relative column
    boundaries (for continuation across pages, as tables.PageTable has), and the words it took."""

    bbox: tuple[float, float, float, float]
    rows: tuple[tuple[str, ...], ...]
    header_rows: int
    columns: tuple[float, ...]
    words: tuple[Word, ...]
    column_names: tuple[str, ...] = ()  # flattened labels, when partial rules say what spans what
    title: str | None = None  # a title line inside the table's rules (unruled_frame)


def split_chunks(words: Sequence[Word], gap: float = CHUNK_GAP) -> Line:
    """One line's words as chunks, cut where the gap exceeds ``gap`` x the font size, or
    ``TIGHT_GAP`` x the font size between two plain figures (tight columns: "8.9" and "1,402" 5 pt
    apart; a space between two figures of one cell is narrower; a date and a time are no plain
    figures)."""
    chunks: list[list[Word]] = [[words[0]]]
    for prev, word in zip(words, words[1:], strict=False):
        space = (word.x0 - prev.x1) / max(prev.size, word.size, 1.0)
        if space > gap or (space > TIGHT_GAP and _PLAIN.match(prev.text) and _PLAIN.match(word.text)):
            chunks.append([word])
        else:
            chunks[-1].append(word)
    return Line(tuple(Chunk(tuple(c)) for c in chunks))


SCRIPT_SIZE = 0.8  # x the size of the words they hang on: sub- and superscripts are smaller
SCRIPT_CHARS = 4  # a script is short ("h", "max", "(1)")


def join_scripts(block: Sequence[Line]) -> list[Line]:
    """``block`` with each line of sub- or superscripts only joined to the line they hang on: a
    line whose every word is smaller than the largest word of the line above or below
    (``SCRIPT_SIZE``), overlaps that line's height, each of them short (``SCRIPT_CHARS``) and
    set against the end of one of its words (within a fifth of its size), as "h" of "D¹₄ₕ" set
    lower than "D", "4" and "1" and read as a line of its own, which made a header row of its
    own."""
    out = list(block)
    i = 0
    while i < len(out):
        line = out[i]
        for j in (i - 1, i + 1):
            if not 0 <= j < len(out):
                continue
            host = out[j]
            if _hangs_on(line, host):
                words = sorted((*host.words, *line.words), key=lambda w: w.x0)
                out[min(i, j)] = split_chunks(words)
                del out[max(i, j)]
                i = max(min(i, j) - 1, 0) - 1
                break
        i += 1
    return out


def _hangs_on(line: Line, host: Line) -> bool:
    biggest = max(w.size for w in host.words)  # a host line may be mostly scripts itself ("D 4 1")
    if not all(w.size < SCRIPT_SIZE * biggest for w in line.words):
        return False
    if line.bottom < host.top or line.top > host.bottom:
        return False
    return all(
        len(w.text) <= SCRIPT_CHARS and any(abs(w.x0 - h.x1) <= 0.2 * host.size for h in host.words)
        for w in line.words
    )


# --- blocks and columns -------------------------------------------------------------------------


def blocks(lines: Sequence[Line]) -> list[list[Line]]:
    """Runs of lines that may form a table: lines with two chunks or more, close together, with at
    most ``MAX_SINGLE_RUN`` short one-chunk lines in a row between them; a caption line ("Table 3:",
    "表 4.6", set with wide gaps by justification or centring) ends a run."""
    out: list[list[Line]] = []
    current: list[Line] = []
    singles = 0
    for line in sorted(lines, key=lambda ln: ln.top):
        if _CAPTION_START.match(line.chunks[0].text) or (current and _note_line(line)):
            if current:  # a caption or a note under a table ends it, never a row
                out.append(_trim(current))
            current, singles = [], 0
            continue
        multi = len(line.chunks) >= 2
        close = bool(current) and line.top - current[-1].bottom <= MAX_LINE_GAP * max(line.size, 1.0)
        short = len(line.words) <= 6
        if current and close and (multi or (short and singles < MAX_SINGLE_RUN)):
            current.append(line)
            singles = 0 if multi else singles + 1
            continue
        if current:
            out.append(_trim(current))
        current, singles = ([line], 0) if multi else ([], 0)
    if current:
        out.append(_trim(current))
    return [b for b in out if sum(len(ln.chunks) >= 2 for ln in b) >= MIN_MULTI_LINES]


def _trim(block: list[Line]) -> list[Line]:
    """``block`` without trailing one-chunk lines, except a lower-case continuation of the last
    row's label ("Mountain  7  0.4" / "provinces", at the label column's left edge, also when the
    last line's values are centred beside the label's two lines) and a figure set right under a figure of the
    last row (a regression table's last standard error, "(0.633)" under "0.498")."""
    while block and len(block[-1].chunks) < 2:
        last = block[-1]
        multi = [ln for ln in block if len(ln.chunks) >= 2]
        gap = last.top - block[-2].bottom if len(block) > 1 else 1e9
        continued = (
            multi
            and not _note_line(last)
            and last.chunks[0].text[:1].islower()
            and abs(last.chunks[0].x0 - min(ln.chunks[0].x0 for ln in multi)) < 2 * last.size
            and gap < 0.8 * last.size
        )
        if continued or (
            multi and gap <= 1.1 * _line_gap(block[:-1]) and _figure_under(last.chunks[0], multi[-1])
        ):
            break
        block = block[:-1]
    return block


def _note_line(line: Line) -> bool:
    """``line`` opens with a note marker: one letter or sign set smaller than the word after it
    ("ᵃ Note a.", "* Significant"), the note under a table, no continuation of its last row."""
    first, rest = line.words[0], line.words[1:]
    return (
        bool(rest) and len(first.text) == 1 and not first.text.isdigit() and first.size < 0.85 * rest[0].size
    )


def apart_tail(block: list[Line]) -> list[Line]:
    """``block`` without its last line when that line stands apart from the rows above (a white
    gap over twice their median line gap) and its cells run across two or more of the column
    gaps the rows above leave open: a note or a total line in a layout of its own under the table
    ("Prijzen zijn inclusief BTW ... Factuur totaal EUR 49,99" under an invoice's item rows), which
    would otherwise close those gaps and merge the columns."""
    rest, last = block[:-1], block[-1]
    if sum(len(ln.chunks) >= 2 for ln in rest) < MIN_MULTI_LINES:
        return block
    gap = last.top - rest[-1].bottom
    if gap <= max(2 * _line_gap(rest), 0.5 * last.size):
        return block
    crossed = [s for s in column_separators(rest) if any(c.x0 < s < c.x1 for c in last.chunks)]
    return rest if len(crossed) >= 2 else block


def _line_gap(block: Sequence[Line]) -> float:
    """The median white space between consecutive lines of ``block`` (0 for one line)."""
    gaps = sorted(b.top - a.bottom for a, b in zip(block, block[1:], strict=False))
    return gaps[len(gaps) // 2] if gaps else 0.0


def _figure_under(chunk: Chunk, row: Line) -> bool:
    """``chunk`` is a figure standing under one of ``row``'s figures (not under its label)."""
    return is_numeric(chunk.text) and any(
        is_numeric(c.text) and min(c.x1, chunk.x1) - max(c.x0, chunk.x0) > 0.5 * (chunk.x1 - chunk.x0)
        for c in row.chunks[1:]
    )


def _over_group_rule(line: Line, below: Line, seps: Sequence[float], rules: Sequence[Rule]) -> bool:
    """``line`` (one label) stands right over a group rule: a horizontal rule between it and
    ``below``, under the label and as wide, across some of the table's column boundaries but not
    all (booktabs' ``\\cmidrule`` under "Item" over "Animal" and "Description"; a rule across
    the whole table under a line is a top rule with a title over it)."""
    chunk = line.chunks[0]
    for x0, x1, y in rules:
        crossed = sum(1 for s in seps if x0 + 2.0 < s < x1 - 2.0)  # a rule ending at a boundary stops
        if (
            line.bottom <= y <= below.top
            and x0 - 1.0 <= chunk.x0
            and chunk.x1 <= x1 + 1.0
            and 0 < crossed < len(seps)
        ):
            return True
    return False


def extend_up(
    block: Sequence[Line], above: Sequence[Line], seps: Sequence[float], rules: Sequence[Rule] = ()
) -> list[Line]:
    """``block`` with the header lines above it that its blocking left out: lines of column labels
    (no figures) up to ``HEADER_GAP`` line heights above (a header set apart by a rule), a label
    over the data columns ("Combined" above "weighted school"), and the short label-only lines
    between such a header and the block (a section label under the header). A caption, a larger
    heading, a paragraph line or a line holding a word several lines tall (a chart's axis labels
    stacked glyph over glyph) stops the search; a label-only line with no header above it stays
    out (a heading right above a table is not a row), unless a group rule under it says it is a
    group label (``_over_group_rule``)."""
    size = sorted(ln.size for ln in block)[len(block) // 2]
    top, commit = block[0].top, 0
    # a block opening on a line of labels over its figures has its header: farther up than a
    # line gap stands something else (the row of another table over the same rule)
    reach = MAX_LINE_GAP if _headed(block) else HEADER_GAP
    collected: list[Line] = []
    for line in reversed(above):
        under = collected[-1] if collected else block[0]  # the line right below this one
        if top - line.bottom > reach * size or len(collected) >= 4:
            break
        text = line.chunks[0].text
        caption = TABLE_OR_FIGURE_LABEL.match(text) or _CAPTION_START.match(text)
        stacked = any(w.height > 1.5 * max(w.size, 1.0) for w in line.words)  # a chart's glyph columns
        if caption or line.size > 1.15 * size or stacked:
            break
        if len(line.chunks) >= 2:
            if any(is_figure(c.text) or len(c.words) > 6 for c in line.chunks):
                break
            collected.append(line)
            commit = len(collected)
        elif len(line.words) <= 4 and (
            line.chunks[0].x0 > seps[0] or _over_group_rule(line, under, seps, rules)
        ):
            collected.append(line)
            commit = len(collected)
        elif len(line.words) <= 6:
            collected.append(line)
        else:
            break
        top = line.top
    return [*reversed(collected[:commit]), *block]


def _headed(block: Sequence[Line]) -> bool:
    """``block`` opens on a line of two labels or more (no figure) above a line of figures."""
    head = first_data_line(block)
    return (
        0 < head < len(block)
        and len(block[0].chunks) >= 2
        and not any(is_figure(c.text) for c in block[0].chunks)
        and any(is_figure(c.text) for c in block[head].chunks[1:])
    )


def table_from_block(
    block: Sequence[Line], above: Sequence[Line] = (), rules: Sequence[Rule] = (), ruled_apart: bool = False
) -> UnruledTable | None:
    """The table ``block`` holds, or None. ``ruled_apart``: the block is one side of two tables
    ruled apart (``unruled_sides.side_spans``): its own rules vouch for a table of two rows."""
    block = join_scripts(block)
    if len(block) < 2:
        return None
    seps = column_separators(block)
    if not seps:
        return None
    block = extend_up(block, above, seps, rules)
    grid, head = build_grid(block, seps)
    titles = title_lines(grid, head, seps)
    if titles:  # report title lines centred over the table: no header rows (left to the prose)
        grid, head = grid[titles:], head - titles
    mirrored = labels_on_the_right(grid, head)
    if mirrored:  # a right-to-left table: labels in the last column; the row rules read them first
        grid = [row[::-1] for row in grid]
    grid, head = wrapped_rows(grid, head)
    grid = [row for row in grid if any(row)]
    head = min(head, max(len(grid) - 1, 1))  # label lines above the data joined into fewer rows
    grid = lift_row_spans(grid, head)
    header = header_count(grid, head)
    if mirrored:
        grid = [row[::-1] for row in grid]
    grid = trim_tail(grid, header)
    framed = frame(grid, header, rules) if rules else None
    if framed is not None:  # rules across the whole table: its first and last rows, its header
        grid, header = framed.grid, framed.header
    spans: Spans = {}
    if not mirrored:  # partial rules in the header: its rows and group labels as they draw them
        grid, header, spans = header_by_rules(grid, header, seps, rules)
    if not spans:  # labels centred beside wrapped ones, labels wrapped over two lines: one cell each
        grid, header = join_wrapped_header(*lift_centred_labels(grid, header))
    grid = lift_column_spans(grid, header)
    if not spans and not mirrored:  # two tight labels a word space apart, the second column unlabelled
        grid = part_over_unlabelled(grid, header)
    used = [j for j in range(len(seps) + 1) if any(row[j] for row in grid)]
    grid = [[row[j] for j in used] for row in grid]
    names = column_names(grid, header, kept_spans(spans, used)) if spans else ()
    rows = tuple(tuple(cell_text(cell) for cell in row) for row in grid)
    words = tuple(w for row in grid for cell in row for w in cell)
    few = RULED_APART_ROWS if ruled_apart else MIN_ROWS
    if not is_data_table(rows, header, words, framed=framed is not None or ruled_apart, min_rows=few):
        return None
    x0, x1 = min(w.x0 for w in words), max(w.x1 for w in words)
    bbox = (x0, min(w.top for w in words), x1, max(w.bottom for w in words))
    kept = [seps[j - 1] for j in used[1:]]
    width = (x1 - x0) or 1.0
    columns = (0.0, *(round((s - x0) / width, 3) for s in kept), 1.0)
    title = cell_text(framed.title) if framed is not None and framed.title else None
    words = (*words, *framed.title) if framed is not None else words
    return UnruledTable(bbox, rows, header, columns, words, names, title)


def _sides(block: Sequence[Line], cut: float, rules: Sequence[Rule]) -> list[UnruledTable]:
    """The tables of ``block``'s words left and right of ``cut``, each side's lines grouped anew."""
    words = [w for ln in block for w in ln.words]
    found = []
    spans = side_spans(block, rules, cut)  # both sides' rule extents, once per block
    for i, left in enumerate((True, False)):
        side = [w for w in words if (w.x1 < cut if left else w.x0 > cut)]
        span = spans[i] if spans is not None else None
        caption: list[Word] = []
        if span is not None:  # a side ruled on its own: its rows between its rules, however few
            caption = [w for w in side if (w.top + w.bottom) / 2 < span[0]]
            side = [w for w in side if span[0] <= (w.top + w.bottom) / 2 <= span[1]]
        lines = [split_chunks(ws) for ws in group_lines(side)] if side else []
        ruled = span is not None and sum(len(ln.chunks) >= 2 for ln in lines) >= RULED_APART_ROWS
        for part in [lines] if ruled else blocks(lines):
            table = table_from_block(part, (), rules, ruled_apart=ruled)
            found.extend([_subcaptioned(table, caption)] if table is not None else [])
    return found


def _subcaptioned(table: UnruledTable, caption: Sequence[Word]) -> UnruledTable:
    """``table`` titled by the words over its top rule on its side ("(b) Second sub-table"): a
    sub-caption, so the table beside it is not its continuation (tables.page_table.continues)."""
    if not caption or table.title:
        return table
    return replace(table, title=cell_text(sorted(caption, key=_READING)), words=(*table.words, *caption))


def wide_gap_lines(ordered: Sequence[Word], enough: int = MIN_MULTI_LINES) -> int:
    """How many lines (up to ``enough``) have a gap wider than ``CHUNK_GAP`` between two words,
    from words sorted by (top, x0) without grouping them into lines first."""
    count, last_top = 0, None
    for a, b in zip(ordered, ordered[1:], strict=False):
        if abs(b.top - a.top) > 0.5 * max(a.height, 1.0) or b.x0 - a.x1 <= CHUNK_GAP * max(
            a.size, b.size, 1.0
        ):
            continue
        if last_top is None or abs(a.top - last_top) > 0.5 * max(a.height, 1.0):
            count, last_top = count + 1, a.top
            if count >= enough:
                break
    return count


def find_tables(
    words: Sequence[Word], text_width: float | None = None, rules: Sequence[Rule] = ()
) -> list[UnruledTable]:
    """Unruled tables among ``words`` (a page's words outside its ruled tables), top to bottom;
    ``rules``: the page's horizontal rules (``unruled_header.horizontal_rules``), which a header
    drawn with partial rules is read by."""
    if len(words) < 6:
        return []
    ordered = sorted(words, key=_READING)
    if wide_gap_lines(ordered) < MIN_MULTI_LINES:
        return []  # the cheapest gate: prose pages have almost no gap wide enough to part cells
    lines = [split_chunks(ws) for ws in group_lines(ordered)]
    if sum(len(ln.chunks) >= 2 for ln in lines) < MIN_MULTI_LINES or not blocks(lines):
        return []  # the cheap gate: no run of lines with several chunks, no table in any lane
    width = text_width or (max(w.x1 for w in words) - min(w.x0 for w in words))
    found: list[UnruledTable] = []
    for lane in lanes(lines, width):
        in_lane = sorted(lane, key=lambda ln: ln.top)
        start = 0  # lines above a block and below the previous one may be its header
        in_blocks = blocks(in_lane)
        taken = {id(ln) for block in in_blocks for ln in block}
        for whole in map(apart_tail, in_blocks):
            first = next(i for i, ln in enumerate(in_lane) if ln is whole[0])
            for n, block in enumerate(stacked_parts(noted_tail(whole, rules), rules)):  # tables stacked
                cut = side_cut(block, column_separators(block), rules)
                if cut is None:
                    table = table_from_block(block, in_lane[start:first] if n == 0 else (), rules)
                    found.extend([table] if table is not None else [])
                else:  # two tables side by side: each side's lines on their own
                    found.extend(_sides(block, cut, rules))
            start = next(i for i, ln in enumerate(in_lane) if ln is whole[-1]) + 1
        found.extend(_key_tables(in_lane, taken, found))
    return sorted(found, key=lambda t: t.bbox[1])


def _key_tables(lines: Sequence[Line], taken: set[int], found: Sequence[UnruledTable]) -> list[UnruledTable]:
    """Key tables of two lines (``unruled_keys``) among ``lines`` whose words no table took."""
    used = {id(w) for t in found for w in t.words}
    taken = taken | {id(ln) for ln in lines if any(id(w) in used for w in ln.words)}
    out = []
    for keys, values in key_pairs(lines, taken, MAX_LINE_GAP):
        words = (*keys.words, *values.words)
        x0, x1 = min(w.x0 for w in words), max(w.x1 for w in words)
        width = (x1 - x0) or 1.0
        seps = [(a.x1 + b.x0) / 2 for a, b in zip(keys.chunks, keys.chunks[1:], strict=False)]
        columns = (0.0, *(round((s - x0) / width, 3) for s in seps), 1.0)
        rows = (
            tuple(cell_text(c.words) for c in keys.chunks),
            tuple(cell_text(c.words) for c in values.chunks),
        )
        out.append(UnruledTable((x0, keys.top, x1, values.bottom), rows, 1, columns, words))
    return out
