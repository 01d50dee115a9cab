"""Parser settings; they check themselves so a bad value fails at construction, not mid-ingest.

Every limit is documented, with the reason for its default, in docs/LIMITS.md. A file over a
limit is skipped with a reason naming the option (so the user knows what to raise), except the
PDF page/time limits, which index the pages read so far and say so in ``metadata["truncated"]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

MB = 1024 * 1024
# markdown-it's block parser recurses a few frames per nesting level; above this a deep file could
# reach Python's recursion limit.
MARKDOWN_NESTING_CEILING = 100


# How a file is parsed, not what it parses to (tests/parsers/test_pdf_parallel.py: the parallel
# parse equals the serial one).
OUTPUT_NEUTRAL = frozenset({"pdf_workers"})


@dataclass(frozen=True)
class ParseOptions:
    # any file
    max_file_bytes: int = 200 * MB
    seconds_per_file: float = 900.0  # hard wall clock, enforced by parsers.guard (worker process)
    # text-like files (Markdown, plain text, code; not JSONL, whose corpora are legitimately large)
    max_text_bytes: int = 20 * MB
    max_line_bytes: int = 1 * MB  # also per JSONL line (a longer line is a bad record)
    max_code_lines: int = 50_000
    markdown_max_nesting: int = 40
    # PDF
    pdf_max_pages: int = 2000
    pdf_seconds_per_file: float = 600.0  # soft: checked between pages, keeps the pages read
    max_image_pixels: int = 100_000_000  # an embedded image larger than this is never rendered
    max_page_pixels: int = 25_000_000  # OCR renders are scaled down to stay within this
    ocr: bool = True
    ocr_dpi: int = 200
    # processes parsing the pages of one PDF (this one + helpers), capped at the CPU count; 1 = serial
    pdf_workers: int = 2

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool):
                continue
            if value <= 0:
                raise ValueError(f"ParseOptions.{f.name} must be positive, got {value!r}")
        if self.markdown_max_nesting > MARKDOWN_NESTING_CEILING:
            raise ValueError(
                f"ParseOptions.markdown_max_nesting must be <= {MARKDOWN_NESTING_CEILING} "
                f"(deeper nesting risks RecursionError), got {self.markdown_max_nesting}"
            )

    def output_settings(self) -> dict[str, Any]:
        """The options that can change what a file parses to (cache and reuse keys): all but
        OUTPUT_NEUTRAL, so a change of worker count re-parses nothing."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in OUTPUT_NEUTRAL}

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> ParseOptions:
        reject_unknown_fields(cls, values, "parse")
        return cls(**dict(values))


def reject_unknown_fields(cls: type, values: Mapping[str, Any], what: str) -> None:
    """ValueError naming the unknown keys and the valid ones, for a settings dataclass's from_dict."""
    known = {f.name for f in fields(cls)}
    unknown = set(values) - known
    if unknown:
        raise ValueError(
            f"unknown {what} option(s): {', '.join(sorted(unknown))}; expected: {', '.join(sorted(known))}"
        )
