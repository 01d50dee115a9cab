"""The code graph in a build: ``graph.jsonl``, one line per code file with its definitions and
references (parsers.code.graph), as JSON arrays rather than objects to keep a 1,000-file tree's file
small. Plain JSON, read back without running code; the build manifest lists it with its checksum
and records ``extra["graph"] = {"version", "files", "definitions", "references"}``.

A line: ``{"path": P, "language": L, "definitions": [[symbol, first, last, kind, signature]],
"references": [[name, line, symbol | null, kind, qualifier | null, member]]}``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from indexers.build.files import GRAPH_FILE
from indexers.build.sections import GRAPH_KEY as GRAPH_KEY  # re-exported: flows/builds.py
from indexers.build.sections import GraphSection
from parsers.model import CodeGraph, Definition, Reference

# Bump whenever what the code parser records changes (definitions, references, their fields or how
# they resolve): the version is part of the incremental reuse key (flows/incremental.py) and the
# Prefect parse cache key, so the next ingest re-parses every file and re-derives the whole graph
# instead of carrying old rows forward for unchanged files. tests/flows/test_graph_version.py pins
# the graph of one file per version. 2: `__all__` export references, receiver-qualified calls
# (r = Runner(); r.run()), built-in calls marked, signatures cut at a token boundary (issue 23).
GRAPH_VERSION = 2


class GraphUnavailable(RuntimeError):
    """The build has no code graph (built before docmill stored one) or one of another version."""


@dataclass(frozen=True)
class FileGraph:
    """The definitions and references of one code file of the build."""

    path: str
    language: str
    graph: CodeGraph


def to_row(item: FileGraph) -> dict[str, Any]:
    return {
        "path": item.path,
        "language": item.language,
        "definitions": [
            [d.symbol, d.lines[0], d.lines[1], d.kind, d.signature] for d in item.graph.definitions
        ],
        "references": [
            [r.name, r.line, r.symbol, r.kind, r.qualifier, r.member] for r in item.graph.references
        ],
    }


def from_row(row: Mapping[str, Any]) -> FileGraph:
    defs = tuple(Definition(s, (int(a), int(b)), k, sig) for s, a, b, k, sig in row["definitions"])
    refs = tuple(Reference(n, int(line), s, k, q, bool(m)) for n, line, s, k, q, m in row["references"])
    return FileGraph(str(row["path"]), str(row["language"]), CodeGraph(defs, refs))


def write_graph(folder: Path, files: Iterable[FileGraph]) -> dict[str, int]:
    """Write ``graph.jsonl`` into a build folder; returns the summary stored in the manifest."""
    summary = {"version": GRAPH_VERSION, "files": 0, "definitions": 0, "references": 0}
    with open(folder / GRAPH_FILE, "w", encoding="utf-8") as handle:
        for item in files:
            handle.write(json.dumps(to_row(item), ensure_ascii=False, separators=(",", ":")) + "\n")
            summary["files"] += 1
            summary["definitions"] += len(item.graph.definitions)
            summary["references"] += len(item.graph.references)
        handle.flush()
        os.fsync(handle.fileno())
    return summary


def read_rows(handle: IO[bytes]) -> Iterator[FileGraph]:
    """The files of an open ``graph.jsonl`` (read from the start)."""
    handle.seek(0)
    for line in handle:
        if line.strip():
            yield from_row(json.loads(line))


def read_graph(folder: Path) -> dict[str, FileGraph]:
    """A build's graph by path (empty when the build has none): for reuse by incremental ingest."""
    path = folder / GRAPH_FILE
    if not path.is_file():
        return {}
    with open(path, "rb") as handle:
        return {item.path: item for item in read_rows(handle)}


def check_version(extra: Mapping[str, Any], index: str) -> None:
    """Raise GraphUnavailable unless the manifest's ``extra`` says the build has a readable graph."""
    info = GraphSection.read(extra)
    if info is None:
        raise GraphUnavailable(
            f"index {index} has no code graph (built before docmill stored one); "
            f"re-ingest it with `docmill ingest` to use refs and repo-map"
        )
    if info.version != GRAPH_VERSION:
        raise GraphUnavailable(
            f"index {index} has code graph version {info.version!r}, this docmill reads "
            f"{GRAPH_VERSION}; re-ingest it with `docmill ingest` (it re-parses every file)"
        )


def graph_readable(extra: Mapping[str, Any]) -> bool:
    """The manifest says the build has a graph of the version this docmill reads."""
    info = GraphSection.read(extra)
    return info is not None and info.version == GRAPH_VERSION


def open_graph_file(build: Path, listed: Mapping[str, Any]) -> IO[bytes] | None:
    """The build's ``graph.jsonl``, opened, when the manifest's ``files`` (``listed``) has one."""
    return open(build / GRAPH_FILE, "rb") if GRAPH_FILE in listed else None  # noqa: SIM115
