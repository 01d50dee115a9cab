"""The index folder: immutable builds under builds/, a CURRENT pointer switched atomically with
os.replace, a LOCK that serialises writers, and pruning of old builds.

    INDEX/CURRENT            one line: the active build's folder name
    INDEX/LOCK               flock'ed by a writer while it builds and publishes
    INDEX/builds/<name>/     one build (manifest.json, chunks.jsonl, bm25/ ...; names in indexers.build.files)
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import shutil
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from indexers.build.files import BUILDS, CURRENT, EMBEDDING_JOURNAL, LOCK, MANIFEST


class IndexLocked(RuntimeError):
    """Another writer holds the index lock."""


class NoIndex(FileNotFoundError):
    """The folder holds no published build."""


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class IndexStore:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    @property
    def builds_dir(self) -> Path:
        return self.root / BUILDS

    def current_name(self) -> str | None:
        try:
            name = (self.root / CURRENT).read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        return name or None

    def current_build(self) -> Path:
        """The published build folder; raises NoIndex with a message a user can act on."""
        name = self.current_name()
        if name is None:
            raise NoIndex(
                f"{self.root} holds no docmill index (no {CURRENT} file); build one with `docmill ingest`"
            )
        if "/" in name or name.startswith("."):
            raise NoIndex(f"{self.root / CURRENT} names an invalid build {name!r}")
        path = self.builds_dir / name
        if not path.is_dir():
            raise NoIndex(f"{self.root / CURRENT} names build {name!r}, which does not exist")
        return path

    @contextlib.contextmanager
    def lock(self, timeout: float = 0.0) -> Iterator[None]:
        """Exclusive writer lock (flock: released by the OS if the holder dies, even by kill -9)."""
        self.root.mkdir(parents=True, exist_ok=True)
        handle = open(self.root / LOCK, "a+")  # noqa: SIM115 - held for the context's lifetime
        deadline = time.monotonic() + timeout
        try:
            while True:
                try:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise IndexLocked(
                            f"another docmill process is writing {self.root} (lock held)"
                        ) from None
                    time.sleep(0.1)
            yield
        finally:
            handle.close()

    @contextlib.contextmanager
    def undo_on_failure(self) -> Iterator[None]:
        """Around a writer's run: if it fails before any build of this folder was ever published,
        remove what the run created (the folder itself, else the LOCK file and builds/ folder it
        added), so a failed first ingest leaves no index folder holding only LOCK. A published
        index, and a folder another writer holds, are never touched. Vectors an endpoint already
        returned (the embedding journal) are kept with the LOCK file, so the next run resumes."""
        existed, had_lock = self.root.exists(), (self.root / LOCK).exists()
        had_builds = self.builds_dir.exists()
        try:
            yield
        except IndexLocked:
            raise
        except BaseException:
            if self.current_name() is None:
                journal = self.root / EMBEDDING_JOURNAL
                if not existed and not any(journal.rglob("*.npz")):
                    shutil.rmtree(self.root, ignore_errors=True)
                else:
                    if not had_builds:
                        shutil.rmtree(self.builds_dir, ignore_errors=True)
                    if not had_lock:
                        (self.root / LOCK).unlink(missing_ok=True)
            raise

    def new_build_dir(self) -> Path:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%f")  # sortable to the microsecond
        path = self.builds_dir / f"{stamp}-{secrets.token_hex(3)}"
        path.mkdir(parents=True)
        return path

    def publish(self, build: Path) -> None:
        """Point CURRENT at ``build``. Readers see the old or the new name, never a partial file."""
        if build.parent.resolve() != self.builds_dir.resolve():
            raise ValueError(f"{build} is not a build of {self.root}")
        _fsync_dir(build)
        tmp = self.root / f".{CURRENT}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(build.name + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.root / CURRENT)
        _fsync_dir(self.root)

    def builds(self) -> list[Path]:
        if not self.builds_dir.is_dir():
            return []
        return sorted(p for p in self.builds_dir.iterdir() if p.is_dir())

    def prune(self, keep: int) -> list[Path]:
        """Remove all but the newest ``keep`` builds, never the current one, and every incomplete
        build (no manifest, while the current build has one): under the lock, such a folder can only
        be left by a writer that died mid-build. Call under the lock."""
        if keep < 1:
            raise ValueError(f"keep must be >= 1, got {keep}")
        current = self.current_name()
        builds = self.builds()
        real_index = current is not None and (self.builds_dir / current / MANIFEST).is_file()
        orphans = [p for p in builds if real_index and p.name != current and not (p / MANIFEST).is_file()]
        kept = [p for p in builds if p not in orphans]
        removed = orphans + [p for p in kept[:-keep] if p.name != current]
        for path in removed:
            shutil.rmtree(path, ignore_errors=True)
        return removed
