"""A sharded index root: N ordinary index folders and a root manifest that names them.

    ROOT/
      shards.json         the root manifest (written to a temporary file, fsync'ed, os.replace'd)
      shards/00/          an ordinary docmill index folder (CURRENT, LOCK, builds/ ...)
      shards/01/ ...

A source file belongs to shard ``blake2b-64(its id) mod N`` (its id: the path docmill records,
``<root name>/<path under the root>``), so a file stays in its shard from run to run and each
shard's ingest is incremental as one index's is. The manifest records, per shard, the build its
last sharded ingest published (None: no file of the tree falls in that shard); readers open each
shard's CURRENT, so a shard re-indexed on its own is searched at its new build. A shard may name
replica folders (``replicas``, e.g. ROOT/replicas/01-r1): index folders that hold copies of its
builds (hard links where the filesystem allows), published after the primary's by the sharded
ingest; searches fall back to them.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

SHARDS_FILE = "shards.json"
SHARDS_DIR = "shards"
FORMAT = "docmill-shards"
FORMAT_VERSION = 1
HASH = "blake2b-64(path) mod N"
MAX_SHARDS = 256


class ShardsError(ValueError):
    """A root manifest is missing, unreadable or does not match the requested sharding."""


def shard_of(rel_path: str, shards: int) -> int:
    """The shard of a source file id: stable across runs, processes and machines."""
    digest = hashlib.blake2b(rel_path.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % shards


def shard_name(i: int) -> str:
    return f"{i:02d}"


def is_sharded(root: str | Path) -> bool:
    return (Path(root) / SHARDS_FILE).is_file()


@dataclass
class ShardEntry:
    name: str
    path: str  # relative to the root
    build: str | None = None
    chunks: int = 0
    documents: int = 0
    # folders (relative to the root) holding copies of this shard's builds (flows.shards.sync_replica):
    # a search asks them when the primary is down, late or mid-publish (docmill.shard_clients)
    replicas: list[str] = field(default_factory=list)


@dataclass
class RootManifest:
    shards: list[ShardEntry]
    sources: list[str] = field(default_factory=list)
    hash: str = HASH
    updated_at: str = ""

    @classmethod
    def new(cls, count: int, sources: list[str]) -> RootManifest:
        if not 1 <= count <= MAX_SHARDS:
            raise ShardsError(f"--shards must be between 1 and {MAX_SHARDS}, got {count}")
        entries = [ShardEntry(shard_name(i), f"{SHARDS_DIR}/{shard_name(i)}") for i in range(count)]
        return cls(entries, sources)

    def folder(self, root: Path, entry: ShardEntry) -> Path:
        return root / entry.path

    def replica_folders(self, root: Path, entry: ShardEntry) -> list[Path]:
        return [root / path for path in entry.replicas]

    @classmethod
    def read(cls, root: str | Path) -> RootManifest:
        path = Path(root) / SHARDS_FILE
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ShardsError(f"{root} is not a sharded index (no {SHARDS_FILE})") from None
        except (OSError, ValueError) as exc:
            raise ShardsError(f"cannot read {path}: {exc}") from exc
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ShardsError(f"{path} is not a docmill shards manifest")
        if data.get("format_version") != FORMAT_VERSION:
            raise ShardsError(
                f"{path} has format_version {data.get('format_version')}, expected {FORMAT_VERSION}"
            )
        if data.get("hash") != HASH:
            raise ShardsError(f"{path} assigns files with {data.get('hash')!r}, this docmill with {HASH!r}")
        try:
            entries = [ShardEntry(**e) for e in data["shards"]]
        except (KeyError, TypeError) as exc:
            raise ShardsError(f"{path}: bad shard list ({exc})") from exc
        if not entries:
            raise ShardsError(f"{path} lists no shards")
        return cls(entries, list(data.get("sources", [])), data["hash"], data.get("updated_at", ""))

    def write(self, root: str | Path) -> Path:
        """Atomically: a reader sees the old manifest or the new one, never a torn file."""
        root = Path(root)
        root.mkdir(parents=True, exist_ok=True)
        self.updated_at = datetime.now(UTC).isoformat(timespec="seconds")
        data: dict[str, Any] = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "hash": self.hash,
            "updated_at": self.updated_at,
            "sources": self.sources,
            "shards": [asdict(e) for e in self.shards],
        }
        fd, tmp = tempfile.mkstemp(prefix=".shards-", suffix=".tmp", dir=root)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=1)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, root / SHARDS_FILE)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        dir_fd = os.open(root, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
        return root / SHARDS_FILE
