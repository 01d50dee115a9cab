"""How the coordinator (docmill.sharded) calls a shard: in this process on a pool thread, or on a
Dask actor hosting a docmill.shard_host.ShardSearcher. Both return futures with
``result(timeout=...)``; ``failed`` tells a shard that a call failed or timed out."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from docmill.shard_host import ShardSearcher
from indexers.build.shards import ShardsError

log = logging.getLogger(__name__)


class ShardStarting(ShardsError):
    """A remote shard's actor is being (re-)created: it misses this round."""


class LocalShard:
    """A shard searched in this process; each call runs on a pool thread, so a deadline can stop
    waiting for it."""

    def __init__(self, searcher: ShardSearcher, pool: ThreadPoolExecutor) -> None:
        self.searcher, self.pool = searcher, pool

    def call(self, method: str, *args: Any) -> Any:
        return self.pool.submit(getattr(self.searcher, method), *args)

    def failed(self, timed_out: bool) -> None:
        """A local shard has nothing to restart: the next query asks it again."""


class RemoteShard:
    """A shard hosted by a Dask actor (``client.submit(ShardSearcher, folder, actor=True)``)."""

    RESTART_AFTER_TIMEOUTS = 3

    def __init__(
        self, client: Any, folder: str, worker: str | None = None, check_interval: float = 2.0
    ) -> None:
        self.client, self.folder, self.check_interval = client, folder, check_interval
        self.timeouts = 0
        self._start([worker] if worker else None)

    def _start(self, workers: list[str] | None) -> None:
        self.actor: Any = None
        where = {"workers": workers, "allow_other_workers": True} if workers else {}
        self._future = self.client.submit(
            ShardSearcher, self.folder, None, self.check_interval, actor=True, pure=False, **where
        )

    def ready(self, timeout: float | None = None) -> Any:
        if self.actor is None:
            self.actor = self._future.result(timeout=timeout)
        return self.actor

    def call(self, method: str, *args: Any) -> Any:
        if self.actor is None and not self._future.done():
            raise ShardStarting("the shard's actor is starting on the cluster")
        return getattr(self.ready(), method)(*args)

    def failed(self, timed_out: bool) -> None:
        """An error (its worker is gone) re-creates the actor now; timeouts only after a few in a row."""
        self.timeouts = self.timeouts + 1 if timed_out else 0
        if not timed_out or self.timeouts >= self.RESTART_AFTER_TIMEOUTS:
            self.timeouts = 0
            try:
                self._start(None)
            except Exception:  # the cluster itself is unreachable: the next query tries again
                log.warning("could not restart shard %s on the cluster", self.folder, exc_info=True)
