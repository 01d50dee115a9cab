"""PDF -> one ParsedDocument: text layer in reading order, bordered tables, OCR of scanned pages.

Per page: bordered tables are found first (parsers.pdf.tables.ruled) and their characters removed from the
prose; then tables aligned by whitespace are found among the remaining words (parsers.pdf.tables.unruled) and
their words removed too; the rest become line segments ordered column by column
(parsers.pdf.text_layout); a page
without a text layer and without a table is rendered and OCR'd (parsers.pdf.ocr). Across pages:
running headers/footers are dropped, headings come from the outline (else font size/weight),
and a table continued on the next page is merged into one.

Speed: pdfplumber's per-character dicts are built inside the pdfminer device (parsers.pdf.objects,
equal to pdfplumber's own), and a long file's pages are shared with ``pdf_workers - 1`` helper
processes (parsers.pdf.pool) that return compact per-page results; the cross-page steps and OCR
run here, on all pages, in page order.

Limits: ``pdf_max_pages`` and ``pdf_seconds_per_file`` stop parsing *between pages*; what was
parsed so far is indexed and ``metadata["truncated"]`` says why (a partial manual is more useful
than none, and the manifest still tells the user). A file where not even the first page finished
is skipped.
"""

from __future__ import annotations

import io
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pdfplumber
from pdfplumber.utils.exceptions import MalformedPDFException, PdfminerException

from parsers.model import Block, ParsedDocument, SkipFile, Table
from parsers.options import ParseOptions
from parsers.pdf import headings
from parsers.pdf import objects as pdf_objects
from parsers.pdf import pool as pdf_pool
from parsers.pdf import rtl as bidi_text
from parsers.pdf import text_layout as layout
from parsers.pdf.labels import TABLE_LABEL, bold_font, mono_font
from parsers.pdf.tables import ruled as tables
from parsers.pdf.tables import unruled
from parsers.pdf.tables.unruled_header import horizontal_rules
from parsers.pdf.text_layout import Segment
from parsers.source import SourceFile

# Unruled (whitespace-aligned) tables on: bench/table_adjacency.py turns it off to measure "before".
UNRULED_TABLES = True


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


def parse(source: SourceFile, options: ParseOptions) -> list[ParsedDocument]:
    if not source.data:
        raise SkipFile("empty file")
    if b"%PDF" not in source.data[:1024]:
        raise SkipFile("not a PDF (mislabeled?): no %PDF header")
    started = time.monotonic()
    with _open(source.data) as pdf:
        pages, meta = _read_pages(pdf, options, started, source.data)
        outline = headings.read_outline(source.data)
        info_title = _info_title(pdf)
    if not pages:
        raise SkipFile(meta.get("truncated") or "no pages")
    furniture = layout.find_furniture([p.segments for p in pages], [p.height for p in pages])
    running = layout.running_title(pages[0].segments, pages[0].height, furniture)
    blocks = assemble(pages, outline, furniture)
    if not blocks and meta.get("ocr_skipped"):
        raise SkipFile(f"no text layer, and OCR was not run: {meta['ocr_skipped'][0]}")
    if not blocks:
        meta["empty"] = "no text layer" + ("" if options.ocr else " and OCR disabled")
    title = info_title or (outline[0].title if outline else None) or _first_heading(blocks) or running
    return [
        ParsedDocument(
            doc_id=source.rel_path,
            path=source.rel_path,
            parser="pdf",
            sha256=source.sha256,
            blocks=tuple(blocks),
            title=title,
            metadata=meta,
        )
    ]


def _open(data: bytes) -> pdfplumber.PDF:
    try:
        pdf = pdfplumber.open(io.BytesIO(data))
        _ = pdf.pages  # the page tree is where truncated files fail
    except (PdfminerException, MalformedPDFException) as exc:
        cause = exc.args[0] if exc.args else exc
        if type(cause).__name__ == "PDFPasswordIncorrect":
            raise SkipFile("encrypted PDF (password required)") from exc
        raise SkipFile(f"malformed PDF: {_describe(cause)}") from exc
    except (ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError) as exc:
        # pdfminer lets some structural errors through unwrapped
        raise SkipFile(f"malformed PDF: {_describe(exc)}") from exc
    return pdf


def _describe(exc: object) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _read_pages(
    pdf: pdfplumber.PDF, options: ParseOptions, started: float, pdf_data: bytes
) -> tuple[list[PageContent], dict[str, Any]]:
    total = len(pdf.pages)
    meta: dict[str, Any] = {"pages": total}
    stop = min(total, options.pdf_max_pages)
    if total > options.pdf_max_pages:
        meta["truncated"] = f"page limit: parsed {options.pdf_max_pages} of {total} pages (pdf_max_pages)"
    deadline = started + options.pdf_seconds_per_file
    helpers = _helpers(stop, options)
    if helpers:
        outcomes = pdf_pool.parallel_pages(
            pdf_data, stop, options, helpers, deadline, lambda index: read_outcome(pdf, index, options)
        )
    else:
        outcomes = _serial_pages(pdf, stop, options, deadline)
    pages: list[PageContent] = []
    ocr_pages: list[int] = []
    attempted = 0
    for index, outcome in outcomes:
        attempted = index + 1
        if isinstance(outcome, pdf_pool.PageError):
            if index == 0:
                raise SkipFile(f"malformed PDF: page 1: {outcome}")
            meta.setdefault("page_errors", []).append(f"page {index + 1}: {outcome}")
            continue
        content: PageContent = outcome
        if content.ocr_pending:
            if time.monotonic() > deadline:
                attempted = index
                break
            run_ocr(content, options, pdf_data)
        if content.ocr is not None:
            ocr_pages.append(content.number)
            if "render_dpi" in content.ocr:  # max_page_pixels lowered the resolution
                meta.setdefault("ocr_reduced_dpi", []).append([content.number, content.ocr["render_dpi"]])
        if content.ocr_skipped is not None:
            meta.setdefault("ocr_skipped", []).append(content.ocr_skipped)
        if content.unmapped_glyphs:  # [page, glyphs left out of its text]
            meta.setdefault("unmapped_glyphs", []).append([content.number, content.unmapped_glyphs])
        pages.append(content)
    if attempted < stop:
        meta["truncated"] = (
            f"time limit: parsed {attempted} of {total} pages in {options.pdf_seconds_per_file:g} s "
            "(pdf_seconds_per_file)"
        )
    if ocr_pages:
        meta["ocr_pages"] = ocr_pages
    return pages, meta


# A helper process costs a start-up (~0.3 s of imports, on another core) and the document's bytes
# once; below this many pages per process a serial parse is as fast. A helper that is already
# running (idle since an earlier document) pays off from two pages per process.
MIN_PAGES_PER_PROCESS = 3
MIN_PAGES_PER_WARM_PROCESS = 2


def _helpers(pages: int, options: ParseOptions) -> int:
    """Helper processes for a document of ``pages`` pages (0: parse serially in this process)."""
    wanted = min(options.pdf_workers, os.cpu_count() or 1) - 1
    if wanted <= 0:
        return 0
    per_process = MIN_PAGES_PER_WARM_PROCESS if pdf_pool.idle_helpers() >= wanted else MIN_PAGES_PER_PROCESS
    return max(0, min(wanted + 1, pages // per_process) - 1)


def _serial_pages(
    pdf: pdfplumber.PDF, stop: int, options: ParseOptions, deadline: float
) -> Iterator[tuple[int, PageContent | pdf_pool.PageError]]:
    for index in range(stop):
        if time.monotonic() > deadline:
            return
        yield index, read_outcome(pdf, index, options)


def read_outcome(pdf: pdfplumber.PDF, index: int, options: ParseOptions) -> PageContent | pdf_pool.PageError:
    """Page ``index`` read (OCR left pending) and closed, or why it could not be read."""
    page = pdf.pages[index]
    try:
        return read_page(page, index + 1, options)
    except (PdfminerException, MalformedPDFException, ValueError, KeyError, TypeError) as exc:
        return pdf_pool.PageError(_describe(exc))
    finally:
        page.close()  # drop pdfminer's cached layout: long files stay flat in memory


def read_page(page: pdfplumber.page.Page, number: int, options: ParseOptions) -> PageContent:
    """One page: tables, prose segments without the tables' text; ``ocr_pending`` when the page has
    no text layer and OCR is on (``run_ocr`` does it: OCR runs in the parsing process only)."""
    pdf_objects.prime(page)
    page_tables = tables.find_tables(page)
    boxes = [t.bbox for t in page_tables]
    chars = [c for c in page.chars if not tables.centre_in_any(c, boxes)] if boxes else page.chars
    readable = [c for c in chars if not is_unmapped(c)]
    unmapped = len(chars) - len(readable)
    words = list(_words(page, readable))
    if UNRULED_TABLES:
        page_tables = [t for pt in page_tables for t in _reread_partial_grid(page, pt)]
        # the gate, on pdfplumber's word order (line by line, left to right): most prose pages
        # have no three lines with a gap wide enough to part two cells, and stop here
        if unruled.wide_gap_lines(words) >= unruled.MIN_MULTI_LINES:
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
        table, bbox = Table(t.rows, t.header_rows, column_names=t.column_names), t.bbox
        caption = tables.find_caption(page, bbox, [b for b in boxes if b != bbox])
        if caption is not None:
            table = tables.titled(table, caption.text)
            taken.update(id(w) for w in words if _centre_in(w, caption.bbox))
            bbox = _union(bbox, caption.bbox)
        extra.append(tables.PageTable(bbox, table, t.columns))
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


def _union(a: tables.BBox, b: tables.BBox) -> tables.BBox:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


# A ruled table with a cell this many lines tall may be a frame around an unruled table (rules
# around the header and the label column only): its text is read again for aligned columns.
PARTIAL_GRID_LINES = 5


def _reread_partial_grid(page: pdfplumber.page.Page, found: tables.PageTable) -> list[tables.PageTable]:
    """``found``, or the unruled tables inside its box when its rules are only a partial grid (a
    cell holds many lines of aligned figures) and they hold at least twice as many filled cells."""
    if max((c.count("\n") + 1 for r in found.table.rows for c in r), default=0) < PARTIAL_GRID_LINES:
        return [found]
    inside = [c for c in page.chars if tables.centre_in(c, found.bbox) and not is_unmapped(c)]
    again = unruled.find_tables(list(_words(page, inside)))
    filled = sum(1 for t in again for r in t.rows for c in r if c.strip())
    if filled < 2 * sum(1 for r in found.table.rows for c in r if c.strip()):
        return [found]
    return [tables.PageTable(t.bbox, Table(t.rows, t.header_rows), t.columns) for t in again]


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
            mono=mono_font(w["fontname"]),
        )


def _info_title(pdf: pdfplumber.PDF) -> str | None:
    raw = pdf.metadata.get("Title") if isinstance(pdf.metadata, dict) else None
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "replace")
    if not isinstance(raw, str):
        return None
    title = " ".join(raw.split())
    junk = ("untitled", "microsoft word", ".doc", ".pdf", ".tex", "powerpoint")
    if not title or any(j in title.lower() for j in junk):
        return None
    return title


def _first_heading(blocks: Sequence[Block]) -> str | None:
    return next((b.text for b in blocks if b.kind == "heading"), None)


def assemble(
    pages: list[PageContent], outline: list[headings.OutlineEntry], furniture: set[str]
) -> list[Block]:
    """Blocks for all pages: ``furniture`` (layout.find_furniture) dropped, headings levelled,
    continued tables merged."""
    for p in pages:
        p.segments = layout.drop_furniture(p.segments, p.height, furniture)
    levels = headings.HeadingLevels(outline, [(p.number, p.segments) for p in pages if p.ocr is None])
    blocks: list[Block] = []
    path: list[tuple[int, str]] = []
    previous_table: tables.PageTable | None = None
    for page in pages:
        for item in _page_items(page):
            if isinstance(item, tables.PageTable):
                previous_table = _add_table(blocks, item, previous_table, path, page.number)
                continue
            previous_table = None if item else previous_table
            blocks.extend(_prose_blocks(item, page, levels, path))
    return blocks


def _page_items(page: PageContent) -> list[Any]:
    """Tables and paragraph groups of one page in reading order (a table is placed by its box)."""
    markers = [
        Segment(f"\x00{i}", t.bbox[0], t.bbox[1], t.bbox[2], t.bbox[3], 0.0)
        for i, t in enumerate(page.tables)
    ]
    ordered = layout.reading_order(page.segments + markers)
    items: list[Any] = []
    run: list[Segment] = []
    for seg in ordered:
        if seg.text.startswith("\x00"):
            items.extend(layout.paragraphs(run))
            run = []
            items.append(page.tables[int(seg.text[1:])])
        else:
            run.append(seg)
    items.extend(layout.paragraphs(run))
    return items


def _prose_blocks(
    group: list[Segment], page: PageContent, levels: headings.HeadingLevels, path: list[tuple[int, str]]
) -> list[Block]:
    text = layout.join_lines([s.text for s in group])
    if not text:
        return []
    meta: dict[str, Any] = {}
    if page.ocr:
        scores = [s.confidence for s in group if s.confidence is not None]
        meta = {"ocr": True, "confidence": round(sum(scores) / max(len(scores), 1), 4)}
    level = levels.level(group, page.ocr is not None, page.number)
    if level is not None:
        levels.close(path, level, text)
        path.append((level, text))
        heading_path = tuple(t for _, t in path)
        return [Block("heading", text, heading_path, page=page.number, metadata={"level": level, **meta})]
    return [Block("paragraph", text, tuple(t for _, t in path), page=page.number, metadata=meta)]


def _add_table(
    blocks: list[Block],
    found: tables.PageTable,
    previous: tables.PageTable | None,
    path: list[tuple[int, str]],
    page_number: int,
) -> tables.PageTable:
    """Append a table block, or extend the previous one when this table continues it."""
    if previous is not None and blocks and blocks[-1].kind == "table" and tables.continues(previous, found):
        last = blocks.pop()
        assert last.table is not None
        merged = tables.merge_continuation(last.table, found.table)
        pages = [*last.metadata.get("pages", [last.page]), page_number]
        # [page, index of its first body row] per page, so each chunk of rows cites its own pages
        starts = [*last.metadata.get("page_starts", [[last.page, 0]]), [page_number, len(last.table.body)]]
        metadata = {"pages": pages, "page_starts": starts}
        blocks.append(_table_block(merged, last.heading_path, last.page, metadata))
        return found
    table = tables.titled(found.table, _caption(blocks, page_number) or (path[-1][1] if path else None))
    blocks.append(_table_block(table, tuple(t for _, t in path), page_number, {"bbox": list(found.bbox)}))
    return found


def _caption(blocks: list[Block], page_number: int) -> str | None:
    """The short line right before a table on its page ("Table 2: Service schedule"), if any."""
    if not blocks or blocks[-1].page != page_number or blocks[-1].kind == "table":
        return None
    text = blocks[-1].text
    return text if blocks[-1].kind == "heading" or TABLE_LABEL.match(text) else None


def _table_block(
    table: Table, heading_path: tuple[str, ...], page: int | None, meta: dict[str, Any]
) -> Block:
    return Block("table", table.markdown(), heading_path, page=page, table=table, metadata=meta)
