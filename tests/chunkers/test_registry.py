"""Chunking of hand-built documents: context prefixes, limits, table headers, code splits, stable ids."""

from chunkers.document import chunk_document
from chunkers.model import Chunk
from chunkers.sizing import ChunkOptions, count_tokens
from parsers.model import Block, ParsedDocument, Table


def _doc(*blocks, title=None, path="guide/install.md"):
    return ParsedDocument(
        doc_id=path, path=path, parser="test", sha256="0", blocks=tuple(blocks), title=title
    )


def test_prose_chunk_carries_heading_path_and_line_range():
    path = ("Guide", "Install", "Linux")
    doc = _doc(
        Block("heading", "Linux", heading_path=path, lines=(5, 5)),
        Block("paragraph", "Run the installer as root.", heading_path=path, lines=(7, 7)),
        Block("paragraph", "Then reboot.", heading_path=path, lines=(9, 10)),
    )
    [chunk] = chunk_document(doc)
    assert chunk.kind == "text"
    assert chunk.heading_path == path
    assert chunk.lines == (7, 10)
    assert chunk.text == "Run the installer as root.\n\nThen reboot."
    assert chunk.index_text.startswith("Guide > Install > Linux\n")
    assert chunk.citation() == "guide/install.md > Guide > Install > Linux (L7-10)"


def test_sections_are_never_mixed_and_long_text_splits_at_sentences():
    a, b = ("Doc", "A"), ("Doc", "B")
    long = " ".join(f"Sentence {i} talks about topic {i}." for i in range(60))
    doc = _doc(
        Block("paragraph", long, heading_path=a, lines=(1, 3)),
        Block("paragraph", "Short.", heading_path=b, lines=(5, 5)),
    )
    chunks = chunk_document(doc, ChunkOptions(max_tokens=50))
    assert [c.heading_path for c in chunks].count(b) == 1
    a_chunks = [c for c in chunks if c.heading_path == a]
    assert len(a_chunks) > 3
    for c in a_chunks:
        assert count_tokens(c.text) <= 50
        assert c.text.endswith(".")  # cut after a sentence, not inside one
    assert " ".join(c.text for c in a_chunks) == long


def test_a_prose_chunk_never_spans_two_pages():
    path = ("Report", "Findings")
    doc = _doc(
        Block("paragraph", "Sales rose in the north.", heading_path=path, page=3),
        Block("paragraph", "Costs fell everywhere.", heading_path=path, page=3),
        Block("paragraph", "Margins doubled.", heading_path=path, page=4),
        path="report.pdf",
    )
    chunks = chunk_document(doc)
    assert [(c.pages, c.text) for c in chunks] == [
        ((3, 3), "Sales rose in the north.\n\nCosts fell everywhere."),
        ((4, 4), "Margins doubled."),
    ]
    assert chunks[1].citation() == "report.pdf > Report > Findings (p. 4)"


def test_title_is_prefixed_once():
    doc = _doc(Block("paragraph", "Body.", heading_path=("Manual", "Intro")), title="Manual")
    assert chunk_document(doc)[0].index_text.startswith("Manual > Intro\n")
    doc = _doc(Block("paragraph", "Body."), title="Claim 12")
    assert chunk_document(doc)[0].index_text == "Claim 12\nBody."


def test_large_table_repeats_title_and_header_on_every_chunk():
    rows = (("Plan", "Monthly", "Annual"),) + tuple((f"Plan {i}", f"${i}", f"${i * 10}") for i in range(60))
    table = Table(rows=rows, title="Pricing")
    doc = _doc(Block("table", table.markdown(), heading_path=("Plans",), table=table, lines=(3, 64)))
    chunks = chunk_document(doc, ChunkOptions(max_tokens=80))
    assert len(chunks) > 2
    seen = []
    for c in chunks:
        assert c.kind == "table"
        lines = c.text.splitlines()
        assert lines[0] == "Pricing"
        assert lines[1] == "| Plan | Monthly | Annual |"
        assert lines[2] == "|---|---|---|"
        seen += [line.split(" | ")[0].strip("| ") for line in lines[3:]]
        assert c.index_text.startswith("Plans\nPricing\n")
    assert seen == [f"Plan {i}" for i in range(60)]  # every row exactly once, in order
    # line ranges follow the Markdown source: header at 3, separator at 4, body from 5
    assert chunks[0].lines[0] == 5
    assert chunks[-1].lines[1] == 64


def test_a_table_merged_across_pages_cites_the_pages_of_each_chunks_rows():
    rows = (("Employer", "Jobs"),) + tuple((f"Company {i}", str(i)) for i in range(60))
    table = Table(rows=rows, title="WARN notices")
    # body rows 0-24 on page 4, 25-49 on page 5, 50-59 on page 6 (parsers/pdf.py page_starts)
    metadata = {"pages": [4, 5, 6], "page_starts": [[4, 0], [5, 25], [6, 50]]}
    doc = _doc(Block("table", table.markdown(), table=table, page=4, metadata=metadata), path="warn.pdf")
    chunks = chunk_document(doc, ChunkOptions(max_tokens=80))
    assert len(chunks) > 3
    for c in chunks:
        numbers = [int(line.strip("| ").split(" | ")[1]) for line in c.text.splitlines()[3:]]
        expected = [4 if n < 25 else 5 if n < 50 else 6 for n in (numbers[0], numbers[-1])]
        assert c.pages == tuple(expected), (c.pages, numbers)
    assert chunks[0].pages == (4, 4) and chunks[-1].pages == (6, 6)


def test_code_chunk_has_path_context_and_signature_on_every_part():
    body = "\n".join(f"    total += step_{i}(value)" for i in range(80))
    text = f"def accumulate(value):\n    total = 0\n{body}\n    return total"
    block = Block(
        "code",
        text,
        lines=(10, 10 + text.count("\n")),
        language="python",
        symbol="Acc.accumulate",
        signature="def accumulate(value):",
        context=("class Acc:",),
    )
    chunks = chunk_document(_doc(block, path="pkg/acc.py"), ChunkOptions(max_tokens=120))
    assert len(chunks) > 1
    for c in chunks:
        assert c.kind == "code" and c.symbol == "Acc.accumulate" and c.language == "python"
        assert c.index_text.startswith("pkg/acc.py\nclass Acc:\n")
        assert "def accumulate(value):" in c.index_text
    assert chunks[0].lines[0] == 10 and chunks[-1].lines[1] == block.lines[1]
    for left, right in zip(chunks, chunks[1:], strict=False):
        assert right.lines[0] == left.lines[1] + 1  # contiguous, nothing lost
    assert "\n".join(c.text for c in chunks) == text


def test_ids_are_stable_and_unique():
    doc = _doc(*(Block("paragraph", f"Paragraph {i}. " * 30, heading_path=(f"S{i}",)) for i in range(5)))
    first, second = chunk_document(doc), chunk_document(doc)
    assert [c.id for c in first] == [c.id for c in second]
    assert len({c.id for c in first}) == len(first)
    assert Chunk.from_json(first[0].to_json()) == first[0]


def test_code_pieces_stay_within_the_limit_when_statements_are_huge():
    # One statement (a `with` block) longer than the limit, and a body whose first line is a
    # comment continuation at another indentation: both used to give pieces far over the limit.
    body = "\n".join(f"        total += step_{i}(value, other_argument_{i})" for i in range(60))
    text = f"def f(value):\n  # note\n    with lock:\n{body}\n    return total"
    block = Block(
        "code",
        text,
        lines=(1, text.count("\n") + 1),
        language="python",
        symbol="f",
        signature="def f(value):",
    )
    chunks = chunk_document(_doc(block, path="m.py"), ChunkOptions(max_tokens=100))
    assert len(chunks) > 3
    assert all(count_tokens(c.text) <= 100 for c in chunks)
    assert "\n".join(c.text for c in chunks) == text
    for left, right in zip(chunks, chunks[1:], strict=False):
        assert right.lines[0] == left.lines[1] + 1
