"""What a segment is, as a build lists it and a reader finds it: its manifest entry (SegmentInfo),
its name and folder, and its docs.json, which lines hold which source file's chunks (DocSpan;
written and read back here), from which the build's row order is made (row_map). Segments are
written, carried, masked and merged by indexers/build/segments.py."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from indexers.build.files import DOCS_FILE, SEGMENTS_DIR
from indexers.build.manifest import ManifestError
from indexers.build.rowmap import RowMap, read_span_arrays
from indexers.lexical.segment_files import Deletions


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


def spans_of(paths: Sequence[str]) -> list[DocSpan]:
    """Runs of equal paths (a file's chunks are consecutive lines)."""
    spans: list[DocSpan] = []
    for row, path in enumerate(paths):
        if spans and spans[-1].path == path and spans[-1].start + spans[-1].count == row:
            spans[-1] = DocSpan(path, spans[-1].start, spans[-1].count + 1)
        else:
            spans.append(DocSpan(path, row, 1))
    return spans


def write_docs(folder: Path, spans: Sequence[DocSpan]) -> None:
    """docs.json: each source file's [path, first line, lines] in the segment."""
    rows = [[s.path, s.start, s.count] for s in spans]
    (folder / DOCS_FILE).write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")


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
