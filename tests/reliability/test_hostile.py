"""Hostile inputs (tests/reliability/hostile.py) through the pipeline's per-file step and a whole
ingest: each file is indexed or skipped with a reason, nothing crashes, nothing hangs.

The per-file bound is loose on purpose (this is a reliability test on shared CPUs, not a timed
benchmark): a parser that is merely slow passes, one that hangs or goes quadratic does not."""

from __future__ import annotations

import fnmatch
import json
import time
from pathlib import Path

import pytest

from flows.pipeline import SourceRef, discover, parse_file, run_ingest
from parsers.options import ParseOptions

SECONDS_PER_FILE = 60.0

# rel path (glob) -> (status or "any", substring of the reason or of a metadata value); first match
# wins.
EXPECTED: list[tuple[str, str, str | None]] = [
    ("pdf/valid.pdf", "indexed", None),
    ("pdf/truncated-at-8.pdf", "skipped", "malformed PDF"),
    ("pdf/truncated-at-100.pdf", "skipped", "malformed PDF"),
    ("pdf/truncated-at-*.pdf", "any", None),  # a cut near the end leaves a recoverable file
    ("pdf/encrypted.pdf", "skipped", "encrypted PDF"),
    ("pdf/self-referencing-form.pdf", "indexed", "no text layer"),  # pdfminer refuses the cycle
    ("pdf/page-tree-cycle.pdf", "indexed", "no text layer"),
    ("pdf/lying-image-dimensions.pdf", "skipped", "max_image_pixels"),
    ("pdf/actually-a-*.pdf", "skipped", "not a PDF"),
    ("pdf/header-then-garbage.pdf", "skipped", "malformed PDF"),
    ("random/random-bytes.pdf", "skipped", "not a PDF"),
    ("random/*", "skipped", "binary file"),
    ("empty/empty.*", "empty", "empty file"),
    ("empty/whitespace-only.md", "empty", "empty file"),
    ("text/invalid-utf8.*", "indexed", "cp1252"),
    ("text/utf16.md", "skipped", "binary file"),
    ("text/nul-in-text.txt", "skipped", "binary file"),
    ("text/cr-only-line-endings.md", "indexed", None),
    ("markdown/nested-quote-10k.md", "skipped", "no Markdown content"),
    ("markdown/yaml-billion-laughs.md", "indexed", "front matter too large"),
    ("markdown/yaml-deep-nesting.md", "indexed", "front matter nested too deeply"),
    ("markdown/*", "indexed", None),
    ("code/minified.js", "skipped", "max_line_bytes"),
    ("code/*", "indexed", None),
    ("records/*", "indexed", None),
    ("names/*", "indexed", None),
    ("links/loop-*", "skipped", "unreadable"),
    ("links/*", "indexed", None),  # parse_file reads what it is given; discover() decides (test_paths)
    ("big/single-line-50mb.*", "skipped", "max_text_bytes"),
    ("big/100k-lines.py", "skipped", "max_code_lines"),
    ("big/pixel-bomb.pdf", "skipped", "max_image_pixels"),
    ("big/huge-page.pdf", "indexed", "ocr_reduced_dpi"),
]


def expected_for(rel: str) -> tuple[str, str | None] | None:
    for pattern, status, why in EXPECTED:
        if fnmatch.fnmatchcase(rel, pattern):
            return status, why
    return None


def check_file(root: Path, rel: str, options: ParseOptions) -> list[str]:
    """Problems with one file's outcome (empty list = fine)."""
    started = time.perf_counter()
    outcome = parse_file(SourceRef(root / rel, rel), options)
    seconds = time.perf_counter() - started
    record = outcome.record
    problems = []
    if record.status not in ("indexed", "empty", "skipped"):
        problems.append(f"{rel!r}: status {record.status!r}")
    if record.status == "skipped" and not record.reason:
        problems.append(f"{rel!r}: skipped without a reason")
    if record.status == "skipped" and (record.reason or "").startswith("parser error"):
        problems.append(f"{rel!r}: parser bug: {record.reason}")
    if record.status == "indexed" and not outcome.documents:
        problems.append(f"{rel!r}: indexed without documents")
    if seconds > SECONDS_PER_FILE:
        problems.append(f"{rel!r}: took {seconds:.1f} s")
    expected = expected_for(rel)
    if expected is None:
        problems.append(f"{rel!r}: no expectation in EXPECTED (add one)")
        return problems
    status, why = expected
    metadata = [dict(doc.metadata) for doc in outcome.documents[:1]]
    evidence = " ".join([record.reason or "", json.dumps(metadata, ensure_ascii=False)])
    if status not in ("any", record.status) or (why is not None and why not in evidence):
        problems.append(f"{rel!r}: expected {status} ({why}), got {record.status} ({evidence})")
    return problems


def test_every_small_hostile_file_is_indexed_or_skipped_with_its_reason(hostile_small) -> None:
    root, written = hostile_small
    problems = [p for f in written if not f.big for p in check_file(root, f.rel_path, ParseOptions())]
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_every_big_hostile_file_is_skipped_or_indexed_in_bounded_time(hostile_big) -> None:
    root, written = hostile_big
    big = [f for f in written if f.big]
    assert len(big) >= 5
    problems = [p for f in big for p in check_file(root, f.rel_path, ParseOptions())]
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_limits_raised_the_big_text_files_still_parse_in_bounded_time(hostile_big) -> None:
    """Past the limits the parsers themselves are linear: the limits bound index cost, not hangs."""
    root, _ = hostile_big
    roomy = ParseOptions(max_text_bytes=64 << 20, max_line_bytes=64 << 20, max_code_lines=200_000)
    for rel in ("big/100k-lines.py", "big/single-line-50mb.txt", "big/single-line-50mb.md"):
        started = time.perf_counter()
        outcome = parse_file(SourceRef(root / rel, rel), roomy)
        assert outcome.record.status == "indexed", (rel, outcome.record.reason)
        assert time.perf_counter() - started < SECONDS_PER_FILE, rel
    code = parse_file(SourceRef(root / "big/100k-lines.py", "big/100k-lines.py"), roomy).documents[0]
    assert code.metadata["lines"] == 100_000
    assert max(b.lines[1] for b in code.blocks if b.lines) == 100_000


@pytest.mark.slow
def test_whole_hostile_folder_ingests_and_the_manifest_lists_every_file(
    hostile_small, embedder, tmp_path: Path
) -> None:
    root, written = hostile_small
    index = tmp_path / "index"
    report = run_ingest([root], index, embedder=embedder)
    manifest = json.loads(next((index / "builds").glob("*/manifest.json")).read_text(encoding="utf-8"))
    listed = {d["path"]: d for d in manifest["documents"]}
    discovered = {ref.rel_path for ref in discover([root])}
    assert set(listed) == discovered
    expected_paths = {f"hostile/{f.rel_path}" for f in written if not f.rel_path.startswith("links/")}
    assert expected_paths <= set(listed)
    assert "hostile/links/escape.md" not in listed and "hostile/links/inside.md" in listed
    for doc in manifest["documents"]:
        assert doc["status"] in ("indexed", "empty", "skipped"), doc
        assert doc["status"] == "indexed" or doc["reason"], doc
        assert not (doc["reason"] or "").startswith("parser error"), doc
    assert report.indexed + report.empty + report.skipped == len(listed)
    assert report.empty == sum(d["status"] == "empty" for d in manifest["documents"]) >= 6
    assert report.indexed >= 15
