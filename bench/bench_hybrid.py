"""The public hybrid call on SciFact, p50 over 300 queries, and where its time goes.

First the public call as users make it: ``docmill.open_index(...).search(q, k=10)`` (hybrid, its
defaults: fetch_k=100 per retriever, the readability check, RRF with the calibrated weights,
abstain check, k hits hydrated), query-embedding cache off so every query is embedded. Then, in
the same run and alternated per query with it, the same steps one by one through the same
internal calls the search makes, each timed on its own:

    tokenize   the index's tokenizer (its query-term LRU cache bypassed)
    bm25       BM25Index.search over the tokens, fetch_k
    readable   the embedding model's unknown-token share of the query (the vector side's gate)
    embed      Embedder.encode_query (the ONNX query path by default)
    faiss      the build's vector segments searched (search_faiss per segment), fetch_k
    abstain    evidence + confidence from the two result lists
    fusion     RRF over both lists, kind floor / test-code demotion, no hydration
    hydrate    the k returned chunks read from chunks.jsonl by row, plus the per-hit explanations

The stage sum is reported beside the public p50: a large gap would be time spent outside these
steps. The breakdown is a re-run of the steps, not a trace of the public calls, and is labelled so.

    PYTHONPATH=. .venv/bin/python bench/bench_hybrid.py [--queries 300] [--index DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from bench.bench_query import scifact_index  # noqa: E402
from bench.common import SCIFACT, load_jsonl, median, percentile, table  # noqa: E402

STAGES = ("tokenize", "bm25", "readable", "embed", "faiss", "abstain", "fusion", "hydrate")


def stage_runner(index: Any, k: int = 10, fetch_k: int = 100) -> Callable[[str], dict[str, float]]:
    """One query through the hybrid steps, each timed (ms); the results feed the next step as in
    HybridIndex.search."""
    from indexers.ranking import policy
    from indexers.ranking.fusion import promote, rrf

    embedder = index.embedder
    weights = index.fusion_weights
    rrf_k = index.fusion_rrf_k

    def run(query: str) -> dict[str, float]:
        times: dict[str, float] = {}
        clock = time.perf_counter()

        def lap(name: str) -> None:
            nonlocal clock
            now = time.perf_counter()
            times[name] = (now - clock) * 1000
            clock = now

        terms = tuple(index.tokenizer(query))
        lap("tokenize")
        bm25 = index.bm25.search(terms, fetch_k)
        lap("bm25")
        index.query_unknown_share(query)
        lap("readable")
        vector = embedder.encode_query(query)
        lap("embed")
        hits = index.vectors.search(vector, fetch_k)
        lap("faiss")
        results = {"bm25": bm25.hits, "vector": hits}
        lexical, cosine = index.evidence(query, results, bm25.df)
        index.abstain_model.confidence(lexical, cosine)
        index.abstain_model.reason(lexical, cosine)
        lap("abstain")
        ranking = rrf({n: [row for row, _ in pairs] for n, pairs in results.items()}, rrf_k, weights)
        ranking = promote(ranking, list(results), index._exact_rows(query, bm25.hits, bm25.df), weights)
        lap("fusion")
        fusion = policy.Fusion("rrf", rrf_k)  # the RRF timed above
        index._rank(query, results, k, fusion, weights, 1.0, df=bm25.df)  # again + collapse + hydration
        lap("hydrate")
        times["hydrate"] = max(0.0, times["hydrate"] - times["fusion"])
        return times

    return run


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=300, help="SciFact queries timed (of 809)")
    parser.add_argument("--index", type=Path, default=None)
    args = parser.parse_args(argv)

    import docmill
    from indexers.dense.embedder import Embedder

    path = scifact_index(args.index)
    queries = [q["text"] for q in load_jsonl(SCIFACT / "queries.jsonl")][: args.queries]
    index = docmill.open_index(path, embedder=Embedder(query_cache_size=0))
    index.chunks._all = None  # hydrate by row from the file, as an index opened for queries does
    index.search(queries[0], k=10)  # model load + ONNX session off the clock
    stages = stage_runner(index)
    stages(queries[0])

    public: list[float] = []
    per_stage: dict[str, list[float]] = {name: [] for name in STAGES}
    for i, query in enumerate(queries):
        index._terms.cache_clear()  # every query tokenised, as a new query would be
        order = (0, 1) if i % 2 == 0 else (1, 0)
        for which in order:
            if which == 0:
                started = time.perf_counter()
                index.search(query, k=10)
                public.append((time.perf_counter() - started) * 1000)
            else:
                for name, ms in stages(query).items():
                    per_stage[name].append(ms)
    total = [sum(per_stage[name][i] for name in STAGES) for i in range(len(queries))]
    lines = [
        f"SciFact index {path.name}: {len(index):,} chunks; {len(queries)} queries, hybrid, k=10, "
        f"fetch_k=100, query path {index.embedder.query_path}, query cache off.\n",
        table(
            ["public call", "p50 ms", "p95 ms"],
            [("docmill search(q, k=10) (hybrid, public)", median(public), percentile(public, 95))],
        ),
        "\nStage breakdown (the same internal calls re-run one by one, alternated with the public call; "
        "not a trace of it):\n",
        table(
            ["stage", "p50 ms", "p95 ms", "share of stage-sum p50"],
            [
                (name, median(ms), percentile(ms, 95), median(ms) / median(total))
                for name, ms in per_stage.items()
            ]
            + [("sum of stages", median(total), percentile(total, 95), 1.0)],
        ),
    ]
    out = "\n".join(lines)
    print(out)
    return out


if __name__ == "__main__":
    main()
