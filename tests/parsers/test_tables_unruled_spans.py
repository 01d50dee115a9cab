"""Unruled tables whose row labels span a group of rows (issue 24): a variables table (three-line
style) names each group of variables once, its label centred vertically beside the group, and a
results table sets "DP" / "L2" between the two loss rows each covers. The label used to come out
on a row of its own between two rows of its group. Drawn with reportlab, read through the parser,
plus a pure step on word boxes for what must stay as it is."""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.pdf.tables.unruled_cells import Word, lift_row_spans
from parsers.source import SourceFile

HEADER = ("Type", "Variable", "Symbol", "Definition")
# (group label, definition shared by the group and centred beside it, rows)
GROUPS: list[tuple[str, str, list[tuple[str, str, str]]]] = [
    ("Dependent", "", [("Distance to default", "DD", "KMV model")]),
    (
        "Explanatory",
        "Guo et al.",
        [("Inclusion index", "DIF", ""), ("Coverage", "DIF_B", ""), ("Usage depth", "DIF_D", "")]
        + [("Digital level", "DIF_L", "")],
    ),
    ("Mediator", "", [("Financing limits", "KZ", "Kaplan and Zingales")]),
    (
        "Controls",
        "",
        [
            ("Firm size", "Size", "ln assets"),
            ("Firm age", "Age", "ln years"),
            ("Fixed assets", "PPE", "ratio"),
        ]
        + [("Board size", "Board", "ln members"), ("Top holder", "Top1", "largest")]
        + [("Independence", "Indep", "share")],
    ),
]
XS = (60.0, 150.0, 270.0, 340.0)
LEADING = 15.0


def _variables_pdf(path: Path) -> None:
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    h = A4[1]
    c.setFont("Helvetica", 10)
    c.drawString(60, h - 60, "The variables of the model and how each is measured are listed below.")
    c.setFont("Helvetica-Bold", 10)
    c.drawString(60, h - 90, "Table 4.1 Variable definitions")
    c.line(55, h - 100, 500, h - 100)
    for x, text in zip(XS, HEADER, strict=True):
        c.drawString(x, h - 114, text)
    c.line(55, h - 120, 500, h - 120)
    c.setFont("Helvetica", 10)
    y = h - 134
    for label, shared, rows in GROUPS:
        middle = y - LEADING * (len(rows) - 1) / 2
        c.drawString(XS[0], middle, label)  # centred beside its rows
        if shared:
            c.drawString(XS[3], middle, shared)  # a definition spanning the group, centred too
        for name, symbol, definition in rows:
            for x, text in zip(XS[1:], (name, symbol, definition), strict=True):
                c.drawString(x, y, text)
            y -= LEADING
    c.line(55, y + 6, 500, y + 6)
    c.drawString(60, y - 20, "Sources: annual reports and the index provider; all figures yearly.")
    c.showPage()
    c.save()


def test_row_labels_centred_beside_their_groups_sit_in_the_first_row(tmp_path: Path) -> None:
    path = tmp_path / "variables.pdf"
    _variables_pdf(path)
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    (table,) = [b.table for b in doc.blocks if b.table is not None]
    expected = [list(HEADER)]
    for label, shared, rows in GROUPS:
        for k, (name, symbol, definition) in enumerate(rows):
            expected.append(
                [label if k == 0 else "", name, symbol, shared if k == 0 and shared else definition]
            )
    assert [list(r) for r in table.rows] == expected


def _w(text: str, x0: float, top: float) -> Word:
    return Word(text, x0, top, x0 + 6.0 * len(text), top + 10.0, size=10.0)


def test_section_labels_and_lone_rows_stay_rows() -> None:
    """A section label under a row with a label of its own, and a label-only row with nothing
    below it, are rows (nothing spans)."""
    grid = [
        [[_w("Jobs", 0, 0)], [_w("38,900", 200, 0)]],
        [[_w("By industry", 0, 14)], []],
        [[], [_w("5,300", 200, 28)]],
        [[_w("Other", 0, 42)], []],
    ]
    assert lift_row_spans(grid, 0) == grid


def test_next_sections_heading_under_a_table_is_not_its_last_row(tmp_path: Path) -> None:
    """A numbered heading set right under a table in a larger size, its number over the label
    column and its title over the first figure column (a thesis's "4.4.2 Replacing the variable"
    under a regression table; Chinese titles are one word to the text layer), used to come out as
    the table's last row."""
    rows = [("", "Z(1)", "Z(2)"), ("Top1", "0.00592", "0.00595"), ("Constant", "40.17", "44.50")]
    rows += [("N", "5580", "5580"), ("R-squared", "0.279", "0.279")]
    path = tmp_path / "heading-under.pdf"
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    h = A4[1]
    c.setFont("Helvetica", 10)
    c.drawString(60, h - 60, "The estimates keep their signs when the controls are added one by one.")
    for i, row in enumerate(rows):
        for x, text in zip((70.0, 200.0, 300.0), row, strict=True):
            c.drawString(x, h - 90 - 14 * i, text)
    c.setFont("Helvetica-Bold", 12)
    y = h - 90 - 14 * len(rows) - 8
    c.drawString(70, y, "4.4.2")
    c.drawString(200, y, "Robustness")  # one word, as a line of Chinese is to the text layer
    c.setFont("Helvetica", 10)
    c.drawString(60, y - 24, "This section replaces the index with its city-level version.")
    c.showPage()
    c.save()
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    (table,) = [b.table for b in doc.blocks if b.table is not None]
    assert [list(r) for r in table.rows] == [list(r) for r in rows]
    assert "Robustness" in " ".join(b.text for b in doc.blocks if b.table is None)
