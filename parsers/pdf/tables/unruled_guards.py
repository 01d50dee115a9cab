"""What an aligned block of text must look like to be a data table (parsers.pdf.tables.unruled's last step).

Whitespace alignment alone is common on pages without tables: two text columns, numbered lists,
tables of contents, forms, code. Each guard here names one of those and rejects it from the cell
texts alone (plus the words' fonts for code), so they are tested on plain strings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

# a figure; up to three significance stars after it, set apart or not ("2.195 ***", "0.52**")
_NUMBER = re.compile(
    r"^[(\[]?[-–—+−]?\s?[$€£¥]?\s?\d[\d.,' ]*%?[)\]]?%?(?:\s?\*{1,3})?$|^[-–—]$|^n/?a$", re.IGNORECASE
)
_YEAR = re.compile(r"^(1[89]|20)\d\d$")
_LEADERS = re.compile(r"(\.\s?){4,}|…{2,}|(_\s?){4,}")
# list markers: numbers, letters, bullets, and a lone glyph of Unicode's private use area (the
# bullets and squares of symbol fonts, Wingdings or Symbol, as their text layers map them)
_MARKER = re.compile(r"^(\(?\d{1,3}[.)]|\(?[a-zA-Z][.)]|[ivxIVX]{1,4}[.)]|[•·▪◦‣●○■□\-–—*+>\ue000-\uf8ff])$")
_COLUMN_NUMBER = re.compile(r"\((\d{1,2})\)")
# an equation number at a display formula's right margin ("(3)", ". (2.6')", "(B2a)"), and a
# formula's pieces that end with an operator ("Y =", "1 +", "+")
_EQUATION_NUMBER = re.compile(r"^[.,]?\s*\(([A-Z]?\d+(\.\d+)?[a-z]?'?)\)$")
_OPERATOR_END = re.compile(r"(^|\s)[=+−×<>≤≥≈]$")
_CODE = re.compile(r"[=;{}]|\(\)|^#|//|->|^def |^return\b|^import ")
# an option set to a value, alone in its cell ("cmode=4C", "style = plain"; no spaces elsewhere)
_OPTION = re.compile(r"^[\w.-]+ ?= ?[\w.,+-]+$")
# a form's label and its value on one line ("Date : 12 avril 2017", "Invoice no: 0042"): a label
# of letters (no digit), a colon, a value (not "//" of an address)
_KEY_VALUE = re.compile(r"^[^\W\d][^\d:]{0,40}?\s?:\s*[^\s/]")

MIN_ROWS = 3  # rows a table needs (two: a heading over a line, a label and its value)
MAX_MEAN_WORDS = 4.0  # words per non-empty cell: a table's cells are short, prose columns are not
LONG_COLUMN_WORDS = 6.0  # a column whose cells average this many words reads as text
PROSE_WORDS = 5.0  # words per cell of a column read from prose lines beside a table
MIN_FILL = 0.4  # non-empty cells / all cells
SPARSE_FIGURES_FILL = 0.25  # ... of a table of figures whose header names every column
TEXT_TABLE_FILL = 0.6  # ... of a table without a column of figures (a diagram's labels are sparse)


class Styled(Protocol):
    @property
    def mono(self) -> bool: ...


def is_numeric(text: str) -> bool:
    """A number as tables print them: 1,234  (1,234)  -3.5%  $12.50  € 3,40  —"""
    return bool(_NUMBER.match(" ".join(text.split())))


def is_year(text: str) -> bool:
    return bool(_YEAR.match(text.strip()))


def is_figure(text: str) -> bool:
    """A number that is a table's data, not a year (a year labels a row or a column)."""
    return is_numeric(text) and not is_year(text)


def counts_columns(texts: Sequence[str]) -> bool:
    """``texts`` (a line's cells) number the columns: three or more, each a number in
    parentheses, counting up by one ("(1) (2) (3)", "(6) (7) (8)" under a table's labels, the
    style of journals' data tables and statistical releases)."""
    found = [_COLUMN_NUMBER.fullmatch(t.strip()) for t in texts if t.strip()]
    numbers = [int(m.group(1)) for m in found if m]
    counting = all(b == a + 1 for a, b in zip(numbers, numbers[1:], strict=False))
    return len(numbers) == len(found) >= 3 and counting


def _mean_words(cells: Sequence[str]) -> float:
    filled = [c for c in cells if c.strip()]
    return sum(len(c.split()) for c in filled) / len(filled) if filled else 0.0


def rejection(
    rows: Sequence[Sequence[str]],
    header_rows: int,
    words: Sequence[Styled] = (),
    framed: bool = False,
    min_rows: int = MIN_ROWS,
) -> str | None:
    """Why these rows are not a data table (None: they are one). ``framed``: rules span the table
    above its header, under it and under its last row (a three-line table, a box), which two
    columns of text need (terms and their descriptions). ``min_rows``: fewer where rules of the
    table's own vouch for it (a sub-table ruled apart from its neighbour)."""
    if len(rows) < min_rows or not rows or len(rows[0]) < 2:
        return "too small"
    width = len(rows[0])
    cells = [c for r in rows for c in r]
    filled = [c for c in cells if c.strip()]
    if len(filled) < (SPARSE_FIGURES_FILL if _named_figures(rows, header_rows) else MIN_FILL) * len(cells):
        return "mostly empty"
    if words and sum(1 for w in words if w.mono) * 2 > len(words):
        return "monospace: a code listing"
    coded = [(j, c) for r in rows for j, c in enumerate(r) if c.strip() and _CODE.search(c)]
    if len(coded) >= max(2, 0.15 * len(filled)) and not (framed and _option_labels(coded)):
        return "code punctuation"
    if sum(1 for c in filled if _LEADERS.search(c)) >= 2:
        return "dotted leaders: a table of contents"
    columns = [[r[j] for r in rows] for j in range(width)]
    if _mean_words(filled) > MAX_MEAN_WORDS or sum(_mean_words(c) >= LONG_COLUMN_WORDS for c in columns) >= 2:
        return "long cells: prose in columns"
    body = rows[header_rows:] if header_rows < len(rows) else rows
    labels = [r[0].strip() for r in body if r[0].strip()]
    if labels and sum(1 for t in labels if t.endswith(":")) * 2 >= len(labels):
        return "label: value pairs: a form"
    if labels and sum(1 for t in labels if _MARKER.match(t)) * 2 > len(labels):
        return "a marker column: a list"
    if _display_formula(rows):
        return "pieces of a display formula beside its equation number"
    tiny = sum(1 for c in filled if len("".join(c.split())) <= 2 and not is_numeric(c))
    if tiny >= max(3, 0.4 * len(filled)):
        return "scattered glyphs: a figure or a formula"
    if width == 2:
        return None if framed else _two_column_rejection(body)
    numeric = [
        j
        for j in range(width)
        if sum(1 for r in body if is_numeric(r[j])) * 2 > len([r for r in body if r[j].strip()])
    ]
    numeric_columns = len(numeric)
    toc = numeric_columns >= 2 and width - numeric_columns >= numeric_columns  # an entry beside each number
    if toc and all(_page_numbers([r[j] for r in body]) for j in numeric):
        return "rising page numbers in each figure column: a table of contents in columns"
    if not numeric_columns and (len(body) < 3 or len(filled) < TEXT_TABLE_FILL * len(cells)):
        return "text only, few rows or sparse: labels of a diagram"
    if not numeric_columns and any(_key_value_column(c) for c in columns):
        return "text only with a column of label: value lines: a form's or an invoice's head"
    if not numeric_columns and any(_mean_words(c) >= LONG_COLUMN_WORDS for c in columns):
        return "text only with a column of long text: a justified paragraph's wide gaps"
    if _prose_beside_figures(body, columns, numeric):
        return "columns of prose beside a few rows of figures: a table read with the text around it"
    return None


def _option_labels(coded: Sequence[tuple[int, str]]) -> bool:
    """Every cell with code punctuation is in the first column and is one option set to a value
    ("cmode=4C", "style = plain"): a three-line table of a package's options and what each does,
    no code listing (whose lines carry their punctuation in any column, ";", "{}", calls)."""
    return all(j == 0 and _OPTION.match(c.strip()) for j, c in coded)


def _key_value_column(cells: Sequence[str]) -> bool:
    """Most of a column's cells, two or more, are a label and its value ("Date : 12 avril 2017",
    "Code client : Ent"): a quote's or an invoice's head set beside its address blocks, each
    block a column of lines, which align like a table of text and are none."""
    filled = [c.strip() for c in cells if c.strip()]
    pairs = sum(1 for c in filled if _KEY_VALUE.match(c))
    return pairs >= 2 and pairs * 2 > len(filled)


def _display_formula(rows: Sequence[Sequence[str]]) -> bool:
    """One row ends with an equation number ("(3)", ". (3)") in the last column and does not
    number the table's columns ("(1)" ... "(3)"), and two cells or more end with an operator
    ("Y =", "1 +", "+"): a formula set over several lines (fractions, sums) between paragraphs."""
    numbered = [r for r in rows if _EQUATION_NUMBER.match(r[-1].strip())]
    if len(numbered) != 1 or counts_columns(numbered[0]):
        return False
    operators = sum(1 for r in rows for c in r if _OPERATOR_END.search(c.strip()))
    return operators >= 2


def _prose_beside_figures(
    body: Sequence[Sequence[str]], columns: Sequence[Sequence[str]], numeric: list[int]
) -> bool:
    """Two columns or more of sentence-long cells filled down most rows, the figure columns in
    fewer than half of them: text columns and a small table beside them, taken as one."""
    if not numeric or not body:
        return False
    prose = [
        c for c in columns if _mean_words(c) >= PROSE_WORDS and sum(1 for x in c if x.strip()) > 0.7 * len(c)
    ]
    figures = max(sum(1 for r in body if r[j].strip()) for j in numeric)
    return len(prose) >= 2 and figures < 0.5 * len(body)


def _named_figures(rows: Sequence[Sequence[str]], header_rows: int) -> bool:
    """A header row names every column after the first, and the body's cells there hold figures
    (a regression table with one model per column, each variable's coefficient in its own)."""
    if not 0 < header_rows < len(rows) or len(rows[0]) < 3:
        return False
    named = any(all(c.strip() for c in row[1:]) for row in rows[:header_rows])
    values = [c for r in rows[header_rows:] for c in r[1:] if c.strip()]
    return named and len(values) >= 3 and all(is_numeric(v) for v in values)


def _two_column_rejection(body: Sequence[Sequence[str]]) -> str | None:
    """Two columns are a table (a price list, one year of figures) only when the second one holds
    numbers, and not page numbers rising down the page (a table of contents without leaders)."""
    values = [r[1].strip() for r in body if r[1].strip()]
    if not values or sum(1 for v in values if is_numeric(v)) < 0.6 * len(values):
        return "two columns, the second not numeric"
    ints = [int(v) for v in values if v.isdigit() and len(v) <= 4]
    if len(ints) == len(values) and all(a <= b for a, b in zip(ints, ints[1:], strict=False)):
        return "rising page numbers: a table of contents"
    return None


def _page_numbers(cells: Sequence[str]) -> bool:
    """A column of page numbers: whole numbers (not years) rising down the page, with a gap
    somewhere (a row counter 1, 2, 3 has none)."""
    values = [c.strip() for c in cells if c.strip()]
    if len(values) < 2 or not all(v.isdigit() and len(v) <= 4 and not is_year(v) for v in values):
        return False
    ints = [int(v) for v in values]
    steps = [b - a for a, b in zip(ints, ints[1:], strict=False)]
    return all(s > 0 for s in steps) and any(s > 1 for s in steps)


def is_data_table(
    rows: Sequence[Sequence[str]],
    header_rows: int,
    words: Sequence[Styled] = (),
    framed: bool = False,
    min_rows: int = MIN_ROWS,
) -> bool:
    return rejection(rows, header_rows, words, framed, min_rows) is None
