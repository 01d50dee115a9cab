"""``open_index``: the one entry point of the query module. A folder's current build as a
HybridIndex, or with ``follow=True`` a LiveIndex that moves to each newly published build."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, overload

from docmill.index import HybridIndex
from docmill.live import LiveIndex
from docmill.opening import open_build
from indexers.build.shards import is_sharded
from indexers.build.store import IndexStore
from indexers.dense.embedder import Embedder


@overload
def open_index(
    path: str | Path,
    embedder: Embedder | None = None,
    verify_checksums: bool = False,
    *,
    follow: Literal[False] = False,
    check_interval: float = ...,
) -> HybridIndex: ...


@overload
def open_index(
    path: str | Path,
    embedder: Embedder | None = None,
    verify_checksums: bool = False,
    *,
    follow: Literal[True],
    check_interval: float = ...,
) -> LiveIndex: ...


def open_index(
    path: str | Path,
    embedder: Embedder | None = None,
    verify_checksums: bool = False,
    *,
    follow: bool = False,
    check_interval: float = 2.0,
) -> HybridIndex | LiveIndex:
    """Open the current build of an index folder. Refuses, with a message saying what to do, a
    folder with no build, another schema version, missing or resized files, or a model that is not
    available here. With ``follow`` the result is a `docmill.live.LiveIndex`: it searches like a
    HybridIndex and moves to each newly published build (checking CURRENT at most every
    ``check_interval`` seconds), keeping its loaded model. A sharded root (``docmill ingest
    --shards N``) opens as a docmill.sharded.ShardedIndex, each shard following its CURRENT."""
    root = Path(path)
    if is_sharded(root):  # ROOT/shards.json: shards searched as one corpus (docmill.sharded)
        from docmill.sharded import open_sharded

        return open_sharded(root, embedder, check_interval=check_interval)  # type: ignore[return-value]
    if follow:
        return LiveIndex(root, embedder, verify_checksums, check_interval=check_interval)
    return open_build(root, IndexStore(root).current_build(), embedder, verify_checksums)
