"""One shard of a sharded index, where it is searched: in the coordinator's process, or inside a
Dask actor on a worker (docmill.sharded). It answers three calls per query (statistics, search,
chunks) with plain data, so the same object serves both ways.

It follows its shard's CURRENT (checked at most every ``check_interval`` seconds), so a shard
re-indexed on its own is searched at its new build while the other shards keep serving.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from chunkers.model import Chunk
from docmill import filters as filtering
from docmill.index import HybridIndex
from docmill.opening import open_build
from indexers.build.sections import FusionSection
from indexers.build.store import IndexStore
from indexers.lexical.segmented import CorpusStats, SegmentedBM25
from indexers.ranking.calibrate import is_source_chunk

Hits = list[tuple[int, float]]


@dataclass(frozen=True)
class ShardQuery:
    """What a shard searches for one query (plain data: it travels to a Dask actor)."""

    terms: Sequence[str]
    vector: np.ndarray | None
    fetch_k: int
    filters: Mapping[str, Any] | None = None
    corpus: CorpusStats | None = None  # BM25 with these statistics; None: no BM25 side
    df: Mapping[str, int] | None = None
    probe: int | None = None
    flags: bool = False  # say which returned rows are test code and source code
    with_chunks: int = 0  # the chunks of each side's first this many rows come along
    bm25_k: int | None = None  # BM25's top this many (None: fetch_k; mode vector reads only a few)


class ShardSearcher:
    """A shard folder's current build, searched as one part of a corpus."""

    def __init__(self, folder: str | Path, embedder: Any = None, check_interval: float = 2.0) -> None:
        self.folder = Path(folder)
        self.check_interval = check_interval
        self._embedder = embedder
        self._lock = threading.Lock()
        self._checked = time.monotonic()
        self.index: HybridIndex = self._open()
        self._recent = {self.index.build.name: self.index}  # this build and the one before it
        self._scorers: dict[tuple[str, CorpusStats], SegmentedBM25] = {}

    def _open(self) -> HybridIndex:
        store = IndexStore(self.folder)
        return open_build(self.folder, store.current_build(), self._embedder)

    def current(self) -> HybridIndex:
        """The build to search: re-reads CURRENT every ``check_interval`` seconds."""
        if time.monotonic() - self._checked < self.check_interval:
            return self.index
        with self._lock:
            self._checked = time.monotonic()
            name = IndexStore(self.folder).current_name()
            if name is not None and name != self.index.build.name:
                self.index = self._open()
                # the build before stays readable: a query that searched it fetches its chunks
                self._recent = {**{k: v for k, v in self._recent.items() if k != name}, name: self.index}
                if len(self._recent) > 2:
                    self._recent.pop(next(iter(self._recent)))
                self._scorers.clear()
        return self.index

    def info(self) -> dict[str, Any]:
        """What the coordinator checks all shards agree on, and this shard's calibration."""
        index = self.current()
        m = index.manifest
        return {
            "build": index.build.name,
            "rows": len(index),
            "model": m.embedding.get("model"),
            "backend": m.embedding_backend,
            "embedding": dict(m.embedding),
            "tokenizer": m.tokenizer,
            "bm25": m.bm25,
            "fusion": FusionSection.read(m.extra).to_dict(),
            "test_code": bool(index.test_code_paths),
        }

    def statistics(self, terms: Sequence[str]) -> dict[str, Any]:
        """This build's part of the corpus statistics: live documents, tokens, df of ``terms``."""
        index = self.current()
        bm25 = index.bm25
        return {
            "build": index.build.name,
            "n_docs": bm25.n_docs,
            "total_length": bm25.total_length,
            "df": bm25.document_frequencies(terms),
        }

    def _scorer(self, index: HybridIndex, corpus: CorpusStats) -> SegmentedBM25:
        key = (index.build.name, corpus)
        scorer = self._scorers.get(key)
        if scorer is None:
            scorer = index.bm25.for_corpus(corpus)
            with self._lock:
                if len(self._scorers) >= 2:  # the corpus moved on: drop the oldest statistics
                    self._scorers.pop(next(iter(self._scorers)))
                self._scorers[key] = scorer
        return scorer

    def search(self, ask: ShardQuery) -> dict[str, Any]:
        """Each side's top ``fetch_k`` rows of this shard (BM25's ``bm25_k`` when given; BM25 with
        the corpus's statistics when ``corpus`` is given, vectors when ``vector`` is), the build
        searched, and with ``flags`` which returned rows are test code and which are source code
        (ranking adjustments); the chunks of each side's first ``with_chunks`` rows come along (most
        hits need no later call)."""
        index = self.current()
        # a shard holds part of the build: a language or doc_id it lacks may be in another shard
        allowed = filtering.mask(index.chunks.all(), ask.filters, held=False) if ask.filters else None
        out: dict[str, Any] = {"build": index.build.name}
        if allowed is not None:
            out["matched"] = bool(allowed.any())  # with every shard False: no chunk passes the filters
        if ask.corpus is not None:
            scorer = self._scorer(index, ask.corpus)
            bm25_k = ask.fetch_k if ask.bm25_k is None else ask.bm25_k
            out["bm25"] = scorer.search(ask.terms, bm25_k, allowed, df=ask.df).hits
        if ask.vector is not None:
            out["vector"] = index.vector_hits(ask.vector, ask.fetch_k, allowed, ask.probe)
        if ask.flags:
            rows = {row for name in ("bm25", "vector") for row, _ in out.get(name, [])}
            out["test"], out["source"] = self._flags(index, rows)
        if ask.with_chunks:
            head = {row for name in ("bm25", "vector") for row, _ in out.get(name, [])[: ask.with_chunks]}
            out["chunks"] = {row: index.chunks[row] for row in sorted(head)}
        return out

    @staticmethod
    def _flags(index: HybridIndex, rows: set[int]) -> tuple[list[int], list[int]]:
        """Which ``rows`` are test code and which source code, from the place column (no chunk read)."""
        test, source = [], []
        places = index.chunks.places(sorted(rows))
        for row, place in sorted(places.items()):
            if place.path in index.test_code_paths:
                test.append(row)
            if is_source_chunk(place):
                source.append(row)
        return test, source

    def held(self, filters: Mapping[str, Any]) -> dict[str, Any]:
        """The filter's ``language`` / ``doc_id`` values this shard holds (filters.held_values):
        the coordinator checks them over the union of the shards, as one index checks its own."""
        return filtering.held_values(self.current().chunks.all(), filters)

    def coverage(
        self, terms: Sequence[str], rows: Sequence[int], corpus: CorpusStats, df: Mapping[str, int]
    ) -> list[float]:
        """Share of the query's corpus idf mass that each of ``rows`` holds (HybridIndex's per-query
        BM25 weight for code corpora; abstain.best_coverage over BM25's top hits)."""
        index = self.current()
        return self._scorer(index, corpus).coverage_many(terms, rows, df=df)

    def chunks(self, build: str, rows: Sequence[int]) -> list[Chunk]:
        """The chunks of ``rows`` of ``build`` (the build a search answered from: this one or the
        one before); raises LookupError for an older build (its rows would name other chunks)."""
        index = self._recent.get(build)
        if index is None:
            raise LookupError(f"shard {self.folder} no longer holds build {build}")
        return [index.chunks[row] for row in rows]

    def ping(self) -> str:
        return self.current().build.name
