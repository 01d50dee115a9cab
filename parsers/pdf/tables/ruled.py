"""Bordered tables: ruling-line cells -> grid -> cell text -> rows, from small pure steps.

pdfplumber's lines strategy supplies the cell rectangles (``find_tables`` is the only I/O here);
everything after is pure and unit-tested: the grid steps (parsers.pdf.tables.ruled_grid:
boundaries, cell spans, characters per cell, rows, kept lines, spans), rows the rules do not draw
(parsers.pdf.tables.ruled_rows), ``cell_text`` (characters -> lines -> words), header rows and
flattened column names (parsers.pdf.tables.header), the caption as title
(parsers.pdf.tables.captions). The result is a ``PageTable`` (parsers.pdf.tables.page_table,
which also joins a table continued on the next page).

Merged cells: the text of a cell spanning several grid slots goes in its top-left slot and the
other slots it covers are "" (tabula's rule), so every row has the same width and a column's
values stay in that column; where no rule separates two slots they are one cell, and the lines of
text inside one cell are one cell's text. Shading bands meeting without a rule are no rule
(``table_rules.fill_seams``).

Captions: a caption printed in a box of its own (one or two cells, "Table 7 : ...") is no table,
a caption boxed onto the table (its first or last row, one cell over the whole width) is no row;
both, and plain caption lines above or below, become ``Table.title``, and the caption's box is
part of ``PageTable.bbox`` so the reader keeps it out of the prose.

Rotated tables (characters drawn with a 90/180/270 degree matrix) are turned upright first
(``upright_transform``), so their rows come out as rows.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from parsers.model import Table
from parsers.pdf.labels import TABLE_CAPTION
from parsers.pdf.tables.captions import Caption as Caption
from parsers.pdf.tables.captions import assign_captions, caption_box, framed_figure
from parsers.pdf.tables.captions import find_caption as find_caption
from parsers.pdf.tables.cell_text import TextLine, cell_text, centre_in, dedupe_chars
from parsers.pdf.tables.cell_text import centre_in_any as centre_in_any
from parsers.pdf.tables.header import (
    bold_rows,
    column_names,
    detect_header_rows,
    header_depth,
    is_bold,
)
from parsers.pdf.tables.page_table import PageTable as PageTable
from parsers.pdf.tables.page_table import continues as continues
from parsers.pdf.tables.page_table import merge_continuation as merge_continuation
from parsers.pdf.tables.page_table import titled as titled
from parsers.pdf.tables.rule_ends import interrupted_lines
from parsers.pdf.tables.rule_overhang import overhangs
from parsers.pdf.tables.ruled_bands import banded_records
from parsers.pdf.tables.ruled_grid import (
    GridCell,
    assign_chars,
    build_rows,
    grid_lines,
    kept_lines,
    locate_chars,
    place_cells,
    slivers,
    spans_in_rows,
    split_words,
    upright_cell,
)
from parsers.pdf.tables.ruled_grid import drop_empty_lines as drop_empty_lines
from parsers.pdf.tables.ruled_rows import GROUPED_STACKED, cut_boxes, row_cuts, span_cuts
from parsers.pdf.tables.ruled_subcolumns import column_cuts, cut_columns
from parsers.pdf.tables.rules import (
    MIN_SHADE,
    BBox,
    Char,
    dashed_rules,
    dominant_angle,
    fill_seams,
    frame_lines_upright,
    transform_box,
    transform_char,
    union,
    upright_transform,
)
from parsers.pdf.tables.underlines import underline_edges

_SETTINGS = {"vertical_strategy": "lines", "horizontal_strategy": "lines"}
# a grid where fewer cells than this hold text is a chart or a figure drawn with lines, not a table
MIN_FILLED = 0.15
# a grid with more of its text outside its cells than this is a diagram with boxes, not a table
MAX_IN_GAPS = 0.2
# ... or with more words cut in two by its lines (3 at least) than this fraction of its text cells
MAX_SPLIT_WORDS = 0.25


def table_from_cells(
    cells: Sequence[BBox], chars: Sequence[Char], bands: Sequence[BBox] = ()
) -> tuple[Table, tuple[float, ...]] | None:
    """A Table from cell rectangles and the page's characters; None when it is not a real table
    (fewer than two rows or columns, or only one column with any text: a framed paragraph, a
    page border, boxes around prose lines; or almost every cell empty: a bar chart's gridlines,
    a figure's boxes). A caption boxed onto the table (a first or
    last row of one cell over the whole width, "Table 7: ...") becomes its title, not a row; so
    does a short title line in a first row of one cell shaded by one of ``bands`` (the page's
    coloured fills) of its own."""
    frame = (
        min(b[0] for b in cells),
        min(b[1] for b in cells),
        max(b[2] for b in cells),
        max(b[3] for b in cells),
    )
    inside = [c for c in chars if centre_in(c, frame)]
    angle = dominant_angle(inside)
    if angle:
        fn = upright_transform(angle)
        cells = [transform_box(b, fn) for b in cells]
        inside = [transform_char(c, fn) for c in inside]
    read = _read_grid(cells, inside, angle)
    if read is None:
        return None
    xs, ys, placed, per_cell = read
    cuts = row_cuts(placed, per_cell, len(ys) - 1)
    if cuts:  # bands holding several rows of text, one a line: cut as if ruled
        own = span_cuts(placed, per_cell, len(ys) - 1)  # row labels centred beside their groups
        read = _read_grid(cut_boxes(placed, cuts, own=own), inside, angle)
        if read is None:
            return None
        xs, ys, placed, per_cell = read
    sub = column_cuts(placed, per_cell)
    if sub:  # ruled columns holding sub-columns of words (a group label over them): cut as if ruled
        read = _sub_columns(read, sub, inside, angle)
        if read is None:
            return None
        xs, ys, placed, per_cell = read
    texts = [cell_text(cs) for cs in per_cell]
    sizes = [_median_size(cs) for cs in per_cell]
    title, keep = _boxed_caption(placed, texts, xs, ys, () if angle else bands, sizes)
    if title is not None:
        placed, per_cell, texts = (
            [placed[i] for i in keep],
            [per_cell[i] for i in keep],
            [texts[i] for i in keep],
        )
    grid = build_rows(placed, texts, len(ys) - 1, len(xs) - 1)
    heights = [b - a for a, b in zip(ys, ys[1:], strict=False)]
    keep_r, keep_c = kept_lines(grid, placed, slivers(ys), slivers(xs), heights)
    rows = [[grid[i][j] for j in keep_c] for i in keep_r]
    if len(rows) < 2 or len(rows[0]) < 2 or sum(map(bool, texts)) < MIN_FILLED * len(texts):
        return None
    if sum(any(row[j] for row in rows) for j in range(len(rows[0]))) < 2:
        return None  # text in one column only, the rest empty: boxes drawn around prose lines
    bold = [is_bold(cs) for cs in per_cell]
    spans = spans_in_rows(placed, texts, bold, keep_r, keep_c)
    header = header_depth(spans, rows, detect_header_rows(rows, bold_rows(spans, len(rows))))
    names = column_names(spans, header, len(rows[0])) if header > 1 else ()
    width = (xs[-1] - xs[0]) or 1.0
    columns = tuple(round((x - xs[0]) / width, 3) for x in xs)
    return Table(tuple(tuple(r) for r in rows), header, title, names), columns


Grid = tuple[list[float], list[float], list[GridCell], list[list[Char]]]


def _sub_columns(read: Grid, sub: Any, inside: Sequence[Char], angle: int) -> Grid | None:
    """The grid with its ruled columns cut at ``sub`` (``column_cuts``); a frame that had no
    vertical rule inside (booktabs: horizontal rules only) is then cut into rows too where its
    bands, ruled between groups of rows, stack two figures a column (``GROUPED_STACKED``)."""
    xs, _, placed, per_cell = read
    one_column = len(xs) == 2
    again = _read_grid(cut_columns(placed, per_cell, sub), inside, angle)
    if again is None or not one_column:
        return again
    _, ys, placed, per_cell = again
    cuts = row_cuts(placed, per_cell, len(ys) - 1, GROUPED_STACKED)
    own = span_cuts(placed, per_cell, len(ys) - 1, GROUPED_STACKED) if cuts else {}
    return _read_grid(cut_boxes(placed, cuts, own=own), inside, angle) if cuts else again


def _read_grid(
    cells: Sequence[BBox], inside: Sequence[Char], angle: int
) -> tuple[list[float], list[float], list[GridCell], list[list[Char]]] | None:
    """Grid boundaries, placed cells and each cell's characters (upright, overprints dropped);
    None for a diagram (most text outside the cells) or boxes drawn over free text (words cut)."""
    xs, ys = grid_lines(cells)
    placed = place_cells(cells, xs, ys)
    located = locate_chars(inside, placed, xs, ys)
    in_gaps = sum(1 for c, i in zip(inside, located, strict=True) if i is None and str(c["text"]).strip())
    if in_gaps > MAX_IN_GAPS * len(inside):  # most text outside the cells: a diagram, not a table
        return None
    split = split_words(inside, located)
    if split >= 3 and split > MAX_SPLIT_WORDS * len({i for i in located if i is not None}):
        return None  # words cut by the lines: boxes drawn over free text (an infographic)
    per_cell = [upright_cell(dedupe_chars(cs), angle) for cs in assign_chars(inside, placed, located)]
    return xs, ys, placed, per_cell


def _boxed_caption(
    cells: Sequence[GridCell],
    texts: Sequence[str],
    xs: Sequence[float],
    ys: Sequence[float],
    bands: Sequence[BBox] = (),
    sizes: Sequence[float] = (),
    tol: float = 2.0,
) -> tuple[str | None, list[int]]:
    """(caption, indices of the other cells) when the first or last row of the grid is one cell
    over the whole width whose text is a caption, or the first row one such cell holding a short
    title line over at least two more rows, shaded by a band of its own (a coloured title band:
    "Staging" over a two-column table; a ruled title row stays a row); a longer title line
    there counts too when it is set in larger type than the rest of the table (a statistical
    table's title band: "Rate of Accidental Deaths ... During 1967 to 2013"); (None, all cells)
    otherwise."""
    everything = list(range(len(cells)))
    if len(cells) < 3:
        return None, everything
    for i, cell in enumerate(cells):
        x0, top, x1, bottom = cell.bbox
        full_width = x0 <= xs[0] + tol and x1 >= xs[-1] - tol
        at_edge = top <= ys[0] + tol or bottom >= ys[-1] - tol
        if not (full_width and at_edge and bottom - top < 0.5 * (ys[-1] - ys[0])):
            continue
        text = " ".join(texts[i].split())
        first = top <= ys[0] + tol and len(ys) >= 4
        titled = _title_line(texts[i]) or _large_title(texts[i], i, sizes)
        band = first and titled and _shaded(cell.bbox, bands, tol)
        if TABLE_CAPTION.match(text) or band or (first and _numbered_headings(texts[i])):
            return text, [k for k in everything if k != i]
    return None, everything


MAX_TITLE_WORDS = 8
_WHITE = {
    "1",
    "1.0",
    "(1,)",
    "(1.0,)",
    "(1, 1, 1)",
    "(1.0, 1.0, 1.0)",
    "(0, 0, 0, 0)",
    "(0.0, 0.0, 0.0, 0.0)",
}


def band_fills(rects: Sequence[Char]) -> list[BBox]:
    """The boxes of the page's coloured fills (not white, not thinner than shading)."""
    return [
        (float(r["x0"]), float(r["top"]), float(r["x1"]), float(r["bottom"]))
        for r in rects
        if r.get("fill")
        and str(r.get("non_stroking_color")) not in _WHITE
        and min(float(r["x1"]) - float(r["x0"]), float(r["bottom"]) - float(r["top"])) >= MIN_SHADE
    ]


def _shaded(box: BBox, bands: Sequence[BBox], tol: float) -> bool:
    """A band covers ``box`` from its top and ends inside it, in its lower half (it does not run on
    under the rows below; a band inset a little above the row's rule still ends with the row)."""
    x0, top, x1, bottom = box
    return any(
        b[0] <= x0 + tol
        and b[2] >= x1 - tol
        and b[1] <= top + tol
        and (top + bottom) / 2 <= b[3] <= bottom + tol
        for b in bands
    )


_SECTION_NUMBER = re.compile(r"^(\d+(?:\.\d+)+)\.?\s+\S")  # "1.3 Other charge conditions", "2.1.4. Scope"


def _numbered_headings(text: str) -> bool:
    """Lines of the document's own numbered headings, a heading and the sub-headings under it
    ("1.3 Other charge conditions" / "1.3.1 Step charge"), drawn inside the table's frame over a
    specification table: not a row of it. A single title line in a ruled row stays a row, as
    tabula's and pdfplumber's sets count it ("1.1 JAL Group International Passenger Traffic")."""
    lines = [ln.strip() for ln in text.split("\n") if ln.strip()]
    numbers = [
        m.group(1) for ln in lines if (m := _SECTION_NUMBER.match(ln)) and any(c.isalpha() for c in ln)
    ]
    return len(lines) >= 2 and len(numbers) == len(lines) and numbers[1].startswith(numbers[0] + ".")


# A title band's line may run to this many words when set this much larger than the table's text
MAX_LARGE_TITLE_WORDS = 20
LARGE_TITLE = 1.2


def _median_size(chars: Sequence[Char]) -> float:
    sizes = sorted(float(c.get("size") or 0.0) for c in chars if str(c.get("text", "")).strip())
    return sizes[len(sizes) // 2] if sizes else 0.0


def _large_title(text: str, i: int, sizes: Sequence[float]) -> bool:
    """One line of up to MAX_LARGE_TITLE_WORDS words with a letter, set LARGE_TITLE times larger
    than the median type of the table's other cells: a long title, not a note or a sentence
    (those are set in the table's own type)."""
    words = text.split()
    if (
        "\n" in text.strip()
        or not 0 < len(words) <= MAX_LARGE_TITLE_WORDS
        or not any(ch.isalpha() for ch in text)
    ):
        return False
    others = sorted(s for k, s in enumerate(sizes) if k != i and s > 0)
    return bool(others) and i < len(sizes) and sizes[i] >= LARGE_TITLE * others[len(others) // 2]


def _title_line(text: str) -> bool:
    """One line of a few words with a letter in it: a title, not a row of data or a note."""
    words = text.split()
    return "\n" not in text.strip() and 0 < len(words) <= MAX_TITLE_WORDS and any(ch.isalpha() for ch in text)


def find_tables(page: Any) -> list[PageTable]:
    """Bordered tables on a pdfplumber page, top to bottom, each titled by its caption when it has
    one (the only function that touches a page)."""
    edges = page.edges
    if len(edges) < 4:  # a bordered table needs two ruling lines each way; most prose pages have none
        return []
    seams = fill_seams(page.rects, edges)
    if seams:  # shading bands meeting without a rule: their common edge is not a ruling line
        edges = [e for i, e in enumerate(edges) if i not in seams]
    dashed_v, dashed_h = dashed_rules(edges)
    angle = dominant_angle(page.chars)
    verticals, horizontals = frame_lines_upright([*edges, *dashed_v, *dashed_h], angle)
    under = underline_edges(edges, page.chars) if verticals or horizontals else set()
    if under:  # links' underlines are text: no rule to imply a frame line from
        framing = [e for i, e in enumerate(edges) if i not in under]
        verticals, horizontals = frame_lines_upright([*framing, *dashed_v, *dashed_h], angle)
    if not angle:  # column rules stopping at full-width section rows: the rows' boundaries
        horizontals = [
            *horizontals,
            *interrupted_lines([*edges, *dashed_v, *dashed_h, *verticals], page.chars),
        ]
        # column rules running on past the outermost horizontal rule: a header or last row, or
        # stubs with nothing between (no frame line there)
        over_v, over_h, stubs = overhangs([*edges, *dashed_v, *dashed_h], page.chars)
        horizontals = [h for h in horizontals if not any(_at_stubs(h, stub) for stub in stubs)]
        verticals, horizontals = [*verticals, *over_v], [*horizontals, *over_h]
    settings = {
        **_SETTINGS,
        "explicit_vertical_lines": [*dashed_v, *verticals],
        "explicit_horizontal_lines": [*dashed_h, *horizontals],
    }
    if seams:
        kept_v = [e for e in edges if e.get("orientation") == "v"]
        kept_h = [e for e in edges if e.get("orientation") == "h"]
        if len(kept_v) < 2 or len(kept_h) < 2:
            return []
        settings = {
            "vertical_strategy": "explicit",
            "horizontal_strategy": "explicit",
            "explicit_vertical_lines": [*kept_v, *dashed_v, *verticals],
            "explicit_horizontal_lines": [*kept_h, *dashed_h, *horizontals],
        }
    found = page.find_tables(settings)
    bands = band_fills(page.rects) if found else []
    out = []
    area = float(page.width) * float(page.height)
    boxes: list[TextLine] = []  # captions printed in a box of their own (one or two cells)
    groups = [
        group
        for t in found
        for group in split_at_captions(
            [(float(c[0]), float(c[1]), float(c[2]), float(c[3])) for c in t.cells],
            page.chars,
            edges,
            shading=bands,
        )
    ]
    for cells in groups:
        x0, top, x1, bottom = (
            min(c[0] for c in cells),
            min(c[1] for c in cells),
            max(c[2] for c in cells),
            max(c[3] for c in cells),
        )
        if _one_column(cells) and (records := banded_records(cells, page.chars)) is not None:
            out.append(PageTable(records[2], records[0], records[1]))  # records in shaded bands
            continue
        result = table_from_cells(cells, page.chars, bands)
        if result is not None and framed_figure(page.chars, page.rects, (x0, top, x1, bottom), area):
            continue  # a diagram of boxes inside a frame captioned as a figure
        if result is not None:
            table, columns = result
            out.append(PageTable((x0, top, x1, bottom), table, columns))
        elif len(cells) <= 2:
            box = caption_box(page.chars, (x0, top, x1, bottom))
            boxes.extend([box] if box is not None else [])
    return _titled_by_captions(out, page.chars, boxes)


def _at_stubs(line: Mapping[str, Any], stub: tuple[float, float, float]) -> bool:
    """An implied line at the height where a grid's column rules stop, across that grid."""
    y, x0, x1 = stub
    return abs(float(line["top"]) - y) <= 1.0 and float(line["x0"]) < x1 and float(line["x1"]) > x0


def _one_column(cells: Sequence[BBox], tol: float = 2.0) -> bool:
    """Every cell spans the grid's whole width (a stack of bands)."""
    left, right = min(c[0] for c in cells), max(c[2] for c in cells)
    return len(cells) >= 2 and all(c[0] <= left + tol and c[2] >= right - tol for c in cells)


def split_at_captions(
    cells: list[BBox],
    chars: Sequence[Char],
    drawn: Sequence[Mapping[str, Any]] = (),
    tol: float = 2.0,
    shading: Sequence[BBox] = (),
) -> list[list[BBox]]:
    """The cells of one grid, cut into the grids above and below each inner band of one cell over
    the whole width holding a table caption: two open-frame tables of one width close together get
    one implied frame line down both, and the ruled finder reads them as one grid with the second
    table's caption as a row ("Table 2: Staff by region"). The caption's band leaves both; it
    becomes the lower table's title. Without a caption, an empty band between them is cut the
    same way when no rule of ``drawn`` (the page's edges) closes one of its sides and both sides
    have columns of their own (``_columns_on_both_sides``): a blank row inside a table drawn with
    its side borders stays. And when the grid opens with a title band (one cell over the whole
    width, a short title line, shaded by a fill of its own: ``_boxed_caption``'s band), each inner
    band of that same kind with rows of two cells or more on both sides (``_columns_on_both_sides``)
    opens a table of its own, the band kept as that table's first row (its title): blocks of one
    form stacked without a gap ("UoP1" over its questions, "UoP2" over the same questions), which
    the ruled finder reads as one grid. A band over one cell spanning the width is a section of
    the table (its text would otherwise be lost with a grid too small to read)."""
    if len(cells) < 6:
        return [cells]
    left, top = min(c[0] for c in cells), min(c[1] for c in cells)
    right, bottom = max(c[2] for c in cells), max(c[3] for c in cells)
    bands = [
        c
        for c in cells
        if c[0] <= left + tol and c[2] >= right - tol and c[1] > top + tol and c[3] < bottom - tol
    ]
    cuts, opening = [], []  # bands leaving both tables; title bands opening the lower one
    titled = _title_band(cells, chars, shading, left, right, top, tol)
    for band in bands:
        text = " ".join(cell_text([ch for ch in chars if centre_in(ch, band)]).split())
        gap = not text and _open_side(band, drawn, tol) and _columns_on_both_sides(cells, band, tol)
        if TABLE_CAPTION.match(text) or gap:
            cuts.append(band)
        elif titled and _shaded_title(band, text, shading, tol) and _columns_on_both_sides(cells, band, tol):
            opening.append(band)
    if not cuts and not opening:
        return [cells]
    out: list[list[BBox]] = []
    rest = [c for c in cells if c not in cuts]
    for band in sorted([*cuts, *opening], key=lambda b: b[1]):
        out.append([c for c in rest if c[3] <= band[1] + tol])
        rest = [c for c in rest if c[1] >= (band[1] if band in opening else band[3]) - tol]
    out.append(rest)
    return [group for group in out if group]


def _title_band(
    cells: Sequence[BBox],
    chars: Sequence[Char],
    shading: Sequence[BBox],
    left: float,
    right: float,
    top: float,
    tol: float,
) -> bool:
    """The grid's first row is one cell over its whole width holding a short title line, shaded
    by a fill of its own (``_boxed_caption``'s title band)."""
    first = [c for c in cells if c[1] <= top + tol]
    if len(first) != 1 or first[0][0] > left + tol or first[0][2] < right - tol:
        return False
    return _shaded_title(first[0], cell_text([ch for ch in chars if centre_in(ch, first[0])]), shading, tol)


def _shaded_title(box: BBox, text: str, shading: Sequence[BBox], tol: float) -> bool:
    """``box`` holding ``text`` is a title band: a short title line, shaded by a fill of its own."""
    return _title_line(text) and _shaded(box, shading, tol)


def _open_side(band: BBox, drawn: Sequence[Mapping[str, Any]], tol: float) -> bool:
    """No drawn vertical rule covers half of ``band``'s left side or of its right side (the frame
    line the ruled finder ran down it was implied, or reached there from another table)."""
    height = band[3] - band[1]
    for x in (band[0], band[2]):
        covered = sum(
            max(0.0, min(band[3], float(v["bottom"])) - max(band[1], float(v["top"])))
            for v in drawn
            if v.get("orientation") == "v" and abs(float(v["x0"]) - x) <= tol
        )
        if covered < 0.5 * height:
            return True
    return False


def _columns_on_both_sides(cells: Sequence[BBox], band: BBox, tol: float) -> bool:
    """The rows right above and right below ``band`` (an empty band over the grid's whole width)
    are each cut into two cells or more, and each side has two rows or more: the white between two
    open-frame tables of one width with column rules of their own, which one implied frame line
    joined, not a blank row of one table (a blank row between row groups has its column rules)."""
    above = [c for c in cells if c[3] <= band[1] + tol]
    below = [c for c in cells if c[1] >= band[3] - tol]
    if not above or not below:
        return False
    last = [c for c in above if abs(c[3] - band[1]) <= tol]
    first = [c for c in below if abs(c[1] - band[3]) <= tol]
    rows_above = {round(c[1]) for c in above}
    rows_below = {round(c[1]) for c in below}
    return len(last) >= 2 and len(first) >= 2 and len(rows_above) >= 2 and len(rows_below) >= 2


def _titled_by_captions(
    found: list[PageTable], chars: Sequence[Char], boxed: list[TextLine]
) -> list[PageTable]:
    """Tables top to bottom, each titled by its caption (``assign_captions``), the caption's box
    joined to the table's so the caption is kept out of the prose."""
    found = sorted(found, key=lambda pt: pt.bbox[1])
    skip = {i for i, pt in enumerate(found) if pt.table.title}
    captions = assign_captions(chars, [pt.bbox for pt in found], boxed, skip) if found else {}
    out = []
    for k, pt in enumerate(found):
        caption = captions.get(k)
        if caption is None:
            out.append(pt)
            continue
        out.append(PageTable(union(pt.bbox, caption.bbox), replace(pt.table, title=caption.text), pt.columns))
    return out
