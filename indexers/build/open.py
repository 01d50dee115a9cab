"""Opening a build: its manifest, then every file a search reads (each segment's BM25 postings,
FAISS index and chunk lines, and ``graph.jsonl``), as one ``Build``.

Every file is opened here, at once, so a reader keeps a whole build even after a later publish
prunes its folder (open files and memory maps outlive the unlink)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from indexers.build.chunkstore import ChunkStore
from indexers.build.files import VECTORS_FILE
from indexers.build.graph_file import open_graph_file
from indexers.build.manifest import Manifest
from indexers.build.passage_vectors import load_vectors
from indexers.build.sections import vector_spec
from indexers.build.segment_info import SegmentError, SegmentInfo, row_map, segment_folder, segment_infos
from indexers.build.segments import load_segment
from indexers.dense import ann
from indexers.dense.faiss_store import load_faiss
from indexers.dense.segment_vectors import SegmentedVectors
from indexers.dense.windows import load_windows
from indexers.lexical.bm25 import BM25Params
from indexers.lexical.segmented import SegmentedBM25


@dataclass
class Build:
    """One build folder, opened read-only. ``graph``: ``graph.jsonl``'s open handle (None when the
    build has no code graph), parsed by its reader on first use."""

    path: Path
    manifest: Manifest
    bm25: SegmentedBM25
    vectors: SegmentedVectors
    chunks: ChunkStore
    graph: IO[bytes] | None

    def close(self) -> None:
        """Close the chunk files and the graph file; idempotent."""
        self.chunks.close()
        if self.graph is not None:
            self.graph.close()


def open_build(path: Path, manifest: Manifest | None = None, verify_checksums: bool = False) -> Build:
    """The build folder ``path`` opened. Without ``manifest`` its manifest.json is read and its
    files checked (sizes; with ``verify_checksums`` their SHA-256 too); a caller that passes the
    manifest has read and checked it."""
    path = Path(path)
    if manifest is None:
        manifest = Manifest.read(path)
        manifest.verify_files(path, checksums=verify_checksums)
    infos = segment_infos(manifest.segments)
    if not infos:
        raise SegmentError(
            f"the manifest of {path} lists no segments: rebuild the index with `docmill ingest`"
        )
    folders = [segment_folder(path, info.name) for info in infos]
    loaded = [load_segment(folder, info) for folder, info in zip(folders, infos, strict=True)]
    rows = row_map(folders, infos, [deletions for _, deletions in loaded])
    bm25 = SegmentedBM25(loaded, BM25Params.from_dict(manifest.bm25), manifest.tokenizer, rows)
    windows = [load_windows(folder, info.rows) for folder, info in zip(folders, infos, strict=True)]
    vectors = SegmentedVectors(_open_vectors(folders, infos, manifest), rows, windows)
    chunks = ChunkStore(folders, rows)
    try:
        graph = open_graph_file(path, manifest.files)
    except BaseException:
        chunks.close()
        raise
    return Build(path, manifest, bm25, vectors, chunks, graph)


def _open_vectors(folders: list[Path], infos: list[SegmentInfo], manifest: Manifest) -> list[Any]:
    """Each segment's FAISS index, checked against its manifest entry (and the build's own record,
    ``extra["vectors"]``, which describes its largest segment)."""
    indexes = []
    largest = max(range(len(infos)), key=lambda i: infos[i].rows)
    for i, (folder, info) in enumerate(zip(folders, infos, strict=True)):
        faiss_index = load_faiss(folder / VECTORS_FILE)
        where = str(folder / VECTORS_FILE)
        spec = ann.VectorIndexSpec.from_json(info.vectors)
        ann.check(faiss_index, spec, where)
        if i == largest:
            ann.check(faiss_index, vector_spec(manifest.extra), where)
        # IVF-PQ re-scores its candidates with the segment's exact vectors
        indexes.append(ann.with_exact_vectors(faiss_index, spec, functools.partial(load_vectors, folder)))
    return indexes
