"""One PDF page -> PageContent: its tables and its prose, read before any cross-page step.

Bordered tables are found first (parsers.pdf.tables.ruled) and their characters removed from the
prose (a partial grid, read again for its columns, keeps its caption as title and gives the prose
back the lines of prose its frame held besides); then tables aligned by whitespace are found among
the remaining words
(parsers.pdf.tables.unruled) and their words (and captions) removed too; the rest become line
segments (parsers.pdf.text_layout), right-to-left lines in logical order. A page without a text
layer and without a table is marked for OCR (``run_ocr``, parsers.pdf.ocr), which runs in the
parsing process only.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

import pdfplumber

from parsers.model import Table
from parsers.options import ParseOptions
from parsers.pdf import objects as pdf_objects
from parsers.pdf import rtl as bidi_text
from parsers.pdf import text_layout as layout
from parsers.pdf.labels import bold_font, italic_font, mono_font
from parsers.pdf.tables import ruled as tables
from parsers.pdf.tables import unruled
from parsers.pdf.tables.rules import union
from parsers.pdf.tables.unruled_header import horizontal_rules
from parsers.pdf.text_layout import Segment


@dataclass
class PageContent:
    """What one page holds before cross-page steps (furniture, headings, table continuation)."""

    number: int
    height: float
    segments: list[Segment]
    tables: list[tables.PageTable] = field(default_factory=list)
    ocr: dict[str, Any] | None = None
    ocr_skipped: str | None = None  # why a page that needed OCR was not rendered
    ocr_pending: bool = False  # no text layer: run_ocr is due (in the parsing process)
    unmapped_glyphs: int = 0  # glyphs without a Unicode mapping, left out of the text


def read_page(
    page: pdfplumber.page.Page, number: int, options: ParseOptions, unruled_tables: bool = True
) -> PageContent:
    """One page: tables, prose segments without the tables' text; ``ocr_pending`` when the page has
    no text layer and OCR is on (``run_ocr`` does it: OCR runs in the parsing process only).
    ``unruled_tables`` off: bordered tables only (bench/table_adjacency.py's "before")."""
    pdf_objects.prime(page)
    crop_to_visible(page)
    page_tables = tables.find_tables(page)
    # partial grids read again, and the charts boxed inside them (neither table nor prose); what
    # else a frame held outside its tables stays prose where it reads as prose (_outside_or_prose)
    frames: list[tables.BBox] = []
    charts: list[tables.BBox] = []
    if unruled_tables:
        read_again = [(pt, *_reread_partial_grid(page, pt)) for pt in page_tables]
        page_tables = [t for _, found, _ in read_again for t in found]
        frames = [pt.bbox for pt, found, _ in read_again if found != [pt]]
        charts = [box for _, _, boxes in read_again for box in boxes]
    boxes = [*(t.bbox for t in page_tables), *charts]
    chars = [c for c in page.chars if not tables.centre_in_any(c, boxes)] if boxes else page.chars
    readable = [c for c in chars if not is_unmapped(c)]
    unmapped = len(chars) - len(readable)
    words = _outside_or_prose(list(_words(page, readable)), frames)
    # the gate, on pdfplumber's word order (line by line, left to right): most prose pages have
    # no three lines with a gap wide enough to part two cells, and stop here
    if unruled_tables and unruled.wide_gap_lines(words) >= unruled.MIN_MULTI_LINES:
        words, page_tables = _unruled_tables(page, words, page_tables)
    # RTL lines in logical order
    segments = bidi_text.logical_segments(layout.words_to_segments(words))
    content = PageContent(number, float(page.height), segments, page_tables)
    if unmapped:
        content.unmapped_glyphs = unmapped
    if options.ocr and needs_ocr(page, page_tables, len(readable), unmapped):
        oversized = largest_image(page)
        if oversized[0] * oversized[1] > options.max_image_pixels:
            # Rendering would decode the image in full: a decompression bomb costs gigabytes.
            content.ocr_skipped = (
                f"page {number}: image of {oversized[0]}x{oversized[1]} pixels "
                f"> max_image_pixels={options.max_image_pixels}, not rendered"
            )
            return content
        content.ocr_pending = True
    return content


def visible_box(page: pdfplumber.page.Page) -> tables.BBox:
    """The part of the page a viewer shows: the media box cut to the crop box (pdfplumber gives
    both in the page objects' top-down coordinates)."""
    media, crop = page.mediabox, page.cropbox
    return (max(media[0], crop[0]), max(media[1], crop[1]), min(media[2], crop[2]), min(media[3], crop[3]))


def crop_to_visible(page: pdfplumber.page.Page) -> None:
    """Drop from the page's (primed) objects what lies outside its visible box: a booklet's spread
    keeps the facing page's text and boxes past the page edge, a layout program its slug and
    off-page frames; a viewer shows none of it, so no table or prose may hold it. A character
    counts where its centre is; a rect or line partly visible is cut to the box (as pdfplumber's
    ``page.crop`` cuts it), a curve or image partly visible is kept whole. A page with nothing
    outside is left as it is (one pass over its objects), and so is a page whose characters all
    lie outside its box: the box is wrong there (a media box stored upside down), not the text."""
    box = visible_box(page)
    if box[2] - box[0] <= 0 or box[3] - box[1] <= 0:
        return  # a degenerate box: nothing would be left, keep what the file draws
    objects: dict[str, list[dict[str, Any]]] = page._objects
    cut = {
        kind: kept
        for kind, objs in objects.items()
        if (kept := _visible_objects(kind, objs, box)) is not None
    }
    if not cut or (objects.get("char") and not cut.get("char", objects["char"])):
        return  # nothing outside, or every character outside: the box is wrong, not the text
    objects.update(cut)
    page.flush_cache(["_rect_edges", "_curve_edges", "_edges"])


_X0, _X1, _TOP, _BOTTOM = (itemgetter(k) for k in ("x0", "x1", "top", "bottom"))


def _visible_objects(kind: str, objs: list[dict[str, Any]], box: tables.BBox) -> list[dict[str, Any]] | None:
    """``objs`` cut to ``box``, or None when all of them lie inside it already."""
    x0, top, x1, bottom = box
    if not objs or (  # min / max over itemgetter maps: C loops, the common page costs little
        min(map(_X0, objs)) >= x0
        and max(map(_X1, objs)) <= x1
        and min(map(_TOP, objs)) >= top
        and max(map(_BOTTOM, objs)) <= bottom
    ):
        return None
    if kind == "char":
        return [o for o in objs if tables.centre_in(o, box)]
    kept = []
    for o in objs:
        if o["x0"] > x1 or o["x1"] < x0 or o["top"] > bottom or o["bottom"] < top:
            continue
        inside = o["x0"] >= x0 and o["x1"] <= x1 and o["top"] >= top and o["bottom"] <= bottom
        if inside or kind not in ("rect", "line"):
            kept.append(o)
        elif (cut := pdfplumber.utils.clip_obj(o, box)) is not None:
            kept.append(cut)
    return kept


def _unruled_tables(
    page: pdfplumber.page.Page, words: list[unruled.Word], ruled: list[tables.PageTable]
) -> tuple[list[unruled.Word], list[tables.PageTable]]:
    """Whitespace-aligned tables among the words outside ruled tables, titled by their caption
    ("Table 3: ..." above or below, tables.find_caption): the words they and their captions hold
    leave the prose, the tables join the ruled ones (top to bottom)."""
    rules = horizontal_rules(page.edges)
    found = [t for t in unruled.find_tables(words, rules=rules) if not _drawn_figure(page, t)]
    if not found:
        return words, ruled
    taken = {id(w) for t in found for w in t.words}
    boxes = [*(pt.bbox for pt in ruled), *(t.bbox for t in found)]
    extra = []
    for t in found:
        table = Table(t.rows, t.header_rows, title=t.title, column_names=t.column_names)
        found_table, caption = tables.PageTable(t.bbox, table, t.columns), None
        if not t.title:
            found_table, caption = _captioned(page, found_table, [b for b in boxes if b != t.bbox])
        if caption is not None:
            taken.update(id(w) for w in words if _centre_in(w, caption.bbox))
        extra.append(found_table)
    return [w for w in words if id(w) not in taken], sorted([*ruled, *extra], key=lambda pt: pt.bbox[1])


def _drawn_figure(page: pdfplumber.page.Page, table: unruled.UnruledTable) -> bool:
    """Aligned labels over drawn shapes: a chart's axis labels or a diagram's boxes, not a table.
    Curves (arcs, pie slices, arrows, plotted lines) never belong to a table of text; boxes do
    as shaded cells, so only as many boxes as rows (bars, diagram boxes) count."""
    x0, top, x1, bottom = table.bbox

    def over(obj: Mapping[str, Any]) -> bool:
        return obj["x1"] >= x0 and obj["x0"] <= x1 and obj["bottom"] >= top and obj["top"] <= bottom

    curves = sum(1 for c in page.curves if over(c))
    if curves >= 2:
        return True
    boxes = sum(1 for r in page.rects if over(r) and r["width"] > 2 and r["height"] > 2)
    return boxes >= max(4, len(table.rows))


def _centre_in(word: unruled.Word, box: tables.BBox) -> bool:
    return box[0] <= (word.x0 + word.x1) / 2 <= box[2] and box[1] <= (word.top + word.bottom) / 2 <= box[3]


# A ruled table with a cell this many lines tall may be a frame around an unruled table (rules
# around the header and the label column only): its text is read again for aligned columns.
PARTIAL_GRID_LINES = 5


def _reread_partial_grid(
    page: pdfplumber.page.Page, found: tables.PageTable
) -> tuple[list[tables.PageTable], list[tables.BBox]]:
    """([``found``], []), or (the unruled tables inside its box, the charts boxed inside its frame)
    when its rules are only a partial grid (a cell holds many lines of aligned figures, or ruled
    columns hold several figure columns each: rules between column groups only) and they hold at
    least twice as many filled cells. Charts boxed inside the frame (``chart_boxes``) are left out
    of the second reading; ``found``'s caption titles the table it stands by (``_keep_caption``)."""
    lines = max((c.count("\n") + 1 for r in found.table.rows for c in r), default=0)
    rows = found.table.rows
    if lines < PARTIAL_GRID_LINES and not _packed_figures(rows) and not _stacked_figure_columns(rows):
        return [found], []
    charts = chart_boxes(page, found.bbox)
    inside = [
        c
        for c in page.chars
        if tables.centre_in(c, found.bbox) and not is_unmapped(c) and not tables.centre_in_any(c, charts)
    ]
    again = unruled.find_tables(list(_words(page, inside)))
    filled = sum(1 for t in again for r in t.rows for c in r if c.strip())
    if filled < 2 * sum(1 for r in found.table.rows for c in r if c.strip()):
        return [found], []
    read = [
        tables.PageTable(t.bbox, Table(_group_labels_first(t, found), t.header_rows), t.columns)
        for t in again
    ]
    return _keep_caption(page, read, found.table.title), charts


# A line of at least this many words left in a partial grid's frame after its second reading is
# prose (a note under the figures); shorter bits are header fragments that reading left out ("If
# Form" over a tax table's columns), which as prose made chunks of two words.
FRAME_PROSE_WORDS = 4


def _outside_or_prose(words: list[unruled.Word], frames: Sequence[tables.BBox]) -> list[unruled.Word]:
    """``words`` without those inside a partial grid's frame (``frames``: read again, so its tables
    hold what they read) on a line of fewer than FRAME_PROSE_WORDS of that frame's words."""
    short: set[int] = set()
    for frame in frames:
        inside = [w for w in words if _centre_in(w, frame)]
        for w in inside:
            if sum(1 for other in inside if layout.on_one_line(w, other)) < FRAME_PROSE_WORDS:
                short.add(id(w))
    return [w for w in words if id(w) not in short] if short else words


def _keep_caption(
    page: pdfplumber.page.Page, read: list[tables.PageTable], title: str | None
) -> list[tables.PageTable]:
    """The tables ``read`` again inside a partial grid's frame, the one its caption (``title``)
    stands by titled with it and its box grown over the caption's (tables.find_caption: above,
    else below; so the caption is not read as prose too); when no caption line is found by any
    of them (a caption boxed into the frame), the first table takes ``title``."""
    if not title or not read or any(t.table.title for t in read):
        return read
    boxes = [t.bbox for t in read]
    for i, t in enumerate(read):
        titled, caption = _captioned(page, t, boxes[:i] + boxes[i + 1 :])
        if caption is not None:
            read[i] = titled
            return read
    read[0] = tables.PageTable(read[0].bbox, tables.titled(read[0].table, title), read[0].columns)
    return read


def _captioned(
    page: pdfplumber.page.Page, found: tables.PageTable, others: Sequence[tables.BBox]
) -> tuple[tables.PageTable, tables.Caption | None]:
    """``found`` titled by its caption line above or below (tables.find_caption; a line nearer
    one of ``others`` is theirs), its box grown over the caption's so the caption is not read as
    prose too, and the caption; ``found`` and None without one."""
    caption = tables.find_caption(page, found.bbox, others)
    if caption is None:
        return found, None
    table = tables.titled(found.table, caption.text)
    return tables.PageTable(union(found.bbox, caption.bbox), table, found.columns), caption


# A drawn path of this many points is a plotted line (a chart's series), not a rounded corner or an
# arrow head.
PLOT_POINTS = 8


def chart_boxes(page: pdfplumber.page.Page, frame: tables.BBox) -> list[tables.BBox]:
    """Boxes drawn inside ``frame``, at most half its area, that hold a plotted line (a curve of
    PLOT_POINTS points or more): charts set in a ruled panel beside a table (a market report's
    frame, its right column a stack of boxed charts). Their axis labels and legends are no table
    text."""
    plots = [
        (float(c["x0"]), float(c["top"]), float(c["x1"]), float(c["bottom"]))
        for c in page.curves
        if len(c.get("pts") or ()) >= PLOT_POINTS
    ]
    if not plots:
        return []
    x0, top, x1, bottom = frame
    area = (x1 - x0) * (bottom - top)
    out = []
    for r in page.rects:
        box = (float(r["x0"]), float(r["top"]), float(r["x1"]), float(r["bottom"]))
        if not _holds(frame, box):
            continue
        if (box[2] - box[0]) * (box[3] - box[1]) > 0.5 * area:
            continue  # the frame itself, or a box around the table and its chart together
        if any(_holds(box, plot) for plot in plots):
            out.append(box)
    return out


def _holds(box: tables.BBox, inner: tables.BBox, tol: float = 1.0) -> bool:
    return (
        box[0] - tol <= inner[0]
        and inner[2] <= box[2] + tol
        and box[1] - tol <= inner[1]
        and inner[3] <= box[3] + tol
    )


# Ruled cells with a line of this many figures side by side: a ruled column holding several
# figure columns (a results table ruled between its column groups only).
PACKED_FIGURES = 3


# A ruled cell of this many lines, each two figures or more and nothing else: figure columns
# stacked in one ruled cell (a small results table ruled under its header and beside its labels
# only), which the ruled reader does not cut into rows (``ruled_rows.is_row_band``).
STACKED_LINES = 3


def _stacked_figure_columns(rows: Sequence[Sequence[str]]) -> bool:
    """A cell of STACKED_LINES lines or more, each of two figures or more and no word, beside a
    cell of as many lines in its row (the row labels of those lines: the ruled row is several
    rows, not one cell listing figures)."""
    for row in rows:
        counts = [c.count("\n") + 1 for c in row]
        for k, cell in enumerate(row):
            lines = cell.split("\n")
            if (
                len(lines) >= STACKED_LINES
                and all(
                    len(ln.split()) >= 2 and all(unruled.is_numeric(t) for t in ln.split()) for ln in lines
                )
                and any(n == len(lines) for j, n in enumerate(counts) if j != k)
            ):
                return True
    return False


def _packed_figures(rows: Sequence[Sequence[str]]) -> bool:
    """Two cells or more each with a line of PACKED_FIGURES figures or more."""
    packed = 0
    for row in rows:
        for cell in row:
            lines = cell.split("\n")
            if any(sum(1 for t in ln.split() if unruled.is_numeric(t)) >= PACKED_FIGURES for ln in lines):
                packed += 1
    return packed >= 2


def _group_labels_first(table: unruled.UnruledTable, ruled: tables.PageTable) -> tuple[tuple[str, ...], ...]:
    """``table``'s rows, each header label that stands alone in a ruled column holding several
    of ``table``'s columns moved to the first of them: the rules say the label spans the group
    (centred over it, it sat in a middle column), as a label spanning columns sits in the first.
    A group that begins with the row labels' column (no rule between the stub and the first
    figures) spans from its second column: a group label stands over figures, the stub's head is
    no group label."""

    def bounds(box: tables.BBox, rel: Sequence[float]) -> list[float]:
        return [box[0] + r * (box[2] - box[0]) for r in rel]

    mine, theirs = bounds(table.bbox, table.columns), bounds(ruled.bbox, ruled.columns)
    centres = [(a + b) / 2 for a, b in zip(mine, mine[1:], strict=False)]
    groups = [
        [j for j, x in enumerate(centres) if a <= x <= b] for a, b in zip(theirs, theirs[1:], strict=False)
    ]
    rows = [list(r) for r in table.rows]
    for r in range(min(table.header_rows, len(rows))):
        for group in (g for g in groups if len(g) >= 2):
            filled = [j for j in group if rows[r][j].strip()]
            first = group[1] if group[0] == 0 else group[0]  # a group label spans values, not the stub
            if len(filled) == 1 and filled[0] not in (0, first):  # the stub's own head stays
                rows[r][first], rows[r][filled[0]] = rows[r][filled[0]], ""
    return tuple(tuple(r) for r in rows)


def run_ocr(content: PageContent, options: ParseOptions, pdf_data: bytes) -> None:
    """OCR a page ``read_page`` left pending: its segments become the recognised lines."""
    from parsers.pdf import ocr  # imported lazily: onnxruntime is heavy

    segments, info = ocr.ocr_page(pdf_data, content.number - 1, options.ocr_dpi, options.max_page_pixels)
    content.segments, content.ocr, content.ocr_pending = segments, info, False


def largest_image(page: pdfplumber.page.Page) -> tuple[int, int]:
    """(width, height) in pixels of the page's largest image as declared in its stream dictionary
    (read without decoding the image); (0, 0) when there is none."""
    best = (0, 0)
    for image in page.images:
        try:
            width, height = (int(v) for v in image.get("srcsize") or (0, 0))
        except (TypeError, ValueError):
            continue
        if width * height > best[0] * best[1]:
            best = (width, height)
    return best


def is_unmapped(char: Mapping[str, Any]) -> bool:
    """A glyph of a font without a Unicode mapping: pdfminer gives its text as ``(cid:NN)``."""
    text = char.get("text", "")
    return text.startswith("(cid:") and text.endswith(")")


def needs_ocr(
    page: pdfplumber.page.Page, page_tables: Sequence[tables.PageTable], readable: int, unmapped: int
) -> bool:
    """A page to OCR: no table, and either no text layer but something drawn that could be text
    (an image, or many vector paths for text converted to outlines; a blank page is not worth an
    OCR run), or a text layer made mostly of glyphs without a Unicode mapping (``(cid:NN)``: the
    text is drawn but cannot be read from the file)."""
    if page_tables:
        return False
    if readable + unmapped == 0:
        return bool(page.images) or len(page.curves) + len(page.rects) > 20
    return unmapped > readable


def _words(page: pdfplumber.page.Page, chars: list[dict[str, Any]]) -> Iterator[unruled.Word]:
    if not chars:
        return
    keep = {id(c) for c in chars}  # identity set: `obj in chars` compared dicts, quadratic per page
    prose = (
        page.filter(lambda obj: obj.get("object_type") != "char" or id(obj) in keep)
        if len(chars) != len(page.chars)
        else page
    )
    for w in prose.extract_words(extra_attrs=["size", "fontname"], x_tolerance_ratio=0.15):
        if not w["upright"]:
            continue  # rotated prose (margins, stamps) would garble the reading order
        yield unruled.Word(
            text=w["text"],
            x0=float(w["x0"]),
            top=float(w["top"]),
            x1=float(w["x1"]),
            bottom=float(w["bottom"]),
            size=float(w["size"]),
            bold=bold_font(w["fontname"]),
            italic=italic_font(w["fontname"]),
            mono=mono_font(w["fontname"]),
        )
