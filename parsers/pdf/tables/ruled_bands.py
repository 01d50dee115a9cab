"""Records in shaded bands: a table drawn as a stack of full-width bands (one column of cells to the
ruled finder, which would drop it as "text in one column only"), a band of column labels, then one
band per record holding the record's line, its fields under the labels, and under it a note over
the whole width (an incident list: "Oct. 25, 1999  Aberdeen, ...  Gates Learjet 35  destroyed
6 fatal", then what happened).

``banded_records`` reads such a stack: the header is the first band whose one line holds
``MIN_FIELDS`` runs of text apart by a cell gap; bands above it are the title; every following
band whose first line's runs each start under a label (the first under the first) is a record, its
other lines, each one run from the first label's edge, a note: a row of its own with the text in
the first cell (a cell spanning the row sits in the first column). The first band that is no
record ends the table (notes under it stay prose). ``MIN_RECORDS`` records at least. Pure
functions over cell boxes and pdfplumber char dicts.
"""

from __future__ import annotations

from collections.abc import Sequence

from parsers.model import Table
from parsers.pdf.tables.cell_text import cell_text, centre_in
from parsers.pdf.tables.ruled_rows import band_lines
from parsers.pdf.tables.rules import BBox, Char

MIN_FIELDS = 3  # labels in the header band
MIN_RECORDS = 3  # record bands
FIELD_GAP = 1.0  # x font size: a gap this wide parts two fields of a line
MAX_TITLE_LINES = 3
Run = list[Char]


def _runs(chars: Sequence[Char]) -> list[Run]:
    """A line's characters cut into runs at gaps over ``FIELD_GAP`` font sizes between printed
    characters (the space glyphs inside a run stay in it)."""
    ordered = sorted(chars, key=lambda c: float(c["x0"]))
    runs: list[Run] = []
    end = None  # right edge of the last printed character
    for c in ordered:
        printed = bool(str(c["text"]).strip())
        size = float(c.get("size") or 10.0)
        if printed and (end is None or float(c["x0"]) - end > FIELD_GAP * size):
            runs.append([c])
        elif runs:
            runs[-1].append(c)
        if printed:
            end = float(c["x1"])
    return runs


def _band_runs(band: BBox, chars: Sequence[Char]) -> list[list[Run]]:
    """The band's lines, top to bottom, each as its runs."""
    inside = [c for c in chars if centre_in(c, band)]
    lines = band_lines([0], [inside]) if inside else []
    spaces = [c for c in inside if not str(c["text"]).strip()]
    out = []
    for ln in lines:  # band_lines leaves space glyphs out: each goes back to the line it sits on
        mine = [c for c in spaces if ln.top <= (float(c["top"]) + float(c["bottom"])) / 2 <= ln.bottom]
        out.append(_runs([*ln.cells[0], *mine]))
    return out


def _fields(line: list[Run], starts: Sequence[float], tol: float) -> list[str] | None:
    """A record's line as a row: each run under the label it starts under, the first under the
    first; None when it is no such line."""
    if len(line) < 2 or abs(float(line[0][0]["x0"]) - starts[0]) > tol:
        return None
    row = [""] * len(starts)
    for run in line:
        x0 = float(run[0]["x0"])
        col = max((j for j, s in enumerate(starts) if s <= x0 + tol), default=-1)
        if col < 0 or row[col]:
            return None
        row[col] = " ".join(cell_text(run).split())
    return row


def _note(lines: Sequence[list[Run]], starts: Sequence[float], tol: float) -> list[str] | None:
    """Lines of one run each from the first label's edge, as a row of one cell (a note over the
    whole width), or None."""
    if not lines or any(len(ln) != 1 or abs(float(ln[0][0]["x0"]) - starts[0]) > tol for ln in lines):
        return None
    return [" ".join(" ".join(cell_text(ln[0]).split()) for ln in lines)] + [""] * (len(starts) - 1)


Bands = Sequence[tuple[BBox, list[list[Run]]]]  # each band with text: its box, its lines' runs


def _records(texts: Bands, starts: Sequence[float], tol: float) -> tuple[list[list[str]], int, int]:
    """The rows of the record bands in ``texts`` (from the first band after the header): each
    record's fields, then its note (in its band under the fields, or in the band right after it;
    one note a record); the number of records and of bands taken."""
    rows: list[list[str]] = []
    records = taken = 0
    noted = True
    for _, lines in texts:
        fields = _fields(lines[0], starts, tol)
        if fields is not None:
            note = _note(lines[1:], starts, tol) if len(lines) > 1 else None
            if len(lines) > 1 and note is None:
                break
            rows.extend([fields, note] if note else [fields])
            records, noted = records + 1, note is not None
        elif not noted and (note := _note(lines, starts, tol)) is not None:
            rows.append(note)
            noted = True
        else:
            break
        taken += 1
    return rows, records, taken


Found = tuple[Table, tuple[float, ...], BBox]


def banded_records(cells: Sequence[BBox], chars: Sequence[Char]) -> Found | None:
    """The table of a one-column stack of bands holding records, its relative column boundaries and
    its box (title bands to the last record band); None when the bands are no such table."""
    bands = sorted(cells, key=lambda b: b[1])
    texts = [(band, lines) for band in bands if (lines := _band_runs(band, chars))]
    head = next((k for k, (_, lines) in enumerate(texts) if len(lines[0]) >= MIN_FIELDS), None)
    if head is None or len(texts[head][1]) != 1:
        return None
    above = [ln for _, lines in texts[:head] for ln in lines]
    if len(above) > MAX_TITLE_LINES or any(len(ln) != 1 for ln in above):
        return None
    labels = texts[head][1][0]
    size = float(labels[0][0].get("size") or 10.0)
    starts = [float(run[0]["x0"]) for run in labels]
    body, records, taken = _records(texts[head + 1 :], starts, size)
    if records < MIN_RECORDS:
        return None
    rows = [[" ".join(cell_text(run).split()) for run in labels], *body]
    last = texts[head + taken][0]
    title = " ".join(" ".join(cell_text(ln[0]).split()) for ln in above) or None
    top = texts[0][0][1] if above else texts[head][0][1]
    box = (min(b[0] for b in bands), top, max(b[2] for b in bands), last[3])
    width = (box[2] - box[0]) or 1.0
    inner = tuple(round((s - box[0]) / width, 3) for s in starts[1:])
    table = Table(tuple(tuple(r) for r in rows), 1, title)
    return table, (0.0, *inner, 1.0), box
