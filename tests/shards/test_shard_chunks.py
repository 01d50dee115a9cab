"""A sharded search reads each chunk it needs from its shard once: the search answers' chunks and
those read in a later round are kept on the search's SearchRun (real shards over the shared tree)."""

from __future__ import annotations

import pytest

import docmill
from docmill.shard_merge import SearchRun
from indexers.ranking.options import SearchOptions

pytestmark = pytest.mark.slow


def _spy_chunk_calls(sharded) -> list[dict]:
    """The ``chunks`` calls the coordinator makes from now on (each: shard -> (build, rows))."""
    asked: list[dict] = []
    call = sharded.fan.call

    def spy(method, calls, *args, **kwargs):
        if method == "chunks":
            asked.append(dict(calls))
        return call(method, calls, *args, **kwargs)

    sharded.fan.call = spy
    return asked


def test_chunks_read_in_one_round_are_not_asked_for_again(built, embedder):
    sharded = docmill.open_index(built["root"], embedder=embedder)
    asked = _spy_chunk_calls(sharded)
    fan = sharded.fan
    run = SearchRun("q", (), SearchOptions.from_kwargs(k=1), None, status=dict.fromkeys(fan.names, "ok"))
    builds, _ = fan.call("ping", {name: () for name in fan.names}, None)
    run.answers = {name: {"build": build} for name, build in builds.items()}
    rows = [row for name in fan.names for row in fan.corpus_rows(name, [0, 1])]
    first = fan.chunks(run, rows)
    assert len(asked) == 1 and sorted(first) == sorted(rows)
    again = fan.chunks(run, rows[1:] + rows[:1])
    assert len(asked) == 1, "a chunk read before was asked of its shard again"
    assert {row: c.id for row, c in again.items()} == {row: c.id for row, c in first.items()}


def test_a_search_asks_no_shard_twice_for_a_chunk(built, embedder, shard_queries):
    sharded = docmill.open_index(built["root"], embedder=embedder)
    asked = _spy_chunk_calls(sharded)
    read_some = False
    for query in shard_queries:
        asked.clear()
        # k=1: the answers carry each side's first row per shard, so the ranked head reads more
        result = sharded.search(query, k=1, abstain=False)
        assert not result.partial, result.shards
        wanted = [(name, row) for calls in asked for name, (_, rows) in calls.items() for row in rows]
        assert len(wanted) == len(set(wanted)), query
        read_some = read_some or bool(wanted)
    assert read_some  # the searches did need a later round
