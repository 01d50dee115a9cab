"""The Prefect flow `ingest`: the pipeline stages as tasks. Only this module imports Prefect.

Each run diffs the source tree against the current build (flows.incremental): only added or changed
files are parsed, and only chunks whose indexed text has no cached embedding are embedded. Parse
tasks are also cached by file content (path + SHA-256 + parser options), so a retried flow run does
not re-parse; I/O tasks retry with exponential back-off. The index LOCK (flock) serialises writers,
whoever they are; the deployment's concurrency limit keeps a second scheduled run from even starting.

Scale-out: pass ``dask_address`` (an existing cluster, e.g. "tcp://10.0.0.5:8786") or
``dask_workers`` (a local cluster of N processes) to run parse and embed tasks on Dask.
"""

from __future__ import annotations

import functools
import hashlib
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger, task, unmapped
from prefect.cache_policies import NO_CACHE
from prefect.context import TaskRunContext
from prefect.tasks import exponential_backoff

from chunkers.model import Chunk
from chunkers.sizing import ChunkOptions
from flows import incremental, pipeline
from flows.config import IngestConfig
from flows.outcomes import ParseOutcome, SourceRef
from indexers.build.graph_file import GRAPH_VERSION
from indexers.build.manifest import DocumentRecord
from indexers.build.store import IndexStore
from indexers.build.version import DOCMILL_VERSION
from indexers.dense.embedder import BACKENDS, Embedder, make_embedder
from indexers.dense.model_choice import AUTO_MODEL
from parsers.options import ParseOptions

EMBED_BATCH = 256  # texts per embed task: big enough to amortise task overhead, a multiple of 32
IO_RETRIES: dict[str, Any] = {
    "retries": 3,
    "retry_delay_seconds": exponential_backoff(backoff_factor=2),  # 2, 4, 8 s
    "retry_jitter_factor": 0.5,
}


def _parse_cache_key(context: TaskRunContext, parameters: dict[str, Any]) -> str:
    ref: SourceRef = parameters["ref"]
    digest = hashlib.sha256()
    try:
        digest.update(Path(ref.path).read_bytes())
    except OSError:
        digest.update(b"<unreadable>")
    options: ParseOptions = parameters["options"]

    # Hashed: the key names a file in Prefect's result storage, and paths + option reprs overflow
    # the 255-byte file name limit.
    settings = sorted(options.output_settings().items())
    # a parse cached before the code graph (or with another version of it) lacks the graph
    version = f"{DOCMILL_VERSION}+graph{GRAPH_VERSION}"
    key = hashlib.sha256(f"{version}\x00{ref.rel_path}\x00{settings!r}".encode()).hexdigest()[:32]
    return f"docmill-parse-{key}-{digest.hexdigest()}"


# Big in-memory values (chunks, arrays) pass between the tasks below: NO_CACHE keeps Prefect from
# hashing them for a cache key nobody uses.
@task(cache_policy=NO_CACHE, **IO_RETRIES)
def plan_task(
    sources: list[str], index: str, config: IngestConfig, full_rebuild: bool
) -> tuple[incremental.Plan, incremental.PreviousBuild | None]:
    return pipeline.prepare(IndexStore(index), sources, config, full_rebuild)


@task(cache_key_fn=_parse_cache_key, cache_expiration=timedelta(days=30), persist_result=True, **IO_RETRIES)
def parse_task(ref: SourceRef, options: ParseOptions) -> ParseOutcome:
    return pipeline.parse_file(ref, options)


@task(cache_policy=NO_CACHE)
def chunk_task(
    the_plan: incremental.Plan, outcomes: dict[str, ParseOutcome], config: IngestConfig
) -> tuple[list[Chunk], list[DocumentRecord]]:
    chunks, records = incremental.assemble(the_plan, outcomes, config)
    pipeline.check_outcome(records, chunks, config)
    return chunks, records


@functools.cache
def _embedder(model: str, batch_size: int, backend: str = "torch") -> Embedder:
    """One model per process (a Dask worker loads it once, not once per task)."""
    return make_embedder(model, batch_size=batch_size, backend=backend)


@task(cache_policy=NO_CACHE)
def embed_task(texts: list[str], model: str, batch_size: int, backend: str = "torch") -> Any:
    return _embedder(model, batch_size, backend).encode(texts)


@task(cache_policy=NO_CACHE, **IO_RETRIES)
def build_task(
    index: str,
    chunks: list[Chunk],
    vectors: Any,
    records: list[DocumentRecord],
    config: IngestConfig,
    sources: list[str],
    extra: dict,
    reuse_fusion: dict | None = None,
    graph: list | None = None,
) -> str:
    embedding = pipeline.embedding_info(config, vectors)
    # the model loads only if calibrating
    embedder = _embedder(config.model, config.batch_size, config.embedding_backend)
    folder = pipeline.build_index(
        IndexStore(index),
        chunks,
        vectors,
        records,
        config,
        sources,
        embedding,
        extra,
        embedder=embedder,
        reuse_fusion=reuse_fusion,
        graph=graph,
    )
    return str(folder)


@task(cache_policy=NO_CACHE, **IO_RETRIES)
def next_build_task(
    index: str,
    previous: incremental.PreviousBuild,
    the_plan: incremental.Plan,
    outcomes: dict[str, ParseOutcome],
    config: IngestConfig,
    sources: list[str],
    fusion: dict[str, Any],
) -> tuple[str, list[DocumentRecord], int, int]:
    """A small change: the next build by segments (the previous build's files hard-linked, the
    changed files' chunks embedded and written as one new segment)."""
    folder, records, count, embedded = pipeline.segment_run(
        IndexStore(index), previous, the_plan, outcomes, config, sources, None, fusion, {}, None
    )
    return str(folder), records, count, embedded


@task(cache_policy=NO_CACHE)
def gate_task(index: str, folder: str, config: IngestConfig) -> dict[str, Any] | None:
    embedder = _embedder(config.model, config.batch_size, config.embedding_backend)
    return pipeline.run_gate(IndexStore(index), Path(folder), config, embedder)


@task(cache_policy=NO_CACHE, **IO_RETRIES)
def publish_task(index: str, folder: str, keep_builds: int) -> None:
    pipeline.publish(IndexStore(index), Path(folder), keep_builds)


def _embed(chunks: list[Chunk], config: IngestConfig, cache: incremental.EmbeddingCache) -> tuple[Any, int]:
    import numpy as np

    work = incremental.embedding_work(chunks, config.embedding_id, cache)
    batches = [work.texts[i : i + EMBED_BATCH] for i in range(0, len(work.texts), EMBED_BATCH)]
    if batches:
        fresh = np.concatenate(
            embed_task.map(
                batches,
                unmapped(config.model),
                unmapped(config.batch_size),
                unmapped(config.embedding_backend),
            ).result()
        )
    else:  # everything cached: no task, no model
        fresh = np.zeros((0, 0), dtype=np.float32)
    return incremental.assemble_vectors(work, cache, fresh), len(work.texts)


def _whole_build(
    index: str,
    previous: incremental.PreviousBuild | None,
    the_plan: incremental.Plan,
    outcomes: dict[str, ParseOutcome],
    config: IngestConfig,
    sources: list[str],
    full_rebuild: bool,
    reuse: dict[str, Any] | None,
) -> tuple[str, list[DocumentRecord], int, int, IngestConfig]:
    """Every chunk of the tree in one new segment; new texts embedded by mapped tasks (on Dask
    when the flow runs there). Returns the config with model "auto" resolved."""
    chunks, records = chunk_task(the_plan, outcomes, config)
    config = pipeline.choose_model(config, chunks)
    graph = incremental.assemble_graph(the_plan, outcomes, previous)
    cache = incremental.reusable_embeddings(IndexStore(index), previous, full_rebuild)
    vectors, embedded = _embed(chunks, config, cache)
    extra = {incremental.INCREMENTAL_KEY: {**the_plan.summary(), "embedded": embedded}}
    folder = build_task(index, chunks, vectors, records, config, sources, extra, reuse, graph)
    return folder, records, len(chunks), embedded, config


def _run(sources: list[str], index: str, config: IngestConfig, full_rebuild: bool) -> pipeline.IngestReport:
    """The flow body: tasks wired in order, under the index lock."""
    if config.embedding_backend not in BACKENDS:  # an endpoint (indexers.dense.remote)
        raise ValueError("the Prefect flow embeds locally only: use `docmill ingest` with an endpoint")
    started = time.perf_counter()
    with IndexStore(index).lock(timeout=600):
        the_plan, previous = plan_task(sources, index, config, full_rebuild)
        config = pipeline.keep_model(config, previous, full_rebuild)
        if pipeline.is_noop(the_plan, previous, config, sources):
            return pipeline.noop_report(the_plan, previous, index, started, {})
        to_parse = the_plan.to_parse
        parsed = parse_task.map(to_parse, options=unmapped(config.parse)).result()
        outcomes = {ref.rel_path: outcome for ref, outcome in zip(to_parse, parsed, strict=True)}
        reuse = pipeline.reusable_fusion(previous, the_plan, config, full_rebuild)
        if (
            previous is not None
            and reuse is not None
            and pipeline.by_segments(previous, config, full_rebuild)
        ):
            folder, records, chunk_count, embedded = next_build_task(
                index, previous, the_plan, outcomes, config, sources, reuse
            )
        else:
            folder, records, chunk_count, embedded, config = _whole_build(
                index, previous, the_plan, outcomes, config, sources, full_rebuild, reuse
            )
        gate = gate_task(index, folder, config)
        publish_task(index, folder, config.keep_builds)
    report = pipeline.make_report(Path(folder).name, index, records, chunk_count, 0.0, {})
    report.gate = gate
    return pipeline.with_plan(report, the_plan, embedded, started, published=True)


@flow(name="ingest-dask")
def _ingest_on_dask(
    sources: list[str], index: str, config: IngestConfig, full_rebuild: bool
) -> pipeline.IngestReport:
    return _run(sources, index, config, full_rebuild)


def _dask_runner(dask_address: str | None, dask_workers: int) -> Any:
    from prefect_dask import DaskTaskRunner

    if dask_address:
        return DaskTaskRunner(address=dask_address)
    return DaskTaskRunner(
        cluster_kwargs={"n_workers": dask_workers, "threads_per_worker": 1, "processes": True}
    )


@flow(name="ingest", log_prints=True)
def ingest(
    sources: list[str],
    index: str,
    full_rebuild: bool = False,
    model: str = AUTO_MODEL,
    max_tokens: int = 200,
    strict: bool = False,
    keep_builds: int = 3,
    golden: str | None = None,
    gate_margin: float = 0.01,
    dask_address: str | None = None,
    dask_workers: int = 0,
    vector_index: str = "auto",
    include: list[str] | None = None,
    exclude: list[str] | None = None,
) -> dict[str, Any]:
    """Index ``sources`` into ``index`` incrementally (``full_rebuild`` re-does everything) and
    publish the build atomically, after the quality gate if ``golden`` names a query set. Returns
    the report: added/changed/removed/unchanged/skipped/chunks/seconds/build, plus documents,
    indexed, parsed, embedded and published. Relative paths resolve against the worker's working directory.
    ``include`` / ``exclude``: globs choosing the files under a source folder (flows.globs)."""
    logger = get_run_logger()
    config = IngestConfig(
        model=model,
        chunk=ChunkOptions(max_tokens),
        strict=strict,
        keep_builds=keep_builds,
        golden=golden,
        gate_margin=gate_margin,
        vector_index=vector_index,
        include=tuple(include or ()),
        exclude=tuple(exclude or ()),
    )
    sources = [str(s) for s in sources]
    if dask_address or dask_workers > 0:
        runner = _dask_runner(dask_address, dask_workers)
        report = _ingest_on_dask.with_options(task_runner=runner)(sources, index, config, full_rebuild)
    else:
        report = _run(sources, index, config, full_rebuild)
    for path, reason in report.skipped_files:
        logger.warning("skipped %s: %s", path, reason)
    if report.gate:
        logger.info("quality gate: %s", report.gate)
    logger.info(report.summary())
    logger.info("stage seconds: %s", ", ".join(f"{k} {v:.1f}" for k, v in report.timings.items()))
    details = {"documents": report.documents, "indexed": report.indexed, "parsed": report.parsed}
    return {**report.to_json(), **details, "embedded": report.embedded, "published": report.published}


if __name__ == "__main__":
    import sys

    argv = sys.argv[1:]
    vector_index = "auto"
    if "--vector-index" in argv:  # python -m flows.ingest [--vector-index auto|flat|hnsw|ivf] SRC... INDEX
        at = argv.index("--vector-index")
        vector_index = argv[at + 1]
        del argv[at : at + 2]
    print(ingest(argv[:-1] or ["samples"], argv[-1] if argv else "index", vector_index=vector_index))
