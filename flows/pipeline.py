"""The ingest stages as plain functions, and an in-process runner (used by the CLI and eval).

discover -> parse -> chunk -> embed -> build -> publish. Each stage is a function of its inputs, so
the Prefect flow (flows.ingest) can wrap the same functions as tasks.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from chunkers.model import Chunk
from chunkers.registry import chunk_document
from flows.config import IngestConfig
from indexers.bm25 import BM25Index, BM25Params
from indexers.manifest import DocumentRecord, Manifest
from indexers.store import IndexStore
from indexers.tokenize import Tokenizer
from indexers.vectors import Embedder, build_faiss, save_faiss
from parsers.model import ParsedDocument, SkipFile
from parsers.options import ParseOptions
from parsers.registry import parse_source
from parsers.source import SourceFile

log = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]
IGNORED_DIRS = frozenset({".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".tox"})
CHUNKS_FILE = "chunks.jsonl"
OFFSETS_FILE = "chunk_offsets.npy"
VECTORS_FILE = "vectors.faiss"
EMBEDDINGS_FILE = "embeddings.npy"
BM25_DIR = "bm25"


class IngestError(RuntimeError):
    """The ingest finished without publishing (nothing indexable, or strict mode saw skips)."""


@dataclass(frozen=True)
class SourceRef:
    """A file to ingest: its location and its stable id (root folder name + relative POSIX path)."""

    path: Path
    rel_path: str


@dataclass
class ParseOutcome:
    record: DocumentRecord
    documents: list[ParsedDocument] = field(default_factory=list)


@dataclass
class IngestReport:
    build: str | None
    index: str
    documents: int
    indexed: int
    skipped: int
    chunks: int
    seconds: float
    skipped_files: list[tuple[str, str]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)

    def summary(self) -> str:
        return (
            f"{self.indexed} indexed, {self.skipped} skipped of {self.documents} files; "
            f"{self.chunks} chunks; {self.seconds:.1f} s; build {self.build}"
        )


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def discover(sources: Sequence[str | Path]) -> list[SourceRef]:
    """Files under the source roots, sorted, ids prefixed with the root's own name. Hidden and tool
    folders are skipped; symlinks are followed only while they stay inside their root."""
    refs: dict[str, SourceRef] = {}
    for source in sources:
        root = Path(source)
        if not root.exists():
            raise FileNotFoundError(f"source {root} does not exist")
        if root.is_file():
            refs[root.name] = SourceRef(root, root.name)
            continue
        base = root.resolve().name or "root"
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in IGNORED_DIRS and not d.startswith("."))
            for name in sorted(filenames):
                path = Path(dirpath) / name
                if name.startswith(".") or (path.is_symlink() and not _inside(path, root)):
                    continue
                if not path.is_file():
                    continue
                rel = f"{base}/{path.relative_to(root).as_posix()}"
                refs[rel] = SourceRef(path, rel)
    return [refs[k] for k in sorted(refs)]


def parse_file(ref: SourceRef, options: ParseOptions) -> ParseOutcome:
    """Parse one file; a file that cannot be indexed becomes a "skipped" record with its reason."""
    from parsers.registry import parser_name_for

    parser = parser_name_for(ref.path)
    try:
        source = SourceFile.read(ref.path, ref.rel_path)
    except OSError as exc:
        reason = f"unreadable: {exc.strerror or exc}"
        return ParseOutcome(DocumentRecord(ref.rel_path, "", 0, parser, "skipped", reason))
    record = DocumentRecord(ref.rel_path, source.sha256, len(source.data), parser, "indexed")
    try:
        docs = parse_source(source, options)
    except SkipFile as exc:
        record.status, record.reason = "skipped", str(exc)
        log.info("skipping %s: %s", ref.rel_path, exc)
        return ParseOutcome(record)
    except Exception as exc:  # a parser bug must cost one file, not the whole ingest
        record.status, record.reason = "skipped", f"parser error: {type(exc).__name__}: {exc}"
        log.warning("could not parse %s, skipping it", ref.rel_path, exc_info=True)
        return ParseOutcome(record)
    if not docs:
        record.status, record.reason = "skipped", "no content"
        return ParseOutcome(record)
    record.records = len(docs)
    if len(docs) == 1 and docs[0].metadata:
        record.metadata = {k: v for k, v in docs[0].metadata.items() if isinstance(v, str | int | float | bool)}
    return ParseOutcome(record, docs)


def chunk_outcome(outcome: ParseOutcome, config: IngestConfig) -> list[Chunk]:
    chunks = [c for doc in outcome.documents for c in chunk_document(doc, config.chunk)]
    outcome.record.chunks = len(chunks)
    if outcome.record.status == "indexed" and not chunks:
        outcome.record.status, outcome.record.reason = "skipped", "no indexable text"
    return chunks


def embed_chunks(chunks: Sequence[Chunk], embedder: Embedder) -> np.ndarray:
    return embedder.encode([c.index_text for c in chunks])


def write_chunks(folder: Path, chunks: Iterable[Chunk]) -> None:
    """chunks.jsonl plus the byte offset of every line, so a reader can fetch one chunk by row."""
    offsets = [0]
    with open(folder / CHUNKS_FILE, "wb") as handle:
        for chunk in chunks:
            line = json.dumps(chunk.to_json(), ensure_ascii=False).encode("utf-8") + b"\n"
            handle.write(line)
            offsets.append(offsets[-1] + len(line))
        handle.flush()
        os.fsync(handle.fileno())
    np.save(folder / OFFSETS_FILE, np.asarray(offsets, dtype=np.int64), allow_pickle=False)


def build_index(
    store: IndexStore,
    chunks: Sequence[Chunk],
    vectors: np.ndarray,
    records: Sequence[DocumentRecord],
    config: IngestConfig,
    sources: Sequence[str],
    embedding: dict,
) -> Path:
    """Write a complete, unpublished build folder and return it."""
    tokenizer = Tokenizer.from_dict({**Tokenizer().to_dict(), **config.tokenizer})
    folder = store.new_build_dir()
    write_chunks(folder, chunks)
    bm25 = BM25Index.build([tokenizer(c.index_text) for c in chunks], BM25Params(config.k1, config.b))
    bm25.save(folder / BM25_DIR, tokenizer=tokenizer.to_dict())
    np.save(folder / EMBEDDINGS_FILE, vectors.astype(np.float32), allow_pickle=False)
    save_faiss(build_faiss(vectors), folder / VECTORS_FILE)
    from docmill import __version__

    indexed = sum(1 for r in records if r.status == "indexed")
    manifest = Manifest(
        docmill_version=__version__,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        build=folder.name,
        sources=[str(s) for s in sources],
        embedding=embedding,
        tokenizer=tokenizer.to_dict(),
        bm25={"k1": config.k1, "b": config.b},
        chunker={"max_tokens": config.chunk.max_tokens, "token_count": "estimate-v1"},
        counts={"documents": len(records), "indexed": indexed, "skipped": len(records) - indexed, "chunks": len(chunks)},
        documents=list(records),
    )
    names = [CHUNKS_FILE, OFFSETS_FILE, EMBEDDINGS_FILE, VECTORS_FILE]
    names += sorted(f"{BM25_DIR}/{p.name}" for p in (folder / BM25_DIR).iterdir())
    manifest.record_files(folder, names)
    manifest.write(folder)
    return folder


def embedding_info(embedder: Embedder, vectors: np.ndarray) -> dict:
    return {"model": embedder.model_name, "dim": int(vectors.shape[1]), "normalized": True}


def run_ingest(
    sources: Sequence[str | Path],
    index: str | Path,
    config: IngestConfig | None = None,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
) -> IngestReport:
    """Full in-process ingest. Publishes only a complete build; on any error the previous build
    stays current. Raises IngestError when nothing could be indexed or strict mode saw skips."""
    config = config or IngestConfig()
    started = time.perf_counter()
    timings: dict[str, float] = {}
    store = IndexStore(index)
    with store.lock():
        refs = discover(sources)
        t = time.perf_counter()
        outcomes = []
        for i, ref in enumerate(refs):
            outcomes.append(parse_file(ref, config.parse))
            if progress:
                progress("parse", i + 1, len(refs))
        timings["parse"] = time.perf_counter() - t
        t = time.perf_counter()
        chunks = [c for o in outcomes for c in chunk_outcome(o, config)]
        timings["chunk"] = time.perf_counter() - t
        records = [o.record for o in outcomes]
        check_outcome(records, chunks, config)
        embedder = embedder or Embedder(config.model, batch_size=config.batch_size)
        t = time.perf_counter()
        vectors = embed_chunks(chunks, embedder)
        timings["embed"] = time.perf_counter() - t
        t = time.perf_counter()
        folder = build_index(store, chunks, vectors, records, config, [str(s) for s in sources], embedding_info(embedder, vectors))
        store.publish(folder)
        store.prune(config.keep_builds)
        timings["build"] = time.perf_counter() - t
    return make_report(folder.name, index, records, len(chunks), time.perf_counter() - started, timings)


def check_outcome(records: Sequence[DocumentRecord], chunks: Sequence[Chunk], config: IngestConfig) -> None:
    skipped = [(r.path, r.reason or "") for r in records if r.status != "indexed"]
    if config.strict and skipped:
        listing = "; ".join(f"{p}: {why}" for p, why in skipped[:20])
        raise IngestError(f"strict mode: {len(skipped)} file(s) skipped, nothing published ({listing})")
    if not chunks:
        raise IngestError(f"nothing to index: {len(records)} file(s) found, none produced text; nothing published")


def make_report(
    build: str, index: str | Path, records: Sequence[DocumentRecord], chunks: int, seconds: float, timings: dict[str, float]
) -> IngestReport:
    skipped = [(r.path, r.reason or "") for r in records if r.status != "indexed"]
    return IngestReport(
        build=build,
        index=str(index),
        documents=len(records),
        indexed=len(records) - len(skipped),
        skipped=len(skipped),
        chunks=chunks,
        seconds=seconds,
        skipped_files=skipped,
        timings=timings,
    )
