"""How the coordinator (docmill.sharded) calls a shard: in this process on a pool thread, or on a
Dask actor hosting a docmill.shard_host.ShardSearcher, or through a ReplicatedShard, which asks a
shard's replicas when its primary fails. All return futures with ``result(timeout=...)``;
``failed`` tells a shard that a call failed or timed out."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping, Sequence
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


class ReplicatedShard:
    """One shard served by several members (its primary folder first, then its replicas'), each a
    LocalShard or RemoteShard. A call goes to the first member not suspected down; a member that
    fails or misses its share of the deadline is suspected for ``cooldown`` seconds and the call
    moves on to the next member within the same deadline, so the shard still answers. The future
    says which member answered (``served_by``)."""

    def __init__(
        self, members: Sequence[LocalShard | RemoteShard], labels: Sequence[str], cooldown: float = 5.0
    ) -> None:
        if not members or len(members) != len(labels):
            raise ValueError("a replicated shard needs members, one label each")
        self.members, self.labels, self.cooldown = list(members), list(labels), cooldown
        self.down_until = [0.0] * len(self.members)
        self._lock = threading.Lock()

    def order(self) -> list[int]:
        """Members to ask, in turn: those not suspected, in their order, then the suspected ones."""
        now = time.monotonic()
        with self._lock:
            up = [i for i, until in enumerate(self.down_until) if until <= now]
        return up + [i for i in range(len(self.members)) if i not in up]

    def mark(self, member: int, ok: bool) -> None:
        with self._lock:
            self.down_until[member] = 0.0 if ok else time.monotonic() + self.cooldown

    def call(self, method: str, *args: Any) -> ReplicaCall:
        return ReplicaCall(self, method, args)

    def failed(self, timed_out: bool) -> None:
        """Every member failed this call; each was told already."""

    def ready(self, timeout: float | None = None) -> None:
        for member in self.members:
            if isinstance(member, RemoteShard):
                member.ready(timeout=timeout)


def replicated(
    members: Mapping[str, Sequence[LocalShard | RemoteShard]],
) -> dict[str, LocalShard | RemoteShard | ReplicatedShard]:
    """A shard with one member as it is; one with replicas as a ReplicatedShard (primary first)."""
    return {
        name: own[0]
        if len(own) == 1
        else ReplicatedShard(own, ["primary", *(f"replica {r}" for r in range(1, len(own)))])
        for name, own in members.items()
    }


class ReplicaCall:
    """One call to a ReplicatedShard: started at once on its first member (so shards are asked
    in parallel); ``result`` moves on to the next member when one fails or misses its share of the
    time left (half of it while other members remain)."""

    def __init__(self, shard: ReplicatedShard, method: str, args: tuple[Any, ...]) -> None:
        self.shard, self.method, self.args = shard, method, args
        self.order = shard.order()
        self.served_by: str | None = None
        self._first: Any = None
        self._first_error: Exception | None = None
        try:
            self._first = shard.members[self.order[0]].call(method, *args)
        except Exception as exc:  # noqa: BLE001 - reported by result(), after the other members
            self._first_error = exc

    def _attempt(self, position: int, budget: float | None) -> Any:
        member = self.shard.members[self.order[position]]
        if position == 0:
            if self._first_error is not None:
                raise self._first_error
            return self._first.result(timeout=budget)
        return member.call(self.method, *self.args).result(timeout=budget)

    def result(self, timeout: float | None = None) -> Any:
        deadline = None if timeout is None else time.monotonic() + timeout
        reasons = []
        timed_out = True
        for position, i in enumerate(self.order):
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                break
            last = position == len(self.order) - 1
            budget = left if last or left is None else left / 2
            member = self.shard.members[i]
            try:
                answer = self._attempt(position, budget)
            except ShardStarting as exc:
                reasons.append(f"{self.shard.labels[i]}: {exc}")
                timed_out = False
                continue
            except TimeoutError:
                reasons.append(f"{self.shard.labels[i]}: no answer within {budget:g} s")
                member.failed(timed_out=True)
                self.shard.mark(i, ok=False)
                continue
            except Exception as exc:  # noqa: BLE001 - the next member answers instead
                reasons.append(f"{self.shard.labels[i]}: {type(exc).__name__}: {exc}")
                member.failed(timed_out=False)
                self.shard.mark(i, ok=False)
                timed_out = False
                continue
            self.shard.mark(i, ok=True)
            self.served_by = self.shard.labels[i]
            return answer
        message = "; ".join(reasons) or "no time left"
        raise TimeoutError(message) if timed_out else ShardsError(f"every replica failed: {message}")
