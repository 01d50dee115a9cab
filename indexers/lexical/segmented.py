"""BM25 over segments: each segment stores raw term frequencies and document lengths (not weights),
and the weights are computed per query with the statistics of the whole build, so a build that
adds one small segment and masks a few deleted documents scores exactly like a full rebuild.

    N       = live documents of all segments           (deleted ones are masked, not counted)
    avgdl   = live tokens / N
    df(t)   = sum over segments of df_s(t) - deleted documents of s containing t
    w(t, d) = idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * |d| / avgdl))   (indexers/bm25.py)

Document ids are *rows*: live documents numbered 0..N-1 in segment order (a segment's deleted
documents take no row), the same rows as the build's chunks and vectors (indexers/segments.py).

A segment's files (``bm25/``: vocab.json, params.json, tf/indices/indptr/doc_lengths .npy) never
change once written, so a later build hard-links them. What a build masks in a segment is that
build's own pair of files beside them (``Deletions``: the masked local rows, and the df and length
those documents took from the statistics: re-tokenised once when they are masked).
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from indexers.build.files import (
    BM25_PARAMS_FILE as PARAMS_FILE,
)
from indexers.build.files import (
    BM25_VOCAB_FILE as VOCAB_FILE,
)
from indexers.build.files import (
    BM25_WEIGHTS_FILE as WEIGHTS_FILE,
)
from indexers.build.files import (
    DELETED_ROWS_FILE,
    DELETED_STATS_FILE,
)
from indexers.build.rowmap import RowMap
from indexers.lexical.bm25 import (
    BM25FormatError,
    BM25Index,
    BM25Params,
    BM25Result,
    _load_array,
    _read_json,
    posting_weights,
    read_folder,
    top_hits,
)
from indexers.lexical.term_counts import TermCounts

FORMAT = "docmill-bm25-segment"
FORMAT_VERSION = 1
ARRAY_FILES = ("tf", "indices", "indptr", "doc_lengths")
# Term weights computed at query time are kept for this many postings (16 MiB of float32).
WEIGHT_CACHE_POSTINGS = 1 << 22
_ARRAY_KINDS = {"tf": "i", "indices": "i", "indptr": "i", "doc_lengths": "i"}


@dataclass(frozen=True)
class SegmentPostings:
    """One segment's inverted index: term-major postings with raw tf, local document ids. A
    segment written as a whole build also stores its precomputed ``weights`` (float32, aligned
    with the postings) for ``weights_for`` (k1, b): valid while it is its build's only segment
    and nothing in it is masked, which is what a full build reads."""

    counts: TermCounts
    weights: npt.NDArray[np.float32] | None = None
    weights_for: tuple[float, float] | None = None

    def with_weights(self, params: BM25Params) -> SegmentPostings:
        """These postings plus their weights under their own statistics (BM25Index's values)."""
        counts = self.counts
        weights = posting_weights(counts, params)
        return SegmentPostings(counts, weights, (params.k1, params.b))

    def save(self, folder: Path) -> list[Path]:
        """Write the segment's BM25 files into ``folder``; params.json last (marks it complete)."""
        folder.mkdir(parents=True, exist_ok=True)
        written = [folder / VOCAB_FILE]
        written[0].write_text(json.dumps(self.counts.terms, ensure_ascii=False), encoding="utf-8")
        for name in ARRAY_FILES:
            written.append(folder / f"{name}.npy")
            np.save(written[-1], np.ascontiguousarray(getattr(self.counts, name)), allow_pickle=False)
        params: dict[str, Any] = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "n_docs": self.counts.n_docs,
            "n_terms": len(self.counts.terms),
            "n_postings": int(self.counts.indices.shape[0]),
        }
        if self.weights is not None and self.weights_for is not None:
            written.append(folder / WEIGHTS_FILE)
            np.save(written[-1], np.ascontiguousarray(self.weights, dtype=np.float32), allow_pickle=False)
            params["weights_for"] = {"k1": self.weights_for[0], "b": self.weights_for[1]}
        written.append(folder / PARAMS_FILE)
        written[-1].write_text(json.dumps(params, indent=2), encoding="utf-8")
        return written

    @classmethod
    def load(cls, folder: Path, mmap: bool = True) -> SegmentPostings:
        """Read ``save``'s files; BM25FormatError naming the file on anything missing or inconsistent."""
        params, vocab, arrays = read_folder(
            folder, FORMAT, FORMAT_VERSION, "BM25 segment", _ARRAY_KINDS, mmap
        )
        problems = []
        if len(arrays["indptr"]) != len(vocab) + 1:
            problems.append(f"indptr has {len(arrays['indptr'])} entries for {len(vocab)} terms")
        elif int(arrays["indptr"][-1]) != len(arrays["indices"]):
            problems.append(
                f"indptr ends at {int(arrays['indptr'][-1])}, indices has {len(arrays['indices'])}"
            )
        if len(arrays["tf"]) != len(arrays["indices"]):
            problems.append(f"tf has {len(arrays['tf'])} entries, indices {len(arrays['indices'])}")
        if len(arrays["doc_lengths"]) != params.get("n_docs"):
            problems.append(
                f"doc_lengths has {len(arrays['doc_lengths'])} entries, n_docs={params.get('n_docs')}"
            )
        if problems:
            raise BM25FormatError(f"inconsistent BM25 segment in {folder}: {'; '.join(problems)}")
        counts = TermCounts(vocab, arrays["indptr"], arrays["indices"], arrays["tf"], arrays["doc_lengths"])
        weights_for = params.get("weights_for")
        if not isinstance(weights_for, dict):
            return cls(counts)
        weights = _load_array(folder / WEIGHTS_FILE, "f", mmap)
        if len(weights) != len(arrays["indices"]):
            raise BM25FormatError(
                f"{folder / WEIGHTS_FILE} has {len(weights)} entries, indices {len(arrays['indices'])}"
            )
        return cls(counts, weights, (float(weights_for["k1"]), float(weights_for["b"])))


@dataclass(frozen=True)
class Deletions:
    """The masked documents of one segment in one build, and what they took from the statistics."""

    rows: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    df: Mapping[str, int] = field(default_factory=dict)
    length: int = 0

    def __len__(self) -> int:
        return int(self.rows.shape[0])

    def adding(self, rows: Sequence[int], token_lists: Sequence[Sequence[str]]) -> Deletions:
        """These deletions plus local ``rows`` (not yet masked) whose tokens are ``token_lists``."""
        if not len(rows):
            return self
        df = dict(self.df)
        for tokens in token_lists:
            for term in set(tokens):
                df[term] = df.get(term, 0) + 1
        merged = np.union1d(self.rows, np.asarray(rows, dtype=np.int64))
        if len(merged) != len(self) + len(rows):
            raise ValueError("a row is masked twice")
        return Deletions(merged, df, self.length + sum(len(t) for t in token_lists))

    def save(self, folder: Path) -> list[Path]:
        np.save(folder / DELETED_ROWS_FILE, self.rows.astype(np.int64), allow_pickle=False)
        stats = {"rows": len(self), "length": self.length, "df": dict(sorted(self.df.items()))}
        (folder / DELETED_STATS_FILE).write_text(json.dumps(stats, ensure_ascii=False), encoding="utf-8")
        return [folder / DELETED_ROWS_FILE, folder / DELETED_STATS_FILE]

    @classmethod
    def load(cls, folder: Path) -> Deletions:
        """A segment's deletions in this build (none when the files are absent)."""
        if not (folder / DELETED_STATS_FILE).is_file():
            return cls()
        stats = _read_json(folder / DELETED_STATS_FILE)
        rows = _load_array(folder / DELETED_ROWS_FILE, "i", mmap=False).astype(np.int64)
        if not isinstance(stats, dict) or stats.get("rows") != len(rows):
            raise BM25FormatError(f"{folder / DELETED_STATS_FILE} does not match {DELETED_ROWS_FILE}")
        return cls(rows, dict(stats.get("df", {})), int(stats.get("length", 0)))


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
        self.term_ids = {term: i for i, term in enumerate(counts.terms)}
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

    def _postings(
        self, query_tokens: Sequence[str]
    ) -> dict[str, tuple[int, int, list[tuple[int, int, int]]]]:
        """term -> (occurrences in the query, live df, [(segment, start, end)]) for known terms."""
        found: dict[str, tuple[int, int, list[tuple[int, int, int]]]] = {}
        for token in query_tokens:
            if token in found:
                count, df, slices = found[token]
                found[token] = (count + 1, df, slices)
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
                found[token] = (1, df, slices)
        return found

    def document_frequencies(self, terms: Sequence[str]) -> dict[str, int]:
        return _live_df(self._postings(terms), terms)

    def scores(self, query_tokens: Sequence[str]) -> npt.NDArray[np.float32]:
        return self._scores(self._postings(query_tokens))

    def _scores(
        self, postings: Mapping[str, tuple[int, int, list[tuple[int, int, int]]]]
    ) -> npt.NDArray[np.float32]:
        if not postings:
            return np.zeros(self.n_docs, dtype=np.float32)
        dfs = np.fromiter((df for _, df, _ in postings.values()), dtype=np.int64, count=len(postings))
        idfs = np.log1p((self.stats_docs - dfs + 0.5) / (dfs + 0.5)).tolist()
        docs: list[list[npt.NDArray[np.int32]]] = [[] for _ in self._segments]
        term_weights: list[list[npt.NDArray[np.float32]]] = [[] for _ in self._segments]
        for (count, _, slices), idf in zip(postings.values(), idfs, strict=True):
            for i, start, end in slices:
                docs[i].append(self._segments[i].indices[start:end])
                w = self._term_weights(i, start, end, idf)
                term_weights[i].append(w * np.float32(count) if count > 1 else w)
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
        all_rows = np.concatenate(rows) if len(rows) > 1 else rows[0]
        all_weights = np.concatenate(weights) if len(weights) > 1 else weights[0]
        # One C loop over all postings of the query, summed in float64 like the reference formula.
        totals = np.bincount(all_rows, weights=all_weights, minlength=self.n_docs + 1)
        return totals[: self.n_docs].astype(np.float32)

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
            total += float(idf * count * (k1 + 1) / (count + norm))
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
        idf = np.log1p((self.stats_docs - dfs + 0.5) / (dfs + 0.5))
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
        hits = top_hits(self._scores(postings), k, allowed, self.n_docs) if k else []
        return BM25Result(hits, _live_df(postings, query_tokens))


def _live_df(postings: Mapping[str, tuple[int, int, Any]], terms: Sequence[str]) -> dict[str, int]:
    return {term: postings[term][1] if term in postings else 0 for term in dict.fromkeys(terms)}


def merge_postings(
    parts: Sequence[tuple[SegmentPostings, npt.NDArray[np.int64] | None]],
    gather: npt.NDArray[np.int64] | None = None,
) -> TermCounts:
    """One segment's postings from several, each keeping only the local ids in its ``keep`` array
    (None keeps all), numbered in the order of the kept documents concatenated, or, with
    ``gather`` (new document i is concatenated document gather[i]), in that order. The stored tf
    are reused, nothing is re-tokenised; terms whose documents are all dropped leave the vocabulary."""
    first_seen: dict[str, int] = {}
    term_parts, doc_parts, tf_parts, lengths = [], [], [], []
    base = 0
    for postings, keep in parts:
        counts = postings.counts
        n_local = counts.n_docs
        renumber = np.full(n_local, -1, dtype=np.int64)
        kept = np.arange(n_local) if keep is None else np.asarray(keep, dtype=np.int64)
        renumber[kept] = np.arange(base, base + len(kept))
        global_terms = np.fromiter(
            (first_seen.setdefault(t, len(first_seen)) for t in counts.terms),
            dtype=np.int64,
            count=len(counts.terms),
        )
        indptr = np.asarray(counts.indptr, dtype=np.int64)
        posting_terms = np.repeat(global_terms, indptr[1:] - indptr[:-1])
        docs = renumber[np.asarray(counts.indices)]
        live = docs >= 0
        term_parts.append(posting_terms[live])
        doc_parts.append(docs[live])
        tf_parts.append(np.asarray(counts.tf)[live])
        lengths.append(np.asarray(counts.doc_lengths)[kept])
        base += len(kept)
    n_docs = max(base, 1)
    all_docs = np.concatenate(doc_parts)
    all_lengths = np.concatenate(lengths) if lengths else np.zeros(0, dtype=np.int32)
    if gather is not None:
        if not np.array_equal(np.sort(gather), np.arange(base)):
            raise ValueError(f"gather must order all {base} kept documents")
        position = np.empty(base, dtype=np.int64)
        position[gather] = np.arange(base)
        all_docs, all_lengths = position[all_docs], all_lengths[gather]
    keys = np.concatenate(term_parts) * n_docs + all_docs
    order = np.argsort(keys, kind="stable")
    all_terms = np.concatenate(term_parts)[order]
    used = np.unique(all_terms)  # terms still in a live document, renumbered densely
    dense = np.full(len(first_seen), -1, dtype=np.int64)
    dense[used] = np.arange(len(used))
    indptr = np.zeros(len(used) + 1, dtype=np.int64)
    np.cumsum(np.bincount(dense[all_terms], minlength=len(used)), out=indptr[1:])
    terms = list(first_seen)
    return TermCounts(
        [terms[t] for t in used.tolist()],
        indptr,
        all_docs[order].astype(np.int32),
        np.concatenate(tf_parts)[order].astype(np.int32),
        all_lengths.astype(np.int32),
    )


def check_deleted_tokens(
    postings: SegmentPostings, rows: Sequence[int], token_lists: Sequence[Sequence[str]], where: Path
) -> None:
    """The re-tokenised documents must be the ones indexed (same lengths), or the statistics drift."""
    lengths = np.asarray(postings.counts.doc_lengths)[np.asarray(rows, dtype=np.int64)].tolist()
    got = [len(t) for t in token_lists]
    if lengths != got:
        raise BM25FormatError(f"{where}: masked documents re-tokenise to other lengths ({got} vs {lengths})")


# What the build-time calibration (indexers.ranking.calibrate, indexers.ranking.abstain) scores with.
BM25Scorer = BM25Index | SegmentedBM25
