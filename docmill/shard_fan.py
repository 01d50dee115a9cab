"""How the coordinator of a sharded root (docmill.sharded) talks to its shards: one call to every
named shard at once under a deadline, a shard that raises or is late left out and told (a remote
one is re-created in the background), and corpus rows located in their shards, whose chunks come
from the search answers or one more round."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from chunkers.model import Chunk
from docmill.shard_clients import LocalShard, RemoteShard, ReplicatedShard, ShardStarting
from docmill.shard_merge import ROW_BITS, SearchRun

Shard = LocalShard | RemoteShard | ReplicatedShard


class ShardFan:
    """The shards of a root by name, in corpus-row order (``names``: shard i's rows are
    ``i << ROW_BITS | row``)."""

    def __init__(self, shards: dict[str, Shard]) -> None:
        self.shards = shards
        self.names = list(shards)

    def call(
        self,
        method: str,
        calls: Mapping[str, tuple[Any, ...]],
        timeout: float | None,
        served: dict[str, str] | None = None,
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """``method(*args)`` on each named shard at once, waiting up to ``timeout`` seconds for
        them; (answers, name -> why it failed). ``served``: filled with the replica that answered
        for a shard whose primary did not (docmill.shard_clients.ReplicatedShard)."""
        deadline = time.monotonic() + timeout if timeout is not None else None
        futures, failed = {}, {}
        for name, args in calls.items():
            try:
                futures[name] = self.shards[name].call(method, *args)
            except ShardStarting as exc:
                failed[name] = str(exc)
            except Exception as exc:  # a shard that cannot even be asked is down (its actor lost)
                failed[name] = f"{type(exc).__name__}: {exc}"
                self.shards[name].failed(timed_out=False)
        answers = {}
        for name, future in futures.items():
            left = None if deadline is None else max(deadline - time.monotonic(), 0.001)
            try:
                answers[name] = future.result(timeout=left)
                replica = getattr(future, "served_by", None)
                if served is not None and replica is not None and replica != "primary":
                    served[name] = replica
            except TimeoutError:
                failed[name] = f"no answer within the deadline ({timeout:g} s, {method})"
                self.shards[name].failed(timed_out=True)
            except Exception as exc:
                failed[name] = f"{type(exc).__name__}: {exc}"
                self.shards[name].failed(timed_out=False)
        return answers, failed

    def locate(self, row: int) -> tuple[str, int]:
        """A corpus row's shard and its row there."""
        return self.names[row >> ROW_BITS], row & ((1 << ROW_BITS) - 1)

    def corpus_rows(self, name: str, rows: Sequence[int]) -> list[int]:
        """Shard ``name``'s ``rows`` as corpus rows."""
        base = self.names.index(name) << ROW_BITS
        return [base | row for row in rows]

    def chunks(self, run: SearchRun, rows: Sequence[int]) -> dict[int, Chunk]:
        """The chunks of corpus ``rows``: those in ``run.chunks`` (the search answers carried
        them, or an earlier round read them), the others read from their shards (added to
        ``run.chunks``; a shard that fails here is marked in ``run.status`` and its rows left out)."""
        by_row = run.chunks
        wanted: dict[str, list[int]] = {}
        for row in rows:
            name, own = self.locate(row)
            if (name, own) not in by_row:  # a hit below every side's first k of its shard
                wanted.setdefault(name, []).append(own)
        calls = {name: (run.answers[name]["build"], own) for name, own in wanted.items()}
        got, failed = self.call("chunks", calls, run.timeout, run.served) if calls else ({}, {})
        run.status.update(failed)
        for name, chunks in got.items():
            by_row.update({(name, own): chunk for own, chunk in zip(wanted[name], chunks, strict=True)})
        return {row: by_row[self.locate(row)] for row in rows if self.locate(row) in by_row}
