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
