"""File names of an index folder and of each build in it, defined once: the writers
(indexers.build.store, segments, segment_lines, passage_vectors, manifest; flows.incremental and
flows.shards) and the readers (indexers.build.open and the modules it opens with, the benchmarks)
take them from here, so a rename cannot leave one side behind.

    INDEX/CURRENT                       one line: the active build's folder name (os.replace'd)
    INDEX/LOCK                          flock'ed by a writer while it builds and publishes
    INDEX/embedding-journal/<id>/       vectors an endpoint returned during a run that did not
                                        publish (flows.endpoint): the next run does not ask again
    INDEX/builds/<name>/                one build:
        manifest.json                   written last: a build is complete once it exists; lists the
                                        segments in row order and every file's size and checksum
        graph.jsonl                     code graph (indexers.build.graph_file), only when the tree has code
        segments/<segment>/             one segment (indexers.build.segments): written once, then
                                        hard-linked, never rewritten, into each later build
            chunks.jsonl                one chunk per line
            chunk_offsets.npy           int64 byte offsets of each line (n + 1), for reads by row
            docs.json                   [path, first line, lines] of each source file's chunks
            places.npy, place_strings.bin, place_offsets.npy
                                        each line's place key (indexers.build.places: document,
                                        path, kind, heading, symbol, pages, lines) for ranking
                                        without reading chunks; absent in older segments
            embeddings.npy              float32 (n, dim) normalised passage vectors, and the
            embedding_keys.npy          S64 content key per line: what an incremental run reuses
                                        (both written and read by indexers.build.passage_vectors)
            vectors.faiss               FAISS's own file over embeddings.npy
            window_offsets.npy          int64 (n + 1): each line's sentence windows (indexers.dense.
            window_vectors.npy          windows), float32 (windows, dim), and their S64 keys;
            window_keys.npy             absent in segments written before windows
            bm25/                       raw tf postings (indexers.lexical.segmented): vocab.json,
                                        params.json, one .npy per array, weights.npy
            deleted_rows.npy            this build's masked lines of the segment (absent: none) and
            deleted.json                the df/length they took from the BM25 statistics

A build's rows (BM25 doc id = FAISS id = chunk row) are its segments' live lines in segment order.
"""

from __future__ import annotations

CURRENT = "CURRENT"
LOCK = "LOCK"
BUILDS = "builds"
EMBEDDING_JOURNAL = "embedding-journal"

MANIFEST = "manifest.json"
CHUNKS_FILE = "chunks.jsonl"
OFFSETS_FILE = "chunk_offsets.npy"
EMBEDDINGS_FILE = "embeddings.npy"
EMBEDDING_KEYS_FILE = "embedding_keys.npy"
VECTORS_FILE = "vectors.faiss"
WINDOW_OFFSETS_FILE = "window_offsets.npy"
WINDOW_VECTORS_FILE = "window_vectors.npy"
WINDOW_KEYS_FILE = "window_keys.npy"
BM25_DIR = "bm25"
GRAPH_FILE = "graph.jsonl"
SEGMENTS_DIR = "segments"
DOCS_FILE = "docs.json"
PLACES_FILE = "places.npy"
PLACE_STRINGS_FILE = "place_strings.bin"
PLACE_OFFSETS_FILE = "place_offsets.npy"
# inside bm25/: the vocabulary, k1/b and counts, one .npy per posting array, and (a segment
# written as a whole build) the precomputed posting weights
BM25_VOCAB_FILE = "vocab.json"
BM25_PARAMS_FILE = "params.json"
BM25_WEIGHTS_FILE = "weights.npy"
DELETED_ROWS_FILE = "deleted_rows.npy"
DELETED_STATS_FILE = "deleted.json"
# The files of a segment that a later build may mask differently (all others never change).
DELETION_FILES = (DELETED_ROWS_FILE, DELETED_STATS_FILE)
