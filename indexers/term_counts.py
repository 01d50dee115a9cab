"""Term-major postings counted in a few bytes per token: the same TermCounts as
indexers.bm25.count_terms (identical arrays, pinned by tests/indexers/test_term_counts.py) in less
memory: at 1M chunks (90M tokens) 4.0 GiB peak instead of 5.7 GiB with the same 0.9 GiB of token
lists as input, 3.7 GiB fed by a generator (the lists never all exist), but 1.2x the time (36 s vs
29 s; bench/bench_scale.py --profile-bm25, bench/RESULTS.md).

Where count_terms' memory and time go on N documents of T tokens (T ~ 90 N here): the caller's
token lists (a Python str per token, ~60 bytes each, unless the strings are shared), then int64
term ids, doc ids and their combined key (8 bytes x T each) and np.unique's sort of the keys
(a copy, a mask and the index of every run). Here:

- token lists are consumed one at a time (``token_lists`` may be a generator), their terms mapped
  to int32 ids on the way, so only 4 bytes per token stay;
- positions are grouped by term with two stable radix passes over the 16-bit halves of the term
  id (numpy sorts 16-bit keys by radix: linear time), which keeps each term's positions in
  document order, so equal (term, document) pairs are adjacent without sorting 64-bit keys.
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from indexers.bm25 import TermCounts


def count_terms_stream(token_lists: Iterable[Sequence[str]]) -> TermCounts:
    """``indexers.bm25.count_terms`` of ``token_lists`` (document id = position), read once."""
    first_seen: defaultdict[str, int] = defaultdict()
    first_seen.default_factory = first_seen.__len__
    ids = array("i")
    lengths = array("i")
    for tokens in token_lists:
        before = len(ids)
        ids.extend(map(first_seen.__getitem__, tokens))
        lengths.append(len(ids) - before)
    if len(lengths) >= 2**31:
        raise ValueError(f"BM25Index holds at most 2**31 - 1 documents, got {len(lengths)}")
    term_ids = np.frombuffer(ids, dtype=np.int32) if len(ids) else np.zeros(0, dtype=np.int32)
    doc_lengths = np.frombuffer(lengths, dtype=np.int32).copy() if len(lengths) else np.zeros(0, np.int32)
    terms = list(first_seen)
    order = _group_by_term(term_ids)
    sorted_terms = term_ids[order]
    docs = np.repeat(np.arange(len(doc_lengths), dtype=np.int32), doc_lengths)[order]
    del order
    # A posting starts where the term or the document changes (each term's positions ascend).
    starts = np.ones(len(docs), dtype=bool)
    if len(docs) > 1:
        np.not_equal(sorted_terms[1:], sorted_terms[:-1], out=starts[1:])
        starts[1:] |= docs[1:] != docs[:-1]
    first = np.flatnonzero(starts)
    tf = np.diff(np.append(first, len(docs))).astype(np.int32)
    indptr = np.zeros(len(terms) + 1, dtype=np.int64)
    np.cumsum(np.bincount(sorted_terms[first], minlength=len(terms)), out=indptr[1:])
    return TermCounts(terms, indptr, docs[first], tf, doc_lengths)


def _group_by_term(term_ids: npt.NDArray[np.int32]) -> npt.NDArray[np.intp]:
    """Positions ordered by term id, each term's in their original order (a stable sort), by two
    16-bit radix passes: low half, then high half."""
    low = (term_ids & 0xFFFF).astype(np.uint16)
    order = np.argsort(low, kind="stable")
    del low
    if len(term_ids) and int(term_ids.max()) > 0xFFFF:
        high = (term_ids[order] >> 16).astype(np.uint16)
        order = order[np.argsort(high, kind="stable")]
    return order
