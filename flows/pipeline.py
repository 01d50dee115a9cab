"""The ingest run, written once: ``execute`` wires the stages (flows.stages: plan -> parse ->
chunk -> embed -> write -> gate -> publish) in order under the index lock, and an executor runs
them. ``LocalExecutor`` runs them in this process (``run_ingest``: `docmill ingest`, eval, shards);
the Prefect flow (flows.ingest) hands ``execute`` its own executor, which runs each stage as a task
and maps parsing and embedding (on Dask when asked for)."""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from flows import embeddings, stages
from flows.builds import build_index as build_index
from flows.builds import publish as publish
from flows.builds import publish_changes as publish_changes
from flows.config import IngestConfig
from flows.outcomes import IngestError as IngestError
from flows.outcomes import ParseOutcome
from flows.outcomes import SourceRef as SourceRef
from flows.report import IngestReport, make_report, noop_report, with_plan
from flows.run import IngestRun, Progress
from flows.settings import announce_model, is_noop, reusable_fusion
from flows.settings import embedding_info as embedding_info
from flows.sources import discover as discover
from flows.sources import parse_file
from indexers.build.store import IndexStore
from indexers.dense.embedder import Embedder
from indexers.dense.model_choice import AUTO_MODEL


class Executor(Protocol):
    """How the stages run: in process, or as Prefect tasks (flows.ingest.PrefectExecutor)."""

    def locked(self, store: IndexStore) -> AbstractContextManager[None]: ...

    def call(self, stage: Callable[..., Any], *args: Any) -> Any: ...

    def parse(self, run: IngestRun, refs: Sequence[SourceRef]) -> list[ParseOutcome]: ...

    def encode(self, run: IngestRun, texts: Sequence[str]) -> np.ndarray: ...

    def embedder(self, run: IngestRun) -> Any: ...


class LocalExecutor:
    """The stages called in this process; parse progress reported file by file."""

    @contextlib.contextmanager
    def locked(self, store: IndexStore) -> Iterator[None]:
        with store.undo_on_failure(), store.lock():
            yield

    def call(self, stage: Callable[..., Any], *args: Any) -> Any:
        return stage(*args)

    def parse(self, run: IngestRun, refs: Sequence[SourceRef]) -> list[ParseOutcome]:
        outcomes = []
        if run.progress:
            run.progress("parse", 0, len(refs))
        for i, ref in enumerate(refs):
            outcomes.append(parse_file(ref, run.config.parse))
            if run.progress:
                run.progress("parse", i + 1, len(refs))
        return outcomes

    def encode(self, run: IngestRun, texts: Sequence[str]) -> np.ndarray:
        return embeddings.encode_in_slices(self.embedder(run), texts, run.progress)

    def embedder(self, run: IngestRun) -> Any:
        return run.embedder or run.config.embedder()


@contextlib.contextmanager
def _timed(run: IngestRun, name: str) -> Iterator[None]:
    started = time.perf_counter()
    yield
    run.timings[name] = time.perf_counter() - started


def execute(run: IngestRun, executor: Executor) -> IngestReport:
    """One incremental ingest: unchanged files (by SHA-256) keep their chunks, chunks whose indexed
    text was embedded before keep their vectors. A small change writes the next build by segments
    (IngestRun.by_segments), anything else one segment holding every chunk. Publishes only a
    complete build that passed the gate; on any error the previous build stays current."""
    started = time.perf_counter()
    with executor.locked(run.store):
        with _timed(run, "diff"):
            run.plan, run.previous, run.config = executor.call(stages.plan, run)
        announce_model(run.config, run.progress)
        if is_noop(run.the_plan, run.previous, run.config, run.source_names):
            return noop_report(run.the_plan, run.previous, run.store.root, started, run.timings)
        run.embedder = stages.ready_embedder(run)
        with _timed(run, "parse"):
            parsed = executor.parse(run, run.the_plan.to_parse)
            outcomes = {ref.rel_path: o for ref, o in zip(run.the_plan.to_parse, parsed, strict=True)}
        run.fusion = reusable_fusion(run.previous, run.the_plan, run.config, run.full_rebuild)
        with _timed(run, "chunk"):
            chunked = executor.call(stages.chunk, run, outcomes)
        if chunked.config != run.config:  # model "auto" chosen from the chunks
            run.config = chunked.config
            announce_model(run.config, run.progress)
        with _timed(run, "embed"):
            if not chunked.by_segments:  # a whole build loads the model to embed and calibrate
                run.embedder = executor.embedder(run)
            vectors, windows, embedded_with = stages.embed(run, chunked, executor.encode)
        with _timed(run, "build"):
            folder = executor.call(stages.write, run, chunked, vectors, embedded_with, windows)
        if run.config.golden:
            run.embedder = executor.embedder(run)
        gate = executor.call(stages.gate, run, folder)
        executor.call(stages.publish, run, folder)
    report = make_report(folder.name, run.store.root, chunked.records, chunked.count, 0.0, run.timings)
    report.gate = gate
    return with_plan(report, run.the_plan, len(chunked.work.texts), started, published=True)


def run_ingest(
    sources: Sequence[str | Path],
    index: str | Path,
    config: IngestConfig | None = None,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
    full_rebuild: bool = False,
) -> IngestReport:
    """Incremental in-process ingest (``execute`` on a LocalExecutor); ``full_rebuild`` re-does
    everything. Raises IngestError when nothing could be indexed or strict mode saw skips
    (QualityGateFailed when the golden set scores worse than the current build by more than
    ``config.gate_margin``); ValueError when ``embedder`` is not the config's model."""
    config = config or IngestConfig()
    if config.model == AUTO_MODEL and embedder is not None:  # the embedder handed in decides
        config = dataclasses.replace(config, model=embedder.model_name, embedding_backend=embedder.backend)
    wanted = (config.model, config.embedding_backend)
    given = (embedder.model_name, getattr(embedder, "backend", "torch")) if embedder is not None else wanted
    if given != wanted:
        raise ValueError("embedder is {!r} ({}), the config names {!r} ({})".format(*given, *wanted))
    run = IngestRun(IndexStore(index), sources, config, full_rebuild, embedder, progress)
    return execute(run, LocalExecutor())
