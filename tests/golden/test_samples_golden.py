"""Golden files: the parsed blocks and chunks of every file in samples/, compared with the JSON in
tests/data/golden/. Regenerate after an intended change with

    DOCMILL_REGEN_GOLDEN=1 .venv/bin/pytest tests/golden

and review the diff; the flag makes test_regeneration_flag_is_off fail so it cannot stay on in CI.
"""

import json
import os
from pathlib import Path

import pytest

from chunkers.document import chunk_document
from parsers.registry import parse_path, parser_name_for

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "samples"
GOLDEN = REPO / "tests" / "data" / "golden"
REGEN = os.environ.get("DOCMILL_REGEN_GOLDEN") == "1"
FILES = sorted(
    p for p in SAMPLES.rglob("*") if p.is_file() and parser_name_for(p) and p.name != "make_pdfs.py"
)


def _snapshot(path: Path) -> dict:
    rel = path.relative_to(REPO).as_posix()
    docs = parse_path(path, rel)
    return {
        "documents": [d.to_json() for d in docs],
        "chunks": [c.to_json() for d in docs for c in chunk_document(d)],
    }


def test_regeneration_flag_is_off():
    assert not REGEN, "DOCMILL_REGEN_GOLDEN=1 is set: golden files were rewritten, not checked"


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(
            p, id=p.relative_to(SAMPLES).as_posix(), marks=[pytest.mark.slow] if "scanned" in p.name else []
        )
        for p in FILES
    ],
)
def test_sample_matches_golden(path):
    golden = GOLDEN / (path.relative_to(SAMPLES).as_posix() + ".json")
    actual = json.loads(json.dumps(_snapshot(path), ensure_ascii=False))
    if REGEN:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(json.dumps(actual, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    assert golden.is_file(), f"no golden file for {path}; run with DOCMILL_REGEN_GOLDEN=1"
    expected = json.loads(golden.read_text(encoding="utf-8"))
    assert actual == expected
