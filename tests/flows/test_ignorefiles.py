""".gitignore / .docmillignore honoured by default on discover, `docmill ingest` and the flow's config."""

from __future__ import annotations

import json

from flows.sources import discover, discover_tree

FILES = {
    ".gitignore": "build/\n*.log\n/notes.md\n",
    "README.md": "# top\n\nWhat the project is for.\n",
    "notes.md": "# notes\n\nPrivate scratch notes.\n",
    "run.log": "a log line\n",
    "build/out.md": "# generated\n\nA generated page.\n",
    "docs/.gitignore": "draft-*.md\n!draft-keep.md\n",
    "docs/guide.md": "# guide\n\nHow to install the project.\n",
    "docs/draft-one.md": "# draft\n\nNot ready.\n",
    "docs/draft-keep.md": "# draft kept\n\nTaken back by a negation.\n",
    "docs/notes.md": "# docs notes\n\nOnly /notes.md at the top is ignored.\n",
    "docs/sub/trace.log": "deeper log\n",
    "gen/api.md": "# api\n\nGenerated but wanted.\n",
    ".docmillignore": "gen/\n",
}


def test_ignore_files_are_honoured_nested_and_negated(tmp_path, tree):
    root = tree(tmp_path / "proj", FILES)
    found = discover_tree([root])
    assert [r.rel_path for r in found.refs] == [
        "proj/README.md",
        "proj/docs/draft-keep.md",
        "proj/docs/guide.md",
        "proj/docs/notes.md",
    ]
    # run.log, notes.md, docs/draft-one.md, docs/sub/trace.log; folders build/ and gen/
    assert (found.ignored.files, found.ignored.folders) == (4, 2)


def test_docmillignore_can_take_back_what_git_ignores(tmp_path, tree):
    root = tree(
        tmp_path / "proj",
        {".gitignore": "*.md\n", ".docmillignore": "!keep.md\n", "keep.md": "k\n", "x.md": "x\n"},
    )
    assert [r.rel_path for r in discover([root])] == ["proj/keep.md"]


def test_ignore_files_can_be_turned_off(tmp_path, tree):
    root = tree(tmp_path / "proj", FILES)
    found = discover_tree([root], ignore_files=False)
    assert len(found.refs) == 10 and not found.ignored  # every non-hidden file
    assert "proj/build/out.md" in {r.rel_path for r in found.refs}


def test_ingest_cli_reports_ignored_files_and_takes_no_ignore_files(tmp_path, tree, capsys):
    from docmill.cli import main
    from indexers.build.manifest import Manifest
    from indexers.build.store import IndexStore

    root = tree(tmp_path / "proj", FILES)
    index = tmp_path / "idx"
    assert main(["ingest", str(root), "--index", str(index), "--strict"]) == 0
    out = capsys.readouterr().out
    assert "4 indexed, 0 skipped of 4 files" in out
    assert "4 file(s) and 2 folder(s) ignored by .gitignore/.docmillignore" in out
    manifest = Manifest.read(IndexStore(index).current_build())
    assert "proj/build/out.md" not in {d.path for d in manifest.documents}
    assert manifest.extra["incremental"]["ignored"] == {"files": 4, "folders": 2}

    assert main(["ingest", str(root), "--index", str(index), "--no-ignore-files", "--json"]) == 0
    manifest = Manifest.read(IndexStore(index).current_build())
    assert "proj/build/out.md" in {d.path for d in manifest.documents}
    report = json.loads(capsys.readouterr().out)
    assert report["ignored"] == {"files": 0, "folders": 0} and report["documents"] == 10
