"""Fusion rules for code trees, scored on a web-query set (CoSQA) and developer questions at once.

    PYTHONPATH=. .venv/bin/python bench/code_fusion_lab.py \
        --beir ../shared/eval/retrieval/cosqa:dev:.docmill-cache/eval/cosqa-... \
        --questions eval/code/cobra.jsonl:/tmp/idx-cobra eval/code/click.jsonl:/tmp/idx-click

Each query's BM25 and vector top-100 (row, score) lists are computed once (cached beside the index),
then every rule is scored in pure Python: nDCG@10 at document level for BEIR sets (as
`docmill eval`), hit@5 and MRR@10 of the answering symbol for question sets
(bench/code_questions.py). No rule is chosen per set: a row is one rule applied to all of them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from code_questions import load, symbol_matches  # noqa: E402

import docmill  # noqa: E402
from docmill.eval.runner import document_ranking, load_beir  # noqa: E402
from indexers.ranking.fusion import rrf  # noqa: E402
from indexers.ranking.metrics import ndcg_at_k  # noqa: E402

Lists = dict[str, list[list[float]]]
Rule = Callable[[Lists, dict[str, float]], list[int]]


def collect(index: Any, queries: list[str], cache: Path) -> list[dict[str, Any]]:
    if cache.is_file():
        out = json.loads(cache.read_text())
        if all("coverage5" in p for p in out):
            return out
        for text, p in zip(queries, out, strict=True):
            tokens = index.tokenizer(text)
            p["coverage5"] = max((index.bm25.coverage(tokens, r) for r, _ in p["bm25"][:5]), default=0.0)
        cache.write_text(json.dumps(out))
        return out
    out = []
    for text in queries:
        tokens = index.tokenizer(text)
        bm25 = index.bm25.top_k(tokens, 100)
        vector = index._vector(text, 100, None)
        cov = index.bm25.coverage(tokens, bm25[0][0]) if bm25 else 0.0
        cov5 = max((index.bm25.coverage(tokens, r) for r, _ in bm25[:5]), default=0.0)
        out.append({"bm25": bm25, "vector": vector, "coverage": cov, "coverage5": cov5})
    cache.write_text(json.dumps(out))
    return out


def fused(lists: Lists, k: float, w: float) -> list[int]:
    rankings = {n: [int(r) for r, _ in lists[n]] for n in ("bm25", "vector")}
    return [f.row for f in rrf(rankings, k, {"bm25": w})]


def minmax(pairs: list[list[float]]) -> dict[int, float]:
    if not pairs:
        return {}
    hi, lo = pairs[0][1], pairs[-1][1]
    span = (hi - lo) or 1.0
    return {int(r): (s - lo) / span for r, s in pairs}


def convex(lists: Lists, alpha: float) -> list[int]:
    b, v = minmax(lists["bm25"]), minmax(lists["vector"])
    rows = set(b) | set(v)
    return sorted(rows, key=lambda r: -(alpha * b.get(r, 0.0) + (1 - alpha) * v.get(r, 0.0)))


def rules() -> dict[str, Rule]:
    out: dict[str, Rule] = {
        "bm25": lambda p, f: [int(r) for r, _ in p["bm25"]],
        "vector": lambda p, f: [int(r) for r, _ in p["vector"]],
    }
    for k in (10.0, 30.0, 60.0):
        for w in (0.1, 0.25, 0.5, 0.75, 1.0):
            out[f"rrf k={k:g} w={w:g}"] = lambda p, f, k=k, w=w: fused(p, k, w)
    for k in (10.0, 30.0):
        for power in (1, 2, 4):
            out[f"rrf k={k:g} w=cov^{power}"] = lambda p, f, k=k, e=power: fused(p, k, f["coverage"] ** e)
            out[f"rrf k={k:g} w=cov5^{power}"] = lambda p, f, k=k, e=power: fused(p, k, f["coverage5"] ** e)
        for t in (0.5, 0.6, 0.7, 0.8):
            out[f"rrf k={k:g} w=1 if cov>={t} else 0.1"] = lambda p, f, k=k, t=t: fused(
                p, k, 1.0 if f["coverage"] >= t else 0.1
            )
    for alpha in (0.2, 0.3, 0.5):
        out[f"convex minmax alpha_bm25={alpha}"] = lambda p, f, a=alpha: convex(p, a)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--beir", nargs="*", default=[], help="DIR:SPLIT:INDEX")
    ap.add_argument("--questions", nargs="*", default=[], help="FILE.jsonl:INDEX")
    args = ap.parse_args()
    sets: list[tuple[str, Callable[[Rule], dict[str, float]]]] = []
    for spec in args.beir:
        folder, split, index_dir = spec.split(":")
        data = load_beir(folder, split)
        index = docmill.open_index(index_dir)
        qids = sorted(data.queries)
        lists = collect(index, [data.queries[q] for q in qids], Path(index_dir) / f"code-lab-{split}.json")
        doc_of = [c.doc_id for c in index.chunks.all()]

        def beir_score(rule: Rule, qids=qids, lists=lists, doc_of=doc_of, data=data) -> dict[str, float]:
            total = 0.0
            for qid, p in zip(qids, lists, strict=True):
                total += ndcg_at_k(document_ranking([doc_of[r] for r in rule(p, p)]), data.qrels[qid], 10)
            return {"nDCG@10": total / len(qids)}

        sets.append((data.name, beir_score))
    for spec in args.questions:
        qfile, index_dir = spec.split(":")
        questions = load(Path(qfile))
        index = docmill.open_index(index_dir)
        digest = hashlib.sha1(Path(qfile).read_bytes()).hexdigest()[:8]
        lists = collect(index, [q["q"] for q in questions], Path(index_dir) / f"code-lab-{digest}.json")
        symbols = [c.symbol for c in index.chunks.all()]

        def q_score(rule: Rule, questions=questions, lists=lists, symbols=symbols) -> dict[str, float]:
            hit = mrr = 0.0
            for q, p in zip(questions, lists, strict=True):
                rows = rule(p, p)[:10]
                found = (i for i, r in enumerate(rows, 1) if symbol_matches(symbols[r], q["symbols"]))
                rank = next(found, None)
                if rank is not None:
                    hit += rank <= 5
                    mrr += 1.0 / rank
            return {"hit@5": hit / len(questions), "MRR": mrr / len(questions)}

        sets.append((Path(qfile).stem, q_score))
    header = [f"{name} {m}" for name, fn in sets for m in fn(rules()["bm25"])]
    print("| rule | " + " | ".join(header) + " | mean |")
    print("|---|" + "---:|" * (len(header) + 1))
    for name, rule in rules().items():
        values = [v for _, fn in sets for v in fn(rule).values()]
        firsts = [list(fn(rule).values())[0] for _, fn in sets]
        mean = sum(firsts) / len(firsts)
        print(f"| {name} | " + " | ".join(f"{v:.3f}" for v in values) + f" | {mean:.3f} |", flush=True)
        if math.isnan(mean):
            break


if __name__ == "__main__":
    main()
