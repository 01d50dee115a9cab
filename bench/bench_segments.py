"""One changed file at scale: the next build by segments (flows.pipeline.publish_changes) against
the full BM25 + vector build of the same synthetic corpus (flows.pipeline.build_index), model
loading excluded (the vectors are given).

Chunks of ~60 Zipf-distributed words, 10 per file; unit vectors (flat FAISS unless --vector-index;
for flat the build cost does not depend on what the vectors look like). The full build is timed
from its chunks and vectors to the published build; so is the incremental one, which masks the
file's old chunks, writes one 10-chunk segment and hard-links the rest.

    .venv/bin/python bench/bench_segments.py [--chunks 1000000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

PER_FILE = 10


def corpus(n: int, seed: int = 3) -> tuple[list, np.ndarray]:
    from chunkers.model import Chunk, chunk_id

    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(50_000)])
    weights = 1 / np.arange(1, len(vocab) + 1)
    lengths = rng.integers(20, 100, size=n)
    words = vocab[rng.choice(len(vocab), size=int(lengths.sum()), p=weights / weights.sum())]
    chunks, start = [], 0
    for row, length in enumerate(lengths.tolist()):
        text = " ".join(words[start : start + length].tolist())
        start += length
        path = f"tree/f{row // PER_FILE:07d}.md"
        chunks.append(Chunk(chunk_id(path, row % PER_FILE, text), path, path, "text", text, text))
    vectors = rng.standard_normal((n, 384), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return chunks, vectors


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--vector-index", default="flat")
    parser.add_argument("--keep", help="keep the index in this folder")
    args = parser.parse_args()

    from flows.config import IngestConfig
    from flows.pipeline import build_index, publish, publish_changes
    from indexers.build.manifest import DocumentRecord
    from indexers.build.store import IndexStore

    started = time.perf_counter()
    chunks, vectors = corpus(args.chunks)
    print(f"{len(chunks)} chunks generated in {time.perf_counter() - started:.0f} s")
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="docmill-segments-"))
    shutil.rmtree(work, ignore_errors=True)
    config = IngestConfig(model="synthetic", vector_index=args.vector_index)
    paths = sorted({c.path for c in chunks})
    records = [DocumentRecord(p, "0" * 64, 0, "markdown", "indexed", chunks=PER_FILE) for p in paths]
    fusion = {"method": "none", "weights": {"bm25": 1.0, "vector": 1.0}}
    embedding = {"model": "synthetic", "dim": 384, "normalized": True, "backend": "torch"}
    store = IndexStore(work)
    started = time.perf_counter()
    with store.lock():
        folder = build_index(
            store, chunks, vectors, records, config, ["tree"], embedding, reuse_fusion=fusion
        )
        publish(store, folder, 3)
    full_s = time.perf_counter() - started
    print(f"full BM25 + vector build: {full_s:.1f} s ({len(chunks) / full_s:,.0f} chunks/s)")

    rng = np.random.default_rng(5)
    victim = [c for c in chunks[len(chunks) // 2 : len(chunks) // 2 + PER_FILE]]
    changed = [
        type(c)(c.id, c.doc_id, c.path, c.kind, c.text + " edited", c.index_text + " edited") for c in victim
    ]
    new_vectors = rng.standard_normal((len(changed), 384), dtype=np.float32)
    new_vectors /= np.linalg.norm(new_vectors, axis=1, keepdims=True)
    del chunks, vectors
    started = time.perf_counter()
    build = publish_changes(work, changed, new_vectors, config=config)
    one_s = time.perf_counter() - started
    written = sum(p.stat().st_size for p in build.rglob("*") if p.is_file() and p.stat().st_nlink == 1)
    print(
        f"one changed file ({len(changed)} chunks): {one_s:.2f} s = {one_s / full_s:.1%} of the full build; "
        f"{written / 2**20:.1f} MiB written, the rest hard-linked"
    )
    for label, build_folder in (("full build", folder), ("after one change", build)):
        opened, p50 = open_and_query(work, build_folder)
        print(f"{label}: open_build {opened:.2f} s, BM25 search p50 {p50:.2f} ms (k=10, 200 queries)")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


class _NoModel:
    """Stands in for the embedder: these builds' vectors were given, BM25 needs no model."""

    model_name, backend = "synthetic", "torch"


def open_and_query(root: Path, build: Path) -> tuple[float, float]:
    from docmill.opening import open_build

    started = time.perf_counter()
    index = open_build(root, build, _NoModel())  # type: ignore[arg-type]
    opened = time.perf_counter() - started
    rng = np.random.default_rng(9)
    queries = [" ".join(f"w{int(t)}" for t in rng.zipf(1.2, size=4) % 50_000) for _ in range(200)]
    samples = []
    for query in queries:
        started = time.perf_counter()
        index.search(query, k=10, mode="bm25", abstain=False)
        samples.append(time.perf_counter() - started)
    index.close()
    return opened, 1000 * float(np.median(samples))


if __name__ == "__main__":
    main()
