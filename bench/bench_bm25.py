"""Build and query speed of docmill's BM25 against bm25s and rank_bm25 on SciFact, one thread.

All three get the same token lists (our tokenizer, run once), so only indexing and scoring are
timed. Prints a Markdown table. A script, not a test:

    PYTHONPATH=. .venv/bin/python bench/bench_bm25.py [--corpus DIR] [--rank-bm25-queries 100]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before numpy: keep every library on one thread

import numpy as np  # noqa: E402

from indexers.lexical.bm25 import BM25Index, BM25Params  # noqa: E402
from indexers.lexical.tokenize import Tokenizer  # noqa: E402

DEFAULT_CORPUS = Path("/work/shared/eval/retrieval/scifact")
TOP_K = 100
AGREEMENT_K = 10


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def timed(fn: Callable[[], Any], repeat: int = 1) -> tuple[Any, float]:
    """Best of ``repeat`` runs: the cores are shared, so the minimum is the least noisy estimate."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return result, best


def docmill_run(
    docs: Sequence[list[str]], queries: Sequence[list[str]], params: BM25Params, repeat: int
) -> tuple[list[list[int]], float, float]:
    index, build_s = timed(lambda: BM25Index.build(docs, params), repeat)
    hits, query_s = timed(lambda: [[d for d, _ in index.top_k(q, TOP_K)] for q in queries], repeat)
    return hits, build_s, query_s


def bm25s_run(
    docs: Sequence[list[str]], queries: Sequence[list[str]], params: BM25Params, repeat: int
) -> tuple[list[list[int]], float, float]:
    import bm25s

    def build() -> Any:
        model = bm25s.BM25(method="lucene", k1=params.k1, b=params.b)
        model.index(list(docs), show_progress=False)
        return model

    model, build_s = timed(build, repeat)
    # bm25s raises on a query with no known term unless it is given a vocabulary hit; "" is its empty token.
    known = [[t for t in q if t in model.vocab_dict] or [""] for q in queries]
    (ids, scores), query_s = timed(
        lambda: model.retrieve(known, k=TOP_K, show_progress=False, n_threads=0), repeat
    )
    hits = [
        [int(d) for d, s in zip(row, srow, strict=True) if s > 0]
        for row, srow in zip(ids, scores, strict=True)
    ]
    return hits, build_s, query_s


def rank_bm25_run(
    docs: Sequence[list[str]], queries: Sequence[list[str]], params: BM25Params
) -> tuple[float, float]:
    from rank_bm25 import BM25Okapi

    model, build_s = timed(lambda: BM25Okapi(list(docs), k1=params.k1, b=params.b))
    _, query_s = timed(lambda: [np.argpartition(-model.get_scores(q), TOP_K)[:TOP_K] for q in queries])
    return build_s, query_s


def agreement(ours: list[list[int]], theirs: list[list[int]], k: int) -> tuple[float, float]:
    """(share of queries with identical top-k sets, mean |overlap| / k)."""
    same = overlap = 0.0
    for a, b in zip(ours, theirs, strict=True):
        top_a, top_b = set(a[:k]), set(b[:k])
        same += top_a == top_b
        overlap += len(top_a & top_b) / max(len(top_a | top_b), 1) if top_a | top_b else 1.0
    return same / len(ours), overlap / len(ours)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rank-bm25-queries", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3, help="best of N for docmill and bm25s")
    args = parser.parse_args()

    tokenizer = Tokenizer()
    corpus = read_jsonl(args.corpus / "corpus.jsonl")
    query_texts = [q["text"] for q in read_jsonl(args.corpus / "queries.jsonl")]
    texts = [f"{d.get('title', '')} {d['text']}" for d in corpus]
    docs, tokenize_s = timed(lambda: [tokenizer(t) for t in texts])
    queries = [tokenizer(t) for t in query_texts]
    n_tokens = sum(map(len, docs))
    megabytes = sum(len(t.encode()) for t in texts) / 1e6
    params = BM25Params()

    ours, our_build, our_query = docmill_run(docs, queries, params, args.repeat)
    theirs, bm25s_build, bm25s_query = bm25s_run(docs, queries, params, args.repeat)
    subset = queries[: args.rank_bm25_queries]
    rank_build, rank_query = rank_bm25_run(docs, subset, params)
    same, jaccard = agreement(ours, theirs, AGREEMENT_K)

    n_docs, n_queries = len(docs), len(queries)
    print(f"SciFact: {n_docs} docs, {n_tokens} tokens ({megabytes:.1f} MB), {n_queries} queries, top-{TOP_K}")
    print(
        f"tokenizer {tokenizer.to_dict()}: {tokenize_s:.2f} s, "
        f"{megabytes / tokenize_s:.2f} MB/s, {n_tokens / tokenize_s / 1e6:.2f} M tokens/s\n"
    )
    rows = [
        ("docmill", n_docs / our_build, n_queries / our_query),
        ("bm25s (lucene, numpy)", n_docs / bm25s_build, n_queries / bm25s_query),
        (f"rank_bm25 Okapi ({len(subset)} queries)", n_docs / rank_build, len(subset) / rank_query),
    ]
    print("| library | build docs/s | queries/s | docmill build x | docmill query x |")
    print("|---|---:|---:|---:|---:|")
    for name, build_rate, query_rate in rows:
        print(
            f"| {name} | {build_rate:,.0f} | {query_rate:,.0f} | "
            f"{rows[0][1] / build_rate:.2f} | {rows[0][2] / query_rate:.2f} |"
        )
    print(
        f"\ntop-{AGREEMENT_K} vs bm25s: identical sets for {same:.1%} of queries, mean Jaccard {jaccard:.4f}"
    )


if __name__ == "__main__":
    main()
