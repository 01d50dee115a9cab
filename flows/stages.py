"""The ingest stages, defined once: plan -> parse -> chunk -> embed -> write -> gate -> publish.

Each stage is a function of the run record (flows.run.IngestRun) and the earlier stages' output,
returning its own; the driver (flows.pipeline.execute) wires them in order under the index lock and
an executor runs them: in process (flows.pipeline.LocalExecutor, `docmill ingest`) or as Prefect
tasks (flows.ingest, optionally on Dask). Parsing one file is flows.sources.parse_file; the executor
maps it over the files to parse, and maps the embedding of a whole build's new texts.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from chunkers.model import Chunk
from flows import embeddings, endpoint, incremental
from flows.builds import build_next, build_whole, make_tokenizer
from flows.builds import publish as publish_build
from flows.config import IngestConfig
from flows.gate import QualityGateFailed, evaluate_builds
from flows.outcomes import IngestError, ParseOutcome, skipped_for_reason
from flows.run import BuildContent, Chunked, IngestRun
from flows.settings import check_model, choose_model, embedding_info, keep_model, same_embedding, windows_info
from flows.sources import discover_tree
from indexers.build.manifest import DocumentRecord, Manifest
from indexers.build.sections import GATE_KEY, INCREMENTAL_KEY
from indexers.build.segment_info import segment_infos
from indexers.build.store import IndexStore
from indexers.dense.windows import Windows
from indexers.ranking.calibrate import is_code_corpus
from indexers.ranking.policy import Calibration

log = logging.getLogger(__name__)

# How an executor embeds a whole build's new texts: (run, texts) -> one float32 row per text.
Encode = Callable[[IngestRun, Sequence[str]], np.ndarray]


def plan(run: IngestRun) -> tuple[incremental.Plan, incremental.PreviousBuild | None, IngestConfig]:
    """Discover the tree and diff it against the current build (call under the index lock).
    Returns the plan, the previous build and the config with model "auto" kept from that build."""
    config = run.config
    found = discover_tree(run.sources, config.include, config.exclude, config.ignore_files)
    previous = incremental.load_previous(run.store, config)
    the_plan = incremental.plan(found.refs, previous, full_rebuild=run.full_rebuild)
    the_plan.ignored = found.ignored
    return the_plan, previous, keep_model(run.config, previous, run.full_rebuild)


def ready_embedder(run: IngestRun) -> Any:
    """Before parsing: an endpoint must answer and still match the current build's vectors
    (flows.endpoint.checked_embedder), and a model that cannot load here fails the run at once.
    Returns the run's embedder (the endpoint's client, or as given)."""
    config, previous = run.config, run.previous
    embedder = endpoint.checked_embedder(previous, config, run.embedder, run.full_rebuild)
    model_needed = run.full_rebuild or previous is None or not same_embedding(previous.manifest, config)
    if embedder is None and model_needed:
        check_model(config)
    return embedder


def chunk(run: IngestRun, outcomes: dict[str, ParseOutcome]) -> Chunked:
    """The new build's chunks and records (reused files' from the previous build), checked
    (check_outcome), and which texts need the model. For a whole build, model "auto" is resolved
    from these chunks (``Chunked.config``: the run's config from here on)."""
    the_plan, previous, config = run.the_plan, run.previous, run.config
    if run.by_segments:
        assert previous is not None
        chunks, records = incremental.assemble_changed(the_plan, outcomes, config)
        masked = incremental.masked_paths(the_plan, previous)
        count = sum(i.live for i in segment_infos(previous.manifest.segments))
        count += len(chunks) - sum(previous.live_chunks(p) for p in masked)
        check_outcome(records, count, config)
        cache = previous.masked_cache(masked)
    else:
        chunks, records = incremental.assemble(the_plan, outcomes, config)
        count, masked = len(chunks), []
        check_outcome(records, count, config)
        config = choose_model(config, chunks)
        cache = incremental.reusable_embeddings(run.store, previous, run.full_rebuild)
    graph = incremental.assemble_graph(the_plan, outcomes, previous)
    work = embeddings.embedding_work(
        chunks, config.embedding_id, cache, windows=_windows(run, chunks, config)
    )
    return Chunked(chunks, records, count, graph, cache, work, run.by_segments, masked, config)


def _windows(run: IngestRun, chunks: Sequence[Chunk], config: IngestConfig) -> bool:
    """Whether the run embeds sentence windows: as configured, except for a code-search corpus,
    which is searched without them (policy.Calibration.reads_windows). A whole build tells by its
    chunks as the calibration will; the next build by segments by the calibration it keeps."""
    if not config.windows:
        return False
    if run.by_segments and run.fusion is not None:
        return Calibration.from_fusion(run.fusion).reads_windows
    return not is_code_corpus(chunks, make_tokenizer(config))


def embed(run: IngestRun, chunked: Chunked, encode: Encode) -> tuple[np.ndarray, Windows | None, str]:
    """One vector per chunk, and its sentence windows' vectors (indexers.dense.windows; None when
    the run makes none): cached ones reused, new texts embedded. A whole build's go through
    the executor's ``encode``; a few for the next build by segments through a loaded embedder or
    the torch-free encoder (embeddings.encode_texts); an endpoint's through its journal. Also
    says how ("model", "torch-free", "endpoint" or "none")."""
    config, work, progress = run.config, chunked.work, run.progress
    if endpoint.is_remote(config.embedding_backend) and (work.texts or chunked.by_segments):
        if progress and work.texts:
            progress("embed", 0, len(work.texts))
        fresh, how = endpoint.encode_work(work, config, run.embedder, run.store.root, progress), "endpoint"
    elif chunked.by_segments:
        fresh, how = embeddings.encode_texts(work.texts, config, run.embedder, progress)
    elif work.texts:
        fresh, how = encode(run, work.texts), "model"
    else:  # nothing new to embed: the model is never loaded
        fresh, how = np.zeros((0, 0), dtype=np.float32), "none"
    dim = run.previous.manifest.embedding.get("dim") if chunked.by_segments and run.previous else None
    vectors = embeddings.assemble_vectors(work, chunked.cache, fresh, dim=dim)
    windows = embeddings.assemble_windows(work, chunked.cache, fresh, int(vectors.shape[1]))
    return vectors, windows, how


def write(
    run: IngestRun, chunked: Chunked, vectors: np.ndarray, embedded_with: str, windows: Windows | None = None
) -> Path:
    """The new build folder, unpublished: the next build by segments (build_next) or a whole
    build (build_whole, which calibrates the fusion weights with ``run.embedder`` unless the
    previous build's are kept)."""
    config, the_plan = run.config, run.the_plan
    seconds = {name: round(s, 4) for name, s in run.timings.items()}
    summary = {**the_plan.summary(), "embedded": len(chunked.work.texts), "seconds": seconds}
    if chunked.by_segments:
        assert run.previous is not None
        summary["embedded_with"] = embedded_with
        embedding = {**run.previous.manifest.embedding, **embedding_info(config, vectors)}
    else:
        embedding = {**embedding_info(config, vectors), **endpoint.embedding_fields(config, run.embedder)}
    extra = {INCREMENTAL_KEY: summary}
    if config.windows:  # as configured, also where none were cut (a code-search corpus)
        embedding["windows"] = windows_info(config)
    else:
        embedding.pop("windows", None)
    content = BuildContent(
        chunked.chunks,
        vectors,
        chunked.records,
        embedding,
        run.fusion,
        extra,
        chunked.graph,
        chunked.masked,
        windows,
    )
    return build_next(run, content) if chunked.by_segments else build_whole(run, content)


def gate(run: IngestRun, folder: Path) -> dict[str, Any] | None:
    """The quality gate, if configured: score the new build and the current one on the golden set,
    record the result in the new build's manifest either way, and raise QualityGateFailed (the
    current build keeps serving) when the new one is worse by more than the margin."""
    return run_gate(run.store, folder, run.config, run.embedder)


def run_gate(store: IndexStore, folder: Path, config: IngestConfig, embedder: Any) -> dict[str, Any] | None:
    if not config.golden:
        return None
    result = evaluate_builds(store, folder, config, embedder)
    manifest = Manifest.read(folder)
    manifest.extra[GATE_KEY] = result.to_json()
    manifest.write(folder)
    if not result.passed:
        raise QualityGateFailed(
            f"{result.message()}; {folder.name} not published, {result.current_build} keeps serving"
        )
    log.info(result.message())
    return result.to_json()


def publish(run: IngestRun, folder: Path) -> None:
    """Make ``folder`` the current build, prune old ones, drop the finished run's embed journal."""
    publish_build(run.store, folder, run.config.keep_builds)
    endpoint.clear_journal(run.store.root)


def check_outcome(
    records: Sequence[DocumentRecord], chunks: Sequence[Chunk] | int, config: IngestConfig
) -> None:
    """Raise IngestError in strict mode with skips (empty files aside), or when the build would
    hold no chunks (``chunks``: the chunks, or how many the build will hold)."""
    skipped = skipped_for_reason(records)
    if config.strict and skipped:
        listing = "; ".join(f"{p}: {why}" for p, why in skipped[:20])
        raise IngestError(f"strict mode: {len(skipped)} file(s) skipped, nothing published ({listing})")
    if not (chunks if isinstance(chunks, int) else len(chunks)):
        raise IngestError(
            f"nothing to index: {len(records)} file(s) found, none produced text; nothing published"
        )
