"""Table layouts of issue 24 (session 10), drawn anew with reportlab (no dev-set page copied) and read
through the PDF parser: centred labels of tight columns, side-by-side tables on the same rows, a
spaced title line, ruled group labels over sub-columns of words, records in shaded bands, a table
beside justified prose. Each behaviour test failed on main's code (34a9ef0); the guards (named
so, or "stay" in their names) pass on both."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import cycle
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


# --- title lines set flush left above a table --------------------------------------------------

ITEMS = [
    ("North", "1,204", "31,100", "12.1"),
    ("South", "982", "24,020", "10.9"),
    ("East", "2,310", "52,205", "14.5"),
    ("West", "744", "18,801", "9.7"),
    ("Central", "1,530", "41,612", "11.4"),
]
REPORT_LABELS = ("Region", "Units", "Revenue", "Margin")
RIGHTS = (200, 280, 360)


def _report_then_prose(c, path, y: float) -> list[str]:
    """Draw the report's label row and items from ``y`` down on canvas ``c``, save it to ``path``
    and return the text of every block that is not a table (what became prose)."""
    c.setFont("Helvetica", 9)
    for row in (REPORT_LABELS, *ITEMS):
        c.drawString(60, y, row[0])
        for cell, right in zip(row[1:], RIGHTS, strict=True):
            c.drawString(right - c.stringWidth(cell, "Helvetica", 9), y, cell)
        y -= 12
    c.save()
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    return [" ".join(b.text.split()) for b in doc.blocks if b.table is None]


def _report(path: Path, above: Sequence[str], x: float, font: str, leading: float = 12) -> list[str]:
    """``above`` set from ``x`` (flush left at the table's left edge: 60) over a table (label
    column at 60, figures right-aligned at 200 / 280 / 360), at ``leading`` points; returns the
    page's prose blocks."""
    c = canvas.Canvas(str(path), pagesize=A4)
    y = HEIGHT - 80
    for text in above:
        c.setFont(font, 9)
        c.drawString(x, y, text)
        y -= leading
    return _report_then_prose(c, path, y)


@pytest.mark.parametrize(
    ("above", "font"),
    [
        (("Quarterly sales report, all regions", "Fiscal year 2016 (in $000)"), "Helvetica-Bold"),
        (("Sales by region and quarter, fiscal year 2016",), "Helvetica"),
    ],
    ids=["bold-two-lines", "plain-one-line"],
)
def test_title_lines_flush_left_over_a_table_are_no_header_rows(
    tmp_path: Path, above: tuple[str, ...], font: str
) -> None:
    """Guard: report title lines set flush left at the table's left edge, right above its column
    labels at the table's line spacing, each one run of words: they stay prose, the table starts at
    its labels (as on main; the spaced variant below failed there)."""
    path = tmp_path / "titled_left.pdf"
    prose = _report(path, above, 60, font)
    assert _tables(path) == [[REPORT_LABELS, *ITEMS]]
    assert " ".join(above) in " ".join(prose)


# --- two tables side by side whose rows line up exactly ------------------------------------------

COUNTRIES = [
    ("Country", "Population", "Share"),
    ("Austria", "9,042", "2.0"),
    ("Belgium", "11,742", "2.6"),
    ("Croatia", "3,862", "0.9"),
    ("Denmark", "5,933", "1.3"),
    ("Estonia", "1,366", "0.3"),
    ("Finland", "5,564", "1.2"),
    ("Greece", "10,394", "2.3"),
]
MORE = [
    ("Country", "Population", "Share"),
    ("Hungary", "9,597", "2.1"),
    ("Ireland", "5,271", "1.2"),
    ("Latvia", "1,883", "0.4"),
    ("Malta", "542", "0.1"),
    ("Poland", "36,754", "8.2"),
    ("Romania", "19,051", "4.2"),
    ("Spain", "48,085", "10.7"),
]


Rows = Sequence[Sequence[str]]


def _folded(path: Path, left: Rows, right: Rows, gap: float, titles: Sequence[str]) -> None:
    """Two tables on the same baselines (12 pt apart), the second ``gap`` points right of the first's
    last column, each under its title line (when ``titles``); labels flush left, figures flush right."""
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 9)
    for k, (x0, rows) in enumerate(((50, left), (50 + 150 + gap, right))):
        y = HEIGHT - 140
        if titles:
            c.drawString(x0, y + 18, titles[k])
        for row in rows:
            c.drawString(x0, y, row[0])
            for text, right_x in zip(row[1:], (x0 + 100, x0 + 150), strict=True):
                c.drawString(right_x - c.stringWidth(text, "Helvetica", 9), y, text)
            y -= 12
    c.save()


@pytest.mark.parametrize("gap", [30.0, 60.0])
def test_side_by_side_tables_with_the_same_labels_on_the_same_rows(tmp_path: Path, gap: float) -> None:
    """Two tables side by side under their own captions, with the same column labels, rows on the
    same baselines (no row on one side only, so nothing tells them apart but the labels): two
    tables. On main one six-column table."""
    path = tmp_path / "twins.pdf"
    _folded(path, COUNTRIES, MORE, gap, ("Table 1: Members A-G", "Table 2: Members H-S"))
    assert _tables(path) == [COUNTRIES, MORE]


def test_a_folded_list_is_one_table(tmp_path: Path) -> None:
    """A long list folded into two halves side by side, the labels repeated, no caption of their
    own: the halves are cut apart and the second read as the first's continuation, one table of
    three columns (on main one six-column table)."""
    path = tmp_path / "folded.pdf"
    _folded(path, COUNTRIES, MORE, 40.0, ())
    assert _tables(path) == [[*COUNTRIES, *MORE[1:]]]


def test_repeated_sub_labels_over_figure_columns_stay_one_table(tmp_path: Path) -> None:
    """Guard: sub-labels repeated under two year groups ("Units Revenue Units Revenue") over figure
    columns: one table, as on main."""
    rows = [("", "2015", "", "2016", ""), ("Region", "Units", "Revenue", "Units", "Revenue")]
    rows += [(r[0], r[1], r[2], r[1][::-1].strip(","), r[2][::-1].strip(",")) for r in ITEMS]
    path = tmp_path / "groups.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 9)
    y = HEIGHT - 140
    for row in rows:
        c.drawString(60, y, row[0])
        for text, right in zip(row[1:], (180, 250, 340, 410), strict=True):
            c.drawString(right - c.stringWidth(text, "Helvetica", 9), y, text)
        y -= 12
    c.save()
    (table,) = _tables(path)
    assert table[-5:] == rows[-5:]


def _spaced_report(path: Path, title: str, wordspace: float, x: float = 60) -> list[str]:
    """``title`` set from ``x`` with ``wordspace`` points added to each word space, over the table."""
    c = canvas.Canvas(str(path), pagesize=A4)
    y = HEIGHT - 80
    text = c.beginText(x, y)
    text.setFont("Helvetica-Bold", 9)
    text.setWordSpace(wordspace)
    text.textLine(title)
    c.drawText(text)
    y -= 12
    return _report_then_prose(c, path, y)


SPACED_TITLES = ["Sales by region, fiscal year 2016", "Units and revenue by region, all stores"]


@pytest.mark.parametrize("wordspace", [4.0, 8.0])
@pytest.mark.parametrize("title", SPACED_TITLES)
def test_a_spaced_title_line_flush_left_is_no_header_row(
    tmp_path: Path, title: str, wordspace: float
) -> None:
    """A title line flush left over the table with its words set 4-8 pt wider than a word space (a
    justified or letter-spaced title), so its gaps part cells: it stays prose. On main it was a
    header row of two or three cells."""
    path = tmp_path / "spaced.pdf"
    prose = _spaced_report(path, title, wordspace)
    assert _tables(path) == [[REPORT_LABELS, *ITEMS]]
    assert title in " ".join(prose)


def test_single_word_labels_evenly_spaced_stay_a_header_row(tmp_path: Path) -> None:
    """Guard: column labels of one word each, flush left over left-aligned columns set at even
    distances (so no gap between them stands out): the header row of the table, as on main."""
    rows = [("Shop", "Units", "Sales", "Share"), ("Ames", "1,204", "31,100", "12.1")]
    rows += [("Berg", "982", "24,020", "10.9"), ("Cole", "2,310", "52,205", "14.5")]
    rows += [("Dunn", "744", "18,801", "9.7"), ("Eyre", "1,530", "41,612", "11.4")]
    path = tmp_path / "even.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 9)
    y = HEIGHT - 140
    for row in rows:
        for cell, x in zip(row, (60, 110, 160, 210), strict=True):
            c.drawString(x, y, cell)
        y -= 12
    c.save()
    assert _tables(path) == [rows]


# --- ruled group labels over sub-columns of words -------------------------------------------------

PRONOUNS = [
    ("Case", "First person", "", "Second person", "", "Third person", ""),
    ("", "Sing.", "Plural", "Sing.", "Plural", "Sing.", "Plural"),
    ("Subject", "I", "we", "you", "you", "she", "they"),
    ("Object", "me", "us", "you", "you", "her", "them"),
    ("Possessive", "mine", "ours", "yours", "yours", "hers", "theirs"),
    ("Reflexive", "myself", "ourselves", "yourself", "yourselves", "herself", "themselves"),
]


def _grouped(path: Path, rows: Sequence[Sequence[str]], subs: Sequence[float], centred: bool) -> None:
    """A grid ruled around its column groups only (three groups of two sub-columns starting at
    ``subs`` offsets inside each group), every row ruled; the group labels in the first row,
    centred over their group or set at its left."""
    groups = ((140, 270), (270, 420), (420, 570))
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 9)
    y = HEIGHT - 120
    ys = [y + 12]
    for i, row in enumerate(rows):
        c.drawString(64, y, row[0])
        for g, (lo, hi) in enumerate(groups):
            for k in (0, 1):
                text = row[1 + 2 * g + k]
                if not text:
                    continue
                if i == 0 and centred:
                    c.drawCentredString((lo + hi) / 2, y, text)
                else:
                    c.drawString(lo + subs[k], y, text)
        y -= 16
        ys.append(y + 12)
    for yy in ys:
        c.line(60, yy, 570, yy)
    for x in (60, 140, 270, 420, 570):
        c.line(x, ys[0], x, ys[-1])
    c.save()


@pytest.mark.parametrize("centred", [True, False], ids=["centred", "left"])
@pytest.mark.parametrize("subs", [(4, 60), (8, 70)])
def test_ruled_group_labels_over_sub_columns_of_words(
    tmp_path: Path, subs: tuple[float, float], centred: bool
) -> None:
    """A pronoun table ruled around its three column groups and between its rows, no rule between
    the "Sing." and "Plural" sub-columns: seven columns, each group label in the first sub-column it
    spans. On main four columns ("Sing. Plural", "I we" in one cell)."""
    path = tmp_path / "pronouns.pdf"
    _grouped(path, PRONOUNS, subs, centred)
    assert _tables(path) == [PRONOUNS]


def test_two_words_in_ruled_cells_stay_one_cell(tmp_path: Path) -> None:
    """Guard: a ruled column whose cells hold two words each, the second words aligned (a first
    name and a surname, "kg" after a figure): one cell each, as on main."""
    rows = [("Name", "Weight", "City"), ("Ann Smith", "12 kg", "Leeds"), ("Bob Jones", "150 kg", "York")]
    rows += [("Cara Lee", "7 kg", "Bath"), ("Dan Wu", "64 kg", "Hull"), ("Eve Khan", "3 kg", "Derby")]
    path = tmp_path / "pairs.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 9)
    y = HEIGHT - 120
    ys = [y + 12]
    for row in rows:
        c.drawString(64, y, row[0])
        c.drawRightString(236, y, row[1])
        c.drawString(264, y, row[2])
        y -= 16
        ys.append(y + 12)
    for yy in ys:
        c.line(60, yy, 360, yy)
    for x in (60, 160, 260, 360):
        c.line(x, ys[0], x, ys[-1])
    c.save()
    assert _tables(path) == [rows]


# --- records in shaded bands, each with a note over the whole width ------------------------------

INCIDENTS = [
    ("March 2, 2004", "Leeds, U.K.", "Fokker 70", "minor", "none"),
    ("Aug. 9, 2005", "Porto, Portugal", "Airbus A319", "substantial", "2 minor"),
    ("Jan. 14, 2006", "Graz, Austria", "Dash 8-300", "none", "none"),
    ("June 30, 2006", "Bergen, Norway", "Boeing 737-500", "destroyed", "3 fatal"),
]
NOTES = [
    "The crew reported a smell of smoke in the cabin and returned to the departure airport.",
    "A cargo door opened after takeoff. The aircraft landed safely with minor damage to the door.",
    "During descent the cabin altitude warning sounded; the crew made an emergency descent.",
    "The aircraft overran the runway in heavy rain and came to rest in a field beyond its end.",
]
FIELDS = ("Date", "Location", "Aircraft Type", "Damage", "Injuries")
XS = (64, 150, 270, 380, 460)


def _bands(path: Path, same_band: bool, footer: bool) -> None:
    """A title band, a band of labels, then each record's line and its note (in the record's band or
    a band of its own), bands shaded in turn, no rules; a sources band under the last when
    ``footer``."""
    c = canvas.Canvas(str(path), pagesize=A4)
    y = HEIGHT - 80

    def band(lines: Sequence[Sequence[tuple[float, str]]], shade: float) -> None:
        nonlocal y
        height = 12 * len(lines) + 6
        c.setFillGray(shade)
        c.rect(60, y - height, 480, height, stroke=0, fill=1)
        c.setFillGray(0)
        for k, parts in enumerate(lines):
            for x, text in parts:
                c.drawString(x, y - 12 - 12 * k, text)
        y -= height

    c.setFont("Helvetica-Bold", 9)
    band([[(64, "Incidents involving cabin smoke and door failures, 2004-2006")]], 0.75)
    band([list(zip(XS, FIELDS, strict=True))], 0.85)
    c.setFont("Helvetica", 9)
    for k, (record, note) in enumerate(zip(INCIDENTS, NOTES, strict=True)):
        shade = 0.92 if k % 2 else 0.97
        if same_band:
            band([list(zip(XS, record, strict=True)), [(64, note)]], shade)
        else:
            band([list(zip(XS, record, strict=True))], shade)
            band([[(64, note)]], shade)
    if footer:
        band([[(64, "Sources: national accident investigation boards")]], 0.85)
    c.save()


@pytest.mark.parametrize("footer", [False, True], ids=["plain", "sources"])
@pytest.mark.parametrize("same_band", [True, False], ids=["one-band", "two-bands"])
def test_records_in_shaded_bands_with_notes(tmp_path: Path, same_band: bool, footer: bool) -> None:
    """An incident list drawn as shaded full-width bands (no rules): a band of labels, then each
    record's fields and a note over the whole width under them. One table: the labels, each record
    a row, each note a row of its own in the first cell; the sources line under it stays prose. On
    main no table (one column of bands, "text in one column only")."""
    path = tmp_path / "bands.pdf"
    _bands(path, same_band, footer)
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    tables = [b.table for b in doc.blocks if b.table is not None]
    expected = [FIELDS]
    for record, note in zip(INCIDENTS, NOTES, strict=True):
        expected += [record, (note, "", "", "", "")]
    assert [list(t.rows) for t in tables] == [expected]
    assert tables[0].title == "Incidents involving cabin smoke and door failures, 2004-2006"
    prose = " ".join(b.text for b in doc.blocks if b.table is None)
    assert ("Sources: national accident" in prose) is footer


def test_paragraphs_in_shaded_bands_are_no_table(tmp_path: Path) -> None:
    """Guard: paragraphs set in shaded full-width bands, one under another (a boxed list of notes):
    no table, as on main."""
    path = tmp_path / "boxes.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 9)
    y = HEIGHT - 80
    for k, note in enumerate(NOTES * 2):
        c.setFillGray(0.92 if k % 2 else 0.97)
        c.rect(60, y - 30, 480, 30, stroke=0, fill=1)
        c.setFillGray(0)
        c.drawString(64, y - 12, note)
        c.drawString(64, y - 24, "Reported by the operator; see the annex for details.")
        y -= 30
    c.save()
    assert _tables(path) == []


# --- a table beside justified prose in a two-column paper ---------------------------------------

TEXT = [
    "the",
    "nodes",
    "of",
    "each",
    "zone",
    "elect",
    "a",
    "head",
    "which",
    "keeps",
    "track",
    "of",
    "the",
    "members",
    "and",
    "forwards",
    "their",
    "data",
    "towards",
    "the",
    "base",
    "station",
    "while",
    "the",
    "other",
    "nodes",
    "sleep",
    "to",
    "save",
    "energy",
    "when",
    "a",
    "head",
    "moves",
    "away",
    "from",
    "its",
    "zone",
    "the",
    "members",
    "elect",
    "a",
    "new",
    "head",
    "and",
    "the",
    "routes",
    "are",
    "repaired",
    "locally",
    "so",
    "that",
    "no",
    "flooding",
    "of",
    "the",
    "whole",
    "network",
    "is",
    "needed",
    "and",
    "the",
    "control",
    "traffic",
    "stays",
    "low",
    "in",
    "every",
    "scenario",
    "we",
    "tested",
    "with",
    "static",
    "partly",
    "mobile",
    "and",
    "fully",
    "mobile",
    "nodes",
    "over",
    "several",
    "runs",
]
PARAMETERS = [
    ("Parameter", "Value"),
    ("Simulation time", "100 sec"),
    ("Field size", "100m x 100m"),
    ("Zone size", "10m x 10m"),
    ("MAC layer", "IEEE 802.11"),
    ("Packet length", "40 bytes"),
    ("Data interval", "0.25 sec"),
    ("Radio range", "20 m"),
    ("Node velocity", "10 km/h"),
]


def _justified_column(c: canvas.Canvas, x0: float, x1: float, top: float, lines: int, loose: int) -> None:
    """``lines`` lines of prose justified from ``x0`` to ``x1``, 10 pt apart from ``top`` down: each
    line as many words as fit at a normal word space; of every three lines the last ``loose`` two
    words fewer (word spaces stretched to 6-10 pt, wider than a cell gap, as justification sets a
    line followed by a long word)."""
    words = cycle(TEXT)
    pending = next(words)
    for k in range(lines):
        line = [pending]
        pending = next(words)
        while c.stringWidth(" ".join([*line, pending]), "Times-Roman", 9) < x1 - x0:
            line.append(pending)
            pending = next(words)
        if k % 3 >= 3 - loose:
            line = line[:-2]
        widths = [c.stringWidth(w, "Times-Roman", 9) for w in line]
        gap = (x1 - x0 - sum(widths)) / (len(line) - 1)
        x = x0
        for w, width in zip(line, widths, strict=True):
            c.drawString(x, top - 10 * k, w)
            x += width + gap


@pytest.mark.parametrize("caption", [True, False], ids=["caption", "no-caption"])
def test_a_table_beside_justified_prose(tmp_path: Path, caption: bool) -> None:
    """A two-column paper page: the left column justified prose, two of every three lines with
    word spaces stretched over a cell gap (cut into short chunks); the right column
    prose with a booktabs parameter table (rows 8 pt apart, a smaller font) beside the left
    column's lines; with ``caption``, a figure caption centred across both columns at the foot.
    The table is read alone, every row. On main: with the caption, no gutter, the table lost
    among the chunked lines; without it, rows beside two chunked lines joined the prose side."""
    path = tmp_path / "paper.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Times-Roman", 9)
    _justified_column(c, 60, 290, HEIGHT - 80, 48, 2)
    _justified_column(c, 310, 540, HEIGHT - 80, 14, 0)
    y = HEIGHT - 80 - 10 * 14 - 14
    c.setFont("Times-Roman", 7)
    c.line(320, y + 9, 500, y + 9)
    for k, (name, value) in enumerate(PARAMETERS):
        c.drawString(330, y, name)
        c.drawString(430, y, value)
        y -= 8
        if k == 0:
            c.line(320, y + 6, 500, y + 6)
    c.line(320, y + 6, 500, y + 6)
    c.setFont("Times-Roman", 9)
    _justified_column(c, 310, 540, y - 8, 20, 0)
    if caption:
        text = "Figure 8. Comparison of routing overhead in three network scenarios"
        c.drawCentredString(300, HEIGHT - 80 - 10 * 50, text)
    c.save()
    assert _tables(path) == [PARAMETERS]
