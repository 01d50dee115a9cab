"""Paths: symlinks leaving the source root are not followed, odd file names work end to end, and
an ingest writes nothing outside its index folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import docmill
from flows.pipeline import discover, run_ingest

ODD_NAMES = {
    "with space.md": "# Spaces\n\nThe quartermaster ledger lives in a file with spaces.\n",
    "ünïcødé 文档.md": "# Unicode\n\nThe zeppelin hangar notes live in a unicode file name.\n",
    "new\nline.md": "# Newline\n\nThe okapi enclosure schedule lives in a file named with a newline.\n",
    "tab\tname -rf.py": "def marmalade_recipe():\n    return 'orange'\n",
}


def _tree(root: Path) -> Path:
    root.mkdir(parents=True)
    for name, text in ODD_NAMES.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_symlinks_leaving_the_root_are_not_followed(tmp_path: Path) -> None:
    root = _tree(tmp_path / "src")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\ntext\n", encoding="utf-8")
    (outside / "nested").mkdir()
    (outside / "nested" / "deep.md").write_text("# Deep\n\ntext\n", encoding="utf-8")
    os.symlink(outside / "secret.md", root / "escape.md")
    os.symlink("../outside/secret.md", root / "relative-escape.md")
    os.symlink(outside, root / "escape-dir", target_is_directory=True)
    os.symlink(root / "with space.md", root / "inside-link.md")
    os.symlink("missing.md", root / "dangling.md")
    found = {ref.rel_path for ref in discover([root])}
    assert found == {f"src/{name}" for name in ODD_NAMES} | {"src/inside-link.md"}


def test_symlink_loop_is_skipped_by_discover(tmp_path: Path) -> None:
    root = _tree(tmp_path / "src")
    os.symlink("loop-b.md", root / "loop-a.md")
    os.symlink("loop-a.md", root / "loop-b.md")
    os.symlink(".", root / "self", target_is_directory=True)
    found = {ref.rel_path for ref in discover([root])}
    assert found == {f"src/{name}" for name in ODD_NAMES}


def _snapshot(root: Path, skip: Path) -> dict[str, tuple[int, int]]:
    """(size, mtime_ns) of every entry under ``root`` except ``skip`` and what is below it."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        dirnames[:] = [d for d in dirnames if here / d != skip]
        for name in [*dirnames, *filenames]:
            stat = (here / name).lstat()
            out[str((here / name).relative_to(root))] = (stat.st_size, stat.st_mtime_ns)
    return out


@pytest.mark.slow
def test_odd_file_names_work_end_to_end_and_nothing_is_written_outside_the_index(
    tmp_path: Path, embedder
) -> None:
    root = _tree(tmp_path / "src")
    index = tmp_path / "out" / "index"
    before = _snapshot(tmp_path, skip=index)
    report = run_ingest([root], index, embedder=embedder)
    assert report.indexed == len(ODD_NAMES) and report.skipped == 0
    after = _snapshot(tmp_path, skip=index)
    assert {k: v for k, v in after.items() if k not in ("out",)} == {k: v for k, v in before.items()}
    assert set(after) - set(before) == {"out"}  # the index's parent, created by the ingest
    opened = docmill.open_index(index, embedder=embedder)
    try:
        for query, name in [
            ("quartermaster ledger", "with space.md"),
            ("zeppelin hangar", "ünïcødé 文档.md"),
            ("okapi enclosure schedule", "new\nline.md"),
            ("marmalade recipe", "tab\tname -rf.py"),
        ]:
            result = opened.search(query, k=3, mode="bm25")
            assert result.hits and result.hits[0].chunk.path == f"src/{name}", (query, result.hits)
    finally:
        opened.close()
