"""Table chunks: a table whose rendered rows (header, column line and every body row) fit the
chunk budget is one chunk; a larger one is split into row groups and every group repeats the
title and all header rows, so a single retrieved chunk reads on its own. The title (a caption or
the heading the table sits under) is context, like a prose chunk's heading path, and is not
counted against the budget. A table
with several header rows also gets one line of flattened column names ("Columns: District |
Literacy Status / Illiterate | ..."), so a question naming a sub-column under its group label
matches the chunk's text as one phrase. A group that starts under a section row (a row label with
no values: "Commodity Prices" over "Oil", "Nonfuel") repeats that row above its own, so "Oil"
reads as a commodity price in its chunk too."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from chunkers.prose import Piece
from chunkers.sizing import count_tokens
from parsers.model import Block, Table

# Part of the chunk reuse key (flows/incremental.reuse_key): a change re-chunks every file.
# "sections-v1": a row group under a section row repeats it (session 16).
TABLE_CHUNKS_VERSION = "sections-v1"


def _title(block: Block, table: Table) -> str | None:
    if table.title:
        return table.title
    return block.heading_path[-1] if block.heading_path else None


def column_line(table: Table) -> str | None:
    """ "Columns: a | b / c | ..." for a table with several header rows; None otherwise."""
    if table.header_rows < 2:
        return None
    names = [name for name in table.flat_header if name]
    return "Columns: " + " | ".join(names) if names else None


def section_rows(table: Table) -> list[int]:
    """Body rows (indexes) that name the rows under them: a first cell and no other, in a table of
    three columns or more, with a row of values right under it."""
    body = table.body
    if table.width < 3:
        return []
    return [
        i
        for i, row in enumerate(body[:-1])
        if row
        and row[0].strip()
        and not any(c.strip() for c in row[1:])
        and any(c.strip() for c in body[i + 1][1:])
    ]


def section_above(table: Table, sections: Sequence[int], start: int) -> tuple[str, ...] | None:
    """The section row a group starting at body row ``start`` continues under (None: it starts
    with its own section row, or none stands above it)."""
    above = [i for i in sections if i < start]
    if not above or start in sections:
        return None
    return table.body[above[-1]]


def row_groups(
    table: Table, max_tokens: int, sections: Sequence[int]
) -> list[tuple[int, tuple[tuple[str, ...], ...]]]:
    """(index of first body row, rows) groups whose Markdown, header (and column line, and the
    section row repeated above them: ``sections``, section_rows) included, fits ``max_tokens``:
    the whole table when it fits, else as few groups as fit; a group always holds at least one
    row, so a single huge row is a chunk of its own."""
    columns = count_tokens(column_line(table) or "")
    if count_tokens(table.markdown()) + columns <= max_tokens:
        return [(0, table.body)]
    header = count_tokens(table.markdown(body=()))
    repeated = max(
        (count_tokens(table.markdown(body=(table.body[i],))) - header for i in sections), default=0
    )
    budget = max_tokens - header - columns - repeated
    groups: list[tuple[int, tuple[tuple[str, ...], ...]]] = []
    current: list[tuple[str, ...]] = []
    start, size = 0, 0
    for i, row in enumerate(table.body):
        n = count_tokens(table.markdown(body=(row,))) - header  # the row's own line, as rendered
        if current and size + n > budget:
            groups.append((start, tuple(current)))
            start, current, size = i, [], 0
        current.append(row)
        size += n
    if current or not groups:
        groups.append((start, tuple(current)))
    return groups


def _row_pages(block: Block, start: int, count: int) -> tuple[int, int] | None:
    """Pages of body rows ``start`` .. ``start + count - 1``: a table merged across pages records
    ``metadata["page_starts"]`` = [[page, index of its first body row], ...] (parsers/pdf.py)."""
    first_page = block.page
    if first_page is None:
        return None
    starts = block.metadata.get("page_starts")
    if not starts:
        return (first_page, first_page)

    def page_of(row: int) -> int:
        return max((int(page) for page, first in starts if first <= row), default=first_page)

    return (page_of(start), page_of(start + max(count, 1) - 1))


def chunk_table(block: Block, max_tokens: int) -> Iterator[Piece]:
    assert block.table is not None
    table = block.table
    title = _title(block, table)
    columns = column_line(table)
    # Pipe-table source: header rows, the separator line, then one line per body row. An HTML
    # table's rows have no such layout, so its chunks cite the whole table.
    first_body_line = None
    if block.lines and block.metadata.get("format") != "html":
        first_body_line = block.lines[0] + max(table.header_rows, 1) + 1
    sections = section_rows(table)
    for start, rows in row_groups(table, max_tokens, sections):
        section = section_above(table, sections, start)
        text = table.markdown(body=rows if section is None else (section, *rows))
        if columns:
            text = f"{columns}\n{text}"
        if title:
            text = f"{title}\n{text}"
        lines = None
        if block.lines and first_body_line is not None and rows:
            # within the block's lines, also where its rows are fewer lines than the layout says
            # (a parser's block, not a pipe table's source: the fuzz tests found (3, 1))
            first = min(first_body_line + start, block.lines[1])
            lines = (first, min(block.lines[1], max(first, first_body_line + start + len(rows) - 1)))
        elif block.lines:
            lines = block.lines
        pages = _row_pages(block, start, len(rows))
        yield Piece(text=text, heading_path=block.heading_path, pages=pages, lines=lines)
