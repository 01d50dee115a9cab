"""Exact BM25 over shards at a size the end-to-end bench (bench_shards.py) cannot embed: the
scorer level only (no chunk store, no vectors, no model), in one process, one run.

A synthetic corpus of ``--chunks`` token lists (Zipf-Mandelbrot words ``p(r) ~ (r + 256) ** -1.8``
as docs/SCALING.md's corpora, 30-150 tokens per chunk) is indexed once as one SegmentedBM25 and
once as ``--shards`` SegmentedBM25s (chunk -> shard by blake2b of its id, as flows/shards.py
assigns files). A sharded query is docmill.sharded's arithmetic: every shard's statistics and df
summed, then each shard's top 10 scored with them (``for_corpus``, ``search(df=)``), merged.
Reports top-10 equality with the single scorer, max score difference, and p50 per query of the
single scorer, of the shards one after another (all the work) and of the slowest shard per query
(what a parallel fan-out waits for, without its transport).

    PYTHONPATH=. .venv/bin/python bench/bench_shards_bm25.py --chunks 200000 --shards 4
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from indexers.build.shards import shard_of
from indexers.lexical.bm25 import BM25Params
from indexers.lexical.segmented import CorpusStats, Deletions, SegmentedBM25, SegmentPostings
from indexers.lexical.term_counts import count_terms_stream


def token_lists(n: int, seed: int = 5, vocab: int = 1 << 20) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    p = (np.arange(vocab) + 256.0) ** -1.8
    cdf = np.cumsum(p / p.sum())
    lengths = rng.integers(30, 151, n)
    ranks = np.minimum(np.searchsorted(cdf, rng.random(int(lengths.sum()))), vocab - 1)
    words = np.array([f"w{r}" for r in range(int(ranks.max()) + 1)], dtype=object)
    flat = words[ranks]
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    return [flat[bounds[i] : bounds[i + 1]].tolist() for i in range(n)]


def scorer(docs: list[list[str]], params: BM25Params) -> SegmentedBM25:
    return SegmentedBM25([(SegmentPostings(count_terms_stream(docs)), Deletions())], params)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=200_000)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    params = BM25Params()
    started = time.perf_counter()
    docs = token_lists(args.chunks)
    generated = time.perf_counter() - started
    members: list[list[int]] = [[] for _ in range(args.shards)]
    for i in range(args.chunks):
        members[shard_of(f"chunk-{i}", args.shards)].append(i)
    started = time.perf_counter()
    single = scorer(docs, params)
    single_build = time.perf_counter() - started
    started = time.perf_counter()
    shards = [scorer([docs[i] for i in rows], params) for rows in members]
    shards_build = time.perf_counter() - started
    rng = np.random.default_rng(9)
    queries = [rng.choice(docs[int(rng.integers(args.chunks))], 6).tolist() for _ in range(args.queries)]
    del docs

    corpus = CorpusStats(sum(s.n_docs for s in shards), sum(s.total_length for s in shards), "bench")
    twins = [s.for_corpus(corpus) for s in shards]  # made once per corpus, as a shard host keeps them

    def sharded(query: list[str]) -> tuple[list[tuple[int, float]], list[float]]:
        """Round 1: each shard's df of the query's terms (N and tokens are fixed here); round 2:
        each shard's top 10 with the summed df; merged by score."""
        spent = [0.0] * len(shards)
        own = []
        for i, s in enumerate(shards):
            t = time.perf_counter()
            own.append(s.document_frequencies(query))
            spent[i] += time.perf_counter() - t
        df: dict[str, int] = {}
        for counts in own:
            for term, count in counts.items():
                df[term] = df.get(term, 0) + count
        merged = []
        for i, twin in enumerate(twins):
            t = time.perf_counter()
            hits = twin.search(query, 10, df=df).hits
            spent[i] += time.perf_counter() - t
            merged += [(members[i][row], score) for row, score in hits]
        merged.sort(key=lambda pair: (-pair[1], pair[0]))
        return merged[:10], spent

    single_ms, all_ms, slowest_ms, same, diff = [], [], [], 0, 0.0
    for query in queries:  # interleaved
        t = time.perf_counter()
        want = single.search(query, 10).hits
        single_ms.append((time.perf_counter() - t) * 1000)
        got, spent = sharded(query)
        all_ms.append(sum(spent) * 1000)
        slowest_ms.append(max(spent) * 1000)
        same += [r for r, _ in want] == [r for r, _ in got]
        diff = max([diff, *(abs(a[1] - b[1]) for a, b in zip(want, got, strict=False))])
    out = {
        "chunks": args.chunks,
        "shards": [len(m) for m in members],
        "generate_s": round(generated, 1),
        "build_single_s": round(single_build, 1),
        "build_shards_s": round(shards_build, 1),
        "top10_identical": f"{same}/{len(queries)}",
        "max_score_diff": diff,
        "p50_single_ms": round(statistics.median(single_ms), 3),
        "p50_shards_sequential_ms": round(statistics.median(all_ms), 3),
        "p50_slowest_shard_ms": round(statistics.median(slowest_ms), 3),
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
