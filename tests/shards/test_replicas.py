"""Replicas of a shard (flows.shards.add_replicas / sync_replica, docmill.shard_clients.ReplicatedShard):
when a shard's primary is mid-publish, killed or frozen past the deadline, its replica answers and
the result is full (``replicas`` says which one answered); with every member of a shard down the
result is partial as before. In process and on a real Dask LocalCluster (worker processes on
127.0.0.1); real BM25, MiniLM and FAISS."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

import pytest

from docmill.sharded import open_sharded
from flows.shards import add_replicas, run_sharded_ingest
from indexers.build.files import CURRENT
from indexers.build.shards import RootManifest
from indexers.build.store import IndexStore

QUERIES = ["network backup", "cache storage", "install logging", "billing search"]


def _ids(result) -> list[tuple[str, float]]:
    return [(h.chunk.id, round(h.score, 5)) for h in result]


def _folders(root: Path, name: str) -> tuple[Path, Path]:
    manifest = RootManifest.read(root)
    entry = next(e for e in manifest.shards if e.name == name)
    return manifest.folder(root, entry), manifest.replica_folders(root, entry)[0]


@contextlib.contextmanager
def mid_publish(folder: Path):
    """The shard's CURRENT names a build that is not there (a publish caught half-way)."""
    current = folder / CURRENT
    saved = current.read_text(encoding="utf-8")
    current.write_text("20990101T000000.000000-missing\n", encoding="utf-8")
    try:
        yield
    finally:
        current.write_text(saved, encoding="utf-8")


@pytest.fixture
def replicated(built_copy) -> dict[str, Path]:
    manifest = add_replicas(built_copy["root"], copies=1)
    assert all(len(e.replicas) == 1 for e in manifest.shards)
    return built_copy


def test_replicas_hold_the_primary_builds_as_hard_links(replicated):
    root = replicated["root"]
    for entry in RootManifest.read(root).shards:
        primary, replica = _folders(root, entry.name)
        assert IndexStore(replica).current_name() == IndexStore(primary).current_name() == entry.build
        source = next((IndexStore(primary).current_build() / "segments").rglob("chunks.jsonl"))
        linked = IndexStore(replica).current_build() / source.relative_to(IndexStore(primary).current_build())
        assert linked.stat().st_ino == source.stat().st_ino


def test_a_replica_answers_for_a_shard_mid_publish(replicated, embedder):
    root = replicated["root"]
    index = open_sharded(root, embedder=embedder, timeout=10.0)
    full = {(q, m): index.search(q, k=10, mode=m) for q in QUERIES for m in ("bm25", "hybrid")}
    primary, replica = _folders(root, "01")
    time.sleep(0.05)
    with mid_publish(primary):
        for searcher in (index.shards["01"].members[0].searcher,):
            searcher._checked = -1e9  # re-read CURRENT now, not after check_interval
        for (query, mode), expected in full.items():
            got = index.search(query, k=10, mode=mode)
            assert not got.partial and got.replicas == {"01": "replica 1"}, (query, got.shards)
            assert _ids(got) == _ids(expected)
            assert got.to_json()["replicas"] == {"01": "replica 1"}
        with mid_publish(replica):  # every member of shard 01 down: partial, as without replicas
            for member in index.shards["01"].members:
                member.searcher._checked = -1e9
            index.shards["01"].down_until = [0.0, 0.0]
            got = index.search("network backup", k=10, mode="bm25")
            assert got.partial and got.answered == ["00", "02"] and "every replica failed" in got.shards["01"]
    for member in index.shards["01"].members:
        member.searcher._checked = -1e9
    index.shards["01"].down_until = [0.0, 0.0]
    again = index.search("network backup", k=10, mode="bm25")
    assert not again.partial and not again.replicas
    assert _ids(again) == _ids(full[("network backup", "bm25")])


def test_a_sharded_ingest_publishes_in_the_replicas(replicated, embedder):
    src, root = replicated["src"], replicated["root"]
    changed = next(src.rglob("*.md"))
    changed.write_text("# Changed\n\nzebra quokka platypus network\n", encoding="utf-8")
    report = run_sharded_ingest([src], root, 3, replicated["config"], embedder=embedder)
    assert sum(1 for r in report.shards.values() if r is not None and r.published) >= 1
    for entry in RootManifest.read(root).shards:
        primary, replica = _folders(root, entry.name)
        assert IndexStore(replica).current_name() == IndexStore(primary).current_name() == entry.build
    index = open_sharded(root, embedder=embedder)
    hits = index.search("zebra quokka platypus", k=3, mode="bm25")
    assert hits and hits[0].chunk.path.endswith(changed.name)


distributed = pytest.importorskip("distributed")


def _worker_of(shard) -> str:
    (address,) = shard.client.who_has([shard._future])[shard._future.key]
    return address


@pytest.mark.slow
def test_on_dask_a_replica_answers_for_a_frozen_then_a_killed_primary(replicated, embedder, client):
    remote = open_sharded(replicated["root"], embedder=embedder, client=client, timeout=8.0)
    primary, replica = remote.shards["01"].members
    assert _worker_of(primary) != _worker_of(replica)  # a replica lives on another worker
    full = remote.search("network backup", k=10, mode="bm25")
    address = _worker_of(primary)
    pid = client.run(os.getpid, workers=[address])[address]
    os.kill(pid, signal.SIGSTOP)
    try:
        frozen = remote.search("network backup", k=10, mode="bm25")
        assert not frozen.partial and frozen.replicas.get("01") == "replica 1"
        assert _ids(frozen) == _ids(full)
    finally:
        os.kill(pid, signal.SIGCONT)
    time.sleep(0.5)
    address = _worker_of(primary)
    with contextlib.suppress(Exception):  # the worker dies before it can answer
        client.run(os._exit, 1, workers=[address])
    answers = [remote.search("network backup", k=10, mode="bm25") for _ in range(10)]
    assert not any(a.partial for a in answers), [a.shards for a in answers]
    assert all(_ids(a) == _ids(full) for a in answers)


def test_ingest_keeps_replicas_from_the_cli(tmp_path, capsys):
    """`docmill ingest TREE --index ROOT --shards 2 --replicas 1`: each shard gets a replica folder
    holding its build, the root opens and answers, a later ingest of a changed tree publishes the
    new builds in the replicas too, and --replicas without --shards is a usage error."""
    import json

    import docmill
    from docmill.cli import main

    from .conftest import write_corpus

    tree = write_corpus(tmp_path / "tree", files=12)
    root = tmp_path / "root"
    argv = ["ingest", str(tree), "--index", str(root), "--shards", "2", "--replicas", "1", "--json"]
    assert main([*argv, "--progress", "never"]) == 0
    assert json.loads(capsys.readouterr().out)["replicas"] == 1

    def in_step() -> list[str]:
        builds = []
        for entry in RootManifest.read(root).shards:
            primary, replica = _folders(root, entry.name)
            assert IndexStore(replica).current_name() == IndexStore(primary).current_name() == entry.build
            builds.append(entry.build)
        return builds

    first = in_step()
    assert all(len(e.replicas) == 1 for e in RootManifest.read(root).shards)
    index = docmill.open_index(root)
    assert index.search("network backup", k=5, mode="bm25").hits
    changed = next(tree.rglob("*.md"))
    changed.write_text(changed.read_text(encoding="utf-8") + "\nA new paragraph about backup.\n", "utf-8")
    assert main([*argv, "--progress", "never"]) == 0
    capsys.readouterr()
    assert in_step() != first  # the changed file's shard published a new build, in its replica too
    assert main(["ingest", str(tree), "--index", str(tmp_path / "one"), "--replicas", "1"]) == 2
    assert "--replicas R needs --shards N" in capsys.readouterr().err
