"""A results table ruled between its column groups only (issue 24): vertical rules around the label
columns and each group of five figure columns, horizontal rules at the top, under the header,
between the row groups and at the bottom; group labels ("Top-20", "Top-100") centred over their
sub-columns. Each ruled column holds five figure columns, so the grid alone gave three columns
of packed cells ("78.4 79.4 73.2 79.8 63.2"). Drawn with reportlab, read through the parser; one
guard: a ruled table whose cells hold a figure each is left as ruled."""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from parsers.options import ParseOptions
from parsers.pdf import page_reader
from parsers.pdf import parser as pdf
from parsers.source import SourceFile

SETS = ("NQ", "Trivia", "WQ", "TREC", "SQuAD")
BODY = [
    ("None", "BM25", "59.1 66.9 55.0 70.9 68.8", "73.7 76.7 71.1 84.1 80.0"),
    ("Single", "DPR", "78.4 79.4 73.2 79.8 63.2", "85.4 85.0 81.4 89.1 77.2"),
    ("Single", "Hybrid", "76.6 79.8 71.0 85.2 71.5", "83.8 84.5 80.5 92.7 81.3"),
    ("Multi", "DPR", "79.4 78.8 75.0 89.1 51.6", "86.0 84.7 82.9 93.9 67.6"),
    ("Multi", "Hybrid", "78.0 79.9 74.7 88.5 66.2", "83.9 84.4 82.3 94.1 78.6"),
]
LABEL_X = (80.0, 140.0)
GROUP_X = (200.0, 370.0)  # first sub-column of each group; sub-columns 32 pt apart
RULES_X = (75.0, 195.0, 365.0, 535.0)
STEP = 32.0


def _results_pdf(path: Path) -> None:
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    h = A4[1]
    c.setFont("Helvetica", 10)
    c.drawString(75, h - 60, "Table 2: Top-20 and Top-100 retrieval accuracy on the test sets.")
    top, y = h - 80, h - 94
    c.setFont("Helvetica", 9)
    c.drawString(LABEL_X[0], y, "Training")
    c.drawString(LABEL_X[1], y, "Retriever")
    for gx, label in zip(GROUP_X, ("Top-20", "Top-100"), strict=True):
        c.drawCentredString(gx + 2 * STEP + 8, y, label)
    y -= 12
    for gx in GROUP_X:
        for k, name in enumerate(SETS):
            c.drawString(gx + k * STEP, y, name)
    under = y - 5
    groups = []  # rules between the row groups (None | Single | Multi), as the paper draws them
    for k, (training, retriever, first, second) in enumerate(BODY):
        if k and training != BODY[k - 1][0]:
            groups.append(y - 4)
        y -= 13
        c.drawString(LABEL_X[0], y, training)
        c.drawString(LABEL_X[1], y, retriever)
        for gx, figures in zip(GROUP_X, (first, second), strict=True):
            for k, value in enumerate(figures.split()):
                c.drawString(gx + k * STEP, y, value)
    bottom = y - 6
    for rule in (top, under, *groups, bottom):
        c.line(RULES_X[0], rule, RULES_X[-1], rule)
    for x in RULES_X:
        c.line(x, top, x, bottom)
    c.drawString(75, bottom - 30, "Hybrid combines the two retrievers' scores linearly.")
    c.showPage()
    c.save()


def test_ruled_column_groups_are_read_as_their_sub_columns(tmp_path: Path) -> None:
    path = tmp_path / "results.pdf"
    _results_pdf(path)
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    (table,) = [b.table for b in doc.blocks if b.table is not None]
    blank = [""] * 4
    expected = [
        ["Training", "Retriever", "Top-20", *blank, "Top-100", *blank],
        ["", "", *SETS, *SETS],
        *([t, r, *a.split(), *b.split()] for t, r, a, b in BODY),
    ]
    assert [list(r) for r in table.rows] == expected
    assert table.header_rows == 2


def test_packed_figures_need_several_cells_of_figures_side_by_side() -> None:
    assert page_reader._packed_figures([["DPR", "78.4 79.4 73.2", "85.4 85.0 81.4"]])
    assert not page_reader._packed_figures([["DPR", "78.4", "85.4"], ["BM25", "59.1", "73.7"]])
    assert not page_reader._packed_figures([["Range", "1.5 - 2.0 V at 25 C"], ["Weight", "3380 ± 50 g"]])
