"""``open_index`` on a generated 100k-chunk index: wall time and RSS growth vs the index's size on
disk, each open in a fresh subprocess. Peer: loading the same files eagerly (FAISS read into
memory, BM25 arrays and offsets with np.load, chunks.jsonl read), the no-mmap way.

The index is written with the real writer (flows.pipeline.build_index: one segment) from random
tokens and random unit vectors; no model is needed. Cached under .docmill-cache/bench/.

    PYTHONPATH=. .venv/bin/python bench/bench_open.py [--chunks 100000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import BENCH_CACHE, current_rss_mib, median, run_child, table  # noqa: E402
from indexers.build.files import BM25_DIR, CHUNKS_FILE, OFFSETS_FILE, SEGMENTS_DIR, VECTORS_FILE  # noqa: E402


def generate(root: Path, n: int, dim: int = 384, seed: int = 7) -> Path:
    import numpy as np

    from chunkers.model import Chunk, chunk_id
    from flows.config import IngestConfig
    from flows.pipeline import build_index
    from indexers.build.manifest import DocumentRecord
    from indexers.build.store import IndexStore

    store = IndexStore(root)
    if store.current_name() is not None:
        return root
    rng = np.random.default_rng(seed)
    vocab = [f"term{i}" for i in range(30_000)]
    # Zipf-like term frequencies, ~60 tokens per chunk.
    picks = np.minimum(rng.zipf(1.3, size=(n, 60)) - 1, len(vocab) - 1)
    chunks = []
    for row in range(n):
        text = " ".join(vocab[t] for t in picks[row])
        doc = f"docs/file{row // 20:05d}.md"
        chunks.append(Chunk(chunk_id(doc, row % 20, text), doc, doc, "text", text, text, ("Heading",)))
    vectors = rng.standard_normal((n, dim), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    paths = sorted({c.path for c in chunks})
    records = [DocumentRecord(p, "0" * 64, 0, "markdown", "indexed", chunks=20) for p in paths]
    embedding = {"model": "all-MiniLM-L6-v2", "dim": dim, "normalized": True}
    fusion = {"method": "none", "weights": {"bm25": 1.0, "vector": 1.0}}
    with store.lock():
        folder = build_index(
            store,
            chunks,
            vectors,
            records,
            IngestConfig(vector_index="flat"),
            ["generated"],
            embedding,
            reuse_fusion=fusion,
        )
        store.publish(folder)
    return root


def child(kind: str, root: str) -> None:
    import faiss  # noqa: F401  (imports are not what is measured)
    import numpy as np

    import docmill
    from indexers.build.store import IndexStore

    build = IndexStore(root).current_build()
    before = current_rss_mib()
    started = time.perf_counter()
    if kind == "docmill":
        index = docmill.open_index(root)
        opened = time.perf_counter() - started
        index.search("term1 term17 term230", k=10, mode="bm25", abstain=False)
    else:
        from indexers.dense.embedder import load_faiss

        segment = next((build / SEGMENTS_DIR).iterdir())  # one segment: a full build
        kept = [load_faiss(segment / VECTORS_FILE, mmap=False), (segment / CHUNKS_FILE).read_bytes()]
        kept += [np.load(p) for p in sorted((segment / BM25_DIR).glob("*.npy"))]
        kept.append(np.load(segment / OFFSETS_FILE))
        opened = time.perf_counter() - started
    first_query = time.perf_counter() - started
    print(
        json.dumps(
            {"open_s": opened, "with_query_s": first_query, "rss_growth_mib": current_rss_mib() - before}
        )
    )


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(*args.child)
        return ""
    root = BENCH_CACHE / f"open-{args.chunks}-segments"
    generate(root, args.chunks)
    from indexers.build.store import IndexStore

    build = IndexStore(root).current_build()
    disk = sum(p.stat().st_size for p in build.rglob("*") if p.is_file()) / 2**20
    runs: dict[str, list[dict[str, float]]] = {"docmill": [], "eager": []}
    for i in range(args.repeat):
        for kind in ["docmill", "eager"] if i % 2 == 0 else ["eager", "docmill"]:
            runs[kind].append(run_child([__file__, "--child", kind, str(root)]))
    ours, peer = runs["docmill"], runs["eager"]
    o_open, p_open = median([r["open_s"] for r in ours]), median([r["open_s"] for r in peer])
    o_rss, p_rss = median([r["rss_growth_mib"] for r in ours]), median([r["rss_growth_mib"] for r in peer])
    rows = [
        (
            "docmill open_index (mmap)",
            o_open * 1000,
            median([r["with_query_s"] for r in ours]) * 1000,
            o_rss,
            o_rss / disk,
            p_open / o_open,
        ),
        ("eager load of the same files (peer)", p_open * 1000, "-", p_rss, p_rss / disk, 1.0),
    ]
    report = "\n".join(
        [
            f"{args.chunks:,} generated chunks, index {disk:,.0f} MiB on disk; median of {args.repeat} fresh "
            "subprocesses each, alternated.",
            "",
            table(
                [
                    "open",
                    "ms",
                    "ms incl. first BM25 query",
                    "RSS growth MiB",
                    "RSS growth / disk size",
                    "speed-up vs eager",
                ],
                rows,
            ),
        ]
    )
    print(report)
    return report


if __name__ == "__main__":
    main()
