"""BM25 over segments: each segment stores raw term frequencies and document lengths (not weights),
and the weights are computed per query with the statistics of the whole build, so a build that
adds one small segment and masks a few deleted documents scores exactly like a full rebuild.

    N       = live documents of all segments           (deleted ones are masked, not counted)
    avgdl   = live tokens / N
    df(t)   = sum over segments of df_s(t) - deleted documents of s containing t
    w(t, d) = idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * |d| / avgdl))   (indexers/bm25.py)

Document ids are *rows*: live documents numbered 0..N-1 in segment order (a segment's deleted
documents take no row), the same rows as the build's chunks and vectors (indexers/segments.py).

A segment's files (``bm25/``: vocab.json, params.json, tf/indices/indptr/doc_lengths .npy;
indexers/lexical/segment_files.py, whose names are re-exported here) never change once written,
so a later build hard-links them. What a build masks in a segment is that
build's own pair of files beside them (``Deletions``: the masked local rows, and the df and length
those documents took from the statistics: re-tokenised once when they are masked).
"""

from __future__ import annotations

import copy
import functools
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from indexers.build.rowmap import RowMap
from indexers.lexical.bm25 import BM25Index, BM25Result
from indexers.lexical.bm25_files import Vocabulary
from indexers.lexical.bm25_weights import BM25Params
from indexers.lexical.segment_files import Deletions as Deletions
from indexers.lexical.segment_files import SegmentPostings as SegmentPostings
from indexers.lexical.segment_files import check_deleted_tokens as check_deleted_tokens
from indexers.lexical.segment_files import merge_postings as merge_postings
from indexers.lexical.tokenize import term_weight
from indexers.lexical.top_k import top_of_totals

# A query term's postings over the segments: (its weight in the query, tokenize.term_weight summed
# over its occurrences; live df; [(segment, postings start, end)]).
TermSlices = tuple[float, int, list[tuple[int, int, int]]]
# Term weights computed at query time are kept for this many postings (16 MiB of float32).
WEIGHT_CACHE_POSTINGS = 1 << 22


@dataclass(frozen=True)
class CorpusStats:
    """What BM25 scores with when a build is one shard of a larger corpus: the live documents and
    tokens of every shard's build, and ``key`` naming those builds (the weights computed with these
    statistics are cached under it; the df of a query's terms travels with the query)."""

    n_docs: int
    total_length: int
    key: str = ""


def _length_norm(
    lengths: npt.NDArray[np.integer[Any]], params: BM25Params, avgdl: float
) -> npt.NDArray[np.float64]:
    """k1 * (1 - b + b * |d| / avgdl) per document, as BM25Index computes it per posting."""
    k1, b = params.k1, params.b
    lengths = np.asarray(lengths, dtype=np.int64)
    norm = k1 * (1 - b + b * lengths / avgdl) if avgdl > 0 else np.full(len(lengths), k1)
    return np.asarray(norm, dtype=np.float64)


class _Segment:
    """A loaded segment as the scorer reads it: postings, and what its masked documents took."""

    def __init__(self, postings: SegmentPostings, deletions: Deletions) -> None:
        counts = postings.counts
        self.counts = counts
        # Plain ndarray views of the memory-mapped arrays: slicing an np.memmap goes through its
        # Python-level __getitem__ (a query slices once per term), a view of the same pages does not.
        self.indptr: npt.NDArray[np.int64] = np.asarray(counts.indptr)
        self.indices: npt.NDArray[np.int32] = np.asarray(counts.indices)
        self.tf: npt.NDArray[np.int32] = np.asarray(counts.tf)
        self.deleted_df = deletions.df
        self.n_local = counts.n_docs
        self.n_live = self.n_local - len(deletions)
        self.deleted_length = deletions.length
        self.norm: npt.NDArray[np.float64] = np.zeros(0)

    @functools.cached_property
    def term_ids(self) -> dict[str, int]:
        """term -> term id, made on the first query (a Vocabulary makes it once for every copy
        of this segment: for_corpus)."""
        terms = self.counts.terms
        if isinstance(terms, Vocabulary):
            return terms.ids()
        return dict(zip(terms, range(len(terms)), strict=True))


class SegmentedBM25:
    """Scorer over a build's segments with exact corpus statistics; the query interface of
    indexers.lexical.bm25.BM25Index (search, top_k, scores, document_frequencies, idf, coverage ...)."""

    def __init__(
        self,
        segments: Sequence[tuple[SegmentPostings, Deletions]],
        params: BM25Params,
        tokenizer: Mapping[str, Any] | None = None,
        rows: RowMap | None = None,
        cache_postings: int = WEIGHT_CACHE_POSTINGS,
    ) -> None:
        """``rows``: where each segment's documents sit among the rows (default: segment order).
        ``cache_postings``: how many computed term weights to keep (4 bytes each)."""
        self.cache_postings = cache_postings
        self._cache: dict[tuple[int, int], npt.NDArray[np.float32]] = {}
        self._cached = 0
        self._cache_lock = threading.Lock()
        self.params = params
        self.tokenizer: dict[str, Any] = dict(tokenizer or {})
        self._segments = [_Segment(postings, deletions) for postings, deletions in segments]
        sizes = [s.n_local for s in self._segments]
        self.rows = rows if rows is not None else RowMap.in_order(sizes, [d.rows for _, d in segments])
        if self.rows.sizes != sizes:
            raise ValueError(f"the row map covers segments of {self.rows.sizes} documents, not {sizes}")
        self.n_docs = sum(s.n_live for s in self._segments)
        if self.rows.n_rows != self.n_docs:
            raise ValueError(f"the row map has {self.rows.n_rows} rows for {self.n_docs} live documents")
        # A full build: its one segment's stored weights are this build's (same N, avgdl, df).
        only = segments[0][0] if len(segments) == 1 and not len(segments[0][1]) else None
        usable = only is not None and only.weights is not None and only.weights_for == (params.k1, params.b)
        self._stored: npt.NDArray[np.float32] | None = np.asarray(only.weights) if usable and only else None
        # Local id -> row, a masked document to a spare slot past the last row (scores drop it).
        self._row_of: list[int | npt.NDArray[np.int64]] = [
            m if isinstance(m, int) else np.where(m >= 0, m, self.n_docs) for m in self.rows.to_row
        ]
        total = sum(int(s.counts.doc_lengths.sum(dtype=np.int64)) - s.deleted_length for s in self._segments)
        self.avgdl = total / self.n_docs if self.n_docs else 0.0
        self.total_length = total  # live tokens: a shard's part of a corpus's statistics
        self.stats_docs = self.n_docs  # the N of idf: this build's, or a corpus's (for_corpus)
        for s in self._segments:  # per-document length norm, as BM25Index computes it per posting
            s.norm = _length_norm(s.counts.doc_lengths, params, self.avgdl)

    def for_corpus(self, corpus: CorpusStats) -> SegmentedBM25:
        """This build scored as one shard of ``corpus``: N and the average length are the
        corpus's, and a search takes the query terms' corpus df (``search(..., df=)``), so a
        shard's scores are those of one index over the whole corpus. Shares the postings."""
        twin = copy.copy(self)
        twin.stats_docs = corpus.n_docs
        twin.avgdl = corpus.total_length / corpus.n_docs if corpus.n_docs else 0.0
        twin._stored = None  # stored weights hold this build's own statistics
        twin._cache, twin._cached, twin._cache_lock = {}, 0, threading.Lock()
        twin._segments = []
        for segment in self._segments:
            copied = copy.copy(segment)
            copied.norm = _length_norm(segment.counts.doc_lengths, self.params, twin.avgdl)
            twin._segments.append(copied)
        return twin

    def _postings(self, query_tokens: Sequence[str]) -> dict[str, TermSlices]:
        """term -> (its weight in the query: tokenize.term_weight per occurrence, live df, [(segment,
        start, end)]) for known terms."""
        found: dict[str, TermSlices] = {}
        for token in query_tokens:
            if token in found:
                count, df, slices = found[token]
                found[token] = (count + term_weight(token), df, slices)
                continue
            df, slices = 0, []
            for i, segment in enumerate(self._segments):
                term_id = segment.term_ids.get(token)
                if term_id is None:
                    continue
                start, end = segment.indptr[term_id : term_id + 2].tolist()
                df += end - start - segment.deleted_df.get(token, 0)
                slices.append((i, start, end))
            if df > 0:
                found[token] = (term_weight(token), df, slices)
        return found

    def document_frequencies(self, terms: Sequence[str]) -> dict[str, int]:
        return _live_df(self._postings(terms), terms)

    def scores(self, query_tokens: Sequence[str]) -> npt.NDArray[np.float32]:
        return self._scores(self._postings(query_tokens))

    def _scores(self, postings: Mapping[str, TermSlices]) -> npt.NDArray[np.float32]:
        return self._totals(postings).astype(np.float32)

    def _totals(self, postings: Mapping[str, TermSlices]) -> npt.NDArray[np.float64]:
        """Every row's score summed in float64 (``_scores`` rounds them to float32)."""
        if not postings:
            return np.zeros(self.n_docs, dtype=np.float64)
        if self._stored is not None and isinstance(self._row_of[0], int) and self._row_of[0] == 0:
            return self._stored_totals(postings)
        if self._stored is not None:  # the stored weights hold the idf already
            idfs = [0.0] * len(postings)
        else:
            dfs = np.fromiter((df for _, df, _ in postings.values()), dtype=np.int64, count=len(postings))
            idfs = np.log1p((self.stats_docs - dfs + 0.5) / (dfs + 0.5)).tolist()
        docs: list[list[npt.NDArray[np.int32]]] = [[] for _ in self._segments]
        term_weights: list[list[npt.NDArray[np.float32]]] = [[] for _ in self._segments]
        for (count, _, slices), idf in zip(postings.values(), idfs, strict=True):
            for i, start, end in slices:
                docs[i].append(self._segments[i].indices[start:end])
                w = self._term_weights(i, start, end, idf)
                term_weights[i].append(w * np.float32(count) if count != 1 else w)
        rows: list[npt.NDArray[np.integer[Any]]] = []
        weights = []
        for i, mapping in enumerate(self._row_of):
            if not docs[i]:
                continue
            local = np.concatenate(docs[i]) if len(docs[i]) > 1 else docs[i][0]
            if isinstance(mapping, int):
                rows.append(local + mapping if mapping else local)
            else:
                rows.append(mapping[local])
            weights.append(
                np.concatenate(term_weights[i]) if len(term_weights[i]) > 1 else term_weights[i][0]
            )
        # a masked document's postings land in the spare last slot
        return _summed(rows, weights, self.n_docs + 1)[: self.n_docs]

    def _stored_totals(self, postings: Mapping[str, TermSlices]) -> npt.NDArray[np.float64]:
        """``_totals`` of a full build (one segment, its lines the rows, its weights stored): the
        same arrays concatenated in the same order, without the per-segment bookkeeping."""
        indices, stored = self._segments[0].indices, self._stored
        assert stored is not None
        docs, weights = [], []
        for count, _, ((_, start, end),) in postings.values():
            docs.append(indices[start:end])
            weights.append(stored[start:end] * np.float32(count) if count != 1 else stored[start:end])
        return _summed(docs, weights, self.n_docs)

    def _term_weights(self, segment_index: int, start: int, end: int, idf: float) -> npt.NDArray[np.float32]:
        """float32 weights of one term's postings in one segment, from its tf and this build's
        statistics, kept up to ``cache_postings`` (oldest first out; a build never changes, so
        neither do they)."""
        if self._stored is not None:
            return self._stored[start:end]
        key = (segment_index, start)
        cached = self._cache.get(key)  # one C-level lookup, atomic under the GIL
        if cached is not None:
            return cached
        segment = self._segments[segment_index]
        local = segment.indices[start:end]
        tf = segment.tf[start:end]
        k1 = self.params.k1
        # BM25Index's expression in its order (indexers/bm25.py posting_weights): float64, then float32,
        # so a segment scores like a full build.
        weights = (idf * tf * (k1 + 1) / (tf + segment.norm[local])).astype(np.float32)
        if end - start <= self.cache_postings:
            with self._cache_lock:
                self._cache[key] = weights
                self._cached += end - start
                while self._cached > self.cache_postings:  # dicts keep insertion order: oldest first
                    dropped = self._cache.pop(next(iter(self._cache)))
                    self._cached -= len(dropped)
        return weights

    def score_document(self, query_tokens: Sequence[str], doc_tokens: Sequence[str]) -> float:
        """BM25 score of a document that is not in the index, under this build's statistics."""
        tf: dict[str, int] = {}
        for token in doc_tokens:
            tf[token] = tf.get(token, 0) + 1
        k1, b = self.params.k1, self.params.b
        norm = k1 * (1 - b + b * len(doc_tokens) / self.avgdl) if self.avgdl > 0 else k1
        postings = self._postings(query_tokens)
        total = 0.0
        for token in query_tokens:
            count = tf.get(token, 0)
            if token not in postings or count == 0:
                continue
            df = postings[token][1]
            idf = np.log1p((self.stats_docs - df + 0.5) / (df + 0.5))
            total += term_weight(token) * float(idf * count * (k1 + 1) / (count + norm))
        return total

    def idf(self, term: str) -> float:
        df = self.document_frequencies([term])[term]
        return float(np.log1p((self.stats_docs - df + 0.5) / (df + 0.5)))

    def coverage(self, query_tokens: Sequence[str], doc: int) -> float:
        """Share of the query's idf mass whose terms occur in row ``doc`` (BM25Index.coverage)."""
        return self.coverage_many(query_tokens, [doc])[0]

    def coverage_many(
        self, query_tokens: Sequence[str], docs: Sequence[int], df: Mapping[str, int] | None = None
    ) -> list[float]:
        """``df``: the corpus df of the query's terms (a shard's; default: this build's)."""
        if not docs:
            return []
        unique = list(dict.fromkeys(query_tokens))
        if not unique:
            return [0.0] * len(docs)
        postings = self._postings(unique)
        known = df if df is not None else {t: postings[t][1] for t in postings}
        dfs = np.array([known.get(t, 0) for t in unique], dtype=np.float64)
        idf = np.log1p((self.stats_docs - dfs + 0.5) / (dfs + 0.5)) * [term_weight(t) for t in unique]
        where, local = self.rows.locate(np.asarray(docs, dtype=np.int64))
        covered = np.zeros(len(docs), dtype=np.float64)
        for weight, term in zip(idf.tolist(), unique, strict=True):
            for i, start, end in postings[term][2] if term in postings else []:
                picked = np.flatnonzero(where == i)
                if not len(picked):
                    continue
                found = self._segments[i].indices[start:end]  # ascending local ids
                pos = np.minimum(np.searchsorted(found, local[picked]), len(found) - 1)
                covered[picked] += weight * (found[pos] == local[picked])
        total = float(idf.sum())
        return (covered / total).tolist() if total > 0 else [0.0] * len(docs)

    def top_k(
        self, query_tokens: Sequence[str], k: int, allowed: npt.NDArray[np.bool_] | None = None
    ) -> list[tuple[int, float]]:
        return self.search(query_tokens, k, allowed).hits

    def search(
        self,
        query_tokens: Sequence[str],
        k: int,
        allowed: npt.NDArray[np.bool_] | None = None,
        df: Mapping[str, int] | None = None,
    ) -> BM25Result:
        """Top ``k`` (row, score) with score > 0, ties by row, and the live df of each query term.
        ``df``: the corpus df of the query's terms when this build is a shard (for_corpus)."""
        if k < 0:
            raise ValueError(f"k must be >= 0, got {k}")
        postings = self._postings(query_tokens)
        if df is not None:  # a shard: idf from the corpus's df, postings from this build
            postings = {
                t: (count, int(df.get(t, own)), slices) for t, (count, own, slices) in postings.items()
            }
        hits = top_of_totals(self._totals(postings), k, allowed, self.n_docs) if k else []
        return BM25Result(hits, _live_df(postings, query_tokens))


def _summed(
    rows: Sequence[npt.NDArray[np.integer[Any]]], weights: Sequence[npt.NDArray[np.float32]], slots: int
) -> npt.NDArray[np.float64]:
    """Each of ``slots`` rows' sum of the ``weights`` at ``rows`` (each list's arrays joined in
    order), in float64 like the reference formula: one C loop over all postings of the query.
    Joined straight into the types bincount counts in (intp rows, float64 weights, exact), so it
    converts neither: a third faster than joining int32 / float32 arrays."""
    joined_rows = np.concatenate(rows, dtype=np.intp)
    totals = np.bincount(joined_rows, weights=np.concatenate(weights, dtype=np.float64), minlength=slots)
    return cast("npt.NDArray[np.float64]", totals)  # a string: no subscripted type made per query


def _live_df(postings: Mapping[str, TermSlices], terms: Sequence[str]) -> dict[str, int]:
    return {term: postings[term][1] if term in postings else 0 for term in dict.fromkeys(terms)}


# What the build-time calibration (indexers.ranking.calibrate, indexers.ranking.abstain_fit) scores with.
BM25Scorer = BM25Index | SegmentedBM25
