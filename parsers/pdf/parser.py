"""PDF -> one ParsedDocument: text layer in reading order, bordered tables, OCR of scanned pages.

This module opens the file, reads its pages (parsers.pdf.page_reader: tables, prose segments, OCR
due) within the page and time limits, runs the OCR that is due, and hands the pages to
parsers.pdf.block_assembly (running headers and footers dropped, headings levelled, tables placed
and continued across pages); the title comes from the file's info, else its outline, else its
first heading, else its running header.

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
from collections.abc import Iterator, Sequence
from typing import Any

import pdfplumber
from pdfplumber.utils.exceptions import MalformedPDFException, PdfminerException

from parsers.model import Block, ParsedDocument, SkipFile
from parsers.options import ParseOptions
from parsers.pdf import headings
from parsers.pdf import pool as pdf_pool
from parsers.pdf import text_layout as layout
from parsers.pdf.block_assembly import assemble
from parsers.pdf.page_reader import PageContent, read_page, run_ocr
from parsers.source import SourceFile

# Unruled (whitespace-aligned) tables on: bench/table_adjacency.py turns it off to measure "before".
UNRULED_TABLES = True


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
    large = layout.first_page_title(pages[0].segments, furniture)
    first_entry = outline[0].title if outline else None
    title = info_title or large or first_entry or _first_heading(blocks) or running
    return [ParsedDocument.of_file(source, "pdf", tuple(blocks), title=title, metadata=meta)]


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
        return read_page(page, index + 1, options, UNRULED_TABLES)
    except (PdfminerException, MalformedPDFException, ValueError, KeyError, TypeError) as exc:
        return pdf_pool.PageError(_describe(exc))
    finally:
        page.close()  # drop pdfminer's cached layout: long files stay flat in memory


def _info_title(pdf: pdfplumber.PDF) -> str | None:
    raw = pdf.metadata.get("Title") if isinstance(pdf.metadata, dict) else None
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "replace")
    if not isinstance(raw, str):
        return None
    title = " ".join(raw.split())
    junk = ("untitled", "microsoft word", ".doc", ".pdf", ".tex", "powerpoint")
    if not title or any(j in title.lower() for j in junk) or not layout.LETTER_WORD.search(title):
        return None  # a typesetting job id ("6489122611071476 1..10") names nothing: no word in it
    return title


def _first_heading(blocks: Sequence[Block]) -> str | None:
    return next((b.text for b in blocks if b.kind == "heading"), None)
