"""Key tables of two lines: a line of keys over a line of their values, each value under its key
("Customer  Order  Invoice date" over "CU0303  OR0004  8-9-2022", an invoice's or a form's head),
standing apart from other lines of cells (parsers.pdf.tables.unruled: a block needs three lines
of two cells or more, so such a pair was prose). Pure functions over lines of word chunks."""

from __future__ import annotations

from collections.abc import Sequence

from parsers.pdf.tables.unruled_cells import Chunk, Line

MIN_KEYS = 3  # keys a line needs: two cells over two are a label and its value, or a heading
MAX_KEY_WORDS = 4  # words a key or a value may have (longer: prose in columns)
SIZE_RATIO = 1.15  # values in larger type than their keys are key figures, no table
PAIR_GAP = 1.0  # x font size: at most this much white between the keys and the values


def _has_digit(chunk: Chunk) -> bool:
    return any(ch.isdigit() for ch in chunk.text)


def _under(keys: Sequence[Chunk], values: Sequence[Chunk]) -> bool:
    """Each value overlaps its own key horizontally and no other."""
    for k, value in enumerate(values):
        over = [j for j, key in enumerate(keys) if key.x0 < value.x1 and value.x0 < key.x1]
        if over != [k]:
            return False
    return True


def is_key_pair(keys: Line, values: Line) -> bool:
    """``keys`` over ``values`` is a key table: as many cells on each (three or more, short), no
    digit and no trailing colon in a key ("Date:" over a value is a form's label), no monospaced
    word (code), a digit in
    most values (numbers, codes, dates), the values in the keys' type size, a line pitch apart,
    each value under its key."""
    n = len(keys.chunks)
    if n < MIN_KEYS or len(values.chunks) != n:
        return False
    if any(len(c.words) > MAX_KEY_WORDS for c in (*keys.chunks, *values.chunks)):
        return False
    if any(w.mono for w in (*keys.words, *values.words)):  # a code listing's columns
        return False
    if any(_has_digit(c) or c.text.endswith(":") for c in keys.chunks):
        return False
    if sum(1 for c in values.chunks if _has_digit(c)) * 2 <= n:
        return False
    if max(keys.size, values.size) > SIZE_RATIO * min(keys.size, values.size):
        return False
    if not 0 <= values.top - keys.bottom <= PAIR_GAP * max(keys.size, 1.0):
        return False
    return _under(keys.chunks, values.chunks)


def key_pairs(lines: Sequence[Line], taken: set[int], reach: float) -> list[tuple[Line, Line]]:
    """Pairs of consecutive ``lines`` (one lane, top to bottom) that are key tables, neither line
    in a block (``taken``: ids of lines in blocks or tables) and no other line of two cells or
    more within ``reach`` x the font size above or below (a pair inside a run of cells is the
    blocking's to read)."""
    out: list[tuple[Line, Line]] = []
    for i in range(len(lines) - 1):
        keys, values = lines[i], lines[i + 1]
        if id(keys) in taken or id(values) in taken or not is_key_pair(keys, values):
            continue
        size = max(keys.size, 1.0)
        above = lines[i - 1] if i else None
        below = lines[i + 2] if i + 2 < len(lines) else None
        if above is not None and len(above.chunks) >= 2 and keys.top - above.bottom <= reach * size:
            continue
        if below is not None and len(below.chunks) >= 2 and below.top - values.bottom <= reach * size:
            continue
        out.append((keys, values))
    return out
