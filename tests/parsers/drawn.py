"""What the drawn-table tests (test_tables_classes9..11) read back: every table of a generated PDF
as rows of whitespace-normalised cells, header rows first."""

from __future__ import annotations

from pathlib import Path

from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.source import SourceFile

Rows = list[tuple[str, ...]]


def parsed_rows(path: Path) -> list[Rows]:
    """Each table of the PDF at ``path`` (OCR off, one worker) as rows, header rows first."""
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    tables = [b.table for b in doc.blocks if b.table is not None]
    return [[tuple(" ".join(c.split()) for c in r) for r in (*t.header, *t.body)] for t in tables]
