"""A build is a list of segments plus, per segment, the lines it masks (Lucene-style).

A segment (``segments/<name>/``, files in indexers.build.files) holds the chunks, vectors and BM25
term frequencies of some source files and is never rewritten: a later build hard-links its files
(copies them where linking fails) and only writes what is new, one small segment with the added
and changed files' chunks, and the deletion files of segments that lose lines. A build's rows are
its segments' live lines in segment order, so BM25 doc id == FAISS id == chunk row holds per
build. ``plan_merge`` says when segments are rewritten compactly (too many, or too much masked),
and ``merge_segments`` does it from the stored lines, vectors and tf: no parse, no embedding.
"""

from __future__ import annotations

import json
import logging
import mmap
import os
import shutil
from collections.abc import Iterable, Mapping, Sequence, Sized
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from chunkers.model import Chunk
from indexers.build.chunk_json import chunk_from_json
from indexers.build.files import (
    BM25_DIR,
    BM25_PARAMS_FILE,
    CHUNKS_FILE,
    DELETION_FILES,
    DOCS_FILE,
    EMBEDDING_KEYS_FILE,
    EMBEDDINGS_FILE,
    OFFSETS_FILE,
    SEGMENTS_DIR,
    VECTORS_FILE,
)
from indexers.build.manifest import ManifestError
from indexers.build.places import column_or_chunks, write_places
from indexers.build.rowmap import RowMap, read_span_arrays
from indexers.dense import ann
from indexers.dense.faiss_store import build_faiss, save_faiss
from indexers.dense.windows import Windows, load_windows, save_windows
from indexers.lexical.bm25 import BM25Params
from indexers.lexical.segment_files import Deletions, SegmentPostings, check_deleted_tokens, merge_postings
from indexers.lexical.term_counts import count_terms_stream
from indexers.lexical.tokenize import Tokenizer

log = logging.getLogger(__name__)

# Merge policy: more segments than this, or a segment with at least this share of its lines
# masked, and segments are rewritten compactly.
MAX_SEGMENTS = 8
MAX_DELETED_SHARE = 0.3


class SegmentError(ManifestError):
    """A segment's files are missing or do not agree with each other; rebuild with --full-rebuild."""


@dataclass(frozen=True)
class SegmentInfo:
    """A segment as the manifest lists it: ``rows`` lines written, ``deleted`` masked in this build."""

    name: str
    rows: int
    deleted: int = 0
    vectors: Mapping[str, Any] | None = None  # indexers.dense.ann.VectorIndexSpec.to_json() of its FAISS file

    @property
    def live(self) -> int:
        return self.rows - self.deleted

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "rows": self.rows, "deleted": self.deleted}
        return out if self.vectors is None else {**out, "vectors": dict(self.vectors)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SegmentInfo:
        try:
            vectors = data.get("vectors")
            info = cls(str(data["name"]), int(data["rows"]), int(data.get("deleted", 0)), vectors)
        except (KeyError, TypeError, ValueError) as exc:
            raise SegmentError(f"bad segment entry in the manifest: {data!r} ({exc})") from exc
        if "/" in info.name or info.name.startswith(".") or not 0 <= info.deleted <= info.rows:
            raise SegmentError(f"bad segment entry in the manifest: {data!r}")
        return info


@dataclass(frozen=True)
class DocSpan:
    """The lines ``start .. start + count`` of a segment hold the chunks of source file ``path``."""

    path: str
    start: int
    count: int


def segment_folder(build: Path, name: str) -> Path:
    return build / SEGMENTS_DIR / name


def segment_infos(manifest_segments: Sequence[Mapping[str, Any]]) -> list[SegmentInfo]:
    return [SegmentInfo.from_json(s) for s in manifest_segments]


def generation(name: str) -> int:
    """The number in a segment name ``s000042`` (0 for another name)."""
    return int(name[1:]) if name[:1] == "s" and name[1:].isdigit() else 0


def segment_name(number: int) -> str:
    return f"s{number:06d}"


def write_chunks(folder: Path, chunks: Iterable[Chunk]) -> None:
    """chunks.jsonl plus the byte offset of every line, so a reader can fetch one chunk by row."""
    write_lines(folder, (json.dumps(c.to_json(), ensure_ascii=False).encode("utf-8") + b"\n" for c in chunks))


def write_lines(folder: Path, lines: Iterable[bytes]) -> None:
    offsets = [0]
    with open(folder / CHUNKS_FILE, "wb") as handle:
        for line in lines:
            handle.write(line)
            offsets.append(offsets[-1] + len(line))
        handle.flush()
        os.fsync(handle.fileno())
    np.save(folder / OFFSETS_FILE, np.asarray(offsets, dtype=np.int64), allow_pickle=False)


def spans_of(paths: Sequence[str]) -> list[DocSpan]:
    """Runs of equal paths (a file's chunks are consecutive lines)."""
    spans: list[DocSpan] = []
    for row, path in enumerate(paths):
        if spans and spans[-1].path == path and spans[-1].start + spans[-1].count == row:
            spans[-1] = DocSpan(path, spans[-1].start, spans[-1].count + 1)
        else:
            spans.append(DocSpan(path, row, 1))
    return spans


def span_arrays(folder: Path) -> tuple[list[str], np.ndarray]:
    """A segment's docs.json as (paths, int64 (n, 2) first lines and lines) (rowmap.read_span_arrays),
    a missing or malformed file a SegmentError."""
    path = folder / DOCS_FILE
    try:
        return read_span_arrays(path)
    except FileNotFoundError as exc:
        raise SegmentError(f"segment file missing: {path}") from exc
    except (ValueError, TypeError) as exc:
        raise SegmentError(f"{path} is not a list of [path, start, count]: {exc}") from exc


def read_spans(folder: Path) -> list[DocSpan]:
    paths, spans = span_arrays(folder)
    return [DocSpan(p, s, n) for p, (s, n) in zip(paths, spans.tolist(), strict=True)]


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
    _write_docs(folder, spans_of([c.path for c in chunks]))
    np.save(folder / EMBEDDINGS_FILE, np.ascontiguousarray(vectors, dtype=np.float32), allow_pickle=False)
    np.save(folder / EMBEDDING_KEYS_FILE, np.asarray(keys, dtype="S64"), allow_pickle=False)
    spec = _save_vectors(folder, np.ascontiguousarray(vectors, dtype=np.float32), vector_index)
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


def _write_docs(folder: Path, spans: Sequence[DocSpan]) -> None:
    rows = [[s.path, s.start, s.count] for s in spans]
    (folder / DOCS_FILE).write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")


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


class SegmentLines:
    """A segment's chunks.jsonl read by line number through its offsets: from a memory map of the
    file, made on the first read (a search reads ~20 lines; a ``pread`` each cost a system call,
    ~10 us on a loaded VM, more than parsing the line), kept until ``close``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._map: mmap.mmap | None = None
        try:
            # A plain ndarray view of the mapped file: scalar reads skip np.memmap's __getitem__.
            self.offsets = np.asarray(np.load(folder / OFFSETS_FILE, mmap_mode="r", allow_pickle=False))
            self.fd = os.open(folder / CHUNKS_FILE, os.O_RDONLY)
        except (OSError, ValueError) as exc:
            raise SegmentError(f"cannot read the chunks of segment {folder}: {exc}") from exc

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def line(self, row: int) -> bytes:
        start, end = int(self.offsets[row]), int(self.offsets[row + 1])
        mapped = self._map if self._map is not None else self._mapped()
        if mapped is None:  # an empty file, or no longer open
            return os.pread(self.fd, end - start, start)
        return mapped[start:end]

    def lines(self, rows: np.ndarray) -> list[bytes]:
        """The lines of ``rows``, with one gather of their offsets."""
        starts, ends = self.offsets[rows].tolist(), self.offsets[rows + 1].tolist()
        mapped = self._map if self._map is not None else self._mapped()
        if mapped is None:
            return [os.pread(self.fd, end - start, start) for start, end in zip(starts, ends, strict=True)]
        return [mapped[start:end] for start, end in zip(starts, ends, strict=True)]

    def spans(self, rows: np.ndarray) -> tuple[mmap.mmap, list[tuple[int, int]]] | None:
        """The memory map of chunks.jsonl and the byte range of each of ``rows`` in it (None:
        not mapped: an empty file, or closed), for reading them later (LazyChunks.in_map)."""
        mapped = self._map if self._map is not None else self._mapped()
        if mapped is None:
            return None
        starts, ends = self.offsets[rows].tolist(), self.offsets[rows + 1].tolist()
        return mapped, list(zip(starts, ends, strict=True))

    def _mapped(self) -> mmap.mmap | None:
        if self.fd < 0 or not int(self.offsets[-1]):
            return None
        mapped = mmap.mmap(self.fd, 0, access=mmap.ACCESS_READ)
        if self._map is None:  # another thread may have mapped it meanwhile: keep one
            self._map = mapped
        return self._map

    def chunk(self, row: int) -> Chunk:
        return chunk_from_json(orjson.loads(self.line(row)))

    def all_lines(self) -> list[bytes]:
        size = int(self.offsets[-1])
        return (os.pread(self.fd, size, 0) if size else b"").splitlines(keepends=True)

    def close(self) -> None:
        # The map is dropped, not closed: it closes with its last reference, which a hit's
        # unread siblings may hold (LazyChunks.in_map); without them, here.
        self._map = None
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


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
    _write_docs(folder, spans)
    part_vectors = [
        np.load(src / EMBEDDINGS_FILE, mmap_mode="r", allow_pickle=False)[np.asarray(own, dtype=np.int64)]
        for (src, _, _), own in zip(parts, picks, strict=True)
    ]
    part_keys = [
        np.load(src / EMBEDDING_KEYS_FILE, allow_pickle=False)[np.asarray(own, dtype=np.int64)]
        for (src, _, _), own in zip(parts, picks, strict=True)
    ]
    where = np.asarray([[i, j] for i, j in order], dtype=np.int64).reshape(-1, 2)
    offsets = np.cumsum([0] + [len(own) for own in picks])[:-1]
    gather = offsets[where[:, 0]] + where[:, 1]  # merged line -> row of the parts concatenated
    merged = np.ascontiguousarray(np.concatenate(part_vectors)[gather], dtype=np.float32)
    np.save(folder / EMBEDDINGS_FILE, merged, allow_pickle=False)
    np.save(folder / EMBEDDING_KEYS_FILE, np.concatenate(part_keys)[gather].astype("S64"), allow_pickle=False)
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


def row_map(folders: Sequence[Path], infos: Sequence[SegmentInfo], deletions: Sequence[Deletions]) -> RowMap:
    """The build's rows in source order (indexers.build.rowmap), from each segment's docs.json."""
    masked = [d.rows for d in deletions]
    if len(infos) == 1 and not len(masked[0]):
        return RowMap.in_order([infos[0].rows], masked)
    paths: list[str] = []
    spans = []
    for i, (folder, rows) in enumerate(zip(folders, masked, strict=True)):
        own_paths, own = span_arrays(folder)
        live = ~np.isin(own[:, 0], rows)  # a masked file's span starts at a masked line
        paths += [path for path, keep in zip(own_paths, live.tolist(), strict=True) if keep]
        spans.append(np.column_stack([np.full(int(live.sum()), i), own[live]]))
    try:
        return RowMap.from_spans([i.rows for i in infos], masked, paths, np.concatenate(spans))
    except ValueError as exc:
        raise SegmentError(f"segments of {folders[0].parent.parent}: {exc}") from exc
