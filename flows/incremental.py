"""Incremental re-index: diff the source tree against the current build's manifest by content hash,
reuse unchanged documents' chunks, and reuse embeddings by (model id + indexed text) hash.

Everything here is a plain function of its inputs (no Prefect): the in-process runner
(flows.pipeline) and the Prefect flow (flows.ingest) call the same steps. The invariant callers rely
on: an incremental build has the same chunks, the same BM25 arrays and the same vectors (up to float
tolerance) as a full rebuild of the same tree with the same settings.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chunkers.fragments import FRAGMENTS_VERSION
from chunkers.model import Chunk
from chunkers.tables import TABLE_CHUNKS_VERSION
from flows.embeddings import EmbeddingCache
from flows.ignorefiles import Ignored
from flows.outcomes import ParseOutcome, SourceRef, chunk_outcome
from indexers.build.files import MANIFEST
from indexers.build.graph_file import GRAPH_VERSION, FileGraph, read_graph
from indexers.build.manifest import DocumentRecord, Manifest, ManifestError, file_sha256
from indexers.build.passage_vectors import load_keys, load_vectors, sizes_match
from indexers.build.sections import reuse_key as stored_reuse_key
from indexers.build.segment_info import segment_folder, segment_infos
from indexers.build.segment_lines import SegmentLines
from indexers.build.store import IndexStore, NoIndex
from indexers.build.version import DOCMILL_VERSION
from indexers.build.write import Located, live_locations, masked_vectors
from parsers.registry import PARSER_VERSIONS

if TYPE_CHECKING:
    from flows.config import IngestConfig

log = logging.getLogger(__name__)

# Stored in Manifest.extra: what a build's chunks depend on besides the file bytes. Chunks of an
# earlier build are reused only when this matches exactly (a docmill upgrade or other chunk or parse
# options mean a full re-parse; `full_rebuild` forces one).


def reuse_key(config: IngestConfig) -> dict[str, Any]:

    return {
        "docmill": DOCMILL_VERSION,
        "parse": config.parse.output_settings(),
        "chunk": {
            "max_tokens": config.chunk.max_tokens,
            "token_count": "estimate-v1",
            "fragments": FRAGMENTS_VERSION,
            "tables": TABLE_CHUNKS_VERSION,
        },
        "graph": GRAPH_VERSION,  # a reused file's references come from the previous graph.jsonl
        # per parser: a parser whose version changed re-parses its files only (stale_parsers)
        PARSERS_KEY: dict(PARSER_VERSIONS),
    }


PARSERS_KEY = "parsers"


def stale_parsers(stored: Any, current: Mapping[str, Any]) -> frozenset[str] | None:
    """The parsers whose files a build with reuse key ``stored`` must parse again under the key
    ``current``: those whose version differs (a build from before parser versions: all of them), or
    None when anything else in the key differs (then nothing is reused)."""
    if not isinstance(stored, Mapping):
        return None
    rest = {k: v for k, v in stored.items() if k != PARSERS_KEY}
    if rest != {k: v for k, v in current.items() if k != PARSERS_KEY}:
        return None
    versions = stored.get(PARSERS_KEY)
    versions = versions if isinstance(versions, Mapping) else {}
    return frozenset(name for name, version in current[PARSERS_KEY].items() if versions.get(name) != version)


@dataclass
class PreviousBuild:
    """The current build of an index, as far as a new build may reuse it. Its chunks and vectors
    are read only when asked for: a small incremental run needs neither."""

    name: str
    manifest: Manifest
    reusable: bool  # chunks may be reused (same reuse key); embeddings are reused regardless
    folder: Path
    located: dict[str, Located]  # source path -> where its live chunks are
    graph_by_path: dict[str, FileGraph] = field(default_factory=dict)
    # parsers whose version changed since this build: their files are parsed again (reusable only)
    stale_parsers: frozenset[str] = frozenset()

    def record(self, path: str) -> DocumentRecord | None:
        return self._records.get(path)

    def __post_init__(self) -> None:
        self._records = {r.path: r for r in self.manifest.documents}
        self._chunks: dict[str, list[Chunk]] | None = None

    def live_chunks(self, path: str) -> int:
        where = self.located.get(path)
        return where.span.count if where is not None else 0

    def chunks_of(self, path: str) -> list[Chunk]:
        """The live chunks of ``path`` (all of the build's chunks are parsed on the first call)."""
        if self._chunks is None:
            self._chunks = {}
            for info in segment_infos(self.manifest.segments):
                lines = SegmentLines(segment_folder(self.folder, info.name))
                try:
                    for where in self.located.values():
                        if where.segment == info.name:
                            rows = range(where.span.start, where.span.start + where.span.count)
                            self._chunks[where.span.path] = [lines.chunk(r) for r in rows]
                finally:
                    lines.close()
        return self._chunks.get(path, [])

    @functools.cached_property
    def cache(self) -> EmbeddingCache:
        """Every vector of the build, by embedding key (a full rebuild's cache)."""
        return EmbeddingCache.load(self.folder, self.manifest)

    def masked_cache(self, paths: Collection[str]) -> EmbeddingCache:
        """The vectors of ``paths``' live chunks only: what a small run that masks them may reuse
        (a changed file's unchanged chunks, a renamed file's), without reading the whole build."""
        keys, vectors = masked_vectors(self.folder, [self.located[p] for p in paths if p in self.located])
        return EmbeddingCache(keys, vectors) if keys else EmbeddingCache.empty()


def reusable_embeddings(
    store: IndexStore, previous: PreviousBuild | None, full_rebuild: bool
) -> EmbeddingCache:
    """What a whole build may take its vectors from: nothing on a full rebuild, else the current
    build's embeddings (a schema-1 build's through legacy_cache)."""
    if full_rebuild:
        return EmbeddingCache.empty()
    return previous.cache if previous is not None else legacy_cache(store)


def legacy_cache(store: IndexStore) -> EmbeddingCache:
    """The embeddings of a current build made before builds were segments (schema 1: one
    embeddings.npy and embedding_keys.npy at the build's root, sizes checked against its
    manifest), so the full rebuild that replaces it re-embeds nothing it already had."""
    try:
        folder = store.current_build()
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        files = data.get("files", {}) if data.get("schema_version") == 1 else {}
        if not sizes_match(folder, files):
            return EmbeddingCache.empty()
        return EmbeddingCache(load_keys(folder).tolist(), load_vectors(folder))
    except (NoIndex, OSError, ValueError, KeyError, TypeError, AttributeError):
        return EmbeddingCache.empty()


def load_previous(store: IndexStore, config: IngestConfig) -> PreviousBuild | None:
    """The current build, or None when there is none or it cannot be trusted (then the caller does a
    full build; a damaged build is never reused)."""
    try:
        folder = store.current_build()
        manifest = Manifest.read(folder)
        manifest.verify_files(folder)
        located = live_locations(folder, manifest)
    except NoIndex:
        return None
    except (ManifestError, OSError, ValueError) as exc:
        log.warning("previous build is not reusable, doing a full build: %s", exc)
        return None
    stale = stale_parsers(stored_reuse_key(manifest.extra), reuse_key(config))
    reusable = stale is not None
    return PreviousBuild(
        folder.name,
        manifest,
        reusable,
        folder,
        located,
        read_graph(folder) if reusable else {},
        stale or frozenset(),
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
    reuse: dict[str, DocumentRecord] = field(default_factory=dict)  # unchanged files, not re-parsed
    # unchanged files parsed again because their parser's output version moved: parser -> files
    reparsed: dict[str, int] = field(default_factory=dict)
    previous: str | None = None
    source: PreviousBuild | None = field(default=None, repr=False)  # where ``reuse`` chunks come from
    ignored: Ignored = field(default_factory=Ignored)  # what .gitignore / .docmillignore left out

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
            "reparsed": dict(self.reparsed),
            "ignored": {"files": self.ignored.files, "folders": self.ignored.folders},
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
    result.previous, result.source = previous.name, previous
    for ref in refs:
        digest, old = result.hashes[ref.rel_path], previous.record(ref.rel_path)
        if old is None:
            result.added.append(ref.rel_path)
            continue
        if not digest or digest != old.sha256:
            result.changed.append(ref.rel_path)
            continue
        result.unchanged.append(ref.rel_path)
        if full_rebuild or not previous.reusable:
            continue  # parsed again: asked to, or other settings
        if old.parser in previous.stale_parsers:  # parsed again: its parser's output changed since
            result.reparsed[old.parser] = result.reparsed.get(old.parser, 0) + 1
            continue
        if previous.live_chunks(ref.rel_path) == old.chunks:
            result.reuse[ref.rel_path] = dataclasses.replace(old)
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
            assert the_plan.source is not None  # reuse implies a previous build
            record, doc_chunks = reused, the_plan.source.chunks_of(ref.rel_path)
        else:
            outcome = outcomes[ref.rel_path]
            doc_chunks = chunk_outcome(outcome, config)
            record = outcome.record
        chunks.extend(doc_chunks)
        records.append(record)
    return chunks, records


def assemble_changed(
    the_plan: Plan, outcomes: Mapping[str, ParseOutcome], config: IngestConfig
) -> tuple[list[Chunk], list[DocumentRecord]]:
    """For a segment run (indexers.build.write.write_next): the chunks of the files parsed this run, in
    source order, and every file's record (reused ones as they were)."""
    chunks: list[Chunk] = []
    records: list[DocumentRecord] = []
    for ref in the_plan.refs:
        reused = the_plan.reuse.get(ref.rel_path)
        if reused is not None:
            records.append(reused)
            continue
        outcome = outcomes[ref.rel_path]
        chunks.extend(chunk_outcome(outcome, config))
        records.append(outcome.record)
    return chunks, records


def masked_paths(the_plan: Plan, previous: PreviousBuild) -> list[str]:
    """Files whose chunks in ``previous`` must be masked: removed, or parsed again this run."""
    again = [ref.rel_path for ref in the_plan.to_parse]
    return sorted(p for p in {*again, *the_plan.removed} if p in previous.located)


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
