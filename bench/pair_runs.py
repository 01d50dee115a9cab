"""Two runs over the same questions, paired question by question (docmill.eval.compare).

    PYTHONPATH=. .venv/bin/python bench/pair_runs.py A.json B.json [--mode-a hybrid] [--mode-b hybrid]
        [--kind docs]

A.json and B.json: `docmill eval --queries ... --json --per-question` or
`bench/naive_tree.py ... --json --per-question` (the naive peer), over the same question file and
half. Prints A - B on hit@5 and MRR@10 with the bootstrap interval, the randomisation test's p
and the questions that went each way, then the ids of those questions with both ranks.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from docmill.eval.compare import format_comparisons, paired, question_measures  # noqa: E402


def records_of(path: str, mode: str, kind: str | None) -> dict[str, dict]:
    rows = json.loads(Path(path).read_text(encoding="utf-8"))["per_question"]
    return {
        r["id"]: r
        for r in rows
        if r["mode"] == mode and not r["offtopic"] and (kind is None or r["kind"] == kind)
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--mode-a", default="hybrid")
    ap.add_argument("--mode-b", default="hybrid")
    ap.add_argument("--kind", help="only questions of this kind (docs, code, ...)")
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args(argv)
    a = records_of(args.a, args.mode_a, args.kind)
    b = records_of(args.b, args.mode_b, args.kind)
    shared = [qid for qid in a if qid in b]
    if not shared:
        raise SystemExit("the two runs share no in-domain question (same file and half?)")
    ma = question_measures([a[q] for q in shared], args.k)[args.mode_a]
    mb = question_measures([b[q] for q in shared], args.k)[args.mode_b]
    compared = {"A-B": {m: paired(m, ma[m], mb[m]).to_dict() for m in ma}}
    print(f"A = {args.a} ({args.mode_a}), B = {args.b} ({args.mode_b}), {len(shared)} questions")
    print("\n".join(format_comparisons(compared)))
    for qid in shared:
        if a[qid]["rank"] != b[qid]["rank"] or a[qid]["abstained"] != b[qid]["abstained"]:
            print(f"  {qid}: A {a[qid]['rank']}{' (abstained)' * a[qid]['abstained']}, B {b[qid]['rank']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
