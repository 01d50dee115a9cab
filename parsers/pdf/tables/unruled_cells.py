"""Word-box records and the steps from a block of aligned lines to rows of cells (parsers.pdf.tables.unruled).

``build_grid`` (words to the columns between the separators; a header label spanning columns
stays whole, in the first column it covers) -> ``merge_wrapped`` (a row label drawn on two lines
is one cell) -> ``header_count`` -> ``trim_tail`` (lines under the table whose words fall in its
number columns are prose); ``cell_text`` puts a cell's words in reading order, right-to-left
runs in logical order. Pure functions over word boxes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from parsers.pdf import rtl as bidi_text
from parsers.pdf.tables.lone_words import rehome_lone_words
from parsers.pdf.tables.row_spans import SPAN_PITCH, lift_centred, row_pitch
from parsers.pdf.tables.unruled_guards import counts_columns, is_figure, is_numeric
from parsers.pdf.text_layout import Segment, join_wrapped, on_one_line, vertical_overlap


@dataclass(frozen=True)
class Word(Segment):
    """A word box as the text layer gives it: a layout.Segment (so the words no table takes go
    to the prose steps as they are), plus whether its font is monospaced (code)."""

    mono: bool = False


@dataclass(frozen=True)
class Chunk:
    """Words of one line with no gap wider than ``CHUNK_GAP`` between them."""

    words: tuple[Word, ...]
    x0: float = field(init=False)
    x1: float = field(init=False)

    def __post_init__(self) -> None:  # the extent is read often: computed once
        object.__setattr__(self, "x0", self.words[0].x0)
        object.__setattr__(self, "x1", max(w.x1 for w in self.words))

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)


@dataclass(frozen=True)
class Line:
    chunks: tuple[Chunk, ...]
    words: tuple[Word, ...] = field(init=False)
    top: float = field(init=False)
    bottom: float = field(init=False)
    size: float = field(init=False)  # the median word size

    def __post_init__(self) -> None:  # read many times per block: computed once
        words = tuple(w for c in self.chunks for w in c.words)
        sizes = sorted(w.size for w in words)
        object.__setattr__(self, "words", words)
        object.__setattr__(self, "top", min(w.top for w in words))
        object.__setattr__(self, "bottom", max(w.bottom for w in words))
        object.__setattr__(self, "size", sizes[len(sizes) // 2])


# --- cells --------------------------------------------------------------------------------------

# --- lines --------------------------------------------------------------------------------------


def group_lines(words: Iterable[Word]) -> list[list[Word]]:
    """Words into lines (vertical overlap over half the smaller height with the line's first
    word, or with a word it is set flush against: a unit "(%)" set 0.7 pt lower than its label,
    on a line a prose column beside started higher), each left to right; then a smaller word set
    high or low against the end of a word ("1.778" + "***", "G.+BM25" + "(1)") moves to that
    word's line, whichever line it was grouped with first."""
    lines: list[list[Word]] = []
    for word in sorted(words, key=lambda w: (w.top, w.x0)):
        for line in reversed(lines[-4:]):
            if on_one_line(line[0], word):
                line.append(word)
                break
        else:
            home = next((ln for ln in reversed(lines[-4:]) if any(_flush(w, word) for w in ln)), None)
            if home is not None:
                home.append(word)
            else:
                lines.append([word])
    _attach_scripts(lines)
    rehome_lone_words(lines)
    return [sorted(line, key=lambda w: w.x0) for line in lines if line]


def _flush(a: Word, b: Word) -> bool:
    """``b`` is set against the end of ``a`` (within half a point, no space) on its line: nearly
    level with it, both one line tall (a chart's axis labels stacked glyph over glyph come as
    words several lines tall, side by side)."""
    one_line = all(w.height <= 1.5 * max(w.size, 1.0) for w in (a, b))
    return one_line and abs(b.x0 - a.x1) <= 0.5 and on_one_line(a, b, 0.8)


def _attach_scripts(lines: list[list[Word]], reach: int = 3) -> None:
    """Move each super- or subscript to the line of the word it is set against (in place). Only
    words smaller than the largest are candidates: a page in one size costs nothing here."""
    largest = max((w.size for line in lines for w in line), default=0.0)
    for i, line in enumerate(lines):
        for word in [w for w in line if w.size < 0.9 * largest]:
            near = range(max(0, i - reach), min(len(lines), i + reach + 1))
            home = next((k for k in near if k != i and any(_script_of(b, word) for b in lines[k])), None)
            if home is not None and not any(_script_of(b, word) for b in line):
                line.remove(word)
                lines[home].append(word)


def _script_of(base: Word, word: Word) -> bool:
    """``word`` is smaller than ``base``, touches its end and overlaps it vertically."""
    return word.size < 0.9 * base.size and touching(base, word) and vertical_overlap(base, word) > 0


def word_count(chunk: Chunk) -> int:
    """Words of a chunk; Chinese and Japanese write a line without spaces (one "word" to the text
    layer): two of their characters count as a word."""
    return sum(max(1, (_cjk_chars(w.text) + 1) // 2) for w in chunk.words)


def _cjk_chars(text: str) -> int:
    return sum(1 for ch in text if "\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff")


Grid = list[list[list[Word]]]  # rows x columns x words


def first_data_line(block: Sequence[Line]) -> int:
    """Index of the first line with a number (not a year) after its first chunk: the lines above
    are header lines (1 when no line has one: a text table's first line). A line of column
    numbers under the labels ("(1) (2) (3)", ``column_numbers``) right over a line of figures is
    a header line."""
    for i, line in enumerate(block):
        if any(is_figure(c.text) for c in line.chunks[1:]):
            below = block[i + 1] if i + 1 < len(block) else None
            if (
                below is None
                or not column_numbers(line)
                or not any(is_figure(c.text) for c in below.chunks[1:])
            ):
                return i
    return 1


def column_numbers(line: Line) -> bool:
    """``line`` numbers the columns (``counts_columns`` of its cells)."""
    return counts_columns([c.text for c in line.chunks])


def _starts_lower(cell: Sequence[Word]) -> bool:
    return bool(cell) and cell[0].text[:1].islower()


def body_start(grid: Grid, head: int) -> int:
    """``head`` (the first data line) without the label-only lines right above it: a section
    label ("Current assets") or a wrapped label's first line is body, not header."""
    while head > 1 and grid[head - 1][0] and not any(grid[head - 1][1:]):
        head -= 1
    return head


def merge_wrapped(grid: Grid, head: int) -> Grid:
    """A body row holding only a label that continues on the next row's label (that one starts in
    lower case: "Coastal districts" / "and islands  45,889 ...") joins it; so does a label-only row
    that starts in lower case after a row with values (values on the label's first line)."""
    head = body_start(grid, head)
    out: Grid = [list(r) for r in grid[:head]]
    pending: list[Word] | None = None
    for row in grid[head:]:
        label_only = bool(row[0]) and not any(row[1:])
        if pending is not None:
            if _starts_lower(row[0]):
                row = [pending + row[0], *row[1:]]
            else:
                out.append([pending, *[[] for _ in row[1:]]])
            pending = None
        if label_only and _starts_lower(row[0]) and len(out) > head and any(out[-1][1:]):
            out[-1][0] = out[-1][0] + row[0]
            continue
        if label_only:
            pending = row[0]
            continue
        out.append(row)
    if pending is not None:
        out.append([pending, *[[] for _ in range(len(grid[0]) - 1)]])
    return out


def lift_row_spans(grid: Grid, head: int) -> Grid:
    """Row labels set once, vertically centred beside the group of rows they name ("Explanatory
    variables" centred over four variable rows, "DP" between its "NLL" and "Triplet" rows): such
    a line has its own row, between rows of the group, so it is put in the group's first row (as
    for a label spanning columns, it sits in the first cell it spans). A line qualifies when it
    holds the row label, its cells are empty in the rows above and below it, those rows hold
    cells of their own, and as many such rows lie above it as below (one more or less). Rows a
    label above already spans are not the next label's ("DP", "L2", "Cos" over two rows each:
    "L2" is also centred on the four rows around it)."""
    start = body_start(grid, head)
    centred = lift_centred(grid, start)  # labels on their groups' middle rows too ("South")
    if centred is not None:
        return centred
    out = [list(r) for r in grid]
    i = start + 1
    floor = start  # the first row no label above has taken
    pitch = row_pitch([_extent(r) for r in grid[start:] if any(r[1:])])
    while i < len(out) - 1:
        group = _span_group(out, floor, i, pitch)
        if group is None:
            i += 1
            continue
        first, size = out[group[0]], group[1]
        for j, cell in enumerate(out[i]):
            if cell:
                first[j] = list(cell)
        del out[i]
        floor = group[0] + size
    return out


def _span_group(grid: Grid, start: int, i: int, pitch: float) -> tuple[int, int] | None:
    """The first row and the size of the group that row ``i``'s cells span (``lift_row_spans``;
    rows from ``start`` on), or None: of the rows around it whose cells in its columns are empty,
    the most (as many above as below, one more or less) whose middle is the label's middle
    (within a third of a line)."""
    row = grid[i]
    spans = [j for j, cell in enumerate(row) if cell]
    if not row[0] or not any(c for j, c in enumerate(grid[i - 1]) if j not in spans):
        return None
    if not any(c for j, c in enumerate(grid[i + 1]) if j not in spans):
        return None
    if pitch and sum(_extent(grid[i + 1])) - sum(_extent(grid[i - 1])) > 2 * SPAN_PITCH * pitch:
        return None  # the line takes a row's place: a section label row

    def free(k: int) -> bool:
        return all(not grid[k][j] for j in spans) and any(grid[k])

    above = 0
    while i - above - 1 >= start and free(i - above - 1):
        above += 1
    below = 0
    while i + below + 1 < len(grid) and free(i + below + 1):
        below += 1
    top, bottom = _extent(row)
    middle, tolerance = (top + bottom) / 2, (bottom - top) / 3
    fits = [
        (up + down, i - up)
        for up in range(1, above + 1)
        for down in range(1, below + 1)
        if abs(up - down) <= 1
        and abs((_extent(grid[i - up])[0] + _extent(grid[i + down])[1]) / 2 - middle) <= tolerance
    ]
    return (max(fits)[1], max(fits)[0]) if fits else None


def lift_column_spans(grid: Grid, header: int) -> Grid:
    """A value set once across a row's value columns ("YES" centred over four model columns)
    stands in a column of its own between them: that column has no header label and each of its
    cells is the only value of its row; or, centred on the value columns, it fell into the
    middle one. Such a cell goes to the first value column (a label spanning columns sits in the
    first it spans), and a column of its own empties."""
    cols = [k for k in range(1, len(grid[0]) if grid else 0) if any(row[k] for row in grid)]
    if not 0 < header < len(grid) or len(cols) < 3:
        return grid
    out = [list(r) for r in grid]
    for j in cols[1:-1]:
        rows = [i for i in range(header, len(out)) if out[i][j]]
        named = all(any(out[i][k] for i in range(header)) for k in cols if k != j)
        if not rows or any(out[i][j] for i in range(header)) or not named:
            continue
        if any(out[i][k] for i in rows for k in cols if k != j):
            continue
        for i in rows:
            out[i][cols[0]], out[i][j] = out[i][j], []
    return _centred_values_first(out, header, cols)


def _centred_values_first(grid: Grid, header: int, cols: Sequence[int]) -> Grid:
    """A row's only value, a word and not a figure ("YES", "Controlled"), centred on the value
    columns (within a quarter of a column) goes to the first value column."""
    values = [w for row in grid for k in cols for w in row[k]]
    if not values:
        return grid
    lo, hi = min(w.x0 for w in values), max(w.x1 for w in values)
    middle, pitch = (lo + hi) / 2, (hi - lo) / len(cols)
    for row in grid[header:]:
        filled = [k for k in cols if row[k]]
        if len(filled) != 1 or filled[0] == cols[0] or is_numeric(cell_text(row[filled[0]])):
            continue
        cell = row[filled[0]]
        if abs((min(w.x0 for w in cell) + max(w.x1 for w in cell)) / 2 - middle) < 0.25 * pitch:
            row[cols[0]], row[filled[0]] = cell, []
    return grid


def _extent(row: Sequence[Sequence[Word]]) -> tuple[float, float]:
    words = [w for cell in row for w in cell]
    return min(w.top for w in words), max(w.bottom for w in words)


def cell_text(words: Sequence[Word]) -> str:
    """A cell's words: lines top to bottom joined by "\\n" (by nothing between wrapped CJK lines,
    ``join_wrapped``), each in logical (reading) order."""
    lines: list[list[Word]] = []
    for w in sorted(words, key=lambda w: (w.top, w.x0)):
        if lines and w.top < lines[-1][0].bottom - 0.3 * lines[-1][0].height:
            lines[-1].append(w)
        else:
            lines.append([w])
    texts = (join_words(sorted(ln, key=lambda w: w.x0)) for ln in lines)
    return join_wrapped([bidi_text.logical_line(t) for t in texts])


MIN_MULTI_LINES = 3  # lines with two cells or more a table needs (parsers.pdf.tables.unruled)
TOUCH_RATIO = 0.15  # x font size: pdfplumber's x_tolerance_ratio, the gap inside one word
FLUSH = 0.05  # x the smaller font size: no white between two words' glyphs, whatever their sizes


def touching(a: Word, b: Word) -> bool:
    """``b`` starts where ``a`` ends (within a word's letter gap): one word the text layer split
    only for a change of size or font ("1.778" + superscript "***", "B" + subscript "1", small
    capitals "S" + "PECTER"). Words of nearly but not quite equal size (OCR'd text layers size
    each word on its own) stay apart unless glyph meets glyph (``FLUSH``: a subscript set against
    small capitals, "TAPAS" + "BASE", sizes 11 % apart)."""
    small, large = sorted((a.size, b.size))
    script = small <= 0.85 * large  # a script or small capitals; near sizes: OCR'd words, kept apart
    same = small >= 0.98 * large  # a change of font alone (a bold word's regular full stop)
    gap = b.x0 - a.x1
    if abs(gap) <= FLUSH * small:
        return True
    return (script or same) and -TOUCH_RATIO * small <= gap <= TOUCH_RATIO * max(large, 1.0)


def join_words(words: Sequence[Word]) -> str:
    """One line's words (left to right) as text: a space between words, none between touching
    ones."""
    parts: list[str] = []
    for prev, word in zip([None, *words], words, strict=False):
        if prev is not None and not touching(prev, word):
            parts.append(" ")
        parts.append(word.text)
    return "".join(parts)


def trim_tail(grid: Grid, header: int) -> Grid:
    """``grid`` without its last rows while they put words where the body holds figures: the
    lines of a justified paragraph right under a table ("Step 2. Use the amount  figured in ...")
    have gaps that line up with it, but their text falls in its number columns. Years in the
    first column are labels, no figures: a stub of years ("2004" ... "Thereafter") may stand over
    worded last rows ("Less amount representing interest"); a paragraph's line runs on past it
    into the number columns."""
    body = grid[header:]

    def text(cell: Sequence[Word]) -> str:
        return " ".join(w.text for w in cell)

    numeric = [
        j
        for j in range(len(grid[0]) if grid else 0)
        if sum(1 for r in body if (is_figure if j == 0 else is_numeric)(text(r[j]))) * 2
        > sum(1 for r in body if r[j])
    ]
    end = len(grid)
    while end > header + 1 and (
        any(_words_in_figures(grid[end - 1][j]) for j in numeric) or _larger_than_above(grid, end - 1)
    ):
        end -= 1
    return grid[:end]


def _words_in_figures(cell: Sequence[Word]) -> bool:
    """Two words or more that are no figure and do not start with one ("2004 (before" / "May 2)"
    is a figure's label, wrapped): a paragraph's words in a number column."""
    text = " ".join(w.text for w in cell)
    return len(cell) >= 2 and not is_numeric(text) and not is_numeric(cell[0].text)


HEADING_STEP = 0.5  # points: a last line set this much larger than every word above it is a heading


def _larger_than_above(grid: Grid, i: int) -> bool:
    """Row ``i``'s words are all larger than every word of the rows above: the next section's
    heading ("4.4.2 Robustness") lined up with the table's columns, not its last row."""
    words = [w for cell in grid[i] for w in cell]
    above = [w.size for row in grid[:i] for cell in row for w in cell]
    return bool(words and above) and min(w.size for w in words) > max(above) + HEADING_STEP


def labels_on_the_right(grid: Grid, head: int) -> bool:
    """The first column of the body holds figures and the last one text (a Hebrew/Arabic table)."""

    def numeric_share(j: int) -> float:
        cells = [" ".join(w.text for w in row[j]) for row in grid[head:] if row[j]]
        return sum(1 for c in cells if is_numeric(c)) / len(cells) if cells else 0.0

    return len(grid[0]) > 1 and numeric_share(0) > 0.8 and numeric_share(len(grid[0]) - 1) < 0.2


def header_count(grid: Grid, head: int) -> int:
    """Header rows: the lines above the first data line, else leading bold rows over a body that
    is not bold, else 1 (a text-only table's first row)."""
    head = body_start(grid, head)
    if 0 < head < len(grid):
        return min(head, 4)
    bold = [all(w.bold for cell in row for w in cell) for row in grid]
    n = 0
    while n < len(bold) and bold[n]:
        n += 1
    return n if 0 < n < len(grid) else 1
