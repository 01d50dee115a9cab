"""PARSER_VERSIONS (parsers/registry.py): what each parser makes of the project's samples is pinned
per version, so a change of a parser's output cannot land without a new version, which is what
makes an index parse that parser's unchanged files again (tests/flows/test_parser_reuse.py)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from parsers.registry import PARSER_VERSIONS, parse_source
from parsers.source import SourceFile

SAMPLES = Path(__file__).resolve().parents[2] / "samples"

# parser -> the sample files it reads here (text PDFs only: OCR output is not part of the pin)
INPUTS = {
    "pdf": ["pdf/lumen-manual.pdf", "pdf/chinese-table.pdf"],
    "markdown": sorted(str(p.relative_to(SAMPLES)) for p in SAMPLES.glob("docs/**/*.md")),
    "code": sorted(str(p.relative_to(SAMPLES)) for p in (SAMPLES / "code").iterdir()),
}
# written into a temporary folder: the samples have no plain text or JSONL file
NOTES = "Release notes\n=============\n\nVersion 2 adds a retry limit.\n\n  - faster start\n"
WRITTEN = {
    "text": ("notes.txt", NOTES),
    "records": ("faq.jsonl", '{"_id": "q1", "title": "Reset", "text": "Hold the button for ten seconds."}\n'),
}

# parser -> {version: fingerprint of its output on INPUTS / WRITTEN}. Two versions may share one:
# a change the samples do not show (a table class they lack) still needs its version.
FINGERPRINTS = {
    "pdf": {
        1: "54019cbff9d98add",
        2: "54019cbff9d98add",
        3: "54019cbff9d98add",
        4: "54019cbff9d98add",
        5: "54019cbff9d98add",
        6: "54019cbff9d98add",
        7: "54019cbff9d98add",
        8: "54019cbff9d98add",
        9: "54019cbff9d98add",
        10: "54019cbff9d98add",
        11: "54019cbff9d98add",
        12: "54019cbff9d98add",
        13: "54019cbff9d98add",
        14: "54019cbff9d98add",
        15: "54019cbff9d98add",
        16: "54019cbff9d98add",
    },
    "markdown": {1: "b925d563a9255e13"},
    "code": {1: "9f04abbb73c4fd1e"},
    "text": {1: "d45108f50b583fde"},
    "records": {1: "9929c65ceb10f40b"},
}


def _fingerprint(files: list[tuple[Path, str]]) -> str:
    docs = [doc.to_json() for path, rel in files for doc in parse_source(SourceFile.read(path, rel))]
    return hashlib.sha256(json.dumps(docs, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


@pytest.mark.parametrize("parser", sorted(PARSER_VERSIONS))
def test_each_parser_version_names_what_it_parses(parser, tmp_path):
    if parser in WRITTEN:
        name, text = WRITTEN[parser]
        (tmp_path / name).write_text(text, encoding="utf-8")
        files = [(tmp_path / name, name)]
    else:
        files = [(SAMPLES / rel, rel) for rel in INPUTS[parser]]
    version = PARSER_VERSIONS[parser]
    fingerprint = _fingerprint(files)
    assert fingerprint == FINGERPRINTS[parser].get(version), (
        f"the {parser} parser's output changed: bump PARSER_VERSIONS[{parser!r}] "
        f"(parsers/registry.py) and record {version + 1}: {fingerprint!r} here"
    )
