"""Shards hosted by Dask actors on a real local cluster (worker processes on 127.0.0.1): the same
answers as in-process shards, and partial results when a shard's worker is frozen past the
deadline or killed, full again once it answers or its actor is re-created."""

from __future__ import annotations

import contextlib
import os
import signal
import time

import pytest

from docmill.sharded import open_sharded

distributed = pytest.importorskip("distributed")
pytestmark = pytest.mark.slow


def _worker_of(index, name: str) -> str:
    shard = index.shards[name]
    (address,) = shard.client.who_has([shard._future])[shard._future.key]
    return address


def _ids(result) -> list[tuple[str, float]]:
    return [(h.chunk.id, round(h.score, 5)) for h in result]


def test_remote_shards_answer_as_local_ones(built, embedder, client, shard_queries):
    local = open_sharded(built["root"], embedder=embedder)
    remote = open_sharded(built["root"], embedder=embedder, client=client, timeout=30.0)
    assert len({_worker_of(remote, name) for name in remote.names}) == 3  # one shard per worker
    for query in shard_queries[:10]:
        for mode in ("bm25", "hybrid"):
            a, b = local.search(query, k=10, mode=mode), remote.search(query, k=10, mode=mode)
            assert not b.partial and _ids(a) == _ids(b), (query, mode)


def test_a_frozen_shard_misses_the_deadline_then_answers_again(built, embedder, client):
    remote = open_sharded(built["root"], embedder=embedder, client=client, timeout=30.0)
    full = remote.search("cache storage", k=10, mode="bm25")
    address = _worker_of(remote, "02")
    pid = client.run(os.getpid, workers=[address])[address]
    os.kill(pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        slow = remote.search("cache storage", k=10, mode="bm25", timeout=2.0)
        assert time.monotonic() - started < 10
        assert slow.partial and slow.answered == ["00", "01"] and "deadline" in slow.shards["02"]
    finally:
        os.kill(pid, signal.SIGCONT)
    again = remote.search("cache storage", k=10, mode="bm25")
    assert not again.partial and _ids(again) == _ids(full)


def test_shard_ingests_run_as_tasks_on_the_cluster(tmp_path, built, embedder, client):
    from flows.shards import run_sharded_ingest
    from indexers.build.shards import RootManifest

    src = tmp_path / "few"
    for i, topic in enumerate(["cache eviction", "network retries", "storage quotas", "billing cycles"]):
        (src / f"d{i}").mkdir(parents=True)
        (src / f"d{i}" / "note.md").write_text(f"# Note {i}\n\nAbout {topic} and how {topic} work.\n")
    report = run_sharded_ingest([src], tmp_path / "root", 2, built["config"], client=client)
    manifest = RootManifest.read(tmp_path / "root")
    assert sum(e.documents for e in manifest.shards) == 4 and report.chunks == 4
    index = open_sharded(tmp_path / "root", embedder=embedder)
    hit = index.search("storage quotas", k=1, mode="bm25").hits[0]
    assert hit.chunk.path == "few/d2/note.md"


def test_a_killed_shard_worker_gives_partial_answers_until_its_actor_is_back(built, embedder, client):
    # a generous deadline: the live shards must answer in time on a loaded machine
    remote = open_sharded(built["root"], embedder=embedder, client=client, timeout=30.0)
    full = remote.search("network backup", k=10, mode="bm25")
    address = _worker_of(remote, "01")
    # the actors are placed one per worker, loosely: on a loaded machine the scheduler may have
    # put another shard beside 01, and that one goes down with it
    alive = [name for name in remote.names if _worker_of(remote, name) != address]
    assert alive, "every shard on one worker: nothing could answer"
    with contextlib.suppress(Exception):  # the worker dies before it can answer
        client.run(os._exit, 1, workers=[address])
    answers, killed, deadline = [], time.monotonic(), time.monotonic() + 120
    while time.monotonic() < deadline:
        answers.append(remote.search("network backup", k=10, mode="bm25"))  # never raises
        if len(answers) > 1 and not answers[-1].partial:
            break
        time.sleep(0.5)
    back = time.monotonic() - killed
    print(f"{sum(a.partial for a in answers)} partial answers, full again after {back:.1f} s")
    assert answers[0].partial and answers[0].answered == alive
    assert all(len(a) > 0 for a in answers)
    assert not answers[-1].partial and _ids(answers[-1]) == _ids(full)
    assert _worker_of(remote, "01") != address  # re-created on a live worker
