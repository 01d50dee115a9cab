"""Sharded vs one index at scale (issue 25, "done when"): the synthetic corpus of bench/scale_corpus.py
built once as one index and once as N shards (files assigned by indexers.build.shards.shard_of, as
`docmill ingest --shards N` does), both with flat vectors; the shards searched by Dask actors on a
local cluster of N worker processes (docmill.sharded.open_sharded), the single index in the
coordinator's process, queries interleaved through the public ``search(q, k=10, mode=...)``.

Reports: BM25 top-10 identical (ids, scores within 1e-5), hybrid top-10 overlap, p50/p99 of both,
build time and peak RSS of the single build and of each shard's build (each build in its own
subprocess, so its peak RSS is its own), and the query stage's RSS.

    nice -n 10 env PYTHONPATH=. .venv/bin/python bench/bench_scale.py --shards 4 --sizes 300000
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import current_rss_mib, median, peak_rss_mib, run_child  # noqa: E402
from bench.scale_corpus import CACHE, corpus  # noqa: E402

CHILD_TIMEOUT = 4 * 3600


def single_root(n: int) -> Path:
    return CACHE / f"flat-{n}"


def sharded_root(n: int, shards: int) -> Path:
    return CACHE / f"sharded-{n}-{shards}"


def _build(folder: Path, chunks: list[Any], vectors: Any) -> dict[str, Any]:
    """flows.pipeline.build_index over ``chunks`` with flat vectors, published in ``folder``."""
    import numpy as np

    from bench.bench_scale import _records
    from flows.config import IngestConfig
    from flows.pipeline import build_index, embedding_info, publish
    from indexers.build.store import IndexStore

    shutil.rmtree(folder, ignore_errors=True)
    config = IngestConfig(model="all-MiniLM-L6-v2", vector_index="flat")
    store = IndexStore(folder)
    vectors = np.ascontiguousarray(vectors)
    started = time.perf_counter()
    with store.lock():
        build = build_index(
            store, chunks, vectors, _records(chunks), config, ["generated"], embedding_info(config, vectors)
        )
        publish(store, build, keep_builds=1)
    return {"build_s": time.perf_counter() - started, "rows": len(chunks), "build": build.name}


def child_single(n: int) -> dict[str, Any]:
    from bench.bench_scale import _chunks

    data = corpus(n)
    chunks = _chunks(data.texts(data.vocabulary()))
    out = _build(single_root(n), chunks, data.vectors())
    return {**out, "peak_rss_mib": peak_rss_mib()}


def child_shard(n: int, shard: int, shards: int) -> dict[str, Any]:
    """Shard ``shard``'s chunks: those of the files shard_of assigns to it, in row order. Only
    this shard's texts are made, so the peak RSS is this shard's build's (plus the vocabulary)."""
    import numpy as np

    from bench.scale_corpus import CHUNKS_PER_FILE
    from indexers.build.shards import SHARDS_DIR, shard_name, shard_of

    data = corpus(n)
    files = -(-n // CHUNKS_PER_FILE)
    owned = np.asarray([shard_of(f"docs/file{f:06d}.md", shards) == shard for f in range(files)])
    rows = np.flatnonzero(np.repeat(owned, CHUNKS_PER_FILE)[:n])
    vocabulary = data.vocabulary()
    lookup = np.array([vocabulary.get(r, "") for r in range(max(vocabulary) + 1)], dtype=object)
    del vocabulary
    tokens = data.tokens()
    bounds = np.concatenate([[0], np.cumsum(data.lengths(), dtype=np.int64)])
    texts = [" ".join(lookup[np.asarray(tokens[bounds[r] : bounds[r + 1]])].tolist()) for r in rows.tolist()]
    del lookup
    mine = _chunks_at(texts, rows)
    vectors = np.asarray(data.vectors()[rows])
    folder = sharded_root(n, shards) / SHARDS_DIR / shard_name(shard)
    out = _build(folder, mine, vectors)
    return {**out, "peak_rss_mib": peak_rss_mib()}


def _chunks_at(texts: list[str], rows: Any) -> list[Any]:
    """bench_scale._chunks for the corpus rows ``rows`` (the same ids, paths and positions)."""
    from bench.bench_scale import _chunks

    return [_chunks([text], first_row=row)[0] for text, row in zip(texts, rows.tolist(), strict=True)]


def child_reindex(n: int) -> dict[str, Any]:
    """One file of the single index re-indexed (bench_scale.incremental_one_file: a new segment,
    the old chunks masked, published), then open_index timed in fresh processes."""
    import numpy as np

    from bench.bench_scale import incremental_one_file
    from bench.scale_corpus import CHUNKS_PER_FILE
    from flows.config import IngestConfig
    from indexers.build.store import IndexStore

    data = corpus(n)
    vocabulary = data.vocabulary()
    tokens, lengths = data.tokens(), data.lengths()[:CHUNKS_PER_FILE]
    bounds = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])
    texts = [
        " ".join(vocabulary[int(t)] for t in tokens[bounds[i] : bounds[i + 1]]) for i in range(len(lengths))
    ]
    chunks = _chunks_at(texts, np.arange(len(texts)))
    config = IngestConfig(model="all-MiniLM-L6-v2", vector_index="flat")
    out = incremental_one_file(IndexStore(single_root(n)), chunks, data.vectors()[: len(chunks)], config)
    here = str(Path(__file__).resolve())
    out["opens"] = [run_child([here, "open", str(n)]) for _ in range(3)]
    return out


def child_open(n: int) -> dict[str, Any]:
    import faiss  # noqa: F401  (imports are not what is measured)

    import docmill

    query = _queries(n)[0]  # read before the clock starts
    before = current_rss_mib()
    started = time.perf_counter()
    index = docmill.open_index(single_root(n))
    opened = time.perf_counter() - started
    started = time.perf_counter()
    hits = index.search(query, k=10, mode="bm25").hits  # what opening left for the first query
    first = time.perf_counter() - started
    started = time.perf_counter()
    index.search(query, k=10, mode="bm25")
    return {
        "open_index_s": opened,
        "first_bm25_query_s": first,
        "second_bm25_query_s": time.perf_counter() - started,
        "hits": len(hits),
        "rss_growth_mib": current_rss_mib() - before,
        "segments": len(index.manifest.segments),
        "rows": len(index),
    }


def write_root(n: int, shards: int, builds: list[dict[str, Any]]) -> None:
    from indexers.build.shards import RootManifest

    manifest = RootManifest.new(shards, ["generated"])
    for entry, built in zip(manifest.shards, builds, strict=True):
        entry.build, entry.chunks = built["build"], built["rows"]
    manifest.write(sharded_root(n, shards))


def _queries(n: int) -> list[str]:
    data = corpus(n)
    return [" ".join(words) for words in data.query_words(data.vocabulary())]


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def child_query(n: int, shards: int, queries: int) -> dict[str, Any]:
    """Both indexes searched alternately; the shards on Dask actors of ``shards`` workers."""
    import distributed

    import docmill
    from docmill.sharded import open_sharded
    from indexers.dense.embedder import Embedder

    texts = _queries(n)[:queries]
    embedder = Embedder("all-MiniLM-L6-v2")
    rss0 = current_rss_mib()
    started = time.perf_counter()
    single = docmill.open_index(single_root(n), embedder=embedder)
    open_single = time.perf_counter() - started
    cluster = distributed.LocalCluster(
        n_workers=shards, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    )
    with distributed.Client(cluster) as client:
        started = time.perf_counter()
        sharded = open_sharded(sharded_root(n, shards), embedder=embedder, client=client, timeout=120.0)
        open_sharded_s = time.perf_counter() - started
        out = compare(single, sharded, texts)
        workers = client.run(lambda: peak_rss_mib())
    cluster.close()
    out.update(
        open_single_s=open_single,
        open_sharded_s=open_sharded_s,
        coordinator_rss_growth_mib=current_rss_mib() - rss0,
        worker_peak_rss_mib=sorted(workers.values()),
    )
    return out


def compare(single: Any, sharded: Any, texts: list[str]) -> dict[str, Any]:
    times: dict[str, list[float]] = {
        k: [] for k in ("bm25_single", "bm25_sharded", "hybrid_single", "hybrid_sharded")
    }
    same_bm25, max_diff, overlaps, partial = 0, 0.0, [], 0
    for i, text in enumerate(texts):
        for mode in ("bm25", "hybrid"):
            got = {}
            order = (("single", single), ("sharded", sharded))
            for name, index in order if i % 2 == 0 else order[::-1]:
                started = time.perf_counter()
                got[name] = index.search(text, k=10, mode=mode)
                times[f"{mode}_{name}"].append((time.perf_counter() - started) * 1000)
            partial += bool(getattr(got["sharded"], "partial", False))
            a = [(h.chunk.id, h.score) for h in got["single"].hits]
            b = [(h.chunk.id, h.score) for h in got["sharded"].hits]
            if mode == "bm25":
                ids_same = [x for x, _ in a] == [x for x, _ in b]
                diff = max((abs(x - y) for (_, x), (_, y) in zip(a, b, strict=False)), default=0.0)
                same_bm25 += ids_same and diff <= 1e-5
                max_diff = max(max_diff, diff)
            else:
                ids = {x for x, _ in a}
                overlaps.append(len(ids & {x for x, _ in b}) / max(len(ids), 1))
    out: dict[str, Any] = {
        "queries": len(texts),
        "bm25_identical": same_bm25,
        "bm25_max_score_diff": max_diff,
        "hybrid_overlap": sum(overlaps) / max(len(overlaps), 1),
        "partial_answers": partial,
    }
    for key, values in times.items():
        out[f"{key}_p50_ms"], out[f"{key}_p99_ms"] = median(values), _p(values, 0.99)
    return out


def measure(n: int, shards: int, queries: int, log: Any) -> dict[str, Any]:
    """Each build, then the queries, in their own subprocesses, one at a time."""
    here = str(Path(__file__).resolve())
    corpus(n)
    record: dict[str, Any] = {"n": n, "shards": shards}
    log(f"{n}: single build")
    record["single"] = run_child([here, "single", str(n)], timeout=CHILD_TIMEOUT)
    builds = []
    for i in range(shards):
        log(f"{n}: shard {i} build")
        builds.append(run_child([here, "shard", str(n), str(i), str(shards)], timeout=CHILD_TIMEOUT))
    write_root(n, shards, builds)
    record["shard_builds"] = builds
    log(f"{n}: queries")
    record["query"] = run_child([here, "query", str(n), str(shards), str(queries)], timeout=CHILD_TIMEOUT)
    return record


def report(record: dict[str, Any]) -> str:
    q, s = record["query"], record["single"]
    shard_s = [b["build_s"] for b in record["shard_builds"]]
    shard_rss = [round(b["peak_rss_mib"]) for b in record["shard_builds"]]
    rows = [
        f"| BM25 p50 / p99 (ms) | {q['bm25_single_p50_ms']:.2f} / {q['bm25_single_p99_ms']:.2f} | "
        f"{q['bm25_sharded_p50_ms']:.2f} / {q['bm25_sharded_p99_ms']:.2f} |",
        f"| hybrid p50 / p99 (ms) | {q['hybrid_single_p50_ms']:.1f} / {q['hybrid_single_p99_ms']:.1f} | "
        f"{q['hybrid_sharded_p50_ms']:.1f} / {q['hybrid_sharded_p99_ms']:.1f} |",
        f"| BM25 top-10 identical (scores within 1e-5) | | {q['bm25_identical']} / {q['queries']}, "
        f"max diff {q['bm25_max_score_diff']:.2g} |",
        f"| hybrid top-10 overlap with one index | | {q['hybrid_overlap']:.3f} |",
        f"| partial answers | | {q['partial_answers']} |",
        f"| build (s) | {s['build_s']:.0f} | {' / '.join(f'{x:.0f}' for x in shard_s)} |",
        f"| build peak RSS (MiB) | {s['peak_rss_mib']:.0f} | {' / '.join(map(str, shard_rss))} |",
        f"| open (s) | {q['open_single_s']:.2f} | {q['open_sharded_s']:.2f} (actors start) |",
        f"| query-time RSS (MiB): coordinator growth / workers' peaks | "
        f"{q['coordinator_rss_growth_mib']:.0f} | "
        f"{' / '.join(str(round(x)) for x in q['worker_peak_rss_mib'])} |",
    ]
    head = (
        f"{record['n']:,} chunks: one index vs {record['shards']} shards on {record['shards']} Dask workers"
    )
    return "\n".join([head, "", "| | one index | shards |", "|---|---:|---:|", *rows])


def main(argv: list[str]) -> None:
    kind, *args = argv
    n = int(args[0])
    if kind == "single":
        out = child_single(n)
    elif kind == "shard":
        out = child_shard(n, int(args[1]), int(args[2]))
    elif kind == "reindex":
        out = child_reindex(n)
    elif kind == "open":
        out = child_open(n)
    elif kind == "query":
        out = child_query(n, int(args[1]), int(args[2]))
    else:
        raise SystemExit(f"unknown child {kind}")
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
