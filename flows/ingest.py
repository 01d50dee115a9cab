"""The Prefect flow `ingest`: the pipeline stages as tasks. Only this module imports Prefect.

Parse tasks are cached by file content (path + SHA-256 + parser options), so a retried or repeated
run does not re-parse unchanged files; I/O tasks retry with back-off. Pass ``dask_address`` (an
existing cluster, e.g. "tcp://10.0.0.5:8786") or ``dask_workers`` (a local cluster of N processes)
to run parse tasks on Dask.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger, task, unmapped
from prefect.context import TaskRunContext

from chunkers.model import Chunk
from flows import pipeline
from flows.config import IngestConfig
from indexers.store import IndexStore
from indexers.vectors import DEFAULT_MODEL, Embedder
from parsers.options import ParseOptions


def _parse_cache_key(context: TaskRunContext, parameters: dict[str, Any]) -> str:
    ref: pipeline.SourceRef = parameters["ref"]
    digest = hashlib.sha256()
    try:
        digest.update(Path(ref.path).read_bytes())
    except OSError:
        digest.update(b"<unreadable>")
    options: ParseOptions = parameters["options"]
    return f"docmill-parse-{ref.rel_path}-{digest.hexdigest()}-{options!r}"


@task(retries=2, retry_delay_seconds=[1, 5])
def discover_task(sources: list[str]) -> list[pipeline.SourceRef]:
    return pipeline.discover(sources)


@task(cache_key_fn=_parse_cache_key, cache_expiration=timedelta(days=30), persist_result=True, retries=1, retry_delay_seconds=2)
def parse_task(ref: pipeline.SourceRef, options: ParseOptions) -> pipeline.ParseOutcome:
    return pipeline.parse_file(ref, options)


@task
def chunk_task(outcomes: list[pipeline.ParseOutcome], config: IngestConfig) -> list[Chunk]:
    chunks = [c for o in outcomes for c in pipeline.chunk_outcome(o, config)]
    pipeline.check_outcome([o.record for o in outcomes], chunks, config)
    return chunks


@task
def embed_task(chunks: list[Chunk], model: str, batch_size: int) -> Any:
    return pipeline.embed_chunks(chunks, Embedder(model, batch_size=batch_size))


@task(retries=2, retry_delay_seconds=[2, 10])
def build_and_publish_task(
    index: str, chunks: list[Chunk], vectors: Any, outcomes: list[pipeline.ParseOutcome], config: IngestConfig, sources: list[str]
) -> str:
    store = IndexStore(index)
    embedding = {"model": config.model, "dim": int(vectors.shape[1]), "normalized": True}
    folder = pipeline.build_index(store, chunks, vectors, [o.record for o in outcomes], config, sources, embedding)
    store.publish(folder)
    store.prune(config.keep_builds)
    return folder.name


def _task_runner(dask_address: str | None, dask_workers: int) -> Any:
    if not dask_address and dask_workers <= 0:
        return None
    from prefect_dask import DaskTaskRunner

    if dask_address:
        return DaskTaskRunner(address=dask_address)
    return DaskTaskRunner(cluster_kwargs={"n_workers": dask_workers, "threads_per_worker": 1, "processes": True})


@flow(name="ingest", log_prints=True)
def ingest(
    sources: list[str],
    index: str,
    model: str = DEFAULT_MODEL,
    max_tokens: int = 200,
    strict: bool = False,
    keep_builds: int = 3,
) -> dict[str, Any]:
    """Index ``sources`` into ``index`` and publish the build atomically; returns the report."""
    import time

    from chunkers.sizing import ChunkOptions

    started = time.perf_counter()
    logger = get_run_logger()
    config = IngestConfig(model=model, chunk=ChunkOptions(max_tokens), strict=strict, keep_builds=keep_builds)
    store = IndexStore(index)
    with store.lock(timeout=600):
        refs = discover_task(sources)
        outcomes = [f.result() for f in parse_task.map(refs, options=unmapped(config.parse))]
        chunks = chunk_task(outcomes, config)
        vectors = embed_task(chunks, config.model, config.batch_size)
        build = build_and_publish_task(index, chunks, vectors, outcomes, config, [str(s) for s in sources])
    records = [o.record for o in outcomes]
    report = pipeline.make_report(build, index, records, len(chunks), time.perf_counter() - started, {})
    for path, reason in report.skipped_files:
        logger.warning("skipped %s: %s", path, reason)
    logger.info(report.summary())
    return {
        "build": report.build,
        "documents": report.documents,
        "indexed": report.indexed,
        "skipped": report.skipped,
        "chunks": report.chunks,
        "seconds": round(report.seconds, 3),
    }


def ingest_with_dask(sources: list[str], index: str, dask_address: str | None = None, dask_workers: int = 2, **kwargs: Any) -> dict[str, Any]:
    """Run the same flow with parse tasks on a Dask cluster (existing address or local workers)."""
    runner = _task_runner(dask_address, dask_workers)
    return ingest.with_options(task_runner=runner)(sources, index, **kwargs)


if __name__ == "__main__":
    import sys

    print(ingest(sys.argv[1:-1] or ["samples"], sys.argv[-1] if len(sys.argv) > 1 else "index"))
