from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from parsers.jsonl import parse
from parsers.model import ParsedDocument, SkipFile
from parsers.options import ParseOptions
from parsers.registry import parse_path
from parsers.source import SourceFile

DATA = Path(__file__).resolve().parents[1] / "data" / "parsers" / "records"


def parse_bytes(data: bytes, name: str = "corpus.jsonl") -> list[ParsedDocument]:
    return parse(SourceFile(Path(name), name, data, hashlib.sha256(data).hexdigest()), ParseOptions())


def test_good_records_and_bad_lines() -> None:
    docs = parse_path(DATA / "corpus.jsonl", "corpus.jsonl")
    assert [(d.doc_id, d.title) for d in docs] == [("d1", "Token buckets"), ("2", None), ("d5", None)]
    first = docs[0]
    assert first.path == "corpus.jsonl" and first.parser == "records"
    assert [(b.kind, b.text, b.lines) for b in first.blocks] == [
        ("paragraph", "A token bucket refills at a fixed rate.", (1, 1)),
        ("paragraph", "Bursts drain it.", (1, 1)),
    ]
    # the metadata object plus other scalar fields; line 4 is broken JSON, line 5 has no text
    assert first.metadata == {
        "lang": "en",
        "tags": ["rate"],
        "source": "wiki",
        "score": 3,
        "bad_lines": [4, 5],
    }
    assert docs[1].blocks[0].lines == (2, 2)
    assert docs[2].metadata == {}  # nested values outside `metadata` are dropped
    assert all("Token buckets" not in b.text for b in first.blocks)  # the title is not repeated


def test_all_bad_lines_skip_the_file_with_the_first_reason() -> None:
    with pytest.raises(SkipFile, match=r"^no valid records: line 1: missing text$"):
        parse_path(DATA / "all_bad.jsonl")


def test_blank_only_file_is_skipped() -> None:
    with pytest.raises(SkipFile, match="only blank lines"):
        parse_bytes(b"\n  \n")


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ('["a"]', "not a JSON object (list)"),
        ('{"text": "t"}', "missing or empty _id"),
        ('{"_id": "", "text": "t"}', "missing or empty _id"),
        ('{"_id": 1, "text": 5}', "text is a int, not a string"),
        ('{"_id": 1, "text": "  "}', "empty text"),
    ],
)
def test_invalid_records_give_a_reason(line: str, reason: str) -> None:
    with pytest.raises(SkipFile, match=re.escape(f"line 1: {reason}")):
        parse_bytes(line.encode())


def test_duplicate_id_is_a_bad_line() -> None:
    lines = ['{"_id": "a", "text": "one"}', '{"_id": "a", "text": "two"}']
    docs = parse_bytes("\n".join(lines).encode())
    assert [d.blocks[0].text for d in docs] == ["one"]
    assert docs[0].metadata["bad_lines"] == [2]


def test_non_utf8_encoding_recorded() -> None:
    docs = parse_bytes('{"_id": "a", "text": "Caf\u00e9"}\n'.encode("cp1252"))
    assert docs[0].blocks[0].text == "Caf\u00e9"
    assert docs[0].metadata == {"encoding": "cp1252"}


def test_five_thousand_records_each_a_document_in_order() -> None:
    # how fast: bench/bench_scale.py (records at 10^5 and 10^6 chunks), not a timed unit test
    record = {"title": "t", "text": "word " * 60 + "\n\nsecond paragraph", "metadata": {"k": 1}}
    data = "\n".join(json.dumps({"_id": i, **record}) for i in range(5000)).encode()
    docs = parse_bytes(data)
    assert len(docs) == 5000 and all(len(d.blocks) == 2 for d in docs)
    assert [d.blocks[1].text for d in docs[:2]] == ["second paragraph"] * 2
    ids = [d.doc_id for d in docs]
    assert len(set(ids)) == 5000 and ids[0] != ids[-1]
