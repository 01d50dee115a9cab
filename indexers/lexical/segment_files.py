"""A BM25 segment's files: ``SegmentPostings`` (``bm25/``: vocab.json, params.json, raw tf postings,
document lengths; weights.npy only in a segment written as a whole build), ``Deletions`` (a
build's masked rows of a segment and the df and lengths they take out of the statistics), and
``merge_postings`` (several segments' postings as one, from the stored tf). Scored by
indexers.lexical.segmented.SegmentedBM25."""

from __future__ import annotations

import json
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
from indexers.lexical.bm25_files import BM25FormatError, load_array, read_folder, read_json
from indexers.lexical.bm25_weights import BM25Params, posting_weights
from indexers.lexical.term_counts import TermCounts

FORMAT = "docmill-bm25-segment"
FORMAT_VERSION = 1
ARRAY_FILES = ("tf", "indices", "indptr", "doc_lengths")
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
        written[0].write_text(json.dumps(list(self.counts.terms), ensure_ascii=False), encoding="utf-8")
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
            folder, FORMAT, FORMAT_VERSION, "BM25 segment", _ARRAY_KINDS, mmap, lazy_vocabulary=True
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
        counts = TermCounts(vocab, arrays["indptr"], arrays["indices"], arrays["tf"], arrays["doc_lengths"])  # type: ignore[arg-type]
        weights_for = params.get("weights_for")
        if not isinstance(weights_for, dict):
            return cls(counts)
        weights = load_array(folder / WEIGHTS_FILE, "f", mmap)
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
        stats = read_json(folder / DELETED_STATS_FILE)
        rows = load_array(folder / DELETED_ROWS_FILE, "i", mmap=False).astype(np.int64)
        if not isinstance(stats, dict) or stats.get("rows") != len(rows):
            raise BM25FormatError(f"{folder / DELETED_STATS_FILE} does not match {DELETED_ROWS_FILE}")
        return cls(rows, dict(stats.get("df", {})), int(stats.get("length", 0)))


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
