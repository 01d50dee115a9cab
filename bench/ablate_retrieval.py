"""Retrieval ablations on a BEIR set, reusing the cached eval index (`docmill eval` builds it).

Tokenizer variants rebuild only the BM25 side in memory (the vectors do not depend on the
tokenizer); fusion variants change search options. Prints one Markdown table.

    .venv/bin/python bench/ablate_retrieval.py --beir ../shared/eval/retrieval/scifact --split train
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import docmill  # noqa: E402
from docmill.eval.runner import ensure_index, evaluate, load_beir  # noqa: E402
from indexers.lexical.bm25 import BM25Index, BM25Params  # noqa: E402
from indexers.lexical.tokenize import Tokenizer  # noqa: E402

TOKENIZERS = {
    "default": {},
    "stem": {"stem": True},
    "no-stopwords": {"stopwords": False},
    "no-identifier-split": {"split_identifiers": False},
}
FUSIONS = {
    "rrf k=60": {},
    "rrf k=10": {"rrf_k": 10},
    "rrf k=100": {"rrf_k": 100},
    "bm25 w=0.5": {"weights": {"bm25": 0.5}},
    "vector w=0.5": {"weights": {"vector": 0.5}},
    "calibrated": None,  # weights from indexers.ranking.calibrate on this index (what a fresh build stores)
}


def calibrated_weights(index) -> dict:

    from indexers.ranking.calibrate import calibrate_fusion

    vectors = index.embeddings()
    result = calibrate_fusion(index.chunks.all(), index.bm25, index.tokenizer, vectors, index.embedder.encode)
    print(f"calibration: {result}", file=sys.stderr)
    return {"weights": result["weights"]}


def memoize_query_embeddings(index) -> None:
    """Every variant asks for the same query vectors: compute each once (ablations only)."""
    encode, memo = index.embedder.encode, {}

    def cached(texts):
        import numpy as np

        if len(texts) != 1:
            return encode(texts)
        if texts[0] not in memo:
            memo[texts[0]] = encode(texts)[0]
        return np.asarray([memo[texts[0]]])

    index.embedder.encode = cached


def swap_bm25(index, options: dict) -> None:
    tokenizer = Tokenizer.from_dict({**Tokenizer().to_dict(), **options})
    chunks = index.chunks.all()
    index.tokenizer = tokenizer
    index.bm25 = BM25Index.build([tokenizer(c.index_text) for c in chunks], BM25Params(**index.manifest.bm25))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--beir", required=True)
    parser.add_argument("--split", default="dev")
    parser.add_argument("--cache", default=".docmill-cache/eval")
    parser.add_argument("--tokenizers", default=",".join(TOKENIZERS))
    parser.add_argument("--fusions", default=",".join(FUSIONS))
    parser.add_argument("--max-queries", type=int, default=0)
    parser.add_argument("--index", help="use this index folder as it is (default: the eval cache)")
    args = parser.parse_args()
    data = load_beir(args.beir, args.split)
    if args.max_queries:
        data = dataclasses.replace(data, queries=dict(list(data.queries.items())[: args.max_queries]))
    index = docmill.open_index(args.index or ensure_index(data, Path(args.cache)))
    memoize_query_embeddings(index)
    print(f"{data.name} ({args.split}), {len(data.queries)} queries")
    print("| tokenizer | fusion | bm25 nDCG@10 | hybrid nDCG@10 | hybrid R@100 | seconds |")
    print("|---|---|---:|---:|---:|---:|")
    for tok_name in args.tokenizers.split(","):
        swap_bm25(index, TOKENIZERS[tok_name])
        bm25 = evaluate(index, data, ("bm25",))["bm25"]["ndcg@10"]
        for fusion_name in args.fusions.split(","):
            started = time.perf_counter()
            options = FUSIONS[fusion_name]
            if options is None:
                options = calibrated_weights(index)
            hybrid = evaluate(index, data, ("hybrid",), search_options=options)["hybrid"]
            print(
                f"| {tok_name} | {fusion_name} | {bm25:.4f} | {hybrid['ndcg@10']:.4f} | "
                f"{hybrid['recall@100']:.4f} | {time.perf_counter() - started:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
