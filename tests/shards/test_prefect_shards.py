"""The Prefect flow `ingest` with ``shards``: the shards' ingests run as tasks against a real
(ephemeral) Prefect API and write the same root as `docmill ingest --shards` (flows/shards.py)."""

from __future__ import annotations

import json

import pytest

import docmill
from indexers.build.shards import RootManifest

from .conftest import SHARDS

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def test_the_flow_writes_the_root_the_cli_writes(prefect_api, built, shard_queries, tmp_path):
    from flows.ingest import ingest

    root = tmp_path / "root"
    state = ingest(
        sources=[str(built["src"])], index=str(root), max_tokens=80, shards=SHARDS, return_state=True
    )
    assert state.is_completed(), state
    report = state.result()
    json.dumps(report)  # a flow result a deployment can store
    ours, theirs = RootManifest.read(root), RootManifest.read(built["root"])
    assert [(e.name, e.chunks, e.documents) for e in ours.shards] == [
        (e.name, e.chunks, e.documents) for e in theirs.shards
    ]
    assert report["chunks"] == sum(e.chunks for e in theirs.shards) > 0
    assert set(report["shards"]) == {e.name for e in theirs.shards}
    flow_index, cli_index = docmill.open_index(root), docmill.open_index(built["root"])
    try:
        for q in shard_queries:
            for mode in ("bm25", "hybrid"):
                a = flow_index.search(q, k=10, mode=mode)
                b = cli_index.search(q, k=10, mode=mode)
                assert not a.partial
                assert [(h.chunk.id, round(h.score, 6)) for h in a.hits] == [
                    (h.chunk.id, round(h.score, 6)) for h in b.hits
                ]
    finally:
        flow_index.close()
        cli_index.close()

    # A second run with nothing changed republishes nothing and names the same builds.
    again = ingest(sources=[str(built["src"])], index=str(root), max_tokens=80, shards=SHARDS)
    assert [e.build for e in RootManifest.read(root).shards] == [e.build for e in ours.shards]
    assert all(r is None or r["added"] == r["changed"] == 0 for r in again["shards"].values())


def test_the_flow_runs_the_shards_on_a_dask_cluster(prefect_api, tmp_path):
    """``dask_workers``: the shards' ingests are tasks on a local Dask cluster of 2 worker processes
    (prefect-dask's DaskTaskRunner), and the root they write searches."""
    from flows.ingest import ingest

    src = tmp_path / "few"
    for i, topic in enumerate(["cache eviction", "network retries", "storage quotas", "billing cycles"]):
        (src / f"d{i}").mkdir(parents=True)
        (src / f"d{i}" / "note.md").write_text(f"# Note {i}\n\nAbout {topic} and how {topic} work.\n")
    report = ingest(sources=[str(src)], index=str(tmp_path / "root"), shards=2, dask_workers=2)
    assert report["chunks"] == 4
    manifest = RootManifest.read(tmp_path / "root")
    assert sum(e.documents for e in manifest.shards) == 4
    index = docmill.open_index(tmp_path / "root")
    try:
        hit = index.search("storage quotas", k=1, mode="bm25").hits[0]
        assert hit.chunk.path == "few/d2/note.md"
    finally:
        index.close()
