"""A table found on a page (``PageTable``: its box, its Table, its relative column boundaries), and
how tables meet across pages: ``continues`` (the next page's first table goes on with this one),
``merge_continuation`` (a repeated header dropped), ``titled`` (a caption, else a fallback title)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from parsers.model import Table
from parsers.pdf.tables.captions import Caption as Caption
from parsers.pdf.tables.captions import find_caption as find_caption
from parsers.pdf.tables.cell_text import centre_in_any as centre_in_any
from parsers.pdf.tables.rules import (
    BBox,
)


@dataclass(frozen=True)
class PageTable:
    """A table found on a page: its box (page coordinates; its caption's box included, so the
    caption is not read again as prose) and the relative column boundaries used to recognise its
    continuation on the next page."""

    bbox: BBox
    table: Table
    columns: tuple[float, ...]


def continues(previous: PageTable, current: PageTable, tolerance: float = 0.02) -> bool:
    """Whether ``current`` (top of a page) continues ``previous`` (end of the page before):
    same number of columns at the same relative positions, starting higher on its page than the
    previous one ended (a table below another is a second table of the same page), and no caption
    of its own unless that caption says it continues ("Table 3 (continued)")."""
    a, b = previous.columns, current.columns
    if current.bbox[1] >= previous.bbox[3]:
        return False
    title = current.table.title
    if title and not _CONTINUED.search(title):
        return False
    return len(a) == len(b) and all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


_CONTINUED = re.compile(r"\bcont(?:inued|inues|d)?\b|\(cont", re.IGNORECASE)


def merge_continuation(first: Table, more: Table) -> Table:
    """``more``'s rows appended to ``first``, minus a repeated header, and a title row saying it
    continues above it ("ESTIMATED COSTS—Continued", one cell filled) (``first``'s title and
    column names kept)."""
    rows = more.rows
    titled = bool(rows) and sum(1 for c in rows[0] if c.strip()) == 1 and _CONTINUED.search(" ".join(rows[0]))
    if titled and first.header_rows and rows[1 : 1 + first.header_rows] == first.header:
        rows = rows[1:]
    if first.header_rows and rows[: first.header_rows] == first.header:
        rows = rows[first.header_rows :]
    return replace(first, rows=first.rows + rows)


def titled(table: Table, fallback: str | None) -> Table:
    """``table`` with its own caption as title, else ``fallback`` (the heading it stands under)."""
    return table if table.title else replace(table, title=fallback)
