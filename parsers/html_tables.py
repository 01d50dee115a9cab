"""HTML ``<table>`` elements (raw HTML inside Markdown) as Tables, so they chunk like pipe tables.

Rows are ``<tr>``; cells ``<td>``/``<th>`` with their text (tags dropped, whitespace collapsed,
``<br>`` kept as a space). A ``colspan`` cell fills the columns it spans with empty cells after
its text, so later cells stay in their columns; ``rowspan`` is read the same way downwards. Header
rows are the rows of ``<thead>``, else leading rows made only of ``<th>`` cells (at least one
header row is assumed, as for pipe tables). ``<caption>`` becomes the title. Nested tables are
read as text of their cell.
"""

from __future__ import annotations

import html as html_lib
from dataclasses import dataclass, field
from html.parser import HTMLParser

from parsers.model import Table


@dataclass
class _Cell:
    text: list[str] = field(default_factory=list)
    header: bool = False
    colspan: int = 1
    rowspan: int = 1


@dataclass
class _TableState:
    rows: list[list[_Cell]] = field(default_factory=list)
    head_rows: int = 0
    in_head: bool = False
    caption: list[str] | None = None
    cell: _Cell | None = None


def _span(value: str | None) -> int:
    try:
        return max(1, min(int(value or 1), 1000))
    except ValueError:
        return 1


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[Table] = []
        self.outside: list[str] = []  # text outside tables, with "\x00" where a table stood
        self._stack: list[_TableState] = []
        self._in_caption = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        table = self._stack[-1] if self._stack else None
        if tag == "table":
            if table is not None and table.cell is not None:
                table.cell.text.append(" ")
            self._stack.append(_TableState())
        elif table is None:
            if tag in ("br", "p", "div", "li"):
                self.outside.append("\n")
        elif tag == "thead":
            table.in_head = True
        elif tag == "tr":
            table.rows.append([])
            if table.in_head:
                table.head_rows += 1
        elif tag in ("td", "th"):
            if not table.rows:
                table.rows.append([])
            values = dict(attrs)
            table.cell = _Cell(
                header=tag == "th", colspan=_span(values.get("colspan")), rowspan=_span(values.get("rowspan"))
            )
            table.rows[-1].append(table.cell)
        elif tag == "caption":
            table.caption = []
            self._in_caption = True
        elif tag == "br" and table.cell is not None:
            table.cell.text.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if not self._stack:
            return
        table = self._stack[-1]
        if tag == "table":
            self._stack.pop()
            done = _to_table(table)
            if self._stack:  # nested: its text goes into the enclosing cell
                outer = self._stack[-1]
                if outer.cell is not None and done is not None:
                    outer.cell.text.append(" ".join(" ".join(r) for r in done.rows))
            elif done is not None:
                self.tables.append(done)
                self.outside.append("\x00")
        elif tag in ("td", "th"):
            table.cell = None
        elif tag == "thead":
            table.in_head = False
        elif tag == "caption":
            self._in_caption = False

    def handle_data(self, data: str) -> None:
        if not self._stack:
            self.outside.append(data)
            return
        table = self._stack[-1]
        if self._in_caption and table.caption is not None:
            table.caption.append(data)
        elif table.cell is not None:
            table.cell.text.append(data)


def _clean(parts: list[str]) -> str:
    return " ".join(html_lib.unescape("".join(parts)).split())


def _to_table(state: _TableState) -> Table | None:
    grid: list[list[str]] = []
    pending: dict[tuple[int, int], str] = {}  # (row, col) taken by a rowspan from above
    for r, row in enumerate(state.rows):
        out: list[str] = []
        col = 0
        for cell in row:
            while (r, col) in pending:
                out.append(pending.pop((r, col)))
                col += 1
            text = _clean(cell.text)
            for c in range(cell.colspan):
                out.append(text if c == 0 else "")
                for below in range(1, cell.rowspan):
                    pending[(r + below, col + c)] = ""
            col += cell.colspan
        while (r, col) in pending:
            out.append(pending.pop((r, col)))
            col += 1
        if out:
            grid.append(out)
    if not grid or not any(any(c for c in row) for row in grid):
        return None
    width = max(len(row) for row in grid)
    rows = tuple(tuple(row + [""] * (width - len(row))) for row in grid)
    header_rows = state.head_rows
    if header_rows == 0:
        for row in state.rows:
            if row and all(c.header for c in row):
                header_rows += 1
            else:
                break
    header_rows = min(max(header_rows, 1), len(rows))
    caption = _clean(state.caption) if state.caption else None
    return Table(rows=rows, header_rows=header_rows, title=caption or None)


def read_html_tables(fragment: str) -> tuple[list[Table], list[str]]:
    """The tables of an HTML fragment, and the text pieces around them: ``texts[i]`` precedes
    ``tables[i]`` and ``texts[-1]`` follows the last one (``len(texts) == len(tables) + 1``)."""
    reader = _Reader()
    reader.feed(fragment)
    reader.close()
    texts = ["".join(piece) for piece in _split_at_tables(reader.outside)]
    return reader.tables, texts


def _split_at_tables(pieces: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for piece in pieces:
        if piece == "\x00":
            out.append([])
        else:
            out[-1].append(piece)
    return out
