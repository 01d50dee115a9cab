"""Header rows of a bordered table and its flattened column names, from the cells' spans: the
first guess from the text (labels over numbers) or bold type, grown where a header cell spans
further down or a group label stands over sub-labels. Pure functions over ``Span`` records."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from parsers.pdf.labels import named_bold
from parsers.pdf.tables.rules import Char


@dataclass(frozen=True)
class Span:
    """A cell in the rows a table is read as (grid rows and columns dropped, spans recounted)."""

    row: int
    col: int
    rowspan: int
    colspan: int
    text: str
    bold: bool = False


def _is_numeric(text: str) -> bool:
    stripped = text.replace(",", "").replace(".", "").replace("%", "").replace("$", "").replace("-", "")
    return stripped.strip().isdigit()


_YEAR = re.compile(r"(?:FY\s?)?(?:1[89]|2[01])\d\d(?:\s*[/\-\u2013]\s*\d{2,4})?\*?")


def _is_year(text: str) -> bool:
    """A year or a year range as a column label: "2019", "2019/20", "FY2014", "2020-2021"."""
    return _YEAR.fullmatch(" ".join(text.split())) is not None


def is_value(text: str) -> bool:
    """A number that is no year label."""
    return _is_numeric(text) and not _is_year(text)


def detect_header_rows(rows: Sequence[Sequence[str]], bold_rows: Sequence[bool] = ()) -> int:
    """Leading header rows: bold leading rows if the body is not bold; else 1 when the first row is
    all text (no numbers but year labels, "2019", "2019/20") while some later row has numbers, or
    the first row is fully labelled; 0 when the first row looks like data. A spanning group label
    above labels adds a second row; a title row (text in the first cell only) above a row of
    labels adds itself to the header found below it."""
    if not rows:
        return 0
    if bold_rows and bold_rows[0] and not all(bold_rows):
        n = 0
        while n < len(bold_rows) and bold_rows[n]:
            n += 1
        return min(n, 3)
    first = [c for c in rows[0] if c.strip()]
    if not first or any(map(is_value, first)):
        return 0
    if len(rows) > 2 and len(rows[0]) >= 3 and first == [rows[0][0]] and not any(map(is_value, rows[1])):
        # a title row (one cell, "NICS Firearm Background Checks") over a header of its own
        return 1 + max(detect_header_rows(rows[1:], bold_rows[1:]), 1)
    if any(map(_is_numeric, first)) and not any(is_value(c) for row in rows[1:] for c in row):
        return 0  # years over years: a first row of data, not of labels
    # a group label spanning several columns above the column labels: both rows are the header
    second = [c for c in rows[1] if c.strip()] if len(rows) > 2 else []
    if len(first) < len(rows[0]) and len(second) * 2 >= len(rows[1]) and not any(map(is_value, second)):
        return 2
    return 1


MAX_HEADER_ROWS = 4


def header_depth(spans: Sequence[Span], rows: Sequence[Sequence[str]], first_guess: int) -> int:
    """``first_guess`` header rows grown to what the spans say: a header label spanning several
    header rows ("District" beside a two-row column group) takes the header down to its bottom; a
    group label over some (not all) columns whose row below holds a label under each of them
    ("Literacy Status" over "Illiterate", "Read & Write", ...) takes that row in. A body row never
    joins: the header stops above the last row and at ``MAX_HEADER_ROWS``."""
    depth = first_guess
    if depth == 0:
        return 0
    width = len(rows[0]) if rows else 0
    limit = min(MAX_HEADER_ROWS, len(rows) - 1)
    grown = True
    while grown and depth < limit:
        grown = False
        for span in spans:
            if span.row >= depth or not span.text:
                continue
            bottom = span.row + span.rowspan
            if bottom > depth:
                depth, grown = min(bottom, limit), True
            elif bottom == depth and 1 < span.colspan < width and _labels_under(spans, depth, span):
                depth, grown = depth + 1, True
            if grown:
                break
    return depth


def _labels_under(spans: Sequence[Span], row: int, group: Span) -> bool:
    """Whether the columns under ``group`` are covered by two labels or more (no figures) starting
    in ``row`` within its columns: sub-labels, or sub-groups spanning columns of their own
    ("Cargo" over "Ton", "y.o.y")."""
    end = group.col + group.colspan
    under = [s for s in spans if s.row == row and group.col <= s.col and s.col + s.colspan <= end]
    if len(under) < 2 or any(not s.text.strip() or is_value(s.text) for s in under):
        return False
    return sum(s.colspan for s in under) == group.colspan


def column_names(spans: Sequence[Span], header_rows: int, width: int) -> tuple[str, ...]:
    """One label per column: the header cells over it, top to bottom, joined with " / " (a title
    across the whole width left out)."""
    parts: list[list[str]] = [[] for _ in range(width)]
    for span in sorted(spans, key=lambda s: (s.row, s.col)):
        text = " ".join(span.text.split())
        if span.row >= header_rows or not text or (width > 2 and span.colspan >= width):
            continue  # below the header, empty, or a title over the whole width
        for j in range(span.col, min(span.col + span.colspan, width)):
            if not parts[j] or parts[j][-1] != text:
                parts[j].append(text)
    return tuple(" / ".join(p) for p in parts)


def is_bold(chars: Sequence[Char]) -> bool:
    heavy = sum(named_bold(ch.get("fontname", "")) for ch in chars)
    return heavy * 2 > len(chars) if chars else False


def bold_rows(spans: Sequence[Span], n_rows: int) -> list[bool]:
    """Per row: whether most of the cells starting in it that hold text are bold."""
    votes: list[list[bool]] = [[] for _ in range(n_rows)]
    for span in spans:
        if span.text.strip():
            votes[span.row].append(span.bold)
    return [sum(v) * 2 > len(v) for v in votes]
