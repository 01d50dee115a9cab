"""Writing a build's segments (indexers/segments.py). A full build is one segment. The next build
of an index hard-links the previous build's segments, masks the lines of the files that changed or
went away (the previous build's own files are never touched), puts the new and changed files'
chunks in one small new segment, then applies the merge policy. Nothing here re-parses or
re-embeds: the caller hands over the new chunks with their vectors."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from chunkers.model import Chunk
from indexers.build.files import SEGMENTS_DIR
from indexers.build.manifest import Manifest
from indexers.build.passage_vectors import load_keys, load_vectors
from indexers.build.segment_info import (
    DocSpan,
    SegmentError,
    SegmentInfo,
    generation,
    read_spans,
    segment_folder,
    segment_infos,
    segment_name,
)
from indexers.build.segments import (
    MAX_DELETED_SHARE,
    MAX_SEGMENTS,
    carry_segment,
    load_segment,
    mask_rows,
    merge_segments,
    plan_merge,
    write_segment,
)
from indexers.dense.windows import Windows, load_windows
from indexers.lexical.bm25 import BM25Params
from indexers.lexical.segment_files import Deletions
from indexers.lexical.tokenize import Tokenizer

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Located:
    """Where a source file's chunks live in a build: segment ``segment``, lines ``span``."""

    segment: str
    span: DocSpan


@dataclass
class WrittenSegments:
    """What a build folder now holds: its segments in row order, the files written this run (to be
    hashed) and those carried from the previous build (checksums kept)."""

    segments: list[SegmentInfo]
    written: list[str] = field(default_factory=list)
    carried: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    merged: list[str] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return sorted([*self.written, *self.carried])

    @property
    def rows(self) -> int:
        return sum(s.live for s in self.segments)


def write_full(
    folder: Path,
    chunks: Sequence[Chunk],
    vectors: np.ndarray,
    keys: Sequence[bytes],
    token_lists: Iterable[Sequence[str]],
    vector_index: str,
    bm25: BM25Params,
    number: int = 1,
    windows: Windows | None = None,
) -> WrittenSegments:
    """Every chunk in one new segment, with its BM25 weights precomputed (it is the whole build)."""
    info, names = write_segment(
        folder,
        segment_name(number),
        chunks,
        vectors,
        keys,
        token_lists,
        vector_index,
        weights_for=bm25,
        windows=windows,
    )
    return WrittenSegments([info], names)


def live_locations(build: Path, manifest: Manifest) -> dict[str, Located]:
    """Each source file with live chunks in ``build``: where they are (reads each segment's
    docs.json and masked rows, not its chunks)."""
    located: dict[str, Located] = {}
    for info in segment_infos(manifest.segments):
        folder = segment_folder(build, info.name)
        masked = set(Deletions.load(folder).rows.tolist()) if info.deleted else set()
        for span in read_spans(folder):
            if span.start not in masked:
                located[span.path] = Located(info.name, span)
    return located


def masked_vectors(build: Path, spans: Sequence[Located]) -> tuple[list[bytes], np.ndarray]:
    """Embedding keys and vectors of the lines in ``spans`` and of their sentence windows: the cache
    a small run embeds against (a changed file's unchanged chunks, a renamed file's text)."""
    keys: list[bytes] = []
    rows: list[np.ndarray] = []
    by_segment: dict[str, list[int]] = {}
    for located in spans:
        by_segment.setdefault(located.segment, []).extend(
            range(located.span.start, located.span.start + located.span.count)
        )
    for name, lines in by_segment.items():
        folder = segment_folder(build, name)
        picked = np.asarray(sorted(lines), dtype=np.int64)
        keys += load_keys(folder)[picked].tolist()
        stored = load_vectors(folder)
        rows.append(np.asarray(stored[picked]))
        windows = load_windows(folder, len(stored))
        if windows is not None:  # the windows of those lines, reused by their text too
            taken = windows.take(picked)
            keys += np.asarray(taken.keys).tolist()
            rows.append(np.asarray(taken.vectors))
    vectors = np.concatenate(rows) if rows else np.zeros((0, 0), dtype=np.float32)
    return keys, vectors.astype(np.float32)


@dataclass(frozen=True)
class MergePolicy:
    max_segments: int = MAX_SEGMENTS
    max_deleted_share: float = MAX_DELETED_SHARE

    def __post_init__(self) -> None:
        if self.max_segments < 1 or not 0 < self.max_deleted_share <= 1:
            raise ValueError(f"bad merge policy {self}: max_segments >= 1, 0 < max_deleted_share <= 1")


@dataclass(frozen=True)
class NextBuild:
    """What the next build of an index is made of: ``previous``'s segments carried by hard link with
    the lines of ``masked_paths`` masked, ``chunks`` (with ``vectors`` and embedding ``keys``) in
    one new segment, merged where ``policy`` says. ``located``: live_locations(previous) if the
    caller has it. ``windows``: the chunks' sentence windows' vectors (None: the segment has none)."""

    previous: Path
    previous_manifest: Manifest
    folder: Path
    chunks: Sequence[Chunk]
    vectors: np.ndarray
    keys: Sequence[bytes]
    masked_paths: Collection[str]
    tokenizer: Tokenizer
    vector_index: str = "auto"
    policy: MergePolicy | None = None
    located: Mapping[str, Located] | None = None
    windows: Windows | None = None


def write_next(*args: Any, **kwargs: Any) -> WrittenSegments:
    """write_next_build(NextBuild(...)): the call flows/builds.py makes, arguments as NextBuild's."""
    return write_next_build(NextBuild(*args, **kwargs))


@dataclass
class _Segments:
    """The next build's segments while they are written: each one's deletions, and the names of
    the segments written into the new folder this run."""

    updated: list[SegmentInfo]
    deletions: dict[str, Deletions]
    next_number: int
    written_here: set[str] = field(default_factory=set)


def write_next_build(plan: NextBuild) -> WrittenSegments:
    """The next build's segments in ``plan.folder`` (see NextBuild)."""
    policy = plan.policy or MergePolicy()
    infos = segment_infos(plan.previous_manifest.segments)
    located = plan.located
    if located is None:
        located = live_locations(plan.previous, plan.previous_manifest)
    new_masks = _masks_by_segment(located, plan.masked_paths)
    work = _mask_previous(plan, infos, new_masks)
    result = WrittenSegments([])
    if len(plan.chunks):
        _write_added(plan, work, result)
    merging = plan_merge(work.updated, policy.max_segments, policy.max_deleted_share)
    if merging and not any(s.live for s in work.updated if s.name in merging):  # all masked: drop them
        _drop_written(result, plan.folder, work.written_here & set(merging))
        result.merged = merging
        work.updated = [s for s in work.updated if s.name not in merging]
    elif merging:
        _merge(plan, work, result, merging)
    _carry(plan, work, result, new_masks)
    result.segments = work.updated
    _check_rows(result, infos, new_masks, len(plan.chunks))
    return result


def _mask_previous(
    plan: NextBuild, infos: Sequence[SegmentInfo], new_masks: Mapping[str, list[int]]
) -> _Segments:
    """The previous build's segments with the new masks applied (deletions kept in memory)."""
    deletions: dict[str, Deletions] = {}
    updated: list[SegmentInfo] = []
    for info in infos:
        source = segment_folder(plan.previous, info.name)
        old = load_segment(source, info)[1]
        masked = sorted(new_masks.get(info.name, []))
        deletions[info.name] = mask_rows(source, old, masked, plan.tokenizer)
        updated.append(SegmentInfo(info.name, info.rows, len(deletions[info.name]), info.vectors))
    next_number = max((generation(i.name) for i in infos), default=0) + 1
    return _Segments(updated, deletions, next_number)


def _write_added(plan: NextBuild, work: _Segments, result: WrittenSegments) -> None:
    """The run's chunks as one new segment."""
    token_lists = (plan.tokenizer(c.index_text) for c in plan.chunks)
    name = segment_name(work.next_number)
    info, names = write_segment(
        plan.folder,
        name,
        plan.chunks,
        plan.vectors,
        plan.keys,
        token_lists,
        plan.vector_index,
        windows=plan.windows,
    )
    work.next_number += 1
    work.updated.append(info)
    work.deletions[info.name] = Deletions()
    work.written_here.add(info.name)
    result.written += names


def _merge(plan: NextBuild, work: _Segments, result: WrittenSegments, merging: list[str]) -> None:
    """Rewrite the segments ``merging`` as one, in the place of the first of them."""
    parts = [
        (
            segment_folder(plan.folder if s.name in work.written_here else plan.previous, s.name),
            s,
            work.deletions[s.name],
        )
        for s in work.updated
        if s.name in merging
    ]
    name = segment_name(work.next_number)
    merged, names = merge_segments(parts, plan.folder, name, plan.vector_index)
    _drop_written(result, plan.folder, work.written_here & set(merging))  # this run's own, now merged
    result.written += names
    result.merged = merging
    first = next(i for i, s in enumerate(work.updated) if s.name in merging)
    work.updated = [s for s in work.updated if s.name not in merging]
    work.updated.insert(first, merged)
    work.written_here.add(merged.name)
    log.info("merged segments %s into %s (%d rows)", ", ".join(merging), merged.name, merged.rows)


def _carry(
    plan: NextBuild, work: _Segments, result: WrittenSegments, new_masks: Mapping[str, list[int]]
) -> None:
    """Hard-link the previous build's remaining segments; write the deletions of those masked now."""
    for info in work.updated:
        if info.name in work.written_here:
            continue
        changed = info.name in new_masks
        listed = plan.previous_manifest.files
        result.carried.update(
            carry_segment(plan.previous, plan.folder, info.name, listed, with_deletions=not changed)
        )
        if changed:
            saved = work.deletions[info.name].save(segment_folder(plan.folder, info.name))
            result.written += [p.relative_to(plan.folder).as_posix() for p in saved]


def _masks_by_segment(located: Mapping[str, Located], paths: Collection[str]) -> dict[str, list[int]]:
    """Segment name -> the local lines of ``paths``' live chunks."""
    masks: dict[str, list[int]] = {}
    for path in sorted(set(paths)):
        where = located.get(path)
        if where is not None:
            masks.setdefault(where.segment, []).extend(
                range(where.span.start, where.span.start + where.span.count)
            )
    return masks


def _drop_written(result: WrittenSegments, folder: Path, names: Collection[str]) -> None:
    """Remove segments this run wrote into ``folder`` (merged away) from it and from ``result``."""
    for name in names:
        shutil.rmtree(segment_folder(folder, name))
        result.written = [n for n in result.written if not n.startswith(f"{SEGMENTS_DIR}/{name}/")]


def _check_rows(
    result: WrittenSegments, before: Sequence[SegmentInfo], masks: Mapping[str, list[int]], added: int
) -> None:
    expected = sum(s.live for s in before) - sum(len(v) for v in masks.values()) + added
    if result.rows != expected:
        raise SegmentError(f"the new build has {result.rows} rows, expected {expected}")
