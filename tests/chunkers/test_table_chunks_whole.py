"""Table chunks (issue 23): a table whose rendered rows fit the chunk budget is one chunk (header
and every row), a larger one is split by rows with the header on every chunk. Real pdfplumber on a
reportlab PDF for the first; hand-built tables for the budget's edges."""

from __future__ import annotations

from pathlib import Path

from chunkers.document import chunk_document
from chunkers.sizing import ChunkOptions, count_tokens
from chunkers.tables import chunk_table
from parsers.model import Block, ParsedDocument, Table
from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.source import SourceFile

SURVEY = [
    ("Item", "Yes (%)", "No (%)", "Respondents"),
    ("Privacy given", "99", "1", "97"),
    ("Health conditions told", "88.7", "11.3", "97"),
    ("Treatment implications told", "79.4", "20.6", "97"),
    ("Opportunity to ask questions", "62.8", "37.2", "78"),
    ("Your preferences considered", "91.1", "18.9", "56"),
    ("Told how to take your medication", "95.7", "4.3", "92"),
    ("Treated with respect", "97.9", "2.1", "97"),
    ("Informed on staying healthier", "70.1", "29.9", "97"),
    ("Physical exam performed", "90.6", "9.4", "96"),
    ("Informed to come for check-up", "60.5", "39.4", "76"),
]


def _survey_pdf(path: Path) -> None:
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Paragraph, SimpleDocTemplate, TableStyle
    from reportlab.platypus import Table as RLTable

    body = ParagraphStyle("body", fontName="Helvetica", fontSize=10, leading=13)
    head = ParagraphStyle("head", fontName="Helvetica-Bold", fontSize=14, leading=18, spaceBefore=8)
    table = RLTable(SURVEY)
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)]))
    story = [
        Paragraph("3 Patient survey", head),
        Paragraph("Patients leaving the ward answered ten questions about their stay. " * 3, body),
        table,
        Paragraph("Most patients felt respected; fewer were told when to come back. " * 3, body),
    ]
    SimpleDocTemplate(str(path), pagesize=A4).build(story)


def test_a_small_pdf_table_is_one_chunk_with_header_and_every_row(tmp_path: Path) -> None:
    path = tmp_path / "survey.pdf"
    _survey_pdf(path)
    (doc,) = pdf.parse(SourceFile.read(path, path.name), ParseOptions(ocr=False))
    (block,) = [b for b in doc.blocks if b.kind == "table"]
    assert block.table is not None and [tuple(r) for r in block.table.rows] == SURVEY
    assert count_tokens(block.table.markdown()) <= ChunkOptions().max_tokens  # it fits the budget
    tables = [c for c in chunk_document(doc) if c.kind == "table"]
    assert len(tables) == 1
    text = tables[0].text
    assert "| Item | Yes (%) | No (%) | Respondents |" in text
    assert all(f"| {row[0]} |" in text for row in SURVEY[1:])
    assert tables[0].heading_path == ("3 Patient survey",) and tables[0].pages == (1, 1)


def _table(rows: int, title: str = "Rates") -> Table:
    body = [(f"Service {i}", "hour", f"{20 + i}.00") for i in range(rows)]
    return Table(rows=(("Service", "Unit", "Rate"), *body), title=title)


def test_the_budget_edge_is_the_rendered_table() -> None:
    table = _table(12)
    tokens = count_tokens(table.markdown())
    block = Block("table", table.markdown(), ("Prices",), page=2, table=table)
    whole = list(chunk_table(block, max_tokens=tokens))
    assert len(whole) == 1 and whole[0].text == f"Rates\n{table.markdown()}"  # the title is context
    split = list(chunk_table(block, max_tokens=tokens - 1))
    assert len(split) == 2


def test_a_big_table_is_split_by_rows_with_the_header_on_every_chunk() -> None:
    table = _table(80)
    doc = ParsedDocument(
        doc_id="d",
        path="d.pdf",
        parser="pdf",
        sha256="0" * 64,
        blocks=(Block("table", table.markdown(), ("Prices",), page=1, table=table),),
    )
    chunks = chunk_document(doc, ChunkOptions(max_tokens=120))
    assert len(chunks) > 3
    rows_seen = []
    for chunk in chunks:
        assert count_tokens(chunk.text.split("\n", 1)[1]) <= 120
        lines = chunk.text.splitlines()
        assert lines[:3] == ["Rates", "| Service | Unit | Rate |", "|---|---|---|"]
        rows_seen += lines[3:]
    assert rows_seen == table.markdown().splitlines()[2:]  # every row once, in order


def _sectioned(per_section: int) -> Table:
    """A statistical table: section rows (a label, no values) each over ``per_section`` rows."""
    rows: list[tuple[str, ...]] = [("", "2023", "2024")]
    for section in ("World Output", "Commodity Prices", "Consumer Prices"):
        rows.append((section, "", ""))
        rows += [(f"{section} item {i}", f"{i}.1", f"{i}.2") for i in range(per_section)]
    return Table(rows=tuple(rows), title="Table 1. Overview")


def test_a_group_starting_under_a_section_row_repeats_it_above_its_rows() -> None:
    table = _sectioned(12)
    block = Block("table", table.markdown(), ("Outlook",), page=7, table=table)
    chunks = list(chunk_table(block, max_tokens=90))
    assert len(chunks) > 3
    own_rows: list[str] = []
    for chunk in chunks:
        lines = chunk.text.splitlines()
        assert count_tokens(chunk.text.split("\n", 1)[1]) <= 90  # the repeated row fits the budget
        body = lines[3:]
        first = next(line for line in body if "item" in line)
        section = first.split(" item")[0].lstrip("| ")
        # every chunk names the section of its first row: its own section row or the repeated one
        assert f"| {section} |  |  |" in body[: body.index(first)]
        own_rows += [line for line in body if "item" in line]
    # the rows of values once each, in order; a section row is repeated only above a group that
    # starts inside its section
    assert own_rows == [line for line in table.markdown().splitlines() if "item" in line]


def test_guard_a_two_column_list_or_a_label_row_without_values_under_it_is_no_section() -> None:
    two = Table(rows=(("Term", "Meaning"), ("Group A", ""), *((f"t{i}", f"m{i}") for i in range(40))))
    block = Block("table", two.markdown(), (), page=1, table=two)
    assert all("Group A" not in c.text for c in list(chunk_table(block, max_tokens=40))[1:])
    notes = Table(rows=(("", "2023", "2024"), *((f"r{i}", "1", "2") for i in range(40)), ("Notes", "", "")))
    block = Block("table", notes.markdown(), (), page=1, table=notes)
    assert sum("Notes" in c.text for c in chunk_table(block, max_tokens=40)) == 1
