"""Term-major postings counted in a few bytes per posting: the same TermCounts as the plain
reference count_terms at the end of this module (identical arrays, pinned by
tests/indexers/test_term_counts.py), which BM25Index.build and a segment's postings
(indexers/build/segments.py) are counted with.

Where count_terms' memory goes on N documents of T tokens (T ~ 90 N in bench/scale_corpus.py): the
caller's token lists (a Python str per token unless the strings are shared), then int64 term ids,
doc ids and their combined key (8 bytes x T each) and np.unique's sort of all T keys (a copy, a
mask and the index of every run). Here:

- token lists are consumed one at a time (``token_lists`` may be a generator), their terms mapped
  to int32 ids on the way, and every BATCH_TOKENS tokens the batch's (term, document) pairs are
  counted (a sort of that batch's keys only), so what stays is one int32 term, document and tf per
  posting;
- the postings are then placed term-major by a counting sort: each term's slice is known from the
  df summed over batches, and batches come in document order, so filling every term's slice batch
  after batch keeps its documents ascending. No sort over all postings, no int64 per posting.
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np
import numpy.typing as npt

# Tokens per counted batch: its int64 keys and their sort stay in tens of MiB.
BATCH_TOKENS = 1 << 22


@dataclass(frozen=True)
class TermCounts:
    """Term-major postings with raw term frequencies: what BM25 weights are computed from.
    ``indices`` (int32 doc ids, ascending per term) and ``tf`` (int32) are aligned; the postings of
    term id ``t`` (``terms[t]``) are ``indptr[t]:indptr[t+1]``."""

    terms: list[str]
    indptr: npt.NDArray[np.int64]
    indices: npt.NDArray[np.int32]
    tf: npt.NDArray[np.int32]
    doc_lengths: npt.NDArray[np.int32]

    @property
    def n_docs(self) -> int:
        return int(self.doc_lengths.shape[0])


@dataclass(frozen=True)
class _Batch:
    """One batch's postings, ordered by (term, document): int32 term ids, global doc ids, tf."""

    terms: npt.NDArray[np.int32]
    docs: npt.NDArray[np.int32]
    tf: npt.NDArray[np.int32]


def count_terms_stream(token_lists: Iterable[Sequence[str]], batch_tokens: int = BATCH_TOKENS) -> TermCounts:
    """``count_terms`` of ``token_lists`` (document id = position), read once."""
    first_seen: defaultdict[str, int] = defaultdict()
    first_seen.default_factory = first_seen.__len__
    ids = array("i")
    lengths = array("i")
    batches: list[_Batch] = []
    batch_start = 0  # first document of the current batch
    for tokens in token_lists:
        before = len(ids)
        ids.extend(map(first_seen.__getitem__, tokens))
        lengths.append(len(ids) - before)
        if len(ids) >= batch_tokens:
            batches.append(_count_batch(ids, lengths[batch_start:], batch_start))
            ids, batch_start = array("i"), len(lengths)
    if len(lengths) >= 2**31:
        raise ValueError(f"BM25Index holds at most 2**31 - 1 documents, got {len(lengths)}")
    if len(ids):
        batches.append(_count_batch(ids, lengths[batch_start:], batch_start))
    del ids
    doc_lengths = np.array(lengths, dtype=np.int32) if len(lengths) else np.zeros(0, dtype=np.int32)
    terms = list(first_seen)
    indptr, indices, tf = _place_term_major(batches, len(terms))
    return TermCounts(terms, indptr, indices, tf, doc_lengths)


def _count_batch(ids: array[int], lengths: array[int], first_doc: int) -> _Batch:
    """The (term, document) pairs of one batch with their counts, ordered by term then document."""
    n_docs = len(lengths)
    term_ids = np.frombuffer(ids, dtype=np.int32)
    local = np.repeat(np.arange(n_docs, dtype=np.int64), np.frombuffer(lengths, dtype=np.int32))
    keys = term_ids.astype(np.int64) * n_docs + local
    del local
    keys.sort()
    starts = np.ones(len(keys), dtype=bool)
    np.not_equal(keys[1:], keys[:-1], out=starts[1:])
    first = np.flatnonzero(starts)
    tf = np.diff(np.append(first, len(keys))).astype(np.int32)
    terms, docs = np.divmod(keys[first], n_docs)
    return _Batch(terms.astype(np.int32), (docs + first_doc).astype(np.int32), tf)


def _place_term_major(
    batches: list[_Batch], n_terms: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """indptr, doc ids and tf of all batches' postings, term-major (a counting sort by term id;
    each batch is freed once placed)."""
    df = np.zeros(n_terms, dtype=np.int64)
    for batch in batches:
        df += np.bincount(batch.terms, minlength=n_terms)
    indptr = np.zeros(n_terms + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])
    del df
    total = int(indptr[-1])
    indices = np.empty(total, dtype=np.int32)
    tf = np.empty(total, dtype=np.int32)
    fill = indptr[:-1].copy()  # next free slot of each term
    batches.reverse()  # popped from the end: first batch first
    while batches:
        batch = batches.pop()
        change = np.ones(len(batch.terms), dtype=bool)
        np.not_equal(batch.terms[1:], batch.terms[:-1], out=change[1:])
        group = np.flatnonzero(change)  # first posting of each term in the batch
        sizes = np.diff(np.append(group, len(batch.terms)))
        present = batch.terms[group]
        # Posting i of the batch goes to fill[its term] + its rank among that term's postings here.
        where = np.arange(len(batch.terms), dtype=np.int64) + np.repeat(fill[present] - group, sizes)
        indices[where] = batch.docs
        tf[where] = batch.tf
        fill[present] += sizes
        del batch, where
    return indptr, indices, tf


def count_terms(token_lists: Sequence[Sequence[str]]) -> TermCounts:
    """Postings and term frequencies of ``token_lists`` (document id = position in the list): the
    plain reference (int64 keys, one np.unique) that count_terms_stream, which the builds use, must
    match array for array (tests/indexers/test_term_counts.py)."""
    n_docs = len(token_lists)
    if n_docs >= 2**31:
        raise ValueError(f"BM25Index holds at most 2**31 - 1 documents, got {n_docs}")
    lengths = np.fromiter((len(tokens) for tokens in token_lists), dtype=np.int64, count=n_docs)
    # Ids in first-seen order via a dict whose missing keys get the next id: one C-level lookup
    # per token, no per-document Counter. vocab.json keeps that order (not sorted: sorting costs
    # a quarter of the build and nothing reads the vocabulary by binary search).
    first_seen: defaultdict[str, int] = defaultdict()
    first_seen.default_factory = first_seen.__len__
    term_ids = np.fromiter(
        map(first_seen.__getitem__, chain.from_iterable(token_lists)),
        dtype=np.int64,
        count=int(lengths.sum()),
    )
    terms = list(first_seen)
    doc_ids = np.repeat(np.arange(n_docs, dtype=np.int64), lengths)
    # One sort of (term, doc) keys yields term-major postings with their term frequencies.
    keys, tf = np.unique(term_ids * max(n_docs, 1) + doc_ids, return_counts=True)
    posting_terms, posting_docs = np.divmod(keys, max(n_docs, 1))
    indptr = np.zeros(len(terms) + 1, dtype=np.int64)
    np.cumsum(np.bincount(posting_terms, minlength=len(terms)), out=indptr[1:])
    return TermCounts(
        terms, indptr, posting_docs.astype(np.int32), tf.astype(np.int32), lengths.astype(np.int32)
    )
