"""The Prefect flow `ingest`: the ingest of flows.pipeline.execute, its stages (flows.stages) run
as tasks by PrefectExecutor. Only this module imports Prefect.

Each run diffs the source tree against the current build (flows.incremental): only added or changed
files are parsed, and only chunks whose indexed text has no cached embedding are embedded. Parse
tasks are also cached by file content (path + SHA-256 + parser options), so a retried flow run does
not re-parse; I/O tasks retry with exponential back-off. The index LOCK (flock) serialises writers,
whoever they are; the deployment's concurrency limit keeps a second scheduled run from even starting.

Scale-out: pass ``dask_address`` (an existing cluster, e.g. "tcp://10.0.0.5:8786") or
``dask_workers`` (a local cluster of N processes) to run parse and embed tasks on Dask. With
``shards=N`` the tree is split into N index folders under ``index`` (flows/shards.py, as `docmill
ingest --shards N`), each shard's ingest one task on that task runner.
"""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import timedelta
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger, task, unmapped
from prefect.cache_policies import NO_CACHE
from prefect.context import TaskRunContext
from prefect.tasks import exponential_backoff
from prefect.utilities.annotations import quote

from chunkers.sizing import ChunkOptions
from flows import stages
from flows.config import IngestConfig
from flows.outcomes import ParseOutcome, SourceRef
from flows.pipeline import execute
from flows.progress_lines import StageLines
from flows.report import IngestReport
from flows.run import IngestRun
from flows.shards import finish_sharded_ingest, gather, ingest_shard, plan_sharded_ingest
from flows.sources import parse_file
from indexers.build.graph_file import GRAPH_VERSION
from indexers.build.store import IndexStore
from indexers.build.version import DOCMILL_VERSION
from indexers.dense.embedder import BACKENDS, Embedder, make_embedder
from indexers.dense.model_choice import AUTO_MODEL
from parsers.options import ParseOptions
from parsers.registry import PARSER_VERSIONS, parser_name_for

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
    parser = parser_name_for(ref.rel_path)  # a parser's new version parses its files again
    version = f"{DOCMILL_VERSION}+graph{GRAPH_VERSION}+{parser}{PARSER_VERSIONS.get(parser or '', 0)}"
    key = hashlib.sha256(f"{version}\x00{ref.rel_path}\x00{settings!r}".encode()).hexdigest()[:32]
    return f"docmill-parse-{key}-{digest.hexdigest()}"


@task(cache_key_fn=_parse_cache_key, cache_expiration=timedelta(days=30), persist_result=True, **IO_RETRIES)
def parse_task(ref: SourceRef, options: ParseOptions) -> ParseOutcome:
    return parse_file(ref, options)


@functools.cache
def _embedder(model: str, batch_size: int, backend: str = "torch") -> Embedder:
    """One model per process (a Dask worker loads it once, not once per task)."""
    return make_embedder(model, batch_size=batch_size, backend=backend)


@task(cache_policy=NO_CACHE)
def embed_task(texts: list[str], model: str, batch_size: int, backend: str = "torch") -> Any:
    return _embedder(model, batch_size, backend).encode(texts)


def _stage_task(stage: Callable[..., Any], retries: bool) -> Any:
    # Big in-memory values (the run record, chunks, arrays) pass between the stages: NO_CACHE keeps
    # Prefect from hashing them for a cache key nobody uses (and PrefectExecutor.call quotes them).
    options: dict[str, Any] = IO_RETRIES if retries else {}
    return task(name=f"{stage.__name__}_task", cache_policy=NO_CACHE, **options)(stage)


# The stages flows.pipeline.execute runs as tasks; I/O ones retry with back-off.
STAGE_TASKS = {
    stages.plan: _stage_task(stages.plan, retries=True),
    stages.chunk: _stage_task(stages.chunk, retries=False),
    stages.write: _stage_task(stages.write, retries=True),
    stages.gate: _stage_task(stages.gate, retries=False),
    stages.publish: _stage_task(stages.publish, retries=True),
}


class PrefectExecutor:
    """flows.pipeline.execute's stages as Prefect tasks: parse tasks mapped over the files (cached
    by content), a whole build's new texts embedded by tasks mapped over EMBED_BATCH slices (on
    the flow's task runner: Dask when asked for), the rest one task each. Each stage's line (count,
    time, rate: flows.progress_lines) goes to ``log`` (the flow's run logger), from the flow's
    thread, so nothing the tasks receive holds a logger."""

    def __init__(self, log: Callable[[str], None] | None = None) -> None:
        self.lines = StageLines(log) if log is not None else None

    def locked(self, store: IndexStore) -> AbstractContextManager[None]:
        return store.lock(timeout=600)

    def call(self, stage: Callable[..., Any], *args: Any) -> Any:
        started = time.perf_counter()
        result = STAGE_TASKS[stage](*(quote(a) for a in args))
        if self.lines is not None:
            self.lines.emit(f"{stage.__name__}: done in {time.perf_counter() - started:.1f} s")
        return result

    def _report(self, stage: str, count: int, started: float) -> None:
        if self.lines is not None:
            self.lines.finished(stage, count, time.perf_counter() - started)

    def parse(self, run: IngestRun, refs: Sequence[SourceRef]) -> list[ParseOutcome]:
        started = time.perf_counter()
        outcomes = list(parse_task.map(list(refs), options=unmapped(run.config.parse)).result())
        self._report("parse", len(outcomes), started)
        return outcomes

    def encode(self, run: IngestRun, texts: Sequence[str]) -> Any:
        import numpy as np

        config, started = run.config, time.perf_counter()
        batches = [list(texts[i : i + EMBED_BATCH]) for i in range(0, len(texts), EMBED_BATCH)]
        futures = embed_task.map(
            batches, unmapped(config.model), unmapped(config.batch_size), unmapped(config.embedding_backend)
        )
        vectors = np.concatenate(futures.result())
        if self.lines is not None:
            self.lines.model = f"{config.model} ({config.embedding_backend})"
        self._report("embed", len(texts), started)
        return vectors

    def embedder(self, run: IngestRun) -> Embedder:
        """The model for calibration and the gate, loaded once per process (it loads only if used)."""
        config = run.config
        return run.embedder or _embedder(config.model, config.batch_size, config.embedding_backend)


def _run(sources: list[str], index: str, config: IngestConfig, full_rebuild: bool) -> IngestReport:
    """The flow body: flows.pipeline.execute with the stages as tasks."""
    if config.embedding_backend not in BACKENDS:  # an endpoint (indexers.dense.remote)
        raise ValueError("the Prefect flow embeds locally only: use `docmill ingest` with an endpoint")
    executor = PrefectExecutor(get_run_logger().info)
    return execute(IngestRun(IndexStore(index), sources, config, full_rebuild), executor)


@flow(name="ingest-dask")
def _ingest_on_dask(sources: list[str], index: str, config: IngestConfig, full_rebuild: bool) -> IngestReport:
    return _run(sources, index, config, full_rebuild)


@task(cache_policy=NO_CACHE, **IO_RETRIES)
def ingest_shard_task(
    job: tuple[list[str], str, int, int], config: IngestConfig, full_rebuild: bool
) -> IngestReport:
    """One shard's ingest (flows.shards.ingest_shard: an ordinary index folder, incremental and
    locked as one index is), with this process's model (a Dask worker loads it once) once the model
    is named; "auto" is resolved per shard, as `docmill ingest --shards` does."""
    embedder = None
    if config.model != AUTO_MODEL:
        embedder = _embedder(config.model, config.batch_size, config.embedding_backend)
    return ingest_shard(*job, config, embedder, full_rebuild)


def _run_shards(sources: list[str], index: str, config: IngestConfig, shards: int, full_rebuild: bool) -> Any:
    """The sharded flow body: flows.shards' plan, one task per shard (on the flow's task runner),
    then the same root manifest as `docmill ingest --shards`."""
    if config.embedding_backend not in BACKENDS:
        raise ValueError("the Prefect flow embeds locally only: use `docmill ingest` with an endpoint")
    plan = plan_sharded_ingest(sources, index, shards)
    futures = {i: ingest_shard_task.submit(job, config, full_rebuild) for i, job in plan.jobs.items()}
    return finish_sharded_ingest(plan, gather({i: future.result for i, future in futures.items()}))


@flow(name="ingest-shards-dask")
def _shards_on_dask(
    sources: list[str], index: str, config: IngestConfig, shards: int, full_rebuild: bool
) -> Any:
    return _run_shards(sources, index, config, shards, full_rebuild)


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
    shards: int = 0,
    ignore_files: bool = True,
    windows: bool = True,
) -> dict[str, Any]:
    """Index ``sources`` into ``index`` incrementally (``full_rebuild`` re-does everything) and
    publish the build atomically, after the quality gate if ``golden`` names a query set. Returns
    the report: added/changed/removed/unchanged/skipped/chunks/seconds/build, plus documents,
    indexed, parsed, embedded and published. Relative paths resolve against the worker's working directory.
    ``include`` / ``exclude``: globs choosing the files under a source folder (flows.globs);
    ``ignore_files``: honour .gitignore / .docmillignore files in the source folders (flows.ignorefiles).
    ``windows``: embed each chunk's sentence windows too (indexers/dense/windows.py; False is
    `docmill ingest --no-windows`).
    ``shards``: split the tree into this many index folders under ``index`` plus a root manifest,
    as `docmill ingest --shards` does (flows/shards.py), each shard's ingest one task (on Dask with
    ``dask_address`` / ``dask_workers``); returns flows.shards.ShardedReport.to_json()."""
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
        ignore_files=ignore_files,
        windows=windows,
    )
    sources = [str(s) for s in sources]
    if shards > 0:
        return _ingest_shards(sources, index, config, shards, full_rebuild, (dask_address, dask_workers))
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
    details: dict[str, Any] = {
        "documents": report.documents,
        "indexed": report.indexed,
        "parsed": report.parsed,
    }
    details["ignored"] = {"files": report.ignored.files, "folders": report.ignored.folders}
    return {**report.to_json(), **details, "embedded": report.embedded, "published": report.published}


def _ingest_shards(
    sources: list[str],
    index: str,
    config: IngestConfig,
    shards: int,
    full_rebuild: bool,
    dask: tuple[str | None, int],
) -> dict[str, Any]:
    logger = get_run_logger()
    if dask[0] or dask[1] > 0:
        runner = _dask_runner(*dask)
        sharded = _shards_on_dask.with_options(task_runner=runner)(
            sources, index, config, shards, full_rebuild
        )
    else:
        sharded = _run_shards(sources, index, config, shards, full_rebuild)
    assert sharded is not None  # the flow returns the shards' report
    logger.info(sharded.summary())
    return dict(sharded.to_json())


if __name__ == "__main__":
    import sys

    # python -m flows.ingest [--vector-index auto|flat|hnsw|ivf|ivfpq] [--shards N] SRC... INDEX
    argv = sys.argv[1:]
    options: dict[str, Any] = {}
    for flag, name, kind in (("--vector-index", "vector_index", str), ("--shards", "shards", int)):
        if flag in argv:
            at = argv.index(flag)
            options[name] = kind(argv[at + 1])
            del argv[at : at + 2]
    print(ingest(argv[:-1] or ["samples"], argv[-1] if argv else "index", **options))
