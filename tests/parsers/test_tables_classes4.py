"""Table layouts of issue 24 (session 10), drawn anew with reportlab (no dev-set page copied) and read
through the PDF parser; each behaviour test failed on main's code (34a9ef0). Plus guards that
pass on both."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.source import SourceFile

HEIGHT = A4[1]
FONT, SIZE = "Times-Roman", 9


def _tables(path: Path) -> list[list[tuple[str, ...]]]:
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    return [[tuple(r) for r in (*b.table.header, *b.table.body)] for b in doc.blocks if b.table is not None]


# --- centred labels of tight columns, wider than their figures ----------------------------------

GROUPS = ("Hospital dataset A", "Hospital dataset B", "Clinic dataset C")
LABELS = ("Jaccard +", "DDI -", "Recall +", "F1 -")
METHODS = ("Baseline", "No graph", "No priors", "Ours (small)", "Ours")


def _figures(i: int) -> list[str]:
    return [f"0.{(3817 + 611 * i + 97 * j) % 9000 + 1000}" for j in range(len(LABELS) * len(GROUPS))]


def _results_table(path: Path, gap: float, rules: str) -> list[tuple[str, ...]]:
    """A results table of three column groups with four figure columns each, figures ``gap`` points
    apart, each sub-label centred over its figures, some wider than them, some narrower; ``rules``:
    ``groups``, ruled between the column groups only (and around the table), or ``booktabs`` (top,
    mid and bottom rules, a partial rule under each group label). Returns the rows as
    drawn: group labels in the first column each spans, sub-labels, then the body."""
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont(FONT, SIZE)
    fig_w = c.stringWidth("0.0000", FONT, SIZE)
    x, lefts, group_x = 110.0, [], []
    for _g in GROUPS:
        group_x.append(x - gap / 2)
        for _k in LABELS:
            lefts.append(x)
            x += fig_w + gap
        x += 2 * gap
    right = x - 2 * gap
    y = HEIGHT - 120
    top = y + 12
    c.drawString(60, y - 6, "Methods")
    for g, name in enumerate(GROUPS):
        lo = lefts[4 * g]
        hi = lefts[4 * g + 3] + fig_w
        c.drawCentredString((lo + hi) / 2, y, name)
        if rules == "booktabs":  # a partial rule under each group label (cmidrule)
            c.line(lo, y - 3, hi, y - 3)
    y -= 11
    for j, left in enumerate(lefts):
        c.drawCentredString(left + fig_w / 2, y, LABELS[j % 4])
    head = y - 3
    rows = []
    for i, name in enumerate(METHODS):
        y -= 11
        c.drawString(60, y, name)
        for left, text in zip(lefts, _figures(i), strict=True):
            c.drawString(left, y, text)
        rows.append((name, *_figures(i)))
    bottom = y - 4
    c.line(55, top, right, top)
    c.line(55, head, right, head)
    c.line(55, bottom, right, bottom)
    if rules == "groups":
        for xg in (55, *group_x, right):
            c.line(xg, top, xg, bottom)
    c.save()
    first = ["Methods"]
    for name in GROUPS:
        first += [name, "", "", ""]
    return [tuple(first), ("", *(LABELS * 3)), *rows]


@pytest.mark.parametrize("gap", [7.5, 8.0])
def test_centred_labels_of_tight_columns_part(tmp_path: Path, gap: float) -> None:
    """A table ruled between its column groups only, sub-labels centred over figure columns
    7.5-8 pt apart, one wider than its figures ("Jaccard +") beside one narrower ("DDI -"): the
    4.5-5 pt between them (0.5 font sizes, over a word space, under a cell gap) straddles the
    body's white strip instead of lying inside it. Each label is its own cell; on main the two
    ran into one cell ("Jaccard + DDI -")."""
    path = tmp_path / "results.pdf"
    expected = _results_table(path, gap, "groups")
    assert _tables(path) == [expected]


@pytest.mark.parametrize("gap", [7.5, 8.0])
def test_centred_labels_under_group_rules_stay_apart(tmp_path: Path, gap: float) -> None:
    """Guard: the same table in booktabs with a partial rule under each group label; the header is
    rebuilt from those rules (each word by its centre), as on main."""
    path = tmp_path / "results_booktabs.pdf"
    expected = _results_table(path, gap, "booktabs")
    assert _tables(path) == [expected]
