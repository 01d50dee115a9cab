"""The ranking policy of a search, one for an index (docmill.index.HybridIndex) and a sharded root
(docmill.sharded.ShardedIndex), so both rank alike. Pure: it reads the two sides' ranked lists
(row, score), the build's calibration and, through callables, the chunks; it opens nothing.

A search with these pieces: ``sides_to_ask`` (mode, weights, a query the model cannot read) ->
the sides run -> ``query_weights`` (BM25's weight scaled by its top hit's coverage) ->
``evidence`` and ``verdict`` (abstain) -> ``fuse`` (RRF, the agreement / exact-term tier:
fusion.promote, test-code demotion: adjust.demote) or ``one_side`` -> ``places`` (one hit per
place: collapse.py; the kind floor of experiments)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from indexers.build.sections import FusionSection
from indexers.dense.embedder import MAX_QUERY_UNKNOWN_SHARE
from indexers.ranking.abstain import AbstainModel
from indexers.ranking.adjust import demote, kind_floor
from indexers.ranking.calibrate import is_source_chunk
from indexers.ranking.collapse import PlaceKey, check_policy
from indexers.ranking.collapse import collapse as collapse_places
from indexers.ranking.defaults import DEFAULT_WEIGHTS
from indexers.ranking.fusion import EXACT_DEPTH, EXACT_MAX_DF, Fused, exact_looking, promote, rrf, zscore
from indexers.ranking.options import Mode, SearchOptions

Ranked = list[tuple[int, float]]  # (row, score), best first

# Vector mode on a query its model cannot read: its hits count when one of its top AGREE_VECTOR_K
# is among BM25's top AGREE_BM25_K (bm25_agrees).
AGREE_VECTOR_K, AGREE_BM25_K = 5, 10
# Code in test files, demoted in hybrid search (options.TEST_CODE_WEIGHT).
TEST_CODE_PATH = re.compile(
    r"(^|/)(tests?|testing|__tests__|spec)/|(^|/)(test_[^/]*|[^/]*_test)\.py$|_test\.(go|rs|c|cc|cpp)$"
    r"|[._](test|spec)\.[cm]?[jt]sx?$|(^|/)[^/]*Tests?\.java$"
)


@dataclass(frozen=True)
class Calibration:
    """What a build's calibration (manifest ``extra.fusion``) tells the ranking."""

    weights: Mapping[str, float]
    rrf_k: float = 60.0
    coverage_power: float | None = None  # code corpora: BM25's weight * coverage ** this

    @classmethod
    def from_section(cls, fusion: FusionSection) -> Calibration:
        return cls(fusion.fusion_weights, fusion.rrf_k, fusion.bm25_coverage_power)

    @property
    def code_search(self) -> bool:
        """A corpus calibrated as code search (the code-search prior)."""
        return self.coverage_power is not None

    @property
    def reads_windows(self) -> bool:
        """Whether the vector side scores a chunk by the best of its cosine and its sentence
        windows' (indexers/dense/windows.py): everywhere but on a code-search corpus, where windows
        cut from lines of code lowered the vector side (CoSQA nDCG@10 0.6222 -> 0.6026 fit,
        0.5788 -> 0.5708 held; docs/EVALUATION.md "Sentence windows")."""
        return not self.code_search

    def fusion_for(self, requested: str) -> str:
        """The fusion a search runs: the one asked for, or for "auto" z-score fusion, except on a
        code corpus, whose prior (RRF k=10, BM25 weight * coverage ** 4) was fitted with RRF and
        lost with z-score fusion on CoSQA (nDCG@10 0.6205 -> 0.6115 fit, 0.5885 -> 0.5843 held)."""
        if requested != "auto":
            return requested
        return "rrf" if self.coverage_power is not None else "zscore"

    def fusion_of(self, options: SearchOptions) -> Fusion:
        """How a search with ``options`` fuses: its method (fusion_for) and RRF's k (the option,
        else the calibrated one)."""
        rrf_k = options.rrf_k if options.rrf_k is not None else self.rrf_k
        return Fusion(self.fusion_for(options.fusion), rrf_k, options.candidates)

    def weights_for(self, fusion: str) -> dict[str, float]:
        """The weights a search with ``fusion`` starts from. The stored ones were fitted for RRF
        (calibrate.py, by pseudo-queries); z-score fusion uses equal weights instead, keeping a
        vector side switched off (0) and a code corpus's per-query BM25 weight (coverage_power):
        the fitted RRF weights rated the sides the wrong way round on both Chinese dev sets
        (docs/EVALUATION.md "Fusion")."""
        if fusion == "rrf" or self.coverage_power is not None or self.weights.get("vector", 1.0) <= 0:
            return dict(self.weights)
        return dict(DEFAULT_WEIGHTS)

    @classmethod
    def from_fusion(cls, fusion: Mapping[str, Any] | None) -> Calibration:
        """From the manifest's ``extra["fusion"]`` as stored (read by indexers.build.sections)."""
        return cls.from_section(FusionSection.from_dict(fusion))


def vector_skip_reason(weights: Mapping[str, float], unknown_share: Callable[[], float]) -> str | None:
    """Why hybrid search should not ask the vector side (None: ask it). ``unknown_share``: the
    share of the query its embedding model does not know (asked only when needed)."""
    if weights.get("vector", 1.0) <= 0:
        return "vector side off: its fusion weight for this index is 0 (calibrated at build time)"
    share = unknown_share()
    if share > MAX_QUERY_UNKNOWN_SHARE:
        return f"vector side skipped: {share:.0%} of the query is unknown to the embedding model"
    return None


def sides_to_ask(
    mode: Mode, weights: Mapping[str, float], unknown_share: Callable[[], float], notes: list[str]
) -> tuple[bool, bool]:
    """(ask BM25, ask the vector side) for ``mode``; says in ``notes`` why a side is skipped."""
    use_bm25 = mode is Mode.BM25 or (mode is Mode.HYBRID and weights.get("bm25", 1.0) > 0)
    use_vector = mode is Mode.VECTOR
    if mode is Mode.HYBRID:
        reason = vector_skip_reason(weights, unknown_share)
        if reason:
            notes.append(reason)
        use_vector = reason is None
    return use_bm25, use_vector


def query_weights(
    weights: dict[str, float], power: float | None, coverage: Callable[[], float], notes: list[str]
) -> dict[str, float]:
    """The stored weights, with BM25's scaled by ``coverage()`` (the share of the query's idf mass
    its top hit holds) ** ``power`` where the build says so."""
    if power is None:
        return weights
    share = coverage()
    scaled = weights.get("bm25", 1.0) * share**power
    notes.append(f"BM25 weight {scaled:.2f} (coverage of its top hit {share:.2f} ** {power:g})")
    return {**weights, "bm25": scaled}


def bm25_agrees(vector_hits: Ranked, bm25_hits: Ranked, notes: list[str]) -> bool:
    """Vector mode on a query its model cannot read: whether BM25, which reads it, finds any of
    the vector side's top AGREE_VECTOR_K hits among its own top AGREE_BM25_K (a query that mixes a
    known identifier into unknown script still finds its page; a query the model reads as noise
    finds noise). Says which in ``notes``."""
    bm25_rows = {row for row, _ in bm25_hits[:AGREE_BM25_K]}
    if any(row in bm25_rows for row, _ in vector_hits[:AGREE_VECTOR_K]):
        notes.append("its top hits count: BM25, which reads the query, finds some of them too")
        return True
    notes.append(
        "BM25, which reads the query, finds none of the vector side's top hits: they are not "
        "evidence (use mode hybrid or bm25)"
    )
    return False


def top_cosine(results: Mapping[str, Ranked], readable: bool) -> float | None:
    """What the abstain model reads of the vector side: its top cosine, or None without one or
    for a query the model cannot read (its cosine is noise)."""
    vector = results.get("vector") if readable else None
    return vector[0][1] if vector else None


def verdict(
    model: AbstainModel,
    lexical: float,
    cosine: float | None,
    noise: bool,
    abstain: bool,
    notes: Sequence[str],
    short: bool = False,
    coverage: float | None = None,
) -> tuple[float, str | None]:
    """(confidence, why to return no hits or None). ``noise``: vector mode's hits on a query its
    model cannot read that BM25 does not find (confidence 0; the reason is the last notes).
    ``short``: a short query (abstain.is_short), judged on the build's short-query scale.
    ``coverage``: abstain.best_coverage of BM25's top hits, where the model reads it."""
    confidence = 0.0 if noise else model.confidence(lexical, cosine, short, coverage)
    if not abstain:
        return confidence, None
    return confidence, ("; ".join(notes[-2:]) if noise else model.reason(lexical, cosine, short, coverage))


def coverage_evidence(
    model: AbstainModel,
    cosine: float | None,
    bm25: Callable[[], Ranked],
    short: bool,
    read: Callable[[Ranked], float],
) -> float | None:
    """Abstain v6's coverage evidence where the judgement weighs it: with a cosine (the vector
    side judges) and a build that gives coverage a weight, ``read`` (abstain.best_coverage) of
    BM25's top hits (``bm25()``: the BM25 side's list, or in mode vector a BM25 search of
    abstain.COVERAGE_DEPTH, so mode vector is judged on the evidence its threshold was fitted
    with: without it the coverage weight went to the cosine and off-topic questions passed);
    else None (no cosine: the lexical scale judges alone)."""
    if cosine is None or not model.reads_coverage(short):
        return None
    return read(bm25())


def exact_rows(
    query: str,
    bm25_hits: Ranked | None,
    df: Mapping[str, int] | None,
    tokenize: Callable[[str], Sequence[str]],
    text_of: Callable[[int], str],
) -> dict[int, str]:
    """BM25's top EXACT_DEPTH rows holding an exact-looking query term (fusion.exact_looking) that
    at most EXACT_MAX_DF chunks contain: row -> the term. ``text_of``: a row's indexed text."""
    if not bm25_hits or df is None:
        return {}
    rare = []
    for token in exact_looking(query):
        terms = tokenize(token)
        if terms and 0 < df.get(terms[0], 0) <= EXACT_MAX_DF:
            rare.append(terms[0])
    if not rare:
        return {}
    out: dict[int, str] = {}
    for row, _ in bm25_hits[:EXACT_DEPTH]:
        held = set(tokenize(text_of(row)))
        found = [term for term in rare if term in held]
        if found:
            out[row] = found[0]
    return out


@dataclass(frozen=True)
class Fusion:
    """How the sides are fused: ``method`` "zscore" or "rrf" (options.FUSIONS) and RRF's k."""

    method: str = "zscore"
    rrf_k: float = 60.0
    depth: int = 0  # candidates each side was asked for (0: unknown; fusion.standard_scores)


def fuse(
    results: Mapping[str, Ranked],
    fusion: Fusion,
    weights: Mapping[str, float] | None,
    exact: Mapping[int, str] | None,
    test_code_weight: float = 1.0,
    is_test: Callable[[int], bool] | None = None,
    defined: Mapping[int, str] | None = None,
) -> tuple[list[Fused], dict[int, float]]:
    """Both sides' chunks fused by ``fusion`` (weighted standard scores or weighted RRF); with
    ``exact`` (None: the evidence tiers are off) the agreement, exact-term and ``defined``
    (definitions.defined_rows) candidates first (fusion.promote); the rows ``is_test`` says are
    test code demoted by ``test_code_weight`` (adjust.demote). (ranking, row -> factor)."""
    # chunks, not places: fusing each side's ranks of places (a page's rank = its best chunk's
    # among pages) lost code questions (docs/EVALUATION.md, issue 22)
    if fusion.method == "rrf":
        ranking = rrf({name: [r for r, _ in pairs] for name, pairs in results.items()}, fusion.rrf_k, weights)
    else:
        # BM25 lists every chunk holding a query term: a short list is all of them
        ranking = zscore(results, weights, {"bm25": fusion.depth} if fusion.depth else None)
    if exact is not None:
        ranking = promote(ranking, list(results), exact, weights, defined=defined)
    if test_code_weight != 1.0 and is_test is not None:
        return demote(ranking, len(ranking), test_code_weight, is_test)
    return ranking, {}


def one_side(results: Mapping[str, Ranked]) -> list[Fused]:
    """One side's hits in its order, ranks from 1."""
    return [
        Fused(row, score, {name: rank})
        for name, pairs in results.items()
        for rank, (row, score) in enumerate(pairs, start=1)
    ]


def places(
    ranking: Sequence[Fused],
    chunk_of: Callable[[int], PlaceKey],
    collapse: str,
    k: int,
    floor: int = 0,
) -> list[list[Fused]]:
    """The top ``k`` places of ``ranking`` (collapse.py: each place's best chunk leads, its others
    follow); with a ``floor`` (experiments, fused rankings only) the kind floor (adjust.kind_floor)."""
    floored = 1 < floor <= k  # fewer hits than the floor: the fused order stands
    # the floor may lift a place from below the first k, so it needs them all
    found = collapse_places(
        ranking, lambda item: chunk_of(item.row), check_policy(collapse), None if floored else k
    )
    if floored:
        found = kind_floor(found, floor, lambda place: is_source_chunk(chunk_of(place[0].row)))
    return found[:k]


def is_test_code_row(
    paths: frozenset[str], chunk_of: Callable[[int], PlaceKey]
) -> Callable[[int], bool] | None:
    """The test-code predicate over rows for an index whose test files are ``paths`` (None: none)."""
    if not paths:
        return None
    return lambda row: chunk_of(row).path in paths
