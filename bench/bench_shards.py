"""Sharded vs one index on the same generated tree, in one run (issue 25, small scale).

Builds the tree once as one index (`docmill ingest SRC --index single`) and once as N shards
(`docmill ingest SRC --index root --shards N`), then times the public call
`open_index(...).search(q, k=10, mode=...)` on: the single index, the sharded root searched in
process, and the same root with one Dask actor per shard on a LocalCluster of N worker processes
(127.0.0.1). Reports p50/p99 per mode, BM25 top-10 equality (ids and max score difference) and
hybrid top-10 overlap against the single index, and each shard's build time.

    PYTHONPATH=. .venv/bin/python bench/bench_shards.py --files 300 --shards 4 --queries 200
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

SYLLABLES = ["ka", "lo", "mi", "nu", "pe", "ro", "sa", "ti", "vu", "ze", "bra", "cle", "dro", "fi", "gu"]
ENGLISH = [
    *("cache", "network", "storage", "billing", "backup", "logging", "search", "install", "cluster"),
    *("index", "query", "shard", "replica", "timeout", "retry", "quota", "token", "schema"),
    *("migration", "upgrade", "release", "driver", "kernel", "memory", "disk", "latency"),
]


def vocabulary(size: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))))
    return sorted(words)


def write_tree(root: Path, files: int, seed: int = 7) -> list[str]:
    """Markdown files of Zipf-distributed made-up words plus English topic words; returns the vocabulary."""
    rng = random.Random(seed)
    words = vocabulary(3000, seed)
    weights = [1.0 / (rank + 20) ** 1.1 for rank in range(len(words))]
    for i in range(files):
        topic = ENGLISH[i % len(ENGLISH)]
        lines = [f"# {topic.title()} {i}", ""]
        for _ in range(rng.randint(2, 5)):
            body = rng.choices(words, weights, k=rng.randint(40, 120)) + [topic] * rng.randint(1, 4)
            rng.shuffle(body)
            lines += [" ".join(body) + ".", ""]
        path = root / f"part{i % 8}" / f"{topic}-{i}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines), encoding="utf-8")
    return words


def make_queries(words: list[str], count: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    head = words[:600]
    return [" ".join(rng.sample(head, rng.randint(2, 4)) + [rng.choice(ENGLISH)]) for _ in range(count)]


def timed(index, queries: list[str], mode: str) -> tuple[list[float], list]:
    times, results = [], []
    for query in queries:
        started = time.perf_counter()
        results.append(index.search(query, k=10, mode=mode))
        times.append((time.perf_counter() - started) * 1000)
    return times, results


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def compare(single: list, other: list) -> dict[str, float]:
    same_ids = sum(
        [h.chunk.id for h in a] == [h.chunk.id for h in b] for a, b in zip(single, other, strict=True)
    )
    diffs = [
        abs(x.score - y.score) for a, b in zip(single, other, strict=True) for x, y in zip(a, b, strict=False)
    ]
    overlaps = [
        len({h.chunk.id for h in a} & {h.chunk.id for h in b}) / len(a.hits)
        for a, b in zip(single, other, strict=True)
        if a.hits
    ]
    return {
        "identical_top10": same_ids / len(single),
        "max_score_diff": max(diffs or [0.0]),
        "top10_overlap": statistics.fmean(overlaps) if overlaps else 1.0,
        "partial": sum(bool(getattr(b, "partial", False)) for b in other),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--no-dask", action="store_true")
    args = parser.parse_args()

    import docmill
    from docmill.cli import main as cli
    from docmill.sharded import open_sharded
    from indexers.build.shards import RootManifest
    from indexers.dense.embedder import Embedder

    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench-shards-"))
    shutil.rmtree(work / "src", ignore_errors=True)
    words = write_tree(work / "src", args.files)
    queries = make_queries(words, args.queries)
    out: dict = {"files": args.files, "shards": args.shards, "queries": len(queries)}
    started = time.perf_counter()
    cli(["ingest", str(work / "src"), "--index", str(work / "single"), "--json"])
    out["build_single_s"] = round(time.perf_counter() - started, 1)
    started = time.perf_counter()
    cli(["ingest", str(work / "src"), "--index", str(work / "root"), "--shards", str(args.shards), "--json"])
    out["build_sharded_s"] = round(time.perf_counter() - started, 1)
    manifest = RootManifest.read(work / "root")
    out["chunks_per_shard"] = {e.name: e.chunks for e in manifest.shards}

    embedder = Embedder(query_cache_size=0)  # every index pays for its query embeddings
    indexes = {}
    for name, opener in (
        ("single", lambda: docmill.open_index(work / "single", embedder=embedder)),
        ("sharded-local", lambda: docmill.open_index(work / "root", embedder=embedder)),
    ):
        started = time.perf_counter()
        indexes[name] = opener()
        out[f"open_{name}_s"] = round(time.perf_counter() - started, 3)
    cluster = client = None
    if not args.no_dask:
        import distributed

        cluster = distributed.LocalCluster(
            n_workers=args.shards,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        )
        client = distributed.Client(cluster)
        started = time.perf_counter()
        indexes["sharded-dask"] = open_sharded(work / "root", embedder=embedder, client=client, timeout=30.0)
        out["open_sharded-dask_s"] = round(time.perf_counter() - started, 3)
    for index in indexes.values():  # warm: model, chunk files, filters' caches
        timed(index, queries[:10], "hybrid")
    for mode in ("bm25", "hybrid"):
        results: dict[str, list] = {name: [] for name in indexes}
        times: dict[str, list[float]] = {name: [] for name in indexes}
        for query in queries:  # interleaved: the machine's load hits every index alike
            for name, index in indexes.items():
                spent, found = timed(index, [query], mode)
                times[name] += spent
                results[name] += found
        for name in indexes:
            out[f"{mode}_{name}_p50_ms"] = round(pct(times[name], 0.5), 2)
            out[f"{mode}_{name}_p99_ms"] = round(pct(times[name], 0.99), 2)
        for name in results:
            if name != "single":
                out[f"{mode}_{name}_vs_single"] = compare(results["single"], results[name])
    if client is not None:
        client.close()
        cluster.close()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
