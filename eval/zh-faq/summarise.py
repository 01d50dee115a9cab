"""Summarise `docmill eval --json --per-question` outputs of this set, adding nDCG@10.

With one relevant file per question, nDCG@10 = 1/log2(1 + rank) for a rank within 10, else 0.
"As a user" scores an abstained question as a miss (as docmill eval's hit@k and MRR do); the
"no abstain" figure uses the rank the hits would have had.

    python eval/zh-faq/summarise.py fit.json held.json
"""

from __future__ import annotations

import json
import math
import sys
from collections import defaultdict


def ndcg(rank: int | None) -> float:
    return 1 / math.log2(1 + rank) if rank and rank <= 10 else 0.0


def summarise(path: str) -> list[str]:
    with open(path, encoding="utf-8") as handle:
        report = json.load(handle)
    per: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for record in report["per_question"]:
        if not record["offtopic"]:
            per[(record["mode"], "all")].append(record)
            per[(record["mode"], record["kind"])].append(record)
    head = f"{path}: half {report['half']}, {report['questions']} questions, {report['offtopic']} off-topic"
    lines = [head]
    for (mode, kind), records in sorted(per.items()):
        user = sum(ndcg(None if r["abstained"] else r["rank"]) for r in records) / len(records)
        raw = sum(ndcg(r["rank"]) for r in records) / len(records)
        lines.append(f"  {mode:7} {kind:12} n={len(records):3}  nDCG@10 {user:.3f}  (no abstain {raw:.3f})")
    return lines


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print("\n".join(summarise(name)))
