"""The Prefect flow `ingest` against a real (ephemeral) Prefect API."""

import pytest

import docmill
from indexers.build.manifest import Manifest
from indexers.build.store import IndexStore

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def test_ingest_flow_publishes_a_searchable_index(prefect_api, small_tree, tmp_path):
    from prefect.client.orchestration import get_client

    from flows.ingest import ingest

    index = tmp_path / "idx"
    state = ingest(sources=[str(small_tree)], index=str(index), return_state=True)
    assert state.is_completed(), state
    report = state.result()
    assert (report["indexed"], report["empty"], report["skipped"]) == (3, 1, 1)
    build = IndexStore(index).current_build()
    assert report["build"] == build.name
    manifest = Manifest.read(build)
    assert manifest.counts["chunks"] == report["chunks"]
    assert manifest.embedding["windows"] and list(build.glob("segments/*/window_vectors.npy"))
    hit = docmill.open_index(index).search("evict the least recently used entry", k=1).hits[0]
    assert hit.chunk.symbol == "LRUCache.evict_oldest"

    async def flow_runs():
        async with get_client() as client:
            return await client.read_flow_runs()

    import asyncio

    runs = asyncio.run(flow_runs())
    assert any(r.id == state.state_details.flow_run_id and r.state.is_completed() for r in runs)


def test_the_flow_can_leave_windows_out(prefect_api, small_tree, tmp_path):
    from flows.ingest import ingest

    index = tmp_path / "plain"
    state = ingest(sources=[str(small_tree)], index=str(index), windows=False, return_state=True)
    assert state.is_completed(), state
    build = IndexStore(index).current_build()
    assert "windows" not in Manifest.read(build).embedding
    assert not list(build.glob("segments/*/window_*.npy"))
    assert state.result()["embedded"] == state.result()["chunks"]  # one vector a chunk, no more


def _task_states(flow_run_id):
    import asyncio

    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

    async def read():
        async with get_client() as client:
            runs = await client.read_task_runs(
                flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[flow_run_id]))
            )
            return [(r.task_key, r.name, r.state.name) for r in runs]

    return asyncio.run(read())


def test_second_run_takes_parse_results_from_the_cache(prefect_api, small_tree, tmp_path):
    from flows.ingest import ingest

    first = ingest(sources=[str(small_tree)], index=str(tmp_path / "a"), return_state=True)
    second = ingest(sources=[str(small_tree)], index=str(tmp_path / "b"), return_state=True)
    assert first.is_completed() and second.is_completed()
    assert first.result()["chunks"] == second.result()["chunks"]
    parse_states = [
        state
        for _, name, state in _task_states(second.state_details.flow_run_id)
        if name.startswith("parse_task")
    ]
    assert len(parse_states) == 5
    assert set(parse_states) == {"Cached"}


def test_a_small_change_is_published_by_segments_through_the_flow(prefect_api, small_tree, tmp_path):
    """What a nightly `prefect deployment run ingest/...` meets: one file changed in a tree of
    eleven; the flow writes the next build by segments (the previous build's files hard-linked,
    one new segment), and it searches like a full rebuild of the same tree."""
    import shutil

    from flows.ingest import ingest
    from flows.pipeline import run_ingest

    tree = tmp_path / "tree"
    shutil.copytree(small_tree, tree)
    for n in range(6):
        (tree / f"notes/page{n}.md").parent.mkdir(exist_ok=True)
        (tree / f"notes/page{n}.md").write_text(
            f"# Note {n}\n\nRelease train {n} ships the scheduler changes and the audit log fixes.\n",
            encoding="utf-8",
        )
    index = tmp_path / "idx"
    assert ingest(sources=[str(tree)], index=str(index), return_state=True).is_completed()
    first = IndexStore(index).current_build()
    (tree / "notes/page3.md").write_text(
        "# Note 3\n\nThe quokka handshake renews every lease before the replica heartbeat expires.\n",
        encoding="utf-8",
    )
    state = ingest(sources=[str(tree)], index=str(index), return_state=True)
    assert state.is_completed(), state
    assert state.result()["changed"] == 1
    second = IndexStore(index).current_build()
    manifest = Manifest.read(second)
    assert len(manifest.segments) == 2 and manifest.segments[0]["deleted"] > 0
    old = manifest.segments[0]["name"]
    for name in ("chunks.jsonl", "embeddings.npy", "bm25/tf.npy"):
        assert (first / "segments" / old / name).stat().st_ino == (
            second / "segments" / old / name
        ).stat().st_ino

    full = tmp_path / "full"
    run_ingest([tree], full, full_rebuild=True)
    flowed, rebuilt = docmill.open_index(index), docmill.open_index(full)
    for query in ("quokka handshake lease", "evict the least recently used entry", "audit log fixes"):
        a = [h.chunk.id for h in flowed.search(query, k=10, mode="bm25", abstain=False).hits]
        b = [h.chunk.id for h in rebuilt.search(query, k=10, mode="bm25", abstain=False).hits]
        assert a == b
    assert flowed.search("quokka handshake lease", k=1).hits[0].chunk.path.endswith("notes/page3.md")
