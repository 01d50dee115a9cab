"""Generate the unruled-table dev set: reportlab PDFs + the cells each page is expected to yield.

    PYTHONPATH=. .venv/bin/python eval/pdf/unruled/generate.py [--out eval/pdf/unruled]

Writes ``pdfs/<case>.pdf`` (one page each) and ``expected.json``:
``{"cases": [{"id", "pdf", "page", "family", "tables": [{"rows", "header_rows", "ruled"}]}]}``.
A negative case (two-column prose, a numbered list, a TOC with leaders, a form, code) has
``"tables": []``. Every page is drawn from its table spec by this file, so the expected cells are
the spec itself, written before any detector ran. Content is random but seeded by the case id,
so the files are the same on every run (reportlab ``invariant=1``: no dates or random ids).

Conventions of the expected cells: a cell drawn on several lines is one cell, its lines joined by
a space; a header label spanning several columns sits in the first column it spans, the others
"" (the ruled tables' rule); a section label row ("Current assets") is a row with empty values.
Booktabs tables (horizontal rules at top, under the header and at the bottom, no vertical rule)
count as *unruled*: no grid of cells can be read from their rules, the columns come from the
whitespace.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reportlab.lib.pagesizes import A4, letter
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

HERE = Path(__file__).resolve().parent
FONTS = [("Helvetica", "Helvetica-Bold"), ("Times-Roman", "Times-Bold")]
DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
WORDS = (  # noqa: SIM905 - one readable sentence
    "the report shows that revenue from operations grew while costs of services and materials "
    "remained stable across regions although the board expects further pressure on margins in "
    "the coming year as markets adjust to new rules for energy transport and public services"
).split(" ")


@dataclass
class Cell:
    text: str  # lines separated by "\n"
    span: int = 1


@dataclass
class Spec:
    """One table to draw: rows of cells, per-column alignment, header rows drawn bold."""

    rows: list[list[Cell]]
    align: list[str]  # "l", "r", "c" per column
    header_rows: int
    font: tuple[str, str]
    size: float
    gap: float  # points between columns
    valign_bottom: bool = False  # a multi-line row label: values on its last line
    booktabs: bool = False
    grid: bool = False
    bold_rows: set[int] = field(default_factory=set)
    indent: dict[int, float] = field(default_factory=dict)  # row -> label indent

    def expected(self) -> list[list[str]]:
        out = []
        for row in self.rows:
            cells: list[str] = []
            for c in row:
                cells.append(" ".join(c.text.split("\n")).strip())
                cells.extend([""] * (c.span - 1))
            out.append(cells)
        return out


def col_widths(spec: Spec) -> list[float]:
    n = len(spec.align)
    widths = [0.0] * n
    for r, row in enumerate(spec.rows):
        font = spec.font[1] if r < spec.header_rows or r in spec.bold_rows else spec.font[0]
        j = 0
        for c in row:
            if c.span == 1:
                w = max(pdfmetrics.stringWidth(line, font, spec.size) for line in c.text.split("\n"))
                widths[j] = max(widths[j], w + spec.indent.get(r, 0.0) * (j == 0))
            j += c.span
    return widths


def draw_table(pdf: canvas.Canvas, spec: Spec, x: float, top: float, page_h: float) -> float:
    """Draw ``spec`` with its top-left at (x, top) (top-down coordinates); returns its bottom."""
    widths = col_widths(spec)
    xs = [x]
    for w in widths:
        xs.append(xs[-1] + w + spec.gap)
    lead = spec.size * 1.3
    y = top
    right = xs[-1] - spec.gap
    if spec.booktabs or spec.grid:
        pdf.setLineWidth(0.8)
        pdf.line(x - 2, page_h - y + 2, right + 2, page_h - y + 2)
    row_tops = []
    for r, row in enumerate(spec.rows):
        font = spec.font[1] if r < spec.header_rows or r in spec.bold_rows else spec.font[0]
        height = max(len(c.text.split("\n")) for c in row)
        row_tops.append(y)
        j = 0
        for c in row:
            lines = c.text.split("\n")
            x0, x1 = xs[j], xs[j + c.span] - spec.gap
            offset = height - len(lines) if spec.valign_bottom and len(lines) < height else 0
            for k, line in enumerate(lines):
                baseline = page_h - (y + (k + offset) * lead + spec.size)
                w = pdfmetrics.stringWidth(line, font, spec.size)
                al = "c" if c.span > 1 else spec.align[j]
                if al == "r":
                    tx = x1 - w
                elif al == "c":
                    tx = (x0 + x1 - w) / 2
                else:
                    tx = x0 + (spec.indent.get(r, 0.0) if j == 0 else 0.0)
                pdf.setFont(font, spec.size)
                pdf.drawString(tx, baseline, line)
            j += c.span
        y += height * lead + (spec.size * 0.5 if spec.grid else 0.0)
        if spec.booktabs and r == spec.header_rows - 1:
            pdf.setLineWidth(0.5)
            pdf.line(x - 2, page_h - y + 0.3 * lead, right + 2, page_h - y + 0.3 * lead)
    if spec.booktabs or spec.grid:
        pdf.setLineWidth(0.8)
        pdf.line(x - 2, page_h - y + 0.3 * lead, right + 2, page_h - y + 0.3 * lead)
    if spec.grid:
        for t in row_tops[1:]:
            pdf.line(x - 2, page_h - t + 2, right + 2, page_h - t + 2)
        for gx in [x - 2, *[v - spec.gap / 2 for v in xs[1:-1]], right + 2]:
            pdf.line(gx, page_h - top + 2, gx, page_h - y + 0.3 * lead)
    return y


def prose(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def draw_paragraph(
    pdf: canvas.Canvas, text: str, x: float, top: float, width: float, font: str, size: float, page_h: float
) -> float:
    """Left-aligned wrapped text; returns the bottom."""
    lead = size * 1.3
    line: list[str] = []
    y = top
    for word in text.split():
        trial = " ".join([*line, word])
        if line and pdfmetrics.stringWidth(trial, font, size) > width:
            pdf.setFont(font, size)
            pdf.drawString(x, page_h - y - size, " ".join(line))
            y += lead
            line = [word]
        else:
            line.append(word)
    if line:
        pdf.setFont(font, size)
        pdf.drawString(x, page_h - y - size, " ".join(line))
        y += lead
    return y + size * 0.6


def money(rng: random.Random, lo: int = 50, hi: int = 900_000, neg: float = 0.15) -> str:
    v = rng.randint(lo, hi)
    if rng.random() < 0.05:
        return "—"
    return f"({v:,})" if rng.random() < neg else f"{v:,}"


# --- positive families ---------------------------------------------------------------------------


def financial(rng: random.Random) -> Spec:
    years = rng.choice([["2023", "2022"], ["2024", "2023", "2022"], ["2021", "2020"]])
    sections = {
        "Current assets": [
            "Cash and cash equivalents",
            "Trade receivables",
            "Inventories",
            "Prepaid expenses",
        ],
        "Non-current assets": ["Property, plant and equipment", "Intangible assets", "Deferred tax assets"],
        "Current liabilities": ["Trade payables", "Short-term borrowings", "Provisions"],
        "Operating activities": ["Net income", "Depreciation and amortisation", "Change in working capital"],
    }
    rows = [[Cell("")] + [Cell(y) for y in years]]
    bold: set[int] = set()
    indent: dict[int, float] = {}
    for name in rng.sample(list(sections), rng.randint(2, 3)):
        rows.append([Cell(name)] + [Cell("") for _ in years])
        for label in rng.sample(sections[name], rng.randint(2, len(sections[name]))):
            indent[len(rows)] = 8.0
            rows.append([Cell(label)] + [Cell(money(rng)) for _ in years])
        bold.add(len(rows))
        rows.append(
            [Cell(f"Total {name.lower()}")] + [Cell(money(rng, 10_000, 2_000_000, 0.05)) for _ in years]
        )
    font = rng.choice(FONTS)
    return Spec(
        rows,
        ["l"] + ["r"] * len(years),
        1,
        font,
        rng.choice([8.0, 9.0, 10.0]),
        rng.choice([18.0, 26.0, 34.0]),
        bold_rows=bold,
        indent=indent,
    )


def statistics(rng: random.Random) -> Spec:
    groups = rng.choice([["Male", "Female"], ["Urban", "Rural"], ["2010", "2020"]])
    subs = rng.choice([["Number", "Percent"], ["Count", "Share"]])
    regions = [
        "North",
        "South",
        "East",
        "West",
        "Central",
        "Coastal districts\nand islands",
        "Mountain\nprovinces",
        "Capital region",
        "Border areas of\nthe north-east",
    ]
    top = [Cell("")]
    for g in groups:
        top.append(Cell(g, span=len(subs)))
    second = [Cell("Region")] + [Cell(s) for _ in groups for s in subs]
    rows = [top, second]
    for name in rng.sample(regions, rng.randint(4, 7)):
        values = []
        for _ in groups:
            values.append(Cell(f"{rng.randint(1000, 99999):,}"))
            values.append(Cell(f"{rng.uniform(0, 100):.1f}"))
        rows.append([Cell(name), *values])
    n = 1 + len(groups) * len(subs)
    return Spec(
        rows,
        ["l"] + ["r"] * (n - 1),
        2,
        rng.choice(FONTS),
        rng.choice([8.0, 9.0]),
        rng.choice([14.0, 20.0]),
        valign_bottom=rng.random() < 0.5,
    )


def price_list(rng: random.Random) -> Spec:
    items = [
        "Espresso",
        "Cappuccino",
        "Green tea",
        "Croissant",
        "Bagel with cream cheese",
        "Orange juice",
        "Club sandwich",
        "Tomato soup",
        "Caesar salad",
        "Chocolate muffin",
        "Sparkling water",
    ]
    with_unit = rng.random() < 0.5
    cur = rng.choice(["$", "€ ", "£"])
    header = [Cell("Item"), *([Cell("Size")] if with_unit else []), Cell("Price")]
    rows = [header]
    for item in rng.sample(items, rng.randint(5, 9)):
        unit = [Cell(rng.choice(["small", "large", "250 ml", "each"]))] if with_unit else []
        rows.append([Cell(item), *unit, Cell(f"{cur}{rng.uniform(1, 30):.2f}")])
    align = ["l", "l", "r"] if with_unit else ["l", "r"]
    return Spec(rows, align, 1, rng.choice(FONTS), rng.choice([9.0, 10.0, 11.0]), rng.choice([30.0, 60.0]))


def booktabs(rng: random.Random) -> Spec:
    header = ["Country", "Capital", "Population (m)", "Area (km²)", "Growth %"]
    data = [
        ("France", "Paris"),
        ("Spain", "Madrid"),
        ("Italy", "Rome"),
        ("Poland", "Warsaw"),
        ("Greece", "Athens"),
        ("Sweden", "Stockholm"),
        ("Portugal", "Lisbon"),
        ("Austria", "Vienna"),
    ]
    n = rng.randint(3, 5)
    rows = [[Cell(h) for h in header[:n]]]
    for country, capital in rng.sample(data, rng.randint(4, 7)):
        vals = [
            country,
            capital,
            f"{rng.uniform(1, 90):.1f}",
            f"{rng.randint(20_000, 600_000):,}",
            f"{rng.uniform(-2, 3):.2f}",
        ]
        rows.append([Cell(v) for v in vals[:n]])
    align = ["l", "l", "r", "r", "r"][:n]
    return Spec(
        rows, align, 1, rng.choice(FONTS), rng.choice([9.0, 10.0]), rng.choice([16.0, 24.0]), booktabs=True
    )


def ruled(rng: random.Random) -> Spec:
    spec = booktabs(rng)
    spec.booktabs, spec.grid = False, True
    return spec


# --- pages ---------------------------------------------------------------------------------------


def single_table_page(path: Path, spec: Spec, rng: random.Random, two_tables: Spec | None = None) -> None:
    w, h = rng.choice([A4, letter])
    pdf = canvas.Canvas(str(path), pagesize=(w, h), invariant=1)
    y = 60.0
    y = draw_paragraph(pdf, prose(rng, 40), 60, y, w - 120, spec.font[0], 10, h)
    pdf.setFont(spec.font[1], 11)
    pdf.drawString(60, h - y - 11, f"Table {rng.randint(1, 9)}: " + " ".join(rng.sample(WORDS, 4)))
    y += 22
    y = draw_table(pdf, spec, 60 + rng.choice([0, 20, 40]), y, h) + 14
    y = draw_paragraph(pdf, prose(rng, 60), 60, y, w - 120, spec.font[0], 10, h)
    if two_tables is not None:
        y = draw_table(pdf, two_tables, 60, y + 10, h) + 14
        draw_paragraph(pdf, prose(rng, 30), 60, y, w - 120, spec.font[0], 10, h)
    pdf.showPage()
    pdf.save()


def two_column_page(path: Path, spec: Spec, rng: random.Random) -> None:
    w, h = A4
    pdf = canvas.Canvas(str(path), pagesize=(w, h), invariant=1)
    col_w = (w - 120 - 24) / 2
    table_col = rng.choice([0, 1])
    for col in (0, 1):
        x = 60 + col * (col_w + 24)
        y = 60.0
        y = draw_paragraph(pdf, prose(rng, 70), x, y, col_w, spec.font[0], 9, h)
        if col == table_col:
            y = draw_table(pdf, spec, x, y + 6, h) + 12
        y = draw_paragraph(pdf, prose(rng, 90), x, y, col_w, spec.font[0], 9, h)
        draw_paragraph(pdf, prose(rng, 60), x, y, col_w, spec.font[0], 9, h)
    pdf.showPage()
    pdf.save()


def small_table(rng: random.Random) -> Spec:
    rows = [[Cell("Unit"), Cell("Q1"), Cell("Q2")]]
    for name in rng.sample(["Pumps", "Valves", "Motors", "Seals", "Filters", "Gears"], rng.randint(4, 6)):
        rows.append([Cell(name), Cell(f"{rng.randint(10, 9999):,}"), Cell(f"{rng.randint(10, 9999):,}")])
    return Spec(rows, ["l", "r", "r"], 1, rng.choice(FONTS), 8.0, 18.0)


def arabic_table(rng: random.Random) -> Spec | None:
    """A price list whose item names are Arabic (DejaVu Sans has the glyphs; reportlab draws them
    in the order given, so they are given in visual order: the reversed logical string)."""
    if not DEJAVU.is_file():
        return None
    pdfmetrics.registerFont(TTFont("DejaVuSans", str(DEJAVU)))
    items = ["قهوة", "شاي", "خبز", "ماء", "عصير"]
    rows = [[Cell("Item"), Cell("Price")]]
    for item in rng.sample(items, 4):
        rows.append([Cell(item), Cell(f"{rng.uniform(1, 9):.2f}")])
    return Spec(rows, ["l", "r"], 1, ("DejaVuSans", "DejaVuSans"), 10.0, 40.0)


# --- negatives -----------------------------------------------------------------------------------


def negative_page(path: Path, kind: str, rng: random.Random) -> None:
    w, h = A4
    pdf = canvas.Canvas(str(path), pagesize=(w, h), invariant=1)
    font, bold = rng.choice(FONTS)
    y = 60.0
    if kind == "twocol":
        col_w = (w - 120 - 20) / 2
        for col in (0, 1):
            yy = y
            for _ in range(4):
                yy = draw_paragraph(pdf, prose(rng, 80), 60 + col * (col_w + 20), yy, col_w, font, 9, h)
    elif kind == "numbered":
        for i in range(1, 13):
            label = f"{i}."
            pdf.setFont(font, 10)
            pdf.drawRightString(80, h - y - 10, label)
            y = draw_paragraph(pdf, prose(rng, rng.randint(8, 30)), 90, y, w - 160, font, 10, h)
    elif kind == "bullets":
        for _ in range(10):
            pdf.setFont(font, 10)
            pdf.drawString(70, h - y - 10, "•")
            y = draw_paragraph(pdf, prose(rng, rng.randint(5, 25)), 84, y, w - 150, font, 10, h)
    elif kind == "justified":
        from reportlab.lib.enums import TA_JUSTIFY
        from reportlab.lib.styles import ParagraphStyle
        from reportlab.platypus import Paragraph

        style = ParagraphStyle("j", fontName=font, fontSize=10, leading=13, alignment=TA_JUSTIFY)
        for _ in range(4):
            text = " ".join(
                rng.choice([*WORDS, "internationalisation", "responsibilities"]) for _ in range(70)
            )
            para = Paragraph(text, style)
            _, ph = para.wrap(rng.choice([200, 260, 320]), h)
            para.drawOn(pdf, 60, h - y - ph)
            y += ph + 12
    elif kind == "toc":
        entries = [
            "Introduction",
            "Scope of the report",
            "Methods",
            "Data sources",
            "Results",
            "Regional results",
            "Discussion",
            "Limitations",
            "Conclusions",
            "References",
            "Annex A",
            "Annex B",
        ]
        page = 1
        for i, entry in enumerate(entries):
            page += rng.randint(1, 6)
            label = f"{i + 1}  {entry}" if rng.random() < 0.5 else entry
            pdf.setFont(font, 10)
            pdf.drawString(70, h - y - 10, label)
            lw = pdfmetrics.stringWidth(label, font, 10)
            dots_w = pdfmetrics.stringWidth(".", font, 10)
            n = int((w - 70 - 90 - lw - 10) / dots_w)
            pdf.drawString(72 + lw, h - y - 10, "." * n)
            pdf.drawRightString(w - 70, h - y - 10, str(page))
            y += 16
    elif kind == "form":
        labels = [
            "Name:",
            "Date of birth:",
            "Address:",
            "City:",
            "Postal code:",
            "Phone:",
            "E-mail:",
            "Employer:",
            "Position:",
            "Start date:",
        ]
        values = [
            "Jane Smith",
            "12/03/1980",
            "14 Elm Street",
            "Springfield",
            "40213",
            "555-0134",
            "jane@example.org",
            "Acme Corp",
            "Engineer",
            "01/02/2019",
        ]
        for label, value in zip(labels, values, strict=True):
            pdf.setFont(bold, 10)
            pdf.drawString(70, h - y - 10, label)
            pdf.setFont(font, 10)
            pdf.drawString(180, h - y - 10, value)
            y += 18
    elif kind == "code":
        lines = [
            "def total(values):          # sum of the values",
            "    result = 0              # running total",
            "    for value in values:    # each item",
            "        result += value",
            "    return result",
            "",
            "WIDTH   = 80                # columns",
            "HEIGHT  = 24                # rows",
            "MARGIN  = 4                 # cells",
            "config  = {'a': 1, 'b': 2}  # defaults",
        ]
        for line in lines:
            pdf.setFont("Courier", 9)
            pdf.drawString(70, h - y - 9, line)
            y += 11
    else:
        raise ValueError(f"unknown negative kind {kind!r}")
    pdf.showPage()
    pdf.save()


POSITIVE = {
    "financial": (financial, 8),
    "statistics": (statistics, 6),
    "price": (price_list, 5),
    "booktabs": (booktabs, 5),
    "ruled": (ruled, 4),
}
NEGATIVE = {"twocol": 2, "numbered": 2, "bullets": 1, "justified": 2, "toc": 2, "form": 2, "code": 1}


def table_entry(spec: Spec, ruled: bool = False) -> dict[str, object]:
    return {"rows": spec.expected(), "header_rows": spec.header_rows, "ruled": ruled}


def generate(out: Path) -> list[dict[str, object]]:
    (out / "pdfs").mkdir(parents=True, exist_ok=True)
    cases: list[dict[str, object]] = []

    def add(case_id: str, family: str, tables: Sequence[dict[str, object]]) -> None:
        cases.append(
            {"id": case_id, "pdf": f"pdfs/{case_id}.pdf", "page": 1, "family": family, "tables": list(tables)}
        )

    for family, (make, count) in POSITIVE.items():
        for k in range(count):
            case_id = f"{family}-{k}"
            rng = random.Random(case_id)
            spec = make(rng)
            second = financial(rng) if family == "financial" and k % 4 == 3 else None
            single_table_page(out / "pdfs" / f"{case_id}.pdf", spec, rng, second)
            tables = [table_entry(spec, family == "ruled")] + ([table_entry(second)] if second else [])
            add(case_id, family, tables)
    for k in range(4):
        case_id = f"twocolumn-table-{k}"
        rng = random.Random(case_id)
        spec = small_table(rng)
        two_column_page(out / "pdfs" / f"{case_id}.pdf", spec, rng)
        add(case_id, "twocolumn-table", [table_entry(spec)])
    rng = random.Random("arabic-0")
    arabic = arabic_table(rng)
    if arabic is not None:
        visual = Spec(
            [
                [Cell(c.text[::-1]) if j == 0 else c for j, c in enumerate(row)] if r else row
                for r, row in enumerate(arabic.rows)
            ],
            arabic.align,
            1,
            arabic.font,
            arabic.size,
            arabic.gap,
        )
        single_table_page(out / "pdfs" / "arabic-0.pdf", visual, rng)
        add("arabic-0", "arabic", [table_entry(arabic)])
    for kind, count in NEGATIVE.items():
        for k in range(count):
            case_id = f"neg-{kind}-{k}"
            negative_page(out / "pdfs" / f"{case_id}.pdf", kind, random.Random(case_id))
            add(case_id, f"negative-{kind}", [])
    (out / "expected.json").write_text(json.dumps({"cases": cases}, ensure_ascii=False, indent=1) + "\n")
    return cases


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=HERE)
    args = ap.parse_args()
    cases = generate(args.out)
    print(f"{len(cases)} cases, {sum(len(c['tables']) for c in cases)} tables -> {args.out}")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
