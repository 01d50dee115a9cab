"""Unruled-table shapes met on the real-table dev set (eval/pdf-real, issue 24), drawn here anew:
a regression table (coefficients with superscript stars, standard errors on their own rows) under
a caption set with wide gaps, a subscript set against a row label on a two-column page, a row
label that merely starts with "Table", and Chinese prose beside a sidebar table. Pure steps on
word boxes, then one reportlab PDF through the parser."""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.pdf.tables import unruled
from parsers.pdf.tables.unruled import Word
from parsers.source import SourceFile

CHAR_W = 5.0


def word(text: str, x0: float, top: float, size: float = 10.0) -> Word:
    width = CHAR_W * len(text) * size / 10.0
    return Word(text, x0, top, x0 + width, top + size, size=size)


def coefficient(value: str, stars: str, x0: float, top: float) -> list[Word]:
    """A figure and its stars as the text layer splits them: a smaller word set high, touching."""
    base = word(value, x0, top)
    return [base, word(stars, base.x1, top - 2.0, size=6.0)] if stars else [base]


MODELS = ("Z(1)", "Z(2)", "Z(3)")
ROWS = (
    ("ln_Size", ("-1.816", "***"), ("-1.818", "**"), ("0.257", "")),
    ("ln_Age", ("0.242", "*"), ("0.244", ""), ("-0.0369", "***")),
    ("Indep", ("-0.0180", ""), ("-0.0191", "**"), ("0.212", "")),
)
COLUMNS = (150.0, 230.0, 310.0)


def regression_words(top: float = 100.0) -> list[Word]:
    """Caption (label and title parted by a wide gap), model header, then per variable a
    coefficient row and a standard-error row; "Table 3:" caption text under it."""
    out = [word("表 4.6", 120.0, top), word("替换被解释变量后的回归结果", 170.0, top)]
    out += [word(m, x, top + 20.0) for m, x in zip(MODELS, COLUMNS, strict=True)]
    y = top + 36.0
    for label, *cells in ROWS:
        out.append(word(label, 60.0, y))
        for (value, stars), x in zip(cells, COLUMNS, strict=True):
            out += coefficient(value, stars, x, y)
        out += [word("(0.105)", x, y + 13.0) for x in COLUMNS]
        y += 26.0
    out += [word("Table 3:", 60.0, y + 6.0), word("Results", 130.0, y + 6.0), word("by", 200.0, y + 6.0)]
    return out


def expected_rows() -> list[tuple[str, ...]]:
    rows = [("", *MODELS)]
    for label, *cells in ROWS:
        rows.append((label, *(v + s for v, s in cells)))
        rows.append(("", "(0.105)", "(0.105)", "(0.105)"))
    return rows


def test_regression_table_stars_join_and_captions_are_no_rows() -> None:
    found = unruled.find_tables(regression_words())
    assert len(found) == 1
    assert [tuple(r) for r in found[0].rows] == expected_rows()
    assert found[0].header_rows == 1


def test_raised_script_grouped_with_prose_moves_to_its_base() -> None:
    """Two text columns: a raised "(1)" overlaps the left column's prose line more than its own
    base word, which starts lower; it still ends up after "G.+BM25", on the table's line."""
    prose = [word("retrieval", 60.0, 149.5, size=9.0), word("accuracy", 110.0, 149.5, size=9.0)]
    base = word("G.+BM25", 320.0, 157.0, size=9.0)
    sub = word("(1)", base.x1, 152.0, size=6.0)
    lines = unruled.group_lines([*prose, base, sub])
    assert [w.text for w in next(ln for ln in lines if base in ln)] == ["G.+BM25", "(1)"]
    assert [w.text for w in next(ln for ln in lines if prose[0] in ln)] == ["retrieval", "accuracy"]


def test_row_label_starting_with_table_is_not_a_caption() -> None:
    rows = [
        ("Dataset", "Base", "Large"),
        ("PubLayNet", "4", "7"),
        ("TableBank", "3", "2"),
        ("HJDataset", "5", "1"),
    ]
    words = [
        word(text, 60.0 + 90.0 * j, 100.0 + 14.0 * i)
        for i, row in enumerate(rows)
        for j, text in enumerate(row)
    ]
    found = unruled.find_tables(words)
    assert len(found) == 1 and [r[0] for r in found[0].rows] == [r[0] for r in rows]


def test_chinese_prose_lines_make_a_gutter() -> None:
    """Chinese prose has no spaces: a line is one word to the text layer, yet it is prose, so a
    sidebar table beside it is cut from it at the gutter."""
    left, right = "高测股份光伏金刚线及硅片切割代工", "公司在山西长治金刚线生产厂区采购电力的平均单价较低"
    lines = [
        unruled.split_chunks([word(text, x0, 100.0 + 14 * i)])
        for i in range(8)
        for text, x0 in ((left, 40.0), (right, 220.0))
    ]
    assert unruled.page_gutter(lines, 300.0) is not None


def test_regression_table_pdf_cells_exact(tmp_path: Path) -> None:
    """The same shapes drawn by reportlab: stars in a smaller font raised 3 pt against the figure,
    standard errors on their own lines, a centred caption above with a wide gap in it."""
    path = tmp_path / "regression.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    height = A4[1]
    c.setFont("Helvetica", 10)
    c.drawString(150, height - 90, "Table 4.6")
    c.drawString(260, height - 90, "Regression results")
    xs = (220.0, 310.0, 400.0)
    for m, x in zip(MODELS, xs, strict=True):
        c.drawString(x, height - 115, m)
    y = height - 135
    for label, *cells in ROWS:
        c.setFont("Helvetica", 10)
        c.drawString(80, y, label)
        for (value, stars), x in zip(cells, xs, strict=True):
            c.setFont("Helvetica", 10)
            c.drawString(x, y, value)
            if stars:
                c.setFont("Helvetica", 6)
                c.drawString(x + c.stringWidth(value, "Helvetica", 10), y + 3, stars)
        c.setFont("Helvetica", 10)
        for x in xs:
            c.drawString(x, y - 13, "(0.105)")
        y -= 28
    c.save()
    doc = pdf.parse(SourceFile.read(path), ParseOptions(ocr=False, pdf_workers=1))[0]
    tables = [b.table for b in doc.blocks if b.table is not None]
    assert len(tables) == 1
    table = tables[0]
    assert [tuple(r) for r in (*table.header, *table.body)] == expected_rows()
    assert (table.title or "").startswith("Table 4.6")  # the caption is its title, not a row


SPREAD_ROWS = (("", "Numbers", "%"), ("Witney Central", "78", "2.9"), ("Witney East", "72", "1.5"))
SPREAD_ROWS += (("Witney North", "43", "1.7"), ("Ducklington", "20", "1.5"), ("Great Britain", "-", "3.8"))
SENTENCE = "the median gross earnings for employees working in the district were lower"


def spread_words() -> list[Word]:
    """A two-page spread: a table on the left page (rows 12 pt apart), prose on the right page
    (lines 11 pt apart, so some share a line with a table row but never its baseline)."""
    out = [
        word(text, x, 100.0 + 12.0 * i)
        for i, row in enumerate(SPREAD_ROWS)
        for text, x in zip(row, (30.0, 200.0, 260.0), strict=True)
        if text
    ]
    for i in range(10):
        x = 450.0
        for part in SENTENCE.split():
            out.append(word(part, x, 95.3 + 11.0 * i))
            x += CHAR_W * len(part) + 2.0
    return out


def test_table_on_the_left_page_of_a_spread_leaves_the_right_page_out() -> None:
    (table,) = unruled.find_tables(spread_words())
    assert [tuple(r) for r in table.rows] == list(SPREAD_ROWS)


def test_no_fold_between_long_labels_and_their_figures() -> None:
    """Long row labels (prose-like chunks) and figures far right share each baseline: no fold."""
    labels = [f"number of claimants per vacancy in ward {k}" for k in range(6)]
    words = []
    for i, label in enumerate(labels):
        x = 30.0
        for part in label.split():
            words.append(word(part, x, 100.0 + 12.0 * i))
            x += CHAR_W * len(part) + 2.0
        words += [word(f"{10 + i}.5", 420.0, 100.0 + 12.0 * i), word(f"{3 + i}.1", 480.0, 100.0 + 12.0 * i)]
    lines = [unruled.split_chunks(ws) for ws in unruled.group_lines(words)]
    assert unruled.page_fold(lines, 480.0) is None
