"""Bordered-table cases drawn with reportlab, with the cells, header rows and caption each must
read back as (issue 15, part 1). Written by the project, for measurement: nothing here is tuned
to a third-party document.

    PYTHONPATH=. .venv/bin/python eval/pdf/bordered/generate.py [--out DIR] [--cases 128]

Writes DIR/<case>.pdf and DIR/expected.json (default DIR: eval/pdf/bordered/cases). Deterministic:
case ``k`` is drawn from ``random.Random(k)`` and reportlab runs with ``invariant=1``.

Each case varies: fonts (Helvetica, Times, Courier; bold headers or not), font size, column
widths, horizontal alignment (left, centre, right; numbers right), vertical alignment (top,
middle), cell padding, line width, how rules are drawn (a rectangle per cell, or one segment per
slot edge), multi-line cells (labels wrapped to the column width), one- to three-row headers with
group labels spanning sub-columns and labels spanning the header rows, spanning body cells (a row
label over two rows, a section row over the whole width, a cell over two columns), a caption
above or below ("Table 7: ...", "TABLE 3 - ...", "Tab. 2 ..."), plain, boxed apart or boxed onto
the table, prose before and after, two tables on a page, a table continued over a page break
(header repeated or not).

Expected cells follow docmill's merged-cell rule (tabula's): a spanning cell's text is in its
top-left slot, the other slots it covers are "". A cell's lines are joined with one space
(compare whitespace-normalised).
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reportlab.lib.pagesizes import A4
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

HERE = Path(__file__).resolve().parent
PAGE_W, PAGE_H = A4
MARGIN = 56.0

FONTS = [("Helvetica", "Helvetica-Bold"), ("Times-Roman", "Times-Bold"), ("Courier", "Courier-Bold")]
GROUPS = {
    "Literacy Status": ["Illiterate", "Read & Write", "Primary", "Middle", "Secondary", "Graduate"],
    "Age Group": ["0-14", "15-24", "25-44", "45-64", "65 and over"],
    "Employment": ["Full time", "Part time", "Seeking work", "Not in labour force"],
    "Quarterly Sales": ["Q1", "Q2", "Q3", "Q4"],
    "Households": ["Owned", "Rented", "Other tenure"],
    "Population": ["Male", "Female", "Total persons"],
    "Water Source": ["Piped", "Well", "Surface water", "Tanker"],
    "Sales by year": ["2019", "2020", "2021", "2022"],
    "Enrolment": ["2018/19", "2019/20", "2020/21"],
}
SUBGROUPS = ["Urban", "Rural"]
ROW_LABELS = [
    "North District",
    "South District",
    "Eastern Hills",
    "Lake Shore",
    "River Valley",
    "Capital Region",
    "Coastal Plain",
    "Highlands",
    "Central Basin",
    "Western Frontier",
    "Old Town",
    "Harbour Ward",
    "Pine Ridge",
    "Sandy Bay",
    "Red Cliffs",
    "Mill Creek",
    "Stone Bridge",
    "Green Meadow",
]
LABEL_COLUMNS = ["District", "Region", "Area name", "Province of residence", "Item"]
PLAIN_COLUMNS = [
    "Total",
    "Share of total (%)",
    "Change since last census",
    "Median income",
    "Rank",
    "Notes",
    "Status",
    "Density per square km",
    "Growth rate",
]
NOTES = ["provisional", "revised figure", "estimate", "see note 3", "not comparable", "final"]
TITLES = [
    "DISTRIBUTION OF HOUSEHOLDS BY LITERACY STATUS",
    "Population by age group and district",
    "Employment status of persons aged 15 and over",
    "Quarterly sales by region",
    "Main source of drinking water",
    "Summary of results",
    "HOUSING TENURE BY AREA",
]
PROSE_TEXT = (
    "The figures below were compiled from the latest survey round and cover every district of the "
    "region. Totals may differ from the sum of their parts because of rounding, and a few districts "
    "report provisional counts that will be revised in the next release of the series."
)
PROSE = PROSE_TEXT.split()


@dataclass
class Cell:
    row: int
    col: int
    lines: list[str]
    rowspan: int = 1
    colspan: int = 1
    bold: bool = False
    numeric: bool = False


@dataclass
class Spec:
    widths: list[float]
    cells: list[Cell]
    n_rows: int
    header_rows: int
    title: str | None = None
    caption: str = "none"  # none | above | below | boxed_above | boxed_below | attached_above
    split_at: int | None = None  # body row index where the table continues on the next page
    repeat_header: bool = True
    style: dict[str, Any] = field(default_factory=dict)

    def expected_rows(self, rows: range | None = None) -> list[list[str]]:
        grid = [[""] * len(self.widths) for _ in range(self.n_rows)]
        for c in self.cells:
            grid[c.row][c.col] = " ".join(c.lines)
        return grid if rows is None else [grid[r] for r in rows]


def _wrap(text: str, font: str, size: float, width: float) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and stringWidth(f"{lines[-1]} {word}", font, size) <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


def _number(rng: random.Random, kind: str) -> str:
    if kind == "int":
        return f"{rng.randint(0, 250000):,}"
    if kind == "pct":
        return f"{rng.uniform(0, 100):.1f}"
    if kind == "money":
        return f"${rng.uniform(10, 9000):,.2f}"
    return str(rng.randint(1, 99))


def _caption_text(rng: random.Random, n: int) -> str:
    prefix = rng.choice(["Table", "Table", "TABLE", "Tab."])
    number = f"{n}.{rng.randint(1, 9)}" if rng.random() < 0.2 else str(n)
    sep = rng.choice([":", " :", " -", ".", " \u2013"])
    tail = rng.choice(["", "", "", " (persons, thousands), by district and sex, latest survey round"])
    return f"{prefix} {number}{sep} {rng.choice(TITLES)}{tail}"


def make_spec(rng: random.Random, number: int, style: dict[str, Any], long: bool = False) -> Spec:
    """One table that fits the page width (drawn again, from the same generator, until it does)."""
    while True:
        spec = _draw_spec(rng, number, style, long)
        if sum(spec.widths) <= PAGE_W - 2 * MARGIN + 20:
            return spec


def _draw_spec(rng: random.Random, number: int, style: dict[str, Any], long: bool) -> Spec:
    """One table: header rows (with group labels), body rows (with spanning cells)."""
    font, bold_font = style["font"], style["bold_font"]
    size = style["size"]
    n_groups = rng.choice([0, 1, 1, 2]) if not long else rng.choice([0, 1])
    groups = rng.sample(sorted(GROUPS), n_groups)
    n_plain = rng.randint(1, 3) if n_groups else rng.randint(2, 5)
    plain = rng.sample(PLAIN_COLUMNS, n_plain)
    years = not n_groups and rng.random() < 0.25  # year columns: numbers as labels, in order
    if years:
        first_year = rng.randint(2005, 2018)
        plain = [str(first_year + i) for i in range(n_plain)]
    three_levels = n_groups == 1 and rng.random() < 0.25
    leaves: list[tuple[str | None, str | None, str]] = []  # (group, subgroup, label)
    corner = "" if rng.random() < 0.1 else rng.choice(LABEL_COLUMNS)  # an empty top-left cell
    columns: list[tuple[str, Any]] = [("label", corner)]
    for g in groups:
        subs = GROUPS[g][: rng.randint(2, 4 if three_levels else len(GROUPS[g]))]
        columns.append(("group", (g, subs)))
    for p in plain:
        columns.insert(len(columns) if years else rng.randint(1, len(columns)), ("plain", p))
    for kind, value in columns:
        if kind == "group":
            g, subs = value
            if three_levels:
                leaves.extend((g, s, leaf) for s in SUBGROUPS for leaf in subs)
            else:
                leaves.extend((g, None, leaf) for leaf in subs)
        else:
            leaves.append((None, None, value))
    n_cols = len(leaves)
    usable = PAGE_W - 2 * MARGIN
    weights = [rng.uniform(1.6, 2.6) if i == 0 else rng.uniform(0.8, 1.6) for i in range(n_cols)]
    widths = [usable * w / sum(weights) * rng.uniform(0.75, 1.0) for w in weights]
    pad = style["pad"]
    # every column at least as wide as its longest word (header or body): a word never crosses a rule
    bold_header = style["bold_header"]
    hfont = bold_font if bold_header else font
    for j, (_group, _sub, label) in enumerate(leaves):
        words = [*label.split(), "$9,999.99", "250,000", *(w for n in NOTES for w in n.split())]
        need = max(stringWidth(w, hfont, size) for w in words) + 2 * pad + 2
        widths[j] = max(widths[j], need)
    header_rows = 3 if three_levels else (2 if groups else 1)
    cells: list[Cell] = []
    # header
    j = 0
    while j < n_cols:
        g, sub, label = leaves[j]
        if g is None:
            cells.append(
                Cell(0, j, _wrap(label, hfont, size, widths[j] - 2 * pad), header_rows, 1, bold_header)
            )
            j += 1
            continue
        span = sum(1 for leaf in leaves[j:] if leaf[0] == g)
        width = sum(widths[j : j + span])
        cells.append(Cell(0, j, _wrap(g, hfont, size, width - 2 * pad), 1, span, bold_header))
        k = j
        while k < j + span:
            if sub is not None:
                sub_span = sum(1 for leaf in leaves[k : j + span] if leaf[1] == leaves[k][1])
                sw = sum(widths[k : k + sub_span])
                cells.append(
                    Cell(1, k, _wrap(str(leaves[k][1]), hfont, size, sw - 2 * pad), 1, sub_span, bold_header)
                )
                for m in range(k, k + sub_span):
                    leaf = leaves[m][2]
                    cells.append(Cell(2, m, _wrap(leaf, hfont, size, widths[m] - 2 * pad), 1, 1, bold_header))
                k += sub_span
            else:
                leaf = leaves[k][2]
                cells.append(Cell(1, k, _wrap(leaf, hfont, size, widths[k] - 2 * pad), 1, 1, bold_header))
                k += 1
        j += span
    # body
    n_body = rng.randint(28, 40) if long else rng.randint(3, 9)
    labels = rng.sample(ROW_LABELS, min(n_body, len(ROW_LABELS))) + [f"Ward {i}" for i in range(1, 40)]
    kinds = [rng.choice(["int", "int", "pct", "money", "small"]) for _ in range(n_cols)]
    r = header_rows
    b = 0
    pending_rowspan = 0
    while b < n_body:
        roll = rng.random()
        if not long and roll < 0.08 and 0 < b < n_body - 1 and pending_rowspan == 0:
            section = f"Section {rng.choice('ABCD')}: {rng.choice(['urban', 'rural', 'all areas'])}"
            cells.append(Cell(r, 0, [section], 1, n_cols))  # a section row over the whole width
            r, b = r + 1, b + 1
            continue
        label_span = 2 if not long and pending_rowspan == 0 and roll < 0.2 and b < n_body - 1 else 1
        if pending_rowspan == 0:
            text = labels[b]
            cells.append(Cell(r, 0, _wrap(text, font, size, widths[0] - 2 * pad), label_span, 1))
            pending_rowspan = label_span - 1
        else:
            pending_rowspan -= 1
        j = 1
        while j < n_cols:
            header_label = leaves[j][2]
            if not long and rng.random() < 0.04 and j < n_cols - 1:  # a cell over two columns
                cells.append(Cell(r, j, ["n/a"], 1, 2))
                j += 2
                continue
            if header_label == "Notes" or header_label == "Status":
                text = rng.choice(NOTES)
                cells.append(Cell(r, j, _wrap(text, font, size, widths[j] - 2 * pad)))
            elif rng.random() < 0.05:  # no value, or a dash for none
                cells.append(
                    Cell(r, j, [rng.choice(["-", ".."])] if rng.random() < 0.5 else [], numeric=True)
                )
            else:
                cells.append(Cell(r, j, [_number(rng, kinds[j])], numeric=True))
            j += 1
        r, b = r + 1, b + 1
    spec = Spec(widths, cells, r, header_rows, style=style)
    spec.caption = rng.choice(
        ["none", "above", "above", "below", "boxed_above", "boxed_below", "attached_above"]
    )
    if spec.caption != "none":
        spec.title = _caption_text(rng, number)
    return spec


def _row_heights(spec: Spec) -> list[float]:
    lead = spec.style["size"] * 1.2
    pad = spec.style["vpad"]
    heights = [lead + 2 * pad] * spec.n_rows
    for c in sorted(spec.cells, key=lambda c: c.rowspan):
        need = len(c.lines) * lead + 2 * pad
        have = sum(heights[c.row : c.row + c.rowspan])
        if need > have:
            heights[c.row + c.rowspan - 1] += need - have
    return heights


class Drawer:
    """Top-down coordinates over a reportlab canvas."""

    def __init__(self, c: canvas.Canvas) -> None:
        self.c = c

    def y(self, top: float) -> float:
        return PAGE_H - top

    def line(self, x0: float, t0: float, x1: float, t1: float, filled: float = 0.0) -> None:
        """A rule; ``filled``: drawn as a filled rectangle that thick (as many writers do)."""
        if not filled:
            self.c.line(x0, self.y(t0), x1, self.y(t1))
            return
        half = filled / 2
        self.c.rect(x0 - half, self.y(t1 + half), x1 - x0 + filled, t1 - t0 + filled, stroke=0, fill=1)

    def rect(self, x: float, top: float, w: float, h: float, fill: bool = False) -> None:
        self.c.rect(x, self.y(top + h), w, h, stroke=0 if fill else 1, fill=1 if fill else 0)

    def text(self, x: float, top: float, text: str, font: str, size: float) -> None:
        self.c.setFont(font, size)
        self.c.drawString(x, self.y(top + size * 0.85), text)


def prose(d: Drawer, top: float, n_lines: int, rng: random.Random) -> float:
    size = 10.0
    start = rng.randrange(len(PROSE))
    words = PROSE[start:] + PROSE[:start]
    lines = _wrap(" ".join(words * 2), "Helvetica", size, PAGE_W - 2 * MARGIN)[:n_lines]
    for i, line in enumerate(lines):
        d.text(MARGIN, top + i * size * 1.3, line, "Helvetica", size)
    return top + n_lines * size * 1.3


def caption(d: Drawer, spec: Spec, x: float, top: float, width: float, boxed: bool) -> float:
    """Draws the caption at ``top``; returns its bottom."""
    assert spec.title is not None
    size = spec.style["size"] + 1
    font = spec.style["bold_font"] if spec.style["caption_bold"] else spec.style["font"]
    lines = _wrap(spec.title, font, size, width - 8)
    if boxed:  # a box as wide as the table, the caption wrapped inside it
        height = len(lines) * size * 1.2 + 8
        d.c.setLineWidth(spec.style["line_width"])
        d.rect(x, top, width, height)
        for i, line in enumerate(lines):
            tw = stringWidth(line, font, size)
            tx = x + (width - tw) / 2 if spec.style["caption_centred"] else x + 4
            d.text(tx, top + 4 + i * size * 1.2, line, font, size)
        return top + height
    for i, line in enumerate(lines):  # a long caption wraps to the table's width
        tw = stringWidth(line, font, size)
        tx = x + (width - tw) / 2 if spec.style["caption_centred"] else x
        d.text(tx, top + i * size * 1.2, line, font, size)
    return top + (len(lines) - 1) * size * 1.2 + size


def draw_table(d: Drawer, spec: Spec, top: float, rows: list[int], x: float = MARGIN) -> float:
    """Rows ``rows`` (grid indices) of ``spec`` drawn from ``top``; returns the bottom."""
    style = spec.style
    heights = _row_heights(spec)
    xs = [x]
    for w in spec.widths:
        xs.append(xs[-1] + w)
    tops = {}
    t = top
    for r in rows:
        tops[r] = t
        t += heights[r]
    bottom = t
    shown = set(rows)
    c = d.c
    c.setLineWidth(style["line_width"])
    header = [r for r in rows if r < spec.header_rows]
    if style["header_fill"] and header:
        # shading behind the header: one band, or one band per header row (no rule between them)
        c.setFillGray(0.88)
        bands = [[r] for r in header] if style["header_fill"] == "rows" else [header]
        for band in bands:
            height = sum(heights[r] for r in band)
            d.rect(xs[0], tops[band[0]], xs[-1] - xs[0], height, fill=True)
        c.setFillGray(0)
    lead = style["size"] * 1.2
    for cell in spec.cells:
        if cell.row not in shown:
            continue
        span_rows = [r for r in range(cell.row, cell.row + cell.rowspan) if r in shown]
        x0, x1 = xs[cell.col], xs[cell.col + cell.colspan]
        y0 = tops[cell.row]
        y1 = tops[span_rows[-1]] + heights[span_rows[-1]]
        if style["rules"] == "cells":
            d.rect(x0, y0, x1 - x0, y1 - y0)
        else:  # one segment per slot edge, as many generators draw them (stroked or filled)
            thick = style["line_width"] if style["rules"] == "filled" else 0.0
            for k in range(cell.col, cell.col + cell.colspan):
                d.line(xs[k], y0, xs[k + 1], y0, thick)
                d.line(xs[k], y1, xs[k + 1], y1, thick)
            for r in span_rows:  # an open frame has no outer verticals
                if not (style["open_frame"] and cell.col == 0):
                    d.line(x0, tops[r], x0, tops[r] + heights[r], thick)
                if not (style["open_frame"] and cell.col + cell.colspan == len(spec.widths)):
                    d.line(x1, tops[r], x1, tops[r] + heights[r], thick)
        font = style["bold_font"] if cell.bold else style["font"]
        size = style["size"]
        block = len(cell.lines) * lead
        if style["valign"] == "middle" or cell.row < spec.header_rows:
            ty = y0 + (y1 - y0 - block) / 2
        else:
            ty = y0 + style["vpad"]
        for i, text in enumerate(cell.lines):
            w = stringWidth(text, font, size)
            align = "right" if cell.numeric and style["numbers_right"] else style["align"]
            if cell.row < spec.header_rows and style["header_centred"]:
                align = "centre"
            if align == "right":
                tx = x1 - style["pad"] - w
            elif align == "centre":
                tx = x0 + (x1 - x0 - w) / 2
            else:
                tx = x0 + style["pad"]
            d.text(tx, ty + i * lead + (lead - size) / 2, text, font, size)
    return bottom


def _style(rng: random.Random) -> dict[str, Any]:
    font, bold_font = rng.choice(FONTS)
    return {
        "font": font,
        "bold_font": bold_font,
        "size": rng.choice([7.5, 8.0, 9.0, 10.0, 11.0]),
        "pad": rng.choice([2.5, 3.0, 4.0, 6.0]),
        "vpad": rng.choice([2.0, 3.0, 4.0]),
        "line_width": rng.choice([0.4, 0.5, 0.75, 1.0, 1.5, 2.0]),
        "open_frame": rng.random() < 0.2,
        "rules": rng.choice(["cells", "segments", "filled"]),
        "align": rng.choice(["left", "left", "centre", "right"]),
        "numbers_right": rng.random() < 0.7,
        "valign": rng.choice(["top", "middle"]),
        "bold_header": rng.random() < 0.6,
        "header_centred": rng.random() < 0.5,
        "header_fill": rng.choice(["", "", "", "", "", "block", "rows"]),
        "caption_bold": rng.random() < 0.5,
        "caption_centred": rng.random() < 0.5,
        "heading": rng.random() < 0.25,
        "note": rng.random() < 0.3,
        "rng": rng,
    }


def heading(d: Drawer, top: float, rng: random.Random) -> float:
    """A numbered section heading (prose, never a caption)."""
    name = rng.choice(["Literacy and schooling", "Housing", "Results"])
    text = f"{rng.randint(1, 9)}.{rng.randint(1, 9)} {name}"
    d.text(MARGIN, top, text, "Helvetica-Bold", 13)
    return top + 13


def _place_table(d: Drawer, spec: Spec, top: float, rows: list[int], with_caption: bool = True) -> float:
    width = sum(spec.widths)
    gap = spec.style["caption_gap"]
    if with_caption and spec.style["heading"]:
        top = heading(d, top, spec.style["rng"]) + 10
    if with_caption and spec.caption in ("above", "boxed_above"):
        top = caption(d, spec, MARGIN, top, width, spec.caption == "boxed_above") + gap
    elif with_caption and spec.caption == "attached_above":
        top = caption(d, spec, MARGIN, top, width, True)
    bottom = draw_table(d, spec, top, rows)
    if with_caption and spec.caption in ("below", "boxed_below"):
        bottom = caption(d, spec, MARGIN, bottom + gap, width, spec.caption == "boxed_below")
    elif with_caption and spec.style["note"]:  # a source note under the table: prose, not a caption
        d.text(MARGIN, bottom + gap, "Source: district returns; figures rounded.", spec.style["font"], 8)
        bottom += gap + 8
    return bottom


def _expected(spec: Spec, page: int) -> dict[str, Any]:
    return {
        "page": page,
        "rows": spec.expected_rows(),
        "header_rows": spec.header_rows,
        "title": spec.title,
        "caption": spec.caption,
    }


def make_case(k: int, out: Path) -> dict[str, Any]:
    rng = random.Random(k)
    layout = ["one", "one", "one", "two", "two", "continued"][k % 6]
    name = f"bordered-{k:03d}-{layout}"
    c = canvas.Canvas(str(out / f"{name}.pdf"), pagesize=A4, invariant=1)
    d = Drawer(c)
    top = MARGIN
    tables: list[dict[str, Any]] = []
    if rng.random() < 0.7:
        top = prose(d, top, rng.randint(2, 5), rng) + rng.uniform(14, 24)
    if layout in ("one", "two"):
        n = 1 if layout == "one" else 2
        for i in range(n):
            style = _style(rng)
            style["caption_gap"] = rng.uniform(3, 9)
            spec = make_spec(rng, rng.randint(1, 12) + i, style)
            if layout == "two" and i == 1 and tables and spec.caption != "none":
                # both tables of a page captioned the same way, as documents do
                first = tables[0]["caption"]
                spec.caption = first if first != "none" else spec.caption
                if spec.caption == "none":
                    spec.title = None
            rows = list(range(spec.n_rows))
            top = _place_table(d, spec, top, rows)
            tables.append(_expected(spec, 1))
            top += rng.uniform(18, 30)
            if rng.random() < 0.6:
                top = prose(d, top, rng.randint(1, 3), rng) + rng.uniform(16, 26)
    else:
        style = _style(rng)
        style["caption_gap"] = rng.uniform(3, 9)
        spec = make_spec(rng, rng.randint(1, 12), style, long=True)
        style["note"] = False  # a source note ends a table, it does not stand between its pages
        if spec.caption in ("below", "boxed_below"):
            spec.caption = "above"
        heights = _row_heights(spec)
        header = list(range(spec.header_rows))
        room = PAGE_H - MARGIN - top - 100  # caption, heading and note above/below
        split = spec.header_rows
        used = sum(heights[: spec.header_rows])
        while split < spec.n_rows and used + heights[split] < room:
            used += heights[split]
            split += 1
        split = min(split, spec.n_rows - 3)
        _place_table(d, spec, top, header + list(range(spec.header_rows, split)))
        c.showPage()
        repeat = rng.random() < 0.6
        rest = (header if repeat else []) + list(range(split, spec.n_rows))
        top = MARGIN
        if spec.title and rng.random() < 0.4:  # "Table 3 (continued)" over the rest
            label = " ".join(spec.title.split()[:2]).rstrip(":.-\u2013")
            d.text(MARGIN, top, f"{label} (continued)", spec.style["font"], spec.style["size"] + 1)
            top += spec.style["size"] + 1 + spec.style["caption_gap"]
        draw_table(d, spec, top, rest)
        tables.append({**_expected(spec, 1), "continued_on_page": 2, "header_repeated": repeat})
    c.save()
    return {"id": name, "pdf": f"{name}.pdf", "tables": tables}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=HERE / "cases")
    ap.add_argument("--cases", type=int, default=128)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    cases = [make_case(k, args.out) for k in range(args.cases)]
    (args.out / "expected.json").write_text(json.dumps({"cases": cases}, indent=1) + "\n")
    print(f"{len(cases)} cases -> {args.out}")


if __name__ == "__main__":
    main()
