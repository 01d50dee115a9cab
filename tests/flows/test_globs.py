"""--include / --exclude: which discovered files an ingest takes (flows.globs via discover)."""

from __future__ import annotations

import pytest

from flows.globs import selected
from flows.pipeline import discover

FILES = {
    "README.md": "# top\n\nWhat the project is for.\n",
    "docs/guide.md": "# guide\n\nHow to install the project.\n",
    "docs/api/ref.md": "# ref\n\nThe functions it offers.\n",
    "src/app.py": "x = 1\n",
    "src/app.min.js": "var x=1\n",
    "tests/test_app.py": "def test(): pass\n",
}


@pytest.mark.parametrize(
    ("include", "exclude", "expected"),
    [
        ((), (), sorted(FILES)),
        (("*.md",), (), ["README.md", "docs/api/ref.md", "docs/guide.md"]),
        (("**/*.md",), (), ["README.md", "docs/api/ref.md", "docs/guide.md"]),
        (("docs/*",), (), ["docs/api/ref.md", "docs/guide.md"]),
        (("proj/docs/*",), (), ["docs/api/ref.md", "docs/guide.md"]),  # the id, with the root's name
        ((), ("tests/*", "*.min.js"), ["README.md", "docs/api/ref.md", "docs/guide.md", "src/app.py"]),
        (
            ("*.md", "*.py"),
            ("docs/api/*",),
            ["README.md", "docs/guide.md", "src/app.py", "tests/test_app.py"],
        ),  # noqa: E501
    ],
)
def test_discover_keeps_what_the_globs_select(tmp_path, tree, include, exclude, expected):
    root = tree(tmp_path / "proj", FILES)
    found = [ref.rel_path for ref in discover([root], include, exclude)]
    assert found == [f"proj/{rel}" for rel in expected]


def test_a_pattern_without_a_slash_also_matches_the_file_name_only():
    assert selected("a/b/c.md", "root/a/b/c.md", include=("c.md",))
    assert not selected("a/b/c.md", "root/a/b/c.md", include=("b/x.md",))


def test_ingest_cli_takes_include_and_exclude_and_records_them(tmp_path, tree, capsys):
    from docmill.cli import main
    from flows.config import IngestConfig
    from indexers.build.manifest import Manifest
    from indexers.build.store import IndexStore

    root = tree(tmp_path / "proj", FILES)
    index = tmp_path / "idx"
    argv = ["ingest", str(root), "--index", str(index), "--include", "*.md", "--exclude", "docs/api/*"]
    assert main(argv) == 0
    manifest = Manifest.read(IndexStore(index).current_build())
    assert [d.path for d in manifest.documents] == ["proj/README.md", "proj/docs/guide.md"]
    assert "2 indexed, 0 skipped of 2 files" in capsys.readouterr().out
    stored = IngestConfig.from_dict({"include": ["*.md"], "exclude": ["docs/api/*"]})
    assert (stored.include, stored.exclude) == (("*.md",), ("docs/api/*",))
