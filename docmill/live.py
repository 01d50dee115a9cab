"""A live index: the current build of an index folder, moved to each newly published build.

    index = docmill.open_index("index/", follow=True)   # checks CURRENT at most every 2 s
    index.search("how do I install on linux")           # always on one whole build
    index.refresh()                                     # or switch explicitly: True if it moved

Each search leases the build it starts on and finishes there, even if a newer build is published
(or the old folder pruned: its files stay open) meanwhile. A build is released (file descriptors
and memory maps closed) when it is no longer current and its last lease ends. A newer build is
switched to only if its manifest and files verify and it was embedded with the same model and
backend, so the loaded model is reused; otherwise the index keeps serving the build it has and
logs why, once per refused build.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docmill.context import Passage
from docmill.hits import Hit, SearchResult
from docmill.index import HybridIndex
from docmill.opening import open_build
from indexers.build.manifest import Manifest, ManifestError
from indexers.build.store import IndexStore, NoIndex
from indexers.dense.embedder import Embedder, ModelUnavailable, make_embedder, model_available
from indexers.dense.remote import for_manifest, is_remote

log = logging.getLogger(__name__)


class BuildRefused(ManifestError):
    """A published build this live index will not switch to (it keeps serving its current one)."""


@dataclass(eq=False)
class _Lease:
    """A build and how many searches hold it; closed once retired and no longer held."""

    index: HybridIndex
    users: int = 0
    retired: bool = False


class LiveIndex:
    """Searches like a HybridIndex, on the newest good build of ``root``. Thread-safe."""

    def __init__(
        self,
        root: str | Path,
        embedder: Embedder | None = None,
        verify_checksums: bool = False,
        check_interval: float = 2.0,
        follow: bool = True,
    ) -> None:
        if check_interval < 0:
            raise ValueError(f"check_interval must be >= 0 seconds, got {check_interval}")
        self.root = Path(root)
        self.store = IndexStore(self.root)
        self.verify_checksums = verify_checksums
        self.check_interval = check_interval
        self.follow = follow
        build = self.store.current_build()
        self.embedder = embedder if embedder is not None else _embedder_for(self.root, Manifest.read(build))
        self._current = _Lease(open_build(self.root, build, self.embedder, verify_checksums))
        self._lock = threading.Lock()  # guards _current and lease counts
        self._refreshing = threading.Lock()  # one thread opens a new build at a time
        self._refused: dict[str, str] = {}  # build name -> why it was not switched to
        self._checked_at = time.monotonic()
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def build_name(self) -> str:
        """The build new searches run on."""
        return self._current.index.build.name

    @property
    def current(self) -> HybridIndex:
        """The current build's HybridIndex (for reading its manifest; search through ``acquire``)."""
        return self._current.index

    @property
    def manifest(self) -> Manifest:
        return self._current.index.manifest

    @property
    def refused(self) -> dict[str, str]:
        """Published builds not switched to, with the reason."""
        return dict(self._refused)

    def __len__(self) -> int:
        with self.acquire() as index:
            return len(index)

    @contextlib.contextmanager
    def acquire(self) -> Iterator[HybridIndex]:
        """Hold the current build for the duration of the block (a search, or several that must
        agree); following first checks whether a newer build was published."""
        if self.follow and time.monotonic() - self._checked_at >= self.check_interval:
            self.refresh(wait=False)
        with self._lock:
            if self._closed:
                raise RuntimeError(f"live index {self.root} is closed")
            lease = self._current
            lease.users += 1
        try:
            yield lease.index
        finally:
            self._release(lease)

    def search(self, query: str, **options: Any) -> SearchResult:
        """HybridIndex.search on the current build."""
        with self.acquire() as index:
            return index.search(query, **options)

    def search_many(self, queries: Sequence[str], **options: Any) -> SearchResult:
        with self.acquire() as index:
            return index.search_many(queries, **options)

    def context(self, hit: Hit, scope: str = "section", max_chars: int | None = None) -> Passage:
        """HybridIndex.context on the current build (a hit from an earlier build: ValueError,
        search again)."""
        with self.acquire() as index:
            return index.context(hit, scope, max_chars)

    def refresh(self, wait: bool = True) -> bool:
        """Switch to the build CURRENT names if it differs from ours and passes the checks; True
        if it switched. A refused or unreadable build is logged and the current one kept. With
        ``wait=False`` it returns False at once while another thread is refreshing."""
        if not self._refreshing.acquire(blocking=wait):
            return False
        try:
            self._checked_at = time.monotonic()
            name = self.store.current_name()
            if name is None or name == self.build_name or name in self._refused or self._closed:
                return False
            try:
                index = self._open(name)
            except (ManifestError, NoIndex, ModelUnavailable, OSError, ValueError) as exc:
                self._refused[name] = str(exc)
                log.warning(
                    "%s: not switching to build %s (%s); %s keeps serving",
                    self.root,
                    name,
                    exc,
                    self.build_name,
                )
                return False
            self._swap(index)
            log.info("%s: switched to build %s", self.root, name)
            return True
        finally:
            self._refreshing.release()

    def _open(self, name: str) -> HybridIndex:
        build = self.store.current_build()
        if build.name != name:  # published again meanwhile: the next refresh takes it
            raise NoIndex(f"CURRENT moved on from {name} while opening it")
        manifest = Manifest.read(build)
        model, backend = manifest.embedding.get("model"), manifest.embedding_backend
        ours = (self.embedder.model_name, getattr(self.embedder, "backend", "torch"))
        if (model, backend) != ours:
            raise BuildRefused(
                f"embedded with {model!r} ({backend}), this index serves {ours[0]!r} ({ours[1]}); "
                "open the index again to change models"
            )
        serves = getattr(self.embedder, "serves", None)  # an endpoint: same URL, input type, vectors
        if serves is not None and not serves(manifest.embedding):
            self.embedder.recheck()  # type: ignore[attr-defined]  # has the endpoint changed under us?
            raise BuildRefused("embedded through another endpoint or model version; open the index again")
        return open_build(self.root, build, self.embedder, self.verify_checksums)

    def _swap(self, index: HybridIndex) -> None:
        with self._lock:
            old, self._current = self._current, _Lease(index)
            old.retired = True
            idle = old.users == 0
        if idle:
            old.index.close()

    def _release(self, lease: _Lease) -> None:
        with self._lock:
            lease.users -= 1
            idle = lease.retired and lease.users == 0
        if idle:
            lease.index.close()

    def close(self) -> None:
        """Stop serving; the current build is released when its last search ends."""
        with self._refreshing, self._lock:
            if self._closed:
                return
            self._closed = True
            self._current.retired = True
            idle = self._current.users == 0
        if idle:
            self._current.index.close()

    def describe(self) -> Mapping[str, Any]:
        """What /index shows: the build, when it was made, counts, model and fusion settings."""
        with self.acquire() as index:
            manifest = index.manifest
            kinds: dict[str, int] = {}
            for chunk in index.chunks.all():
                kinds[chunk.kind] = kinds.get(chunk.kind, 0) + 1
            statuses: dict[str, int] = {}
            for doc in manifest.documents:
                statuses[doc.status] = statuses.get(doc.status, 0) + 1
            return {
                "build": index.build.name,
                "created": manifest.created_at,
                "counts": {**manifest.counts, "chunks_by_kind": kinds, "documents_by_status": statuses},
                "model": {
                    "name": manifest.embedding.get("model"),
                    "backend": manifest.embedding_backend,
                    "dim": manifest.embedding.get("dim"),
                    # how it was chosen (model "auto": indexers/dense/model_choice.py); None if given
                    "choice": manifest.embedding.get("choice"),
                },
                "fusion": {
                    "rrf_k": index.fusion_rrf_k,
                    "weights": index.fusion_weights,
                    "bm25_coverage_power": index.fusion_coverage_power,
                },
                "refused_builds": self.refused,
            }


def _embedder_for(root: Path, manifest: Manifest) -> Embedder:
    """One Embedder (its model loads on first use) shared by every build this index opens."""
    model = manifest.embedding.get("model")
    if is_remote(manifest.embedding_backend):  # the build's endpoint, asked at the first query
        return for_manifest(manifest.embedding)  # type: ignore[return-value]
    if not model or not model_available(model):
        raise ModelUnavailable(f"index {root} was embedded with model {model!r}, which is not available here")
    return make_embedder(model, backend=manifest.embedding_backend)
