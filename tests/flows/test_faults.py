"""Crash safety: kill -9 of a writer at any stage leaves the previous build serving and the next run
completes; a reader in another process searches without errors while builds are published."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from docmill_test_fakes import HASH_MODEL, HashEmbedder

import docmill
from flows.config import IngestConfig
from flows.pipeline import run_ingest
from indexers.build.manifest import Manifest
from indexers.build.store import IndexStore

REPO = Path(__file__).resolve().parents[2]
FAKES = Path(__file__).with_name("fakes.py")
PRELUDE = f"""
import importlib.util, json, sys, time
spec = importlib.util.spec_from_file_location("docmill_test_fakes", {str(FAKES)!r})
fakes = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fakes)
"""


def _python(script: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", PRELUDE + textwrap.dedent(script), *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


WRITER = """
from flows.config import IngestConfig
from flows.pipeline import run_ingest

def progress(stage, done, total):
    print(stage, flush=True)
    if stage == sys.argv[3]:
        time.sleep(120)  # the test kills us here

config = IngestConfig(model=fakes.HASH_MODEL)
run_ingest([sys.argv[1]], sys.argv[2], config, embedder=fakes.HashEmbedder(), progress=progress)
print("done", flush=True)
"""


@pytest.mark.parametrize("stage", ["parse", "embed", "write:chunks", "write:vectors", "write:manifest"])
def test_kill_9_mid_build_keeps_the_previous_build_and_the_next_run_completes(stage, tree_copy, tmp_path):
    index = tmp_path / "idx"
    config = IngestConfig(model=HASH_MODEL)
    run_ingest([tree_copy], index, config, embedder=HashEmbedder())
    before = IndexStore(index).current_build()
    (tree_copy / "guide/backup.md").write_text("# Backup\n\nSnapshot the orbital store nightly.\n")
    writer = _python(WRITER, str(tree_copy), str(index), stage)
    try:
        seen = []
        for line in writer.stdout:
            seen.append(line.strip())
            if line.strip() == stage:
                break
        assert seen and seen[-1] == stage, seen
        os.kill(writer.pid, signal.SIGKILL)
    finally:
        writer.kill()
        writer.wait()
    store = IndexStore(index)
    assert store.current_build() == before
    index_view = docmill.open_index(index, embedder=HashEmbedder())
    assert index_view.search("orbital daemon", k=3, mode="bm25").hits
    report = run_ingest([tree_copy], index, config, embedder=HashEmbedder())  # the flock died with the writer
    assert report.published and report.added == 1
    assert (
        docmill.open_index(index, embedder=HashEmbedder())
        .search("snapshot nightly", k=1, mode="bm25")
        .hits[0]
        .chunk.path.endswith("backup.md")
    )
    assert all(
        (b / "manifest.json").is_file() for b in store.builds()
    )  # the dead writer's half build is gone


READER = """
import docmill
from indexers.build.manifest import Manifest

index, stop = sys.argv[1], sys.argv[2]
embedder = fakes.HashEmbedder()
searches, errors, builds = 0, [], set()
import os
while not os.path.exists(stop):
    try:
        view = docmill.open_index(index, embedder=embedder)
        manifest = view.manifest
        paths = {d.path for d in manifest.documents}
        assert len(view) == manifest.counts["chunks"], "chunk count differs from the manifest"
        for mode in ("bm25", "vector"):
            hits = view.search("orbital daemon install", k=5, mode=mode, abstain=False).hits
            assert hits, f"no {mode} hits"
            assert all(h.chunk.path in paths for h in hits), "a hit from another build"
        builds.add(view.build.name)
        view.close()
        searches += 1
    except Exception as exc:
        errors.append(f"{type(exc).__name__}: {exc}")
print(json.dumps({"searches": searches, "errors": errors[:5], "builds": len(builds)}), flush=True)
"""


def test_reader_in_another_process_sees_only_whole_builds(tree_copy, tmp_path):
    index = tmp_path / "idx"
    config = IngestConfig(model=HASH_MODEL, keep_builds=2)
    run_ingest([tree_copy], index, config, embedder=HashEmbedder())
    stop = tmp_path / "stop"
    reader = _python(READER, str(index), str(stop))
    try:
        time.sleep(1.5)  # let it start searching
        for i in range(8):
            (tree_copy / f"guide/page{i % 3}.md").write_text(
                f"# Page {i}\n\nThe orbital daemon, revision {i}.\n"
            )
            if i % 2:
                (tree_copy / f"guide/page{(i + 1) % 3}.md").unlink(missing_ok=True)
            assert run_ingest([tree_copy], index, config, embedder=HashEmbedder()).published
            time.sleep(0.2)
        stop.touch()
        out, _ = reader.communicate(timeout=60)
    finally:
        reader.kill()
    result = json.loads(out.strip().splitlines()[-1])
    assert result["errors"] == [] and result["searches"] > 10 and result["builds"] >= 2, result
    assert len(IndexStore(index).builds()) == 2
    assert Manifest.read(IndexStore(index).current_build()).counts["documents"] >= 5
