"""BM25Index: one BM25 index held in memory or memory-mapped, with every (term, document) weight
computed at build time (the formula: indexers/lexical/bm25_weights.py), so a query is a few array
slices added together and a cut (indexers/lexical/top_k.py).

Storage is term-major CSC: the postings of vocabulary id ``t`` are ``indices[indptr[t]:indptr[t+1]]``
(document ids, int32, ascending) with weights ``data[...]`` (float32). Files are plain JSON and
``.npy`` (never pickled), loadable with ``mmap`` so a reader does not copy the index into memory.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from indexers.build.files import BM25_PARAMS_FILE as PARAMS_FILE
from indexers.build.files import BM25_VOCAB_FILE as VOCAB_FILE
from indexers.lexical.bm25_files import BM25FormatError as BM25FormatError
from indexers.lexical.bm25_files import check_shapes, read_folder
from indexers.lexical.bm25_weights import BM25Params as BM25Params
from indexers.lexical.bm25_weights import posting_weights as posting_weights
from indexers.lexical.term_counts import count_terms as count_terms
from indexers.lexical.term_counts import count_terms_stream
from indexers.lexical.tokenize import term_weight
from indexers.lexical.top_k import top_hits as top_hits
from indexers.lexical.top_k import top_of_totals as top_of_totals

FORMAT = "docmill-bm25"
FORMAT_VERSION = 1
ARRAY_FILES = ("data", "indices", "indptr", "doc_lengths")
_ARRAY_KINDS = {"data": "f", "indices": "i", "indptr": "i", "doc_lengths": "i"}
# A query term's postings: (its weight in the query, tokenize.term_weight summed over its
# occurrences; postings start; end).
TermPostings = tuple[float, int, int]


@dataclass(frozen=True)
class BM25Result:
    """Top hits, (doc id, score) best first, and the df of each distinct query term."""

    hits: list[tuple[int, float]]
    df: dict[str, int]


class BM25Index:
    """Immutable scorer over N documents; document ids are positions 0..N-1 in the build input."""

    def __init__(
        self,
        *,
        vocab: Sequence[str],
        params: BM25Params,
        data: npt.NDArray[np.float32],
        indices: npt.NDArray[np.int32],
        indptr: npt.NDArray[np.int64],
        doc_lengths: npt.NDArray[np.int32],
        tokenizer: Mapping[str, Any] | None = None,
    ) -> None:
        self.params = params
        self.terms: list[str] = list(vocab)
        self.term_ids: dict[str, int] = {term: i for i, term in enumerate(self.terms)}
        self.data = data
        self.indices = indices
        self.indptr = indptr
        # Scalar reads of a memory-mapped array go through np.memmap's Python-level __getitem__;
        # a plain ndarray view of the same pages skips it (a query reads two bounds per term).
        self._indptr: npt.NDArray[np.int64] = np.asarray(indptr)
        self.doc_lengths = doc_lengths
        self.tokenizer: dict[str, Any] = dict(tokenizer or {})
        self.n_docs = int(doc_lengths.shape[0])
        self.avgdl = float(doc_lengths.mean()) if self.n_docs else 0.0

    @classmethod
    def build(cls, token_lists: Iterable[Sequence[str]], params: BM25Params | None = None) -> BM25Index:
        """The index of ``token_lists`` (document id = position), read once: a generator that makes
        each document's tokens when asked keeps only one document's strings alive."""
        params = params or BM25Params()
        counts = count_terms_stream(token_lists)
        return cls(
            vocab=counts.terms,
            params=params,
            data=posting_weights(counts, params),
            indices=counts.indices,
            indptr=counts.indptr,
            doc_lengths=counts.doc_lengths,
        )

    def _postings(self, query_tokens: Sequence[str]) -> dict[str, TermPostings]:
        """term -> (its weight in the query: tokenize.term_weight per occurrence, postings start,
        end) for the query's known terms."""
        found: dict[str, TermPostings] = {}
        indptr = self._indptr
        for token in query_tokens:
            if token in found:
                count, start, end = found[token]
                found[token] = (count + term_weight(token), start, end)
                continue
            term_id = self.term_ids.get(token)
            if term_id is not None:
                start, end = indptr[term_id : term_id + 2].tolist()
                found[token] = (term_weight(token), start, end)
        return found

    def document_frequencies(self, terms: Sequence[str]) -> dict[str, int]:
        """df of each distinct term (0 for a term the index has never seen)."""
        return _df(self._postings(terms), terms)

    def scores(self, query_tokens: Sequence[str]) -> npt.NDArray[np.float32]:
        """BM25 score of every document (length N); 0 where no query term occurs."""
        return self._scores(self._postings(query_tokens))

    def _scores(self, postings: Mapping[str, TermPostings]) -> npt.NDArray[np.float32]:
        if not postings:
            return np.zeros(self.n_docs, dtype=np.float32)
        docs, weights = [], []
        for count, start, end in postings.values():
            docs.append(self.indices[start:end])
            weights.append(self.data[start:end] * count if count != 1 else self.data[start:end])
        # One C loop over all postings of the query (a term's postings never repeat a document,
        # different terms' postings add up), summed in float64 like the reference formula.
        totals = np.bincount(np.concatenate(docs), weights=np.concatenate(weights), minlength=self.n_docs)
        return totals.astype(np.float32)

    def score_document(self, query_tokens: Sequence[str], doc_tokens: Sequence[str]) -> float:
        """BM25 score of a document that is not in the index, under the index's statistics (N,
        avgdl, df). Used to score a held-out variant of an indexed chunk (fusion calibration)."""
        tf: dict[str, int] = {}
        for token in doc_tokens:
            tf[token] = tf.get(token, 0) + 1
        total = 0.0
        k1, b = self.params.k1, self.params.b
        norm = k1 * (1 - b + b * len(doc_tokens) / self.avgdl) if self.avgdl > 0 else k1
        for token in query_tokens:
            term_id, count = self.term_ids.get(token), tf.get(token, 0)
            if term_id is None or count == 0:
                continue
            df = int(self.indptr[term_id + 1] - self.indptr[term_id])
            idf = np.log1p((self.n_docs - df + 0.5) / (df + 0.5))
            total += term_weight(token) * float(idf * count * (k1 + 1) / (count + norm))
        return total

    def idf(self, term: str) -> float:
        """Lucene idf; a term the index has never seen gets the idf of df = 0 (the maximum)."""
        term_id = self.term_ids.get(term)
        df = 0 if term_id is None else int(self.indptr[term_id + 1] - self.indptr[term_id])
        return float(np.log1p((self.n_docs - df + 0.5) / (df + 0.5)))

    def coverage(self, query_tokens: Sequence[str], doc: int) -> float:
        """Share of the query's idf mass whose terms occur in document ``doc`` (0..1): how much
        of what is specific in the query the document contains. Unseen query terms count as
        uncovered, with the maximum idf."""
        return self.coverage_many(query_tokens, [doc])[0]

    def coverage_many(self, query_tokens: Sequence[str], docs: Sequence[int]) -> list[float]:
        """``coverage`` of several documents at once (one postings search per query term)."""
        if not docs:
            return []
        unique = list(dict.fromkeys(query_tokens))
        if not unique:
            return [0.0] * len(docs)
        term_ids = [self.term_ids.get(term) for term in unique]
        df = np.array(
            [0 if t is None else int(self.indptr[t + 1] - self.indptr[t]) for t in term_ids], dtype=np.float64
        )
        idf = np.log1p((self.n_docs - df + 0.5) / (df + 0.5)) * [term_weight(t) for t in unique]
        targets = np.asarray(docs, dtype=np.int64)
        covered = np.zeros(len(targets), dtype=np.float64)
        for weight, term_id in zip(idf.tolist(), term_ids, strict=True):
            if term_id is None:
                continue
            postings = self.indices[int(self.indptr[term_id]) : int(self.indptr[term_id + 1])]  # sorted
            pos = np.minimum(np.searchsorted(postings, targets), len(postings) - 1)
            covered += weight * (postings[pos] == targets)
        total = float(idf.sum())
        return (covered / total).tolist() if total > 0 else [0.0] * len(docs)

    def top_k(
        self, query_tokens: Sequence[str], k: int, allowed: npt.NDArray[np.bool_] | None = None
    ) -> list[tuple[int, float]]:
        """Up to k (doc id, score) pairs, best first, ties by doc id; only docs with score > 0.

        ``allowed`` (bool, length N) filters before the cut, so k allowed matches give k hits.
        """
        return self.search(query_tokens, k, allowed).hits

    def search(
        self, query_tokens: Sequence[str], k: int, allowed: npt.NDArray[np.bool_] | None = None
    ) -> BM25Result:
        """``top_k`` with the document frequencies of the query's terms, read on the way (the
        abstain evidence needs them: indexers/abstain.py)."""
        if k < 0:
            raise ValueError(f"k must be >= 0, got {k}")
        postings = self._postings(query_tokens)
        hits = self._top(self._scores(postings), k, allowed) if k else []
        return BM25Result(hits, _df(postings, query_tokens))

    def _top(
        self, scores: npt.NDArray[np.float32], k: int, allowed: npt.NDArray[np.bool_] | None
    ) -> list[tuple[int, float]]:
        return top_hits(scores, k, allowed, self.n_docs)

    def save(self, folder: Path | str, tokenizer: Mapping[str, Any] | None = None) -> list[Path]:
        """Write the index files into ``folder`` (created if needed); returns the paths written.

        params.json is written last, so a folder without it is an interrupted save.
        """
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        written = [folder / VOCAB_FILE]
        written[0].write_text(json.dumps(self.terms, ensure_ascii=False), encoding="utf-8")
        for name in ARRAY_FILES:
            path = folder / f"{name}.npy"
            np.save(path, np.ascontiguousarray(getattr(self, name)), allow_pickle=False)
            written.append(path)
        params = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "k1": self.params.k1,
            "b": self.params.b,
            "n_docs": self.n_docs,
            "avgdl": self.avgdl,
            "n_terms": len(self.terms),
            "n_postings": int(self.data.shape[0]),
            "tokenizer": dict(tokenizer if tokenizer is not None else self.tokenizer),
        }
        written.append(folder / PARAMS_FILE)
        written[-1].write_text(json.dumps(params, indent=2, ensure_ascii=False), encoding="utf-8")
        return written

    @classmethod
    def load(cls, folder: Path | str, mmap: bool = True) -> BM25Index:
        """Read a folder written by ``save``; raises BM25FormatError on anything missing or inconsistent.

        The tokenizer dict is returned as stored (``.tokenizer``); checking it is the caller's job.
        """
        folder = Path(folder)
        params, vocab, arrays = read_folder(folder, FORMAT, FORMAT_VERSION, "BM25", _ARRAY_KINDS, mmap)
        check_shapes(folder, params, vocab, arrays)
        try:
            bm25_params = BM25Params(k1=params["k1"], b=params["b"])
        except (KeyError, TypeError, ValueError) as exc:
            raise BM25FormatError(f"{folder / PARAMS_FILE}: bad k1/b: {exc}") from exc
        return cls(vocab=vocab, params=bm25_params, tokenizer=params.get("tokenizer"), **arrays)


def _df(postings: Mapping[str, TermPostings], terms: Sequence[str]) -> dict[str, int]:
    return {
        term: postings[term][2] - postings[term][1] if term in postings else 0
        for term in dict.fromkeys(terms)
    }
