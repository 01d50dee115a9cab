"""How often prose crowds code out of the hybrid top 3 on a mixed docs + code tree (issue 22).

    PYTHONPATH=. .venv/bin/python eval/trees/sqlmodel-crowding.py --index INDEX \
        --queries eval/trees/sqlmodel.jsonl [--variants section,section+floor3] [--top 3]

INDEX is the one `docmill eval --queries ... --docs ... --cache C` built. For each question and
variant (bench/ranking_lab.py's names), hybrid search as `docmill eval` runs it (abstaining off,
so every question shows its hits), then counts: code questions whose top N holds no source chunk,
docs questions whose top N holds no prose chunk, and for the first the rank of the answer.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

from docmill.api import open_index
from docmill.eval.questions import covered, first_rank, load_questions
from indexers.ranking.calibrate import is_source_chunk


def _lab() -> Any:
    path = Path(__file__).resolve().parents[2] / "bench" / "ranking_lab.py"
    spec = importlib.util.spec_from_file_location("ranking_lab", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def crowding(index: Any, questions: list[Any], options: dict[str, Any], top: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for q in questions:
        result = index.search(q.query, k=50, fetch_k=100, mode="hybrid", abstain=False, **options)
        hits = result.hits
        also = [covered(h.chunk, h.siblings) for h in hits]
        rank = first_rank(q, [h.chunk for h in hits], "", depth=10, also=also)
        kinds = ["code" if is_source_chunk(h.chunk) else "docs" for h in hits[:top]]
        crowded = q.kind not in kinds
        slot = out.setdefault(f"{q.kind} {q.half}", {"n": 0, "crowded": 0, "crowded_ids": []})
        slot["n"] += 1
        if crowded:
            slot["crowded"] += 1
            slot["crowded_ids"].append(f"{q.id}(rank {rank})")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", required=True)
    parser.add_argument("--queries", required=True)
    parser.add_argument("--variants", default="section,section+floor3")
    parser.add_argument("--top", type=int, default=3)
    args = parser.parse_args()
    lab = _lab()
    index = open_index(args.index)
    questions = load_questions(args.queries)
    report = {}
    for variant in args.variants.split(","):
        options = lab.configure(index, variant)
        report[variant] = crowding(index, questions, options, args.top)
    json.dump(report, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
