"""Sharded ingest: ``docmill ingest SRC --index ROOT --shards N``.

The tree is split by a stable hash of each file's id (indexers.build.shards.shard_of); every shard
is an ordinary index folder (ROOT/shards/00 ...) written by the in-process ingest
(flows.pipeline.run_ingest), so each is incremental, locked and published as one index is. The
root manifest (ROOT/shards.json) is written last, atomically. With a Dask ``client`` the shards'
ingests run as tasks on its workers (one shard per task; each worker loads its own model).
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flows.config import IngestConfig
from flows.pipeline import IngestReport, discover, run_ingest
from indexers.build.files import MANIFEST
from indexers.build.segments import link_or_copy
from indexers.build.shards import RootManifest, ShardEntry, ShardsError, is_sharded, shard_of
from indexers.build.store import IndexStore
from indexers.dense.embedder import Embedder

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ShardSource:
    """A source root seen by one shard: discover() keeps only the files whose id hashes to it."""

    path: str
    shard: int
    shards: int

    def __fspath__(self) -> str:
        return self.path

    def __str__(self) -> str:
        return self.path

    def keeps(self, rel_path: str) -> bool:
        return shard_of(rel_path, self.shards) == self.shard


@dataclass
class ShardedReport:
    root: str
    shards: dict[str, IngestReport | None] = field(default_factory=dict)  # None: no file in the shard
    seconds: float = 0.0

    @property
    def chunks(self) -> int:
        return sum(r.chunks for r in self.shards.values() if r is not None)

    def summary(self) -> str:
        lines = []
        for name, report in self.shards.items():
            lines.append(f"shard {name}: {report.summary() if report else 'no files of the tree'}")
        lines.append(
            f"{len(self.shards)} shards, {self.chunks} chunks; {self.seconds:.1f} s; root {self.root}"
        )
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        shards = {
            n: (r.to_json() | {"documents": r.documents}) if r else None for n, r in self.shards.items()
        }
        return {"root": self.root, "chunks": self.chunks, "seconds": round(self.seconds, 3), "shards": shards}


def plan_shards(root: Path, sources: Sequence[str | Path], count: int) -> RootManifest:
    """The root manifest to fill: the existing one (same shard count), or a new one. A root that
    is an ordinary index, or holds another number of shards, is refused (files would move)."""
    names = [str(s) for s in sources]
    if (root / "CURRENT").exists():
        raise ShardsError(f"{root} is an ordinary (unsharded) index; shard into a new folder")
    if not is_sharded(root):
        return RootManifest.new(count, names)
    manifest = RootManifest.read(root)
    if len(manifest.shards) != count:
        raise ShardsError(
            f"{root} holds {len(manifest.shards)} shards, not {count}: every file would change shard; "
            "ingest into a new folder to reshard"
        )
    manifest.sources = names
    return manifest


def shard_counts(sources: Sequence[str | Path], count: int) -> list[int]:
    """Files of the tree per shard (what discover() will hand each shard's ingest)."""
    counts = [0] * count
    for ref in discover(sources):
        counts[shard_of(ref.rel_path, count)] += 1
    return counts


def ingest_shard(
    sources: Sequence[str],
    folder: str,
    shard: int,
    shards: int,
    config: IngestConfig,
    embedder: Embedder | None = None,
    full_rebuild: bool = False,
) -> IngestReport:
    """One shard's ingest (in this process, or as a Dask task)."""
    picked = [ShardSource(os.fspath(s), shard, shards) for s in sources]
    # discover() takes a ShardSource as the os.PathLike it is, and keeps only its files
    return run_ingest(picked, folder, config, embedder=embedder, full_rebuild=full_rebuild)  # type: ignore[arg-type]


@dataclass
class ShardPlan:
    """What one sharded run does: the root manifest to fill and, per shard that has files, the
    arguments of its ``ingest_shard`` call (sources, folder, shard, shards)."""

    root: Path
    manifest: RootManifest
    jobs: dict[int, tuple[list[str], str, int, int]]
    started: float


def plan_sharded_ingest(sources: Sequence[str | Path], root: str | Path, shards: int) -> ShardPlan:
    """The shards' jobs for ``sources`` under ``root`` (refused as plan_shards says)."""
    started = time.perf_counter()
    root = Path(root)
    manifest = plan_shards(root, sources, shards)
    counts = shard_counts(sources, shards)
    names = [str(s) for s in sources]
    jobs = {i: (names, str(manifest.folder(root, e)), i, shards) for i, e in enumerate(manifest.shards)}
    for i, entry in enumerate(manifest.shards):
        if counts[i]:
            log.info("shard %s: %d files", entry.name, counts[i])
    return ShardPlan(root, manifest, {i: job for i, job in jobs.items() if counts[i]}, started)


def finish_sharded_ingest(plan: ShardPlan, reports: dict[int, IngestReport]) -> ShardedReport:
    """Record every shard's build in the root manifest, publish it in the shard's replicas, and
    write the manifest (last, atomically)."""
    out = ShardedReport(str(plan.root))
    for i, entry in enumerate(plan.manifest.shards):
        report = reports.get(i)
        _record(entry, report, plan.manifest.folder(plan.root, entry))
        out.shards[entry.name] = report
        if entry.build is not None:
            for replica in plan.manifest.replica_folders(plan.root, entry):
                sync_replica(plan.manifest.folder(plan.root, entry), replica)
    plan.manifest.write(plan.root)
    out.seconds = time.perf_counter() - plan.started
    return out


def gather(results: Mapping[int, Callable[[], IngestReport]]) -> dict[int, IngestReport]:
    """Every shard's report (``results``: a callable per shard that returns it or raises); a
    failure is raised after all of them have finished, so no shard is left running unseen."""
    reports: dict[int, IngestReport] = {}
    failures: list[BaseException] = []
    for i, result in results.items():
        try:
            reports[i] = result()
        except Exception as exc:  # noqa: BLE001 - re-raised below, after the other shards
            log.error("shard %d failed: %s", i, exc)
            failures.append(exc)
    if failures:
        raise failures[0]
    return reports


def run_sharded_ingest(
    sources: Sequence[str | Path],
    root: str | Path,
    shards: int,
    config: IngestConfig | None = None,
    embedder: Embedder | None = None,
    full_rebuild: bool = False,
    client: Any = None,
) -> ShardedReport:
    """Ingest ``sources`` into ``shards`` index folders under ``root`` and write the root manifest.
    A shard none of whose files is in the tree is recorded with no build (its old builds, if any,
    are no longer searched). Any shard's failure raises after the others finished; the root
    manifest then still names the builds of the previous run. (The Prefect flow `ingest` runs the
    same plan with its shards as tasks: flows/ingest.py.)"""
    config = config or IngestConfig()
    plan = plan_sharded_ingest(sources, root, shards)
    if client is not None:  # one task per shard on the cluster's workers
        futures = {
            i: client.submit(
                ingest_shard, *job, config, None, full_rebuild, key=f"ingest-shard-{i}", pure=False
            )
            for i, job in plan.jobs.items()
        }
        reports = gather({i: future.result for i, future in futures.items()})
    else:
        calls = {
            i: functools.partial(ingest_shard, *job, config, embedder, full_rebuild)
            for i, job in plan.jobs.items()
        }
        reports = gather(calls)
    return finish_sharded_ingest(plan, reports)


def _record(entry: ShardEntry, report: IngestReport | None, folder: Path) -> None:
    if report is None:
        entry.build, entry.chunks, entry.documents = None, 0, 0
        return
    entry.build = report.build or IndexStore(folder).current_name()
    entry.chunks, entry.documents = report.chunks, report.documents


REPLICAS_DIR = "replicas"


def sync_replica(primary: Path, replica: Path, keep: int = 2) -> str | None:
    """Publish ``primary``'s current build in the index folder ``replica``: the build's files
    hard-linked (copied across filesystems; builds never change once written) into
    ``replica/builds/<the same name>``, its manifest last, then CURRENT replaced and older builds
    pruned, under the replica's lock. Returns the build's name (None: the primary has none)."""
    name = IndexStore(primary).current_name()
    if name is None:
        return None
    target = IndexStore(replica)
    if target.current_name() == name:
        return name
    source = IndexStore(primary).builds_dir / name
    with target.lock(timeout=60.0):
        build = target.builds_dir / name
        if not (build / MANIFEST).is_file():
            shutil.rmtree(build, ignore_errors=True)
            files = sorted(p for p in source.rglob("*") if p.is_file() and p.name != MANIFEST)
            for path in [*files, source / MANIFEST]:
                link_or_copy(path, build / path.relative_to(source))
        target.publish(build)
        target.prune(keep)
    return name


def add_replicas(root: str | Path, copies: int = 1) -> RootManifest:
    """Give every shard of the sharded ``root`` ``copies`` replica folders (ROOT/replicas/<shard>-r<i>),
    each holding its current build (sync_replica); later sharded ingests keep them in step."""
    root = Path(root)
    manifest = RootManifest.read(root)
    for entry in manifest.shards:
        entry.replicas = [f"{REPLICAS_DIR}/{entry.name}-r{i}" for i in range(1, copies + 1)]
        for replica in manifest.replica_folders(root, entry):
            sync_replica(manifest.folder(root, entry), replica)
    manifest.write(root)
    return manifest
