"""The ingest stages as plain functions, and an in-process runner (used by the CLI and eval).

discover -> parse -> chunk -> embed -> build -> publish. Each stage is a function of its inputs, so
the Prefect flow (flows.ingest) can wrap the same functions as tasks.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from chunkers.model import Chunk
from flows import endpoint, incremental
from flows.builds import FUSION_KEY, Progress, build_index, build_next, make_tokenizer, publish
from flows.builds import publish_changes as publish_changes
from flows.config import IngestConfig
from flows.gate import GATE_KEY, QualityGateFailed, evaluate_builds
from flows.globs import selected
from flows.outcomes import EMPTY_REASON, IngestError, ParseOutcome, SourceRef, is_empty_skip
from indexers.build.manifest import DocumentRecord, Manifest
from indexers.build.segments import segment_infos
from indexers.build.segments import write_chunks as write_chunks
from indexers.build.store import IndexStore
from indexers.dense import ann, model_choice
from indexers.dense.embedder import Embedder, backend_for
from indexers.dense.model_choice import AUTO_MODEL
from indexers.ranking.calibrate import VERSION as CALIBRATION_VERSION
from parsers.guard import parse_with_limits
from parsers.model import SkipFile
from parsers.options import ParseOptions
from parsers.source import SourceFile

log = logging.getLogger(__name__)

IGNORED_DIRS = frozenset({".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".tox"})
# Recalibrate the fusion weights when at least this share of the files was added, changed or removed.
RECALIBRATE_SHARE = 0.2


@dataclass
class IngestReport:
    """What a run did. ``added``/``changed``/``removed``/``unchanged`` compare the source tree with
    the previous build by content hash; ``parsed`` files were parsed and ``embedded`` chunks went
    through the model this run (the rest came from the previous build). ``published`` is False when
    nothing changed (``build`` is then the build that stays current)."""

    build: str | None
    index: str
    documents: int
    indexed: int
    skipped: int
    chunks: int
    seconds: float
    skipped_files: list[tuple[str, str]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    added: int = 0
    changed: int = 0
    removed: int = 0
    unchanged: int = 0
    parsed: int = 0
    embedded: int = 0
    published: bool = True
    previous_build: str | None = None
    gate: dict[str, Any] | None = None
    empty: int = 0  # of the skipped: files with nothing but whitespace (not a failure under --strict)

    def summary(self) -> str:
        action = "published" if self.published else "nothing changed, kept"
        return (
            f"{self.indexed} indexed, {self.skipped} skipped of {self.documents} files ({self.added} added, "
            f"{self.changed} changed, {self.removed} removed, {self.unchanged} unchanged); {self.chunks} "
            f"chunks ({self.embedded} embedded); {self.seconds:.1f} s; {action} build {self.build}"
        )

    def to_json(self) -> dict[str, Any]:
        """The `docmill ingest --json` shape (issue 6); the flow returns the same dict."""
        return {
            "added": self.added,
            "changed": self.changed,
            "removed": self.removed,
            "unchanged": self.unchanged,
            "skipped": self.skipped,
            "chunks": self.chunks,
            "seconds": round(self.seconds, 3),
            "build": self.build,
        }


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except (ValueError, RuntimeError, OSError):  # outside the root, a symlink loop, a dangling link
        return False
    return True


def discover(
    sources: Sequence[str | Path], include: Sequence[str] = (), exclude: Sequence[str] = ()
) -> list[SourceRef]:
    """Files under the source roots, sorted, ids prefixed with the root's own name. Hidden and tool
    folders are skipped; symlinks are followed only while they stay inside their root. ``include``
    / ``exclude``: globs selecting files under a root folder (flows.globs; a source named as a
    file is always taken)."""
    refs: dict[str, SourceRef] = {}
    for source in sources:
        root = Path(source)
        keeps = getattr(source, "keeps", lambda rel: True)  # a shard's part (flows.shards.ShardSource)
        if not root.exists():
            raise FileNotFoundError(f"source {root} does not exist")
        if root.is_file():
            if keeps(root.name):
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
                inner = path.relative_to(root).as_posix()
                rel = f"{base}/{inner}"
                if selected(inner, rel, include, exclude) and keeps(rel):
                    refs[rel] = SourceRef(path, rel)
    return [refs[k] for k in sorted(refs)]


def parse_file(ref: SourceRef, options: ParseOptions) -> ParseOutcome:
    """Parse one file; a file that cannot be indexed becomes a "skipped" record with its reason."""
    from parsers.registry import parser_name_for

    parser = parser_name_for(ref.path)
    try:
        source = SourceFile.read(ref.path, ref.rel_path, max_bytes=options.max_file_bytes)
    except SkipFile as exc:
        size = ref.path.stat().st_size
        return ParseOutcome(DocumentRecord(ref.rel_path, "", size, parser, "skipped", str(exc)))
    except OSError as exc:
        reason = f"unreadable: {exc.strerror or exc}"
        return ParseOutcome(DocumentRecord(ref.rel_path, "", 0, parser, "skipped", reason))
    record = DocumentRecord(ref.rel_path, source.sha256, len(source.data), parser, "indexed")
    if not source.data.strip():
        record.status, record.reason = "skipped", EMPTY_REASON
        return ParseOutcome(record)
    try:
        docs = parse_with_limits(source, options)  # in a worker process: a hard time limit per file
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
        record.metadata = {
            k: v for k, v in docs[0].metadata.items() if isinstance(v, str | int | float | bool)
        }
    return ParseOutcome(record, docs)


def reusable_fusion(
    previous: incremental.PreviousBuild | None,
    the_plan: incremental.Plan,
    config: IngestConfig,
    full_rebuild: bool,
) -> dict[str, Any] | None:
    """The previous build's calibrated fusion, if it was calibrated the same way, on the same
    model, tokenizer and BM25 parameters, and under RECALIBRATE_SHARE of the files changed."""
    if previous is None or full_rebuild:
        return None
    m = previous.manifest
    same_retrievers = (
        same_embedding(m, config)
        and m.tokenizer == make_tokenizer(config).to_dict()
        and m.bm25 == {"k1": config.k1, "b": config.b}
    )
    fusion = m.extra.get(FUSION_KEY)
    if not same_retrievers or not fusion or fusion.get("version") != CALIBRATION_VERSION:
        return None
    moved = len(the_plan.added) + len(the_plan.changed) + len(the_plan.removed)
    total = max(len(the_plan.unchanged) + len(the_plan.added) + len(the_plan.changed), 1)
    return fusion if moved / total < RECALIBRATE_SHARE else None


def _rounded(timings: dict[str, float]) -> dict[str, float]:
    return {name: round(seconds, 4) for name, seconds in timings.items()}


def embedding_info(config: IngestConfig, vectors: np.ndarray) -> dict:
    info = {
        "model": config.model,
        "dim": int(vectors.shape[1]),
        "normalized": True,
        "backend": config.embedding_backend,
    }
    if config.model_choice is not None:
        info["choice"] = dict(config.model_choice)
    return info


def keep_model(
    config: IngestConfig, previous: incremental.PreviousBuild | None, full_rebuild: bool
) -> IngestConfig:
    """Model "auto" on an index with a current build: that build's model (an incremental run never
    switches models; --full-rebuild decides again), on its backend unless another than the default
    was asked for. Any other config is returned as it is."""
    if config.model != AUTO_MODEL or previous is None or full_rebuild:
        return config
    choice = model_choice.kept_choice(previous.manifest.embedding)
    if config.embedding_backend != "torch":
        choice["backend"] = backend_for(choice["model"], config.embedding_backend)
    return dataclasses.replace(
        config, model=choice["model"], embedding_backend=choice["backend"], model_choice=choice
    )


def announce_model(config: IngestConfig, progress: Progress | None) -> None:
    """Tell a progress display which model embeds (stage ``model:NAME (BACKEND)``), once it is
    known: model "auto" is resolved only after chunking."""
    if progress is not None and config.model != AUTO_MODEL:
        progress(f"model:{config.model} ({config.embedding_backend})", 0, 0)


def choose_model(config: IngestConfig, chunks: Sequence[Chunk]) -> IngestConfig:
    """Model "auto" resolved from the corpus's chunks (indexers.dense.model_choice), logged."""
    if config.model != AUTO_MODEL:
        return config
    choice = model_choice.choose_model([c.index_text for c in chunks])
    if choice["backend"] == "torch":  # MiniLM: on the backend asked for (torch, onnx, onnx-int8)
        choice["backend"] = config.embedding_backend
    log.info("embedding model %s (%s): %s", choice["model"], choice["backend"], choice["reason"])
    return dataclasses.replace(
        config, model=choice["model"], embedding_backend=choice["backend"], model_choice=choice
    )


def same_embedding(manifest: Manifest, config: IngestConfig) -> bool:
    model = manifest.embedding.get("model")
    same = model == config.model and manifest.embedding_backend == config.embedding_backend
    return bool(same and endpoint.same_endpoint(manifest.embedding, config))


def check_model(config: IngestConfig) -> None:
    """Raise ModelUnavailable now if the config's model cannot load here (no hub retries). Model
    "auto" chooses between the two models that ship with docmill's dependencies: nothing to check."""
    if config.model == AUTO_MODEL:
        return
    check = getattr(config.embedder(), "check_available", None)
    if check is not None:
        check()


def settings_match(previous: incremental.PreviousBuild, config: IngestConfig, sources: Sequence[str]) -> bool:
    """Would a new build differ from ``previous`` only in its name? (Used to skip no-op runs.)"""
    m = previous.manifest
    return (
        previous.reusable
        and same_embedding(m, config)
        and m.tokenizer == make_tokenizer(config).to_dict()
        and m.bm25 == {"k1": config.k1, "b": config.b}
        and m.sources == [str(s) for s in sources]
        and m.extra.get(FUSION_KEY, {}).get("version") == CALIBRATION_VERSION
        and m.extra.get(ann.MANIFEST_KEY, {}).get("requested", "auto") == config.vector_index
    )


def prepare(
    store: IndexStore, sources: Sequence[str | Path], config: IngestConfig, full_rebuild: bool
) -> tuple[incremental.Plan, incremental.PreviousBuild | None]:
    """Discover the tree and diff it against the current build. Call under the index lock."""
    refs = discover(sources, config.include, config.exclude)
    previous = incremental.load_previous(store, config)
    return incremental.plan(refs, previous, full_rebuild=full_rebuild), previous


def run_gate(
    store: IndexStore, folder: Path, config: IngestConfig, embedder: Embedder | None
) -> dict[str, Any] | None:
    """The quality gate, if configured: score the new build and the current one on the golden set,
    record the result in the new build's manifest either way, and raise QualityGateFailed (the
    current build keeps serving) when the new one is worse by more than the margin."""
    if not config.golden:
        return None
    gate = evaluate_builds(store, folder, config, embedder)
    manifest = Manifest.read(folder)
    manifest.extra[GATE_KEY] = gate.to_json()
    manifest.write(folder)
    if not gate.passed:
        raise QualityGateFailed(
            f"{gate.message()}; {folder.name} not published, {gate.current_build} keeps serving"
        )
    log.info(gate.message())
    return gate.to_json()


def run_ingest(
    sources: Sequence[str | Path],
    index: str | Path,
    config: IngestConfig | None = None,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
    full_rebuild: bool = False,
) -> IngestReport:
    """Incremental in-process ingest: unchanged files (by SHA-256) keep their chunks, and chunks
    whose indexed text was embedded before keep their vectors; ``full_rebuild`` re-does everything.
    A small change (under RECALIBRATE_SHARE of the files, same settings) writes the next build by
    segments (build_next: the previous build's files hard-linked, only the new chunks written);
    otherwise one segment holds everything. Publishes only a complete build; on any error the
    previous build stays current. Raises IngestError when nothing could be indexed or strict mode
    saw skips (QualityGateFailed when the golden set scores worse than the current build by more
    than ``config.gate_margin``)."""
    config = config or IngestConfig()
    if config.model == AUTO_MODEL and embedder is not None:  # the embedder handed in decides
        config = dataclasses.replace(config, model=embedder.model_name, embedding_backend=embedder.backend)
    wanted = (config.model, config.embedding_backend)
    given = (embedder.model_name, getattr(embedder, "backend", "torch")) if embedder is not None else wanted
    if given != wanted:
        raise ValueError("embedder is {!r} ({}), the config names {!r} ({})".format(*given, *wanted))
    started = time.perf_counter()
    timings: dict[str, float] = {}
    store = IndexStore(index)
    source_names = [str(s) for s in sources]
    with store.undo_on_failure(), store.lock():
        t = time.perf_counter()
        the_plan, previous = prepare(store, sources, config, full_rebuild)
        config = keep_model(config, previous, full_rebuild)
        announce_model(config, progress)
        timings["diff"] = time.perf_counter() - t
        if is_noop(the_plan, previous, config, source_names):
            return noop_report(the_plan, previous, index, started, timings)
        embedder = endpoint.checked_embedder(previous, config, embedder, full_rebuild)
        model_needed = full_rebuild or previous is None or not same_embedding(previous.manifest, config)
        if embedder is None and model_needed:
            check_model(config)  # before parsing: a model that cannot load fails the run at once
        t = time.perf_counter()
        to_parse = the_plan.to_parse
        outcomes = {}
        for i, ref in enumerate(to_parse):
            outcomes[ref.rel_path] = parse_file(ref, config.parse)
            if progress:
                progress("parse", i + 1, len(to_parse))
        timings["parse"] = time.perf_counter() - t
        reuse = reusable_fusion(previous, the_plan, config, full_rebuild)
        if previous is not None and reuse is not None and by_segments(previous, config, full_rebuild):
            folder, records, chunk_count, embedded = segment_run(
                store, previous, the_plan, outcomes, config, source_names, embedder, reuse, timings, progress
            )
        else:
            folder, records, chunk_count, embedded, config = _full_run(
                store,
                previous,
                the_plan,
                outcomes,
                config,
                source_names,
                embedder,
                reuse,
                timings,
                progress,
                full_rebuild,
            )
        gate = run_gate(store, folder, config, embedder)
        publish(store, folder, config.keep_builds)
        endpoint.clear_journal(store.root)
    report = make_report(folder.name, index, records, chunk_count, 0.0, timings)
    report.gate = gate
    return with_plan(report, the_plan, embedded, started, published=True)


def by_segments(previous: incremental.PreviousBuild, config: IngestConfig, full_rebuild: bool) -> bool:
    """Whether the next build can carry ``previous``'s segments: its chunks are reusable and its
    vectors were indexed with the same setting (anything else is rebuilt as one segment)."""
    requested = previous.manifest.extra.get(ann.MANIFEST_KEY, {}).get("requested", "auto")
    return not full_rebuild and previous.reusable and requested == config.vector_index


def segment_run(
    store: IndexStore,
    previous: incremental.PreviousBuild,
    the_plan: incremental.Plan,
    outcomes: dict[str, ParseOutcome],
    config: IngestConfig,
    sources: Sequence[str],
    embedder: Embedder | None,
    fusion: dict[str, Any],
    timings: dict[str, float],
    progress: Progress | None,
) -> tuple[Path, list[DocumentRecord], int, int]:
    """build_next from a parse: only the parsed files' chunks are chunked, embedded and written
    (a few new chunks on the torch-free query path, incremental.encode_texts). The Prefect flow
    calls this too, as one task."""
    t = time.perf_counter()
    chunks, records = incremental.assemble_changed(the_plan, outcomes, config)
    masked = incremental.masked_paths(the_plan, previous)
    count = sum(i.live for i in segment_infos(previous.manifest.segments))
    count += len(chunks) - sum(previous.live_chunks(p) for p in masked)
    timings["chunk"] = time.perf_counter() - t
    check_outcome(records, count, config)
    graph = incremental.assemble_graph(the_plan, outcomes, previous)
    t = time.perf_counter()
    cache = previous.masked_cache(masked)
    work = incremental.embedding_work(chunks, config.embedding_id, cache)
    if endpoint.is_remote(config.embedding_backend):
        if progress and work.texts:
            progress("embed", 0, len(work.texts))
        fresh, embedded_with = endpoint.encode_work(work, config, embedder, store.root, progress), "endpoint"
    else:
        fresh, embedded_with = incremental.encode_texts(work.texts, config, embedder, progress)
    vectors = incremental.assemble_vectors(work, cache, fresh, dim=previous.manifest.embedding.get("dim"))
    timings["embed"] = time.perf_counter() - t
    t = time.perf_counter()
    extra = {
        incremental.INCREMENTAL_KEY: {
            **the_plan.summary(),
            "embedded": len(work.texts),
            "seconds": _rounded(timings),
            "embedded_with": embedded_with,
        }
    }
    embedding = {**previous.manifest.embedding, **embedding_info(config, vectors)}
    folder = build_next(
        store,
        previous,
        chunks,
        vectors,
        masked,
        records,
        config,
        sources,
        embedding,
        fusion,
        extra,
        graph,
        progress,
    )
    timings["build"] = time.perf_counter() - t
    return folder, records, count, len(work.texts)


def _full_run(
    store: IndexStore,
    previous: incremental.PreviousBuild | None,
    the_plan: incremental.Plan,
    outcomes: dict[str, ParseOutcome],
    config: IngestConfig,
    sources: Sequence[str],
    embedder: Embedder | None,
    reuse: dict[str, Any] | None,
    timings: dict[str, float],
    progress: Progress | None,
    full_rebuild: bool,
) -> tuple[Path, list[DocumentRecord], int, int, IngestConfig]:
    """build_index from a parse: every chunk of the tree in one new segment. Returns the config
    with model "auto" resolved."""
    t = time.perf_counter()
    chunks, records = incremental.assemble(the_plan, outcomes, config)
    timings["chunk"] = time.perf_counter() - t
    check_outcome(records, chunks, config)
    config = choose_model(config, chunks)
    announce_model(config, progress)
    graph = incremental.assemble_graph(the_plan, outcomes, previous)
    cache = incremental.reusable_embeddings(store, previous, full_rebuild)
    work = incremental.embedding_work(chunks, config.embedding_id, cache)
    t = time.perf_counter()
    if work.texts:
        embedder = embedder or config.embedder()
        if endpoint.is_remote(config.embedding_backend):
            if progress:
                progress("embed", 0, len(work.texts))
            fresh = endpoint.encode_work(work, config, embedder, store.root, progress)
        else:
            fresh = incremental.encode_in_slices(embedder, work.texts, progress)
    else:  # nothing new to embed: the model is never loaded
        fresh = np.zeros((0, 0), dtype=np.float32)
    vectors = incremental.assemble_vectors(work, cache, fresh)
    timings["embed"] = time.perf_counter() - t
    t = time.perf_counter()
    extra = {
        incremental.INCREMENTAL_KEY: {
            **the_plan.summary(),
            "embedded": len(work.texts),
            "seconds": _rounded(timings),
        }
    }
    embedder = embedder or config.embedder()
    folder = build_index(
        store,
        chunks,
        vectors,
        records,
        config,
        sources,
        {**embedding_info(config, vectors), **endpoint.embedding_fields(config, embedder)},
        extra,
        progress,
        embedder=embedder,
        reuse_fusion=reuse,
        graph=graph,
    )
    timings["build"] = time.perf_counter() - t
    return folder, records, len(chunks), len(work.texts), config


def is_noop(
    the_plan: incremental.Plan,
    previous: incremental.PreviousBuild | None,
    config: IngestConfig,
    sources: Sequence[str],
) -> bool:
    """Nothing changed since ``previous`` (same files, same settings): a new build would be a copy."""
    return previous is not None and the_plan.is_noop and settings_match(previous, config, sources)


def noop_report(
    the_plan: incremental.Plan,
    previous: incremental.PreviousBuild | None,
    index: str | Path,
    started: float,
    timings: dict[str, float],
) -> IngestReport:
    assert previous is not None
    records = [the_plan.reuse[r.rel_path] for r in the_plan.refs]
    report = make_report(previous.name, index, records, previous.manifest.counts["chunks"], 0.0, timings)
    return with_plan(report, the_plan, 0, started, published=False)


def with_plan(
    report: IngestReport, the_plan: incremental.Plan, embedded: int, started: float, published: bool
) -> IngestReport:
    return dataclasses.replace(
        report,
        added=len(the_plan.added),
        changed=len(the_plan.changed),
        removed=len(the_plan.removed),
        unchanged=len(the_plan.unchanged),
        parsed=len(the_plan.to_parse) if published else 0,
        embedded=embedded,
        published=published,
        previous_build=the_plan.previous,
        seconds=time.perf_counter() - started,
    )


def check_outcome(
    records: Sequence[DocumentRecord], chunks: Sequence[Chunk] | int, config: IngestConfig
) -> None:
    """Raise IngestError in strict mode with skips (empty files aside), or when the build would
    hold no chunks (``chunks``: the chunks, or how many the build will hold)."""
    skipped = [(r.path, r.reason or "") for r in records if r.status != "indexed" and not is_empty_skip(r)]
    if config.strict and skipped:
        listing = "; ".join(f"{p}: {why}" for p, why in skipped[:20])
        raise IngestError(f"strict mode: {len(skipped)} file(s) skipped, nothing published ({listing})")
    if not (chunks if isinstance(chunks, int) else len(chunks)):
        raise IngestError(
            f"nothing to index: {len(records)} file(s) found, none produced text; nothing published"
        )


def make_report(
    build: str,
    index: str | Path,
    records: Sequence[DocumentRecord],
    chunks: int,
    seconds: float,
    timings: dict[str, float],
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
        empty=sum(map(is_empty_skip, records)),
    )
