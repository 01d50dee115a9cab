"""Fusion experiments on fixed retriever outputs: each query's BM25 and vector top-100 chunk lists
are computed once per dataset (cached as JSON next to the eval index), then fusion rules are scored
in pure Python (document-level nDCG@10, as `docmill eval`).

    .venv/bin/python bench/fusion_lab.py --beir ../shared/eval/retrieval/cosqa --split dev --index DIR
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import docmill  # noqa: E402
from docmill.eval.runner import document_ranking, load_beir  # noqa: E402
from indexers.ranking.fusion import rrf  # noqa: E402
from indexers.ranking.metrics import ndcg_at_k  # noqa: E402


def collect(index, data, depth: int = 100) -> dict:
    out = {}
    for qid, text in data.queries.items():
        bm25 = index.bm25.top_k(index.tokenizer(text), depth)
        vector = index._vector(text, depth, None)
        out[qid] = {"bm25": bm25, "vector": vector}
    return out


def score(lists: dict, data, doc_of, fuse) -> float:
    total = 0.0
    for qid, pair in lists.items():
        rows = fuse(pair, qid)
        total += ndcg_at_k(document_ranking([doc_of[r] for r in rows]), data.qrels[qid], 10)
    return total / len(lists)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--beir", required=True)
    parser.add_argument("--split", default="dev")
    parser.add_argument("--index", required=True)
    args = parser.parse_args()
    data = load_beir(args.beir, args.split)
    index = docmill.open_index(args.index)
    cache = Path(args.index) / f"lists-{args.split}.json"
    if cache.is_file():
        lists = json.loads(cache.read_text())
    else:
        lists = collect(index, data)
        cache.write_text(json.dumps(lists))
    doc_of = [c.doc_id for c in index.chunks.all()]
    rules = {
        "bm25": lambda p, q: [r for r, _ in p["bm25"]],
        "vector": lambda p, q: [r for r, _ in p["vector"]],
    }
    for k in (10, 60):
        for w in (0.1, 0.15, 0.25, 0.5, 1.0):
            rules[f"rrf k={k} w_bm25={w}"] = lambda p, q, k=k, w=w: [
                f.row for f in rrf({n: [r for r, _ in p[n]] for n in p}, k, {"bm25": w})
            ]
    coverage = {
        qid: max(
            index.bm25.coverage_many(index._terms(data.queries[qid]), [r for r, _ in pair["bm25"][:5]]),
            default=0.0,
        )
        for qid, pair in lists.items()
    }
    for k in (10, 60):
        for power in (1, 2):
            rules[f"rrf k={k} w_bm25=coverage^{power}"] = lambda p, q, k=k, e=power: [
                f.row for f in rrf({n: [r for r, _ in p[n]] for n in p}, k, {"bm25": coverage[q] ** e})
            ]
    print(f"{data.name}: {len(lists)} queries, mean coverage {sum(coverage.values()) / len(coverage):.3f}")
    for name, fuse in rules.items():
        print(f"| {name} | {score(lists, data, doc_of, fuse):.4f} |", flush=True)


if __name__ == "__main__":
    main()
