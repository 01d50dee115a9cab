"""GRAPH_VERSION: the graph a file's parse records is pinned per version, and a build whose graph
is of an older version gets its whole graph re-derived by the next plain (incremental) ingest,
unchanged files included, not carried forward as it was."""

from __future__ import annotations

import hashlib
import json
import textwrap
from pathlib import Path

import docmill
from flows.pipeline import run_ingest
from indexers.build.files import GRAPH_FILE, MANIFEST
from indexers.build.graph_file import GRAPH_VERSION, FileGraph, read_graph, to_row
from indexers.build.manifest import file_sha256
from indexers.build.store import IndexStore
from parsers.registry import parse_source
from parsers.source import SourceFile

# What the code parser records for RUNNER, by graph version. Version 1 is what docmill recorded
# before issue 23's refs changes (computed with commit ed1735a); a change of the parser's output
# needs a new version, or indexes keep the old graph for every file that did not change.
FINGERPRINTS = {1: "05243c8e26b0dc67", 2: "0ef67b43c4675ae5"}

RUNNER = '''
    """A runner and its uses."""

    import asyncio
    from collections import OrderedDict

    __all__ = ["Runner", "start"]


    class Runner:
        """Runs jobs."""

        def run(self, job: str, retries: int = 3, timeout_seconds: float = 30.0, *, on_error=None) -> bool:
            return bool(job)


    def start(jobs: list[str]) -> int:
        r = Runner()
        done = sum(r.run(j) for j in jobs)
        with asyncio.Runner() as loop:
            loop.run(asyncio.sleep(0))
        ", ".join(jobs)
        cache = OrderedDict()
        cache.move_to_end("x")
        return done
'''


def test_the_graph_of_a_file_is_the_one_its_version_names(tmp_path):
    (tmp_path / "runner.py").write_text(textwrap.dedent(RUNNER).lstrip())
    docs = parse_source(SourceFile.read(tmp_path / "runner.py", "proj/runner.py"))
    rows = [to_row(FileGraph(d.path, "python", d.graph)) for d in docs if d.graph is not None]
    fingerprint = hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()[:16]
    assert fingerprint == FINGERPRINTS.get(GRAPH_VERSION), (
        "the code graph's content changed: bump GRAPH_VERSION (indexers/build/graph_file.py) and "
        f"record {GRAPH_VERSION + 1}: {fingerprint!r} here"
    )
    assert len(set(FINGERPRINTS.values())) == len(FINGERPRINTS)  # each version recorded something new


def _make_old(index: Path, version: int) -> Path:
    """Turn the current build into what an older docmill left: its graph.jsonl without the
    definitions of src/cache.py (a stale graph), recorded as graph ``version`` (the manifest's
    file size and checksum kept consistent, so the build stays reusable as far as files go)."""
    build = IndexStore(index).current_build()
    graph_path = build / GRAPH_FILE
    rows = [json.loads(line) for line in graph_path.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        if row["path"].endswith("src/cache.py"):
            row["definitions"], row["references"] = [], []
    graph_path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    manifest = json.loads((build / MANIFEST).read_text(encoding="utf-8"))
    manifest["files"][GRAPH_FILE] = {"bytes": graph_path.stat().st_size, "sha256": file_sha256(graph_path)}
    manifest["extra"]["graph"]["version"] = version
    manifest["extra"]["reuse_key"]["graph"] = version
    (build / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    return build


def _cache_graph(index: Path):
    graph = read_graph(IndexStore(index).current_build())
    return next(g for path, g in graph.items() if path.endswith("src/cache.py")).graph


def test_an_ingest_over_an_older_graph_version_re_derives_it(tree_copy, tmp_path, hash_config, hash_embedder):
    index = tmp_path / "idx"
    run_ingest([tree_copy], index, hash_config, embedder=hash_embedder)
    old_build = _make_old(index, GRAPH_VERSION - 1)
    assert _cache_graph(index).definitions == ()
    try:  # refs on the old build: refused, saying what to do
        docmill.open_index(index, embedder=hash_embedder).references("LRUCache")
        raise AssertionError("an old graph version was read")
    except RuntimeError as exc:
        assert "re-ingest it with `docmill ingest`" in str(exc)

    report = run_ingest([tree_copy], index, hash_config, embedder=hash_embedder)  # no file changed
    assert report.published and IndexStore(index).current_build() != old_build
    manifest = json.loads((IndexStore(index).current_build() / MANIFEST).read_text())
    assert manifest["extra"]["graph"]["version"] == GRAPH_VERSION
    assert any(p.endswith("src/cache.py") for p in manifest["extra"]["incremental"]["parsed"])  # re-parsed
    symbols = {d.symbol for d in _cache_graph(index).definitions}
    assert {"LRUCache", "LRUCache.evict_oldest"} <= symbols
    refs = docmill.open_index(index, embedder=hash_embedder).references("LRUCache")
    assert refs.definitions and refs.definitions[0].path.endswith("src/cache.py")


def test_without_a_version_change_an_unchanged_tree_keeps_its_graph(
    tree_copy, tmp_path, hash_config, hash_embedder
):
    """Why the bump matters: the same stale graph under the current version is carried forward
    (nothing changed, nothing published), so only a new version makes indexes pick up a new graph."""
    index = tmp_path / "idx"
    run_ingest([tree_copy], index, hash_config, embedder=hash_embedder)
    stale = _make_old(index, GRAPH_VERSION)
    report = run_ingest([tree_copy], index, hash_config, embedder=hash_embedder)
    assert not report.published and IndexStore(index).current_build() == stale
    assert _cache_graph(index).definitions == ()
