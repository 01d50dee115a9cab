"""Incremental re-index: diff the source tree against the current build's manifest by content hash,
reuse unchanged documents' chunks, and reuse embeddings by (model id + indexed text) hash.

Everything here is a plain function of its inputs (no Prefect): the in-process runner
(flows.pipeline) and the Prefect flow (flows.ingest) call the same steps. The invariant callers rely
on: an incremental build has the same chunks, the same BM25 arrays and the same vectors (up to float
tolerance) as a full rebuild of the same tree with the same settings.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from chunkers.model import Chunk
from flows.records import ParseOutcome, SourceRef, chunk_outcome
from indexers.graph import GRAPH_VERSION, FileGraph, read_graph
from indexers.layout import CHUNKS_FILE, EMBEDDING_KEYS_FILE, EMBEDDINGS_FILE
from indexers.manifest import DocumentRecord, Manifest, ManifestError, file_sha256
from indexers.store import IndexStore, NoIndex

if TYPE_CHECKING:
    from flows.config import IngestConfig

log = logging.getLogger(__name__)

# Stored in Manifest.extra: what a build's chunks depend on besides the file bytes. Chunks of an
# earlier build are reused only when this matches exactly (a docmill upgrade or other chunk or parse
# options mean a full re-parse; `full_rebuild` forces one).
REUSE_KEY = "reuse_key"
INCREMENTAL_KEY = "incremental"


def reuse_key(config: IngestConfig) -> dict[str, Any]:
    from docmill import __version__

    return {
        "docmill": __version__,
        "parse": config.parse.output_settings(),
        "chunk": {"max_tokens": config.chunk.max_tokens, "token_count": "estimate-v1"},
        "graph": GRAPH_VERSION,  # a reused file's references come from the previous graph.jsonl
    }


def embedding_key(model: str, index_text: str) -> bytes:
    """Cache key of one embedding: SHA-256 (hex, ASCII) of the model id and the embedded text. A
    renamed file whose chunks embed the same text hits the cache; another model never does."""
    return hashlib.sha256(f"{model}\x00{index_text}".encode()).hexdigest().encode("ascii")


class EmbeddingCache:
    """Embeddings of an earlier build, looked up by ``embedding_key``. Stored in the build folder as
    ``embeddings.npy`` (float32 rows aligned with chunks.jsonl) plus ``embedding_keys.npy`` (fixed
    64-byte ASCII hex keys): plain arrays, no pickle."""

    def __init__(self, keys: Sequence[bytes], vectors: np.ndarray) -> None:
        if len(keys) != len(vectors):
            raise ValueError(f"{len(keys)} embedding keys for {len(vectors)} vectors")
        self.vectors = vectors
        self._rows = {bytes(key): row for row, key in enumerate(keys)}

    @classmethod
    def empty(cls) -> EmbeddingCache:
        return cls([], np.zeros((0, 0), dtype=np.float32))

    @classmethod
    def load(cls, folder: Path) -> EmbeddingCache:
        keys_path, vectors_path = folder / EMBEDDING_KEYS_FILE, folder / EMBEDDINGS_FILE
        if not keys_path.is_file() or not vectors_path.is_file():
            return cls.empty()  # a build from before the cache existed
        keys = np.load(keys_path, allow_pickle=False)
        vectors = np.load(vectors_path, mmap_mode="r", allow_pickle=False)
        return cls(keys.tolist(), vectors)

    def __len__(self) -> int:
        return len(self._rows)

    def __contains__(self, key: bytes) -> bool:
        return key in self._rows

    def get(self, key: bytes) -> np.ndarray:
        return np.asarray(self.vectors[self._rows[key]], dtype=np.float32)

    @property
    def dim(self) -> int | None:
        return int(self.vectors.shape[1]) if len(self) else None


def save_embedding_keys(folder: Path, keys: Sequence[bytes]) -> None:
    np.save(folder / EMBEDDING_KEYS_FILE, np.asarray(keys, dtype="S64"), allow_pickle=False)


@dataclass
class PreviousBuild:
    """The current build of an index, as far as a new build may reuse it."""

    name: str
    manifest: Manifest
    reusable: bool  # chunks may be reused (same reuse key); embeddings are reused regardless
    chunks_by_path: dict[str, list[Chunk]]
    cache: EmbeddingCache
    graph_by_path: dict[str, FileGraph] = field(default_factory=dict)

    def record(self, path: str) -> DocumentRecord | None:
        return self._records.get(path)

    def __post_init__(self) -> None:
        self._records = {r.path: r for r in self.manifest.documents}


def load_previous(store: IndexStore, config: IngestConfig) -> PreviousBuild | None:
    """The current build, or None when there is none or it cannot be trusted (then the caller does a
    full build; a damaged build is never reused)."""
    try:
        folder = store.current_build()
        manifest = Manifest.read(folder)
        manifest.verify_files(folder)
    except NoIndex:
        return None
    except (ManifestError, OSError) as exc:
        log.warning("previous build is not reusable, doing a full build: %s", exc)
        return None
    reusable = manifest.extra.get(REUSE_KEY) == reuse_key(config)
    chunks_by_path: dict[str, list[Chunk]] = {}
    if reusable:
        with open(folder / CHUNKS_FILE, encoding="utf-8") as handle:
            for line in handle:
                chunk = Chunk.from_json(json.loads(line))
                chunks_by_path.setdefault(chunk.path, []).append(chunk)
    return PreviousBuild(
        folder.name,
        manifest,
        reusable,
        chunks_by_path,
        EmbeddingCache.load(folder),
        read_graph(folder) if reusable else {},
    )


@dataclass
class Plan:
    """What a run must do: which documents to parse, which to take from the previous build."""

    refs: list[SourceRef]
    hashes: dict[str, str]  # rel_path -> sha256 of the file now ("" if unreadable)
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    reuse: dict[str, tuple[DocumentRecord, list[Chunk]]] = field(default_factory=dict)
    previous: str | None = None

    @property
    def to_parse(self) -> list[SourceRef]:
        return [ref for ref in self.refs if ref.rel_path not in self.reuse]

    @property
    def is_noop(self) -> bool:
        return (
            self.previous is not None
            and not (self.added or self.changed or self.removed)
            and len(self.reuse) == len(self.refs)
        )

    def summary(self) -> dict[str, Any]:
        """The diff as stored in the new build's manifest (``extra["incremental"]``)."""
        return {
            "previous": self.previous,
            "added": self.added,
            "changed": self.changed,
            "removed": self.removed,
            "unchanged": len(self.unchanged),
            "parsed": [ref.rel_path for ref in self.to_parse],
        }


def _hash(ref: SourceRef) -> str:
    try:
        return file_sha256(ref.path)
    except OSError:
        return ""


def plan(refs: Sequence[SourceRef], previous: PreviousBuild | None, full_rebuild: bool = False) -> Plan:
    """Diff ``refs`` against ``previous`` by content hash. A document is reused (not parsed) when its
    path and SHA-256 match the previous manifest and the previous build's chunks are reusable and
    complete for it; ``full_rebuild`` still reports the diff but reuses nothing."""
    result = Plan(list(refs), {ref.rel_path: _hash(ref) for ref in refs})
    if previous is None:
        result.added = [ref.rel_path for ref in refs]
        return result
    result.previous = previous.name
    for ref in refs:
        digest, old = result.hashes[ref.rel_path], previous.record(ref.rel_path)
        if old is None:
            result.added.append(ref.rel_path)
            continue
        if not digest or digest != old.sha256:
            result.changed.append(ref.rel_path)
            continue
        result.unchanged.append(ref.rel_path)
        chunks = previous.chunks_by_path.get(ref.rel_path, [])
        if not full_rebuild and previous.reusable and len(chunks) == old.chunks:
            result.reuse[ref.rel_path] = (dataclasses.replace(old), chunks)
    now = set(result.hashes)
    result.removed = sorted(r.path for r in previous.manifest.documents if r.path not in now)
    return result


def assemble(
    the_plan: Plan, outcomes: Mapping[str, ParseOutcome], config: IngestConfig
) -> tuple[list[Chunk], list[DocumentRecord]]:
    """Chunks and records of the new build in source order, reused or freshly chunked: the same
    order and content a full build produces."""
    chunks: list[Chunk] = []
    records: list[DocumentRecord] = []
    for ref in the_plan.refs:
        reused = the_plan.reuse.get(ref.rel_path)
        if reused is not None:
            record, doc_chunks = reused
        else:
            outcome = outcomes[ref.rel_path]
            doc_chunks = chunk_outcome(outcome, config)
            record = outcome.record
        chunks.extend(doc_chunks)
        records.append(record)
    return chunks, records


def assemble_graph(
    the_plan: Plan, outcomes: Mapping[str, ParseOutcome], previous: PreviousBuild | None
) -> list[FileGraph]:
    """The code graph of the new build in source order: a reused file's entry from the previous
    build, a parsed one's from its parse (call after ``assemble``, which settles each status)."""
    files: list[FileGraph] = []
    for ref in the_plan.refs:
        if ref.rel_path in the_plan.reuse:
            old = previous.graph_by_path.get(ref.rel_path) if previous is not None else None
            files.extend([old] if old is not None else [])
            continue
        outcome = outcomes[ref.rel_path]
        if outcome.record.status != "indexed":
            continue
        for doc in outcome.documents:
            if doc.graph is not None:
                files.append(FileGraph(doc.path, str(doc.metadata.get("language", "")), doc.graph))
    return files


@dataclass
class EmbeddingWork:
    """Which chunks need the model: ``texts`` (deduplicated by key) are not in the cache."""

    keys: list[bytes]
    missing_keys: list[bytes]
    texts: list[str]


def embedding_work(chunks: Sequence[Chunk], model: str, cache: EmbeddingCache) -> EmbeddingWork:
    keys = [embedding_key(model, c.index_text) for c in chunks]
    missing: dict[bytes, str] = {}
    for key, chunk in zip(keys, chunks, strict=True):
        if key not in cache and key not in missing:
            missing[key] = chunk.index_text
    return EmbeddingWork(keys, list(missing), list(missing.values()))


def assemble_vectors(work: EmbeddingWork, cache: EmbeddingCache, new_vectors: np.ndarray) -> np.ndarray:
    """One float32 row per chunk, from the fresh vectors or the cache."""
    if len(new_vectors) != len(work.missing_keys):
        raise ValueError(f"{len(new_vectors)} new vectors for {len(work.missing_keys)} texts")
    fresh = {key: row for row, key in enumerate(work.missing_keys)}
    dim = int(new_vectors.shape[1]) if len(new_vectors) else cache.dim
    if dim is None:
        raise ValueError("no vectors: nothing embedded and nothing cached")
    out = np.empty((len(work.keys), dim), dtype=np.float32)
    for row, key in enumerate(work.keys):
        out[row] = new_vectors[fresh[key]] if key in fresh else cache.get(key)
    return out
