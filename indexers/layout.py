"""File names of an index folder and of each build in it, defined once: the writer
(flows.pipeline, flows.incremental, indexers.store) and every reader (docmill.index, docmill.graph,
the benchmarks) take them from here, so a rename cannot leave one side behind.

    INDEX/CURRENT                       one line: the active build's folder name (os.replace'd)
    INDEX/LOCK                          flock'ed by a writer while it builds and publishes
    INDEX/builds/<name>/                one build:
        manifest.json                   written last: a build is complete once it exists
        chunks.jsonl                    one chunk per line, row order = BM25 doc id = FAISS id
        chunk_offsets.npy               int64 byte offsets of each line (N + 1), for reads by row
        embeddings.npy                  float32 (N, dim) normalised passage vectors
        embedding_keys.npy              S64 content key per row: what an incremental run reuses
        vectors.faiss                   FAISS's own file over embeddings.npy
        bm25/                           indexers.bm25's folder (its own format, files listed there)
        graph.jsonl                     code graph (indexers.graph), only when the tree has code
"""

from __future__ import annotations

CURRENT = "CURRENT"
LOCK = "LOCK"
BUILDS = "builds"

MANIFEST = "manifest.json"
CHUNKS_FILE = "chunks.jsonl"
OFFSETS_FILE = "chunk_offsets.npy"
EMBEDDINGS_FILE = "embeddings.npy"
EMBEDDING_KEYS_FILE = "embedding_keys.npy"
VECTORS_FILE = "vectors.faiss"
BM25_DIR = "bm25"
GRAPH_FILE = "graph.jsonl"
