"""The records the ingest stages pass along (flows.stages): ``IngestRun``, one run's settings and
what its earlier stages found; ``Chunked``, the chunk stage's output; ``BuildContent``, what a
build writer (flows.builds) puts in a new build folder."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from chunkers.model import Chunk
from flows.config import IngestConfig
from flows.embeddings import EmbeddingCache, EmbeddingWork
from flows.incremental import Plan, PreviousBuild
from indexers.build.graph_file import FileGraph
from indexers.build.manifest import DocumentRecord
from indexers.build.sections import requested_vector_index
from indexers.build.store import IndexStore
from indexers.dense.windows import Windows

Progress = Callable[[str, int, int], None]


@dataclass
class IngestRun:
    """One ingest run. The caller sets the settings (``store`` .. ``progress``); the driver
    (flows.pipeline.execute) fills in the rest as the stages return: ``plan`` and ``previous``
    (the plan stage), ``fusion`` (the previous build's calibration when it may be kept),
    ``timings`` (seconds per stage). ``config`` is replaced when model "auto" is resolved."""

    store: IndexStore
    sources: Sequence[str | Path]  # as given: a shard's source (flows.shards.ShardSource) filters
    config: IngestConfig
    full_rebuild: bool = False
    embedder: Any = None  # the run's embedder, or None: made from the config when needed
    progress: Progress | None = None
    plan: Plan | None = None
    previous: PreviousBuild | None = None
    fusion: dict[str, Any] | None = None
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def source_names(self) -> list[str]:
        return [str(s) for s in self.sources]

    @property
    def the_plan(self) -> Plan:
        assert self.plan is not None, "the plan stage runs first"
        return self.plan

    @property
    def by_segments(self) -> bool:
        """Whether the next build carries the previous build's segments (only the parsed files'
        chunks written): its chunks are reusable, its vectors were indexed with the same setting
        and its calibration is kept (anything else is rebuilt as one segment)."""
        previous = self.previous
        if previous is None or self.fusion is None or self.full_rebuild or not previous.reusable:
            return False
        requested = requested_vector_index(previous.manifest.extra)
        return bool(requested == self.config.vector_index)


@dataclass
class Chunked:
    """The chunk stage's output. ``chunks``: every chunk of the tree (a whole build) or only the
    parsed files' (``by_segments``); ``count``: how many the new build holds; ``masked``: the
    previous build's paths whose chunks the next build masks; ``work``: which texts need the
    model."""

    chunks: list[Chunk]
    records: list[DocumentRecord]
    count: int
    graph: list[FileGraph]
    cache: EmbeddingCache
    work: EmbeddingWork
    by_segments: bool
    masked: list[str] = field(default_factory=list)
    config: IngestConfig | None = None  # the run's config, model "auto" resolved (a whole build)


@dataclass
class BuildContent:
    """What a new build holds: ``chunks`` with their ``vectors`` (one row each), every file's
    record, the manifest's ``embedding`` section and ``extra`` sections, the code ``graph`` (None:
    no graph.jsonl). ``fusion``: a calibration to keep (None: calibrate, a whole build only).
    ``masked``: for the next build by segments, the previous build's paths masked. ``windows``:
    the chunks' sentence windows' vectors (indexers.dense.windows; None: the build has none)."""

    chunks: Sequence[Chunk]
    vectors: np.ndarray
    records: Sequence[DocumentRecord]
    embedding: dict[str, Any]
    fusion: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    graph: Sequence[FileGraph] | None = None
    masked: Collection[str] = ()
    windows: Windows | None = None
