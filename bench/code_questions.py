"""Developer questions against real code trees: is the function/method that answers in the top k?

    PYTHONPATH=. .venv/bin/python bench/code_questions.py --index IDX --questions eval/code/cobra.jsonl
        [--k 5] [--grid] [--show-misses]

The questions (eval/code/*.jsonl, ``{"q": ..., "symbols": [...]}``) are ours, written by reading
the source of third-party trees that are not part of this repository (eval/code/README.md says
where to get them). A hit counts when one of the top ``k`` hits is a code chunk whose symbol path
(``file::Class.method``) ends with one of the listed symbols. Reports hit@k and MRR@10 for bm25,
vector and hybrid (the fusion the build stored), and with ``--grid`` hybrid over a few fixed
(rrf_k, BM25 weight) settings, to see which fusion a code tree wants.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import docmill

GRID = [(60.0, 1.0), (10.0, 1.0), (10.0, 0.5), (10.0, 0.25), (10.0, 0.1), (60.0, 0.5)]


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def symbol_matches(symbol: str | None, wanted: list[str]) -> bool:
    if not symbol:
        return False
    name = symbol.split("::", 1)[-1]
    return any(name == w or name.endswith("." + w) for w in wanted)


def first_rank(index: Any, q: dict[str, Any], **search: Any) -> int | None:
    hits = index.search(q["q"], k=10, abstain=False, **search)
    for rank, hit in enumerate(hits, 1):
        if symbol_matches(hit.chunk.symbol, q["symbols"]):
            return rank
    return None


def score(ranks: list[int | None], k: int) -> dict[str, float]:
    n = len(ranks)
    return {
        f"hit@{k}": sum(1 for r in ranks if r is not None and r <= k) / n,
        "mrr@10": sum(1.0 / r for r in ranks if r is not None) / n,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", required=True)
    ap.add_argument("--questions", required=True, nargs="+")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--grid", action="store_true")
    ap.add_argument("--show-misses", action="store_true")
    args = ap.parse_args(argv)
    index = docmill.open_index(args.index)
    questions = [q for p in args.questions for q in load(Path(p))]
    print(
        f"{args.index}: {len(questions)} questions; stored fusion rrf_k={index.fusion_rrf_k} "
        f"weights={index.fusion_weights}"
    )
    runs: list[tuple[str, dict[str, Any]]] = [
        ("bm25", {"mode": "bm25"}),
        ("vector", {"mode": "vector"}),
        ("hybrid (stored)", {"mode": "hybrid"}),
    ]
    if args.grid:
        runs += [
            (
                f"hybrid k={k:g} w_bm25={w:g}",
                {"mode": "hybrid", "rrf_k": k, "weights": {"bm25": w, "vector": 1.0}},
            )
            for k, w in GRID
        ]
    print(f"| run | hit@{args.k} | MRR@10 |\n|---|---:|---:|")
    for label, search in runs:
        ranks = [first_rank(index, q, **search) for q in questions]
        s = score(ranks, args.k)
        print(f"| {label} | {s[f'hit@{args.k}']:.3f} | {s['mrr@10']:.3f} |")
        if args.show_misses:
            for q, r in zip(questions, ranks, strict=True):
                if r is None or r > args.k:
                    print(f"    miss ({r}): {q['q']}  -> {q['symbols'][0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
