"""Calibrate the abstain rule: dev queries (should be answered) vs our own out-of-domain queries
(eval/ood/*.jsonl, should abstain), on the cached eval indexes (`docmill eval` builds them).

For every query it records the two signals the rule reads (BM25 coverage of the top hits, top
cosine; cosine is None when the vector side cannot read the query), then grid-searches the
thresholds that abstain on the most out-of-domain queries while wrongly abstaining on at most
2 % of the dev queries of every set. Prints the error rates for the chosen and the current rule.

    .venv/bin/python bench/calibrate_abstain.py
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import docmill  # noqa: E402
from docmill.eval import ensure_index, load_beir  # noqa: E402
from docmill.index import DEFAULT_ABSTAIN, MAX_QUERY_UNKNOWN_SHARE, AbstainRule  # noqa: E402

EVAL = ROOT.parent / "shared" / "eval" / "retrieval"
SETS = [("scifact", "train", "en"), ("cosqa", "dev", "en"), ("cmrc-zh", "dev", "zh")]


def signals(index, query: str) -> dict:
    results = {"bm25": index.bm25.top_k(index.tokenizer(query), 5)}
    if index.query_unknown_share(query) <= MAX_QUERY_UNKNOWN_SHARE:
        results["vector"] = index._vector(query, 1, None)
    coverage, cosine = index.evidence(query, results)
    return {"coverage": coverage, "cosine": cosine}


def collect(cache: Path) -> dict:
    out = {}
    for name, split, lang in SETS:
        data = load_beir(EVAL / name, split)
        index = docmill.open_index(ensure_index(data, cache))
        with open(ROOT / "eval" / "ood" / f"{lang}.jsonl", encoding="utf-8") as handle:
            ood = [json.loads(line)["text"] for line in handle]
        out[name] = {
            "dev": [signals(index, q) for q in data.queries.values()],
            "ood": [signals(index, q) for q in ood],
        }
        print(f"collected {name}", file=sys.stderr)
    return out


def abstain_rate(rows: list[dict], rule: AbstainRule, bm25_only: bool = False) -> float:
    hits = sum(1 for r in rows if rule.reason(r["coverage"], None if bm25_only else r["cosine"]) is not None)
    return hits / max(len(rows), 1)


def table(data: dict, rule: AbstainRule, label: str) -> None:
    print(f"\n{label}: {rule}")
    print("| set | mode | dev wrongly abstained | out-of-domain abstained |")
    print("|---|---|---:|---:|")
    for name, rows in data.items():
        for mode, bm25_only in (("hybrid/vector", False), ("bm25", True)):
            print(
                f"| {name} | {mode} | {abstain_rate(rows['dev'], rule, bm25_only):.1%} | "
                f"{abstain_rate(rows['ood'], rule, bm25_only):.1%} |"
            )


def search(data: dict, max_dev: float = 0.02) -> AbstainRule:
    grid = [round(x * 0.05, 2) for x in range(0, 21)]
    best_alone = max(
        (
            t
            for t in grid
            if all(
                abstain_rate(d["dev"], AbstainRule(min_coverage_alone=t), True) <= max_dev
                for d in data.values()
            )
        ),
        default=0.0,
    )
    best, best_score = AbstainRule(min_coverage_alone=best_alone), -1.0
    for cov, cos in itertools.product(grid, [round(x * 0.025, 3) for x in range(0, 41)]):
        rule = AbstainRule(min_coverage=cov, min_cosine=cos, min_coverage_alone=best_alone)
        if any(abstain_rate(d["dev"], rule) > max_dev for d in data.values()):
            continue
        score = min(abstain_rate(d["ood"], rule) for d in data.values())
        if score > best_score:
            best, best_score = rule, score
    return best


def main() -> None:
    cache = ROOT / ".docmill-cache" / "eval"
    data = collect(cache)
    (cache / "abstain_signals.json").write_text(json.dumps(data))
    table(data, DEFAULT_ABSTAIN, "current rule")
    table(data, search(data), "best rule on this data (<= 2 % dev abstained on every set)")


if __name__ == "__main__":
    main()
