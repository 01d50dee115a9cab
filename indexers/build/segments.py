"""A build is a list of segments plus, per segment, the lines it masks (Lucene-style).

A segment (``segments/<name>/``, files in indexers.build.files) holds the chunks, vectors and BM25
term frequencies of some source files and is never rewritten: a later build hard-links its files
(copies them where linking fails) and only writes what is new, one small segment with the added
and changed files' chunks, and the deletion files of segments that lose lines. A build's rows are
its segments' live lines in segment order, so BM25 doc id == FAISS id == chunk row holds per
build. ``plan_merge`` says when segments are rewritten compactly (too many, or too much masked),
and ``merge_segments`` does it from the stored lines, vectors and tf: no parse, no embedding.

The segment as data (entry, name, docs.json, row order) is indexers/build/segment_info.py, its
chunk lines segment_lines.py; this module writes, carries, masks, merges and loads segments (and
re-exports the names that moved, for older imports).
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Iterable, Mapping, Sequence, Sized
from pathlib import Path
from typing import Any

import numpy as np

from chunkers.model import Chunk
from indexers.build.files import (
    BM25_DIR,
    BM25_PARAMS_FILE,
    CHUNKS_FILE,
    DELETION_FILES,
    SEGMENTS_DIR,
    VECTORS_FILE,
)
from indexers.build.passage_vectors import load_keys, load_vectors, save_passage_vectors
from indexers.build.places import column_or_chunks, write_places
from indexers.build.segment_info import DocSpan as DocSpan
from indexers.build.segment_info import SegmentError as SegmentError
from indexers.build.segment_info import SegmentInfo as SegmentInfo
from indexers.build.segment_info import generation as generation
from indexers.build.segment_info import read_spans as read_spans
from indexers.build.segment_info import row_map as row_map
from indexers.build.segment_info import segment_folder as segment_folder
from indexers.build.segment_info import segment_infos as segment_infos
from indexers.build.segment_info import segment_name as segment_name
from indexers.build.segment_info import span_arrays as span_arrays
from indexers.build.segment_info import spans_of as spans_of
from indexers.build.segment_info import write_docs
from indexers.build.segment_lines import SegmentLines as SegmentLines
from indexers.build.segment_lines import write_chunks as write_chunks
from indexers.build.segment_lines import write_lines as write_lines
from indexers.dense import ann
from indexers.dense.faiss_store import build_faiss, save_faiss
from indexers.dense.windows import Windows, load_windows, save_windows
from indexers.lexical.bm25_weights import BM25Params
from indexers.lexical.segment_files import Deletions, SegmentPostings, check_deleted_tokens, merge_postings
from indexers.lexical.term_counts import count_terms_stream
from indexers.lexical.tokenize import Tokenizer

log = logging.getLogger(__name__)

# Merge policy: more segments than this, or a segment with at least this share of its lines
# masked, and segments are rewritten compactly.
MAX_SEGMENTS = 8
MAX_DELETED_SHARE = 0.3


def _segment_files(folder: Path, relative_to: Path) -> list[str]:
    return sorted(p.relative_to(relative_to).as_posix() for p in folder.rglob("*") if p.is_file())


def write_segment(
    build: Path,
    name: str,
    chunks: Sequence[Chunk],
    vectors: np.ndarray,
    keys: Sequence[bytes],
    token_lists: Iterable[Sequence[str]],
    vector_index: str = "auto",
    weights_for: BM25Params | None = None,
    windows: Windows | None = None,
) -> tuple[SegmentInfo, list[str]]:
    """A new segment in ``build`` from chunks with their vectors, embedding keys and BM25 tokens
    (and their sentence windows' vectors, indexers.dense.windows, when given);
    returns its entry and its file names relative to the build. ``vector_index``: the FAISS kind
    asked for (indexers.dense.ann.choose picks by the segment's size for "auto"). ``weights_for``: also
    store BM25 weights under the segment's own statistics (a full build: it is the whole corpus).
    ``token_lists`` is read once, after the vectors are written, so a generator tokenising chunk by
    chunk never holds more than one chunk's tokens (flows.builds.build_index)."""
    tokens = len(token_lists) if isinstance(token_lists, Sized) else len(chunks)
    if not len(chunks) == len(vectors) == len(keys) == tokens:
        raise ValueError(
            f"{len(chunks)} chunks, {len(vectors)} vectors, {len(keys)} keys, {tokens} token lists"
        )
    folder = segment_folder(build, name)
    folder.mkdir(parents=True)
    write_chunks(folder, chunks)
    write_places(folder, chunks)
    write_docs(folder, spans_of([c.path for c in chunks]))
    spec = _save_vectors(folder, save_passage_vectors(folder, vectors, keys), vector_index)
    if windows is not None:
        if windows.chunks != len(chunks):
            raise ValueError(f"windows for {windows.chunks} chunks, {len(chunks)} chunks")
        save_windows(folder, windows)
    counts = count_terms_stream(token_lists)
    if counts.n_docs != len(chunks):
        raise ValueError(f"{len(chunks)} chunks, {counts.n_docs} token lists")
    postings = SegmentPostings(counts)
    (postings.with_weights(weights_for) if weights_for is not None else postings).save(folder / BM25_DIR)
    return SegmentInfo(name, len(chunks), vectors=spec.to_json()), _segment_files(folder, build)


def _save_vectors(folder: Path, vectors: np.ndarray, requested: str) -> ann.VectorIndexSpec:
    spec = ann.choose(len(vectors), requested, vectors.shape[1])
    save_faiss(build_faiss(vectors, spec), folder / VECTORS_FILE)
    return spec


def link_or_copy(source: Path, target: Path) -> bool:
    """Hard-link ``source`` as ``target`` (True), or copy it where linking fails (False)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
        return True
    except OSError as exc:  # another filesystem, or one without hard links
        log.debug("cannot hard-link %s (%s); copying it", source, exc)
        shutil.copy2(source, target)
        return False


def carry_segment(
    previous: Path, build: Path, name: str, files: Mapping[str, Mapping[str, Any]], with_deletions: bool
) -> dict[str, Mapping[str, Any]]:
    """Hard-link segment ``name``'s files from the ``previous`` build into ``build`` (its deletion
    files too when ``with_deletions``); returns their manifest entries, carried, not re-hashed."""
    prefix = f"{SEGMENTS_DIR}/{name}/"
    carried: dict[str, Mapping[str, Any]] = {}
    for relative, entry in files.items():
        if not relative.startswith(prefix):
            continue
        if not with_deletions and relative[len(prefix) :] in DELETION_FILES:
            continue
        link_or_copy(previous / relative, build / relative)
        carried[relative] = entry
    if f"{prefix}{BM25_DIR}/{BM25_PARAMS_FILE}" not in carried:
        raise SegmentError(f"the manifest of {previous} lists no files of segment {name}")
    segment_folder(build, name).mkdir(parents=True, exist_ok=True)
    return carried


def mask_rows(folder: Path, deletions: Deletions, rows: Sequence[int], tokenizer: Tokenizer) -> Deletions:
    """``deletions`` plus local ``rows`` of the segment in ``folder``: their chunks are read back and
    re-tokenised (checked against the stored lengths) so the statistics lose exactly what they had."""
    if not len(rows):
        return deletions
    lines = SegmentLines(folder)
    try:
        tokens = [tokenizer(lines.chunk(row).index_text) for row in rows]
    finally:
        lines.close()
    check_deleted_tokens(SegmentPostings.load(folder / BM25_DIR), rows, tokens, folder)
    return deletions.adding(rows, tokens)


def merge_segments(
    parts: Sequence[tuple[Path, SegmentInfo, Deletions]], build: Path, name: str, vector_index: str = "auto"
) -> tuple[SegmentInfo, list[str]]:
    """One compact segment in ``build`` from the live lines of ``parts`` (segment folder, entry,
    deletions), files in path order (a source tree's row order, indexers.build.rowmap): chunk lines
    copied as bytes, vectors and keys by row, BM25 from the stored tf
    (indexers.lexical.segment_files.merge_postings), FAISS rebuilt from the vectors. Nothing is
    parsed, tokenised or embedded."""
    folder = segment_folder(build, name)
    folder.mkdir(parents=True)
    live_spans: list[tuple[str, int, int, int]] = []  # path, part, first line, lines
    every_line: list[list[bytes]] = []
    for i, (source, info, deletions) in enumerate(parts):
        reader = SegmentLines(source)
        try:
            every_line.append(reader.all_lines())
        finally:
            reader.close()
        if len(every_line[-1]) != info.rows:
            raise SegmentError(
                f"{source / CHUNKS_FILE} has {len(every_line[-1])} lines, the manifest says {info.rows}"
            )
        masked = set(deletions.rows.tolist())
        live_spans += [(s.path, i, s.start, s.count) for s in read_spans(source) if s.start not in masked]
    live_spans.sort()
    picks: list[list[int]] = [[] for _ in parts]  # per part: its lines, in the merged order
    order: list[tuple[int, int]] = []  # (part, position in that part's picks) of each merged line
    spans: list[DocSpan] = []
    for path, i, start, count in live_spans:
        spans.append(DocSpan(path, len(order), count))
        for line in range(start, start + count):
            order.append((i, len(picks[i])))
            picks[i].append(line)
    write_lines(folder, (every_line[i][picks[i][j]] for i, j in order))
    part_places = [column_or_chunks(src, lines) for (src, _, _), lines in zip(parts, every_line, strict=True)]
    write_places(folder, (part_places[i][picks[i][j]] for i, j in order))
    write_docs(folder, spans)
    sources = [src for src, _, _ in parts]
    own_rows = [np.asarray(own, dtype=np.int64) for own in picks]  # per part: its lines, merged order
    part_vectors = [load_vectors(src)[own] for src, own in zip(sources, own_rows, strict=True)]
    part_keys = [load_keys(src)[own] for src, own in zip(sources, own_rows, strict=True)]
    where = np.asarray([[i, j] for i, j in order], dtype=np.int64).reshape(-1, 2)
    offsets = np.cumsum([0] + [len(own) for own in picks])[:-1]
    gather = offsets[where[:, 0]] + where[:, 1]  # merged line -> row of the parts concatenated
    merged = save_passage_vectors(
        folder, np.concatenate(part_vectors)[gather], np.concatenate(part_keys)[gather]
    )
    spec = _save_vectors(folder, merged, vector_index)
    part_windows = [load_windows(src, info.rows) for src, info, _ in parts]
    if all(w is not None for w in part_windows):  # else the merged segment has none: chunk cosines
        taken = [
            w.take(np.asarray(own, dtype=np.int64)) for w, own in zip(part_windows, picks, strict=True) if w
        ]
        save_windows(folder, Windows.concat(taken).take(gather))
    postings = [
        (SegmentPostings.load(src / BM25_DIR), np.asarray(own, dtype=np.int64))
        for (src, _, _), own in zip(parts, picks, strict=True)
    ]
    SegmentPostings(merge_postings(postings, gather)).save(folder / BM25_DIR)
    return SegmentInfo(name, len(order), vectors=spec.to_json()), _segment_files(folder, build)


def plan_merge(
    segments: Sequence[SegmentInfo],
    max_segments: int = MAX_SEGMENTS,
    max_deleted_share: float = MAX_DELETED_SHARE,
) -> list[str]:
    """Names of the segments to rewrite as one: those with ``max_deleted_share`` of their lines
    masked, and, while there are more than ``max_segments``, the smallest (so a merge is usually
    of small recent segments and the big one is rewritten only when much of it is masked)."""
    chosen = [s for s in segments if s.rows and s.deleted / s.rows >= max_deleted_share]
    others = sorted((s for s in segments if s not in chosen), key=lambda s: (s.live, s.name))
    while others and len(segments) - len(chosen) + (1 if chosen else 0) > max_segments:
        chosen.append(others.pop(0))
    return [s.name for s in segments if s in chosen]


def load_segment(folder: Path, info: SegmentInfo, mmap: bool = True) -> tuple[SegmentPostings, Deletions]:
    """A segment's BM25 postings and this build's deletions, checked against the manifest entry."""
    postings = SegmentPostings.load(folder / BM25_DIR, mmap=mmap)
    deletions = Deletions.load(folder)
    if postings.counts.n_docs != info.rows or len(deletions) != info.deleted:
        raise SegmentError(
            f"segment {folder}: {postings.counts.n_docs} documents and {len(deletions)} masked, "
            f"the manifest says {info.rows} and {info.deleted}"
        )
    if len(deletions) and (deletions.rows.min() < 0 or deletions.rows.max() >= info.rows):
        raise SegmentError(f"{folder}: a masked row is outside 0..{info.rows - 1}")
    return postings, deletions
