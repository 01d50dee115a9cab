"""Behaviour check for refactors: dump the top-10 of every question of a question file (or a BEIR
queries.jsonl) in every mode, through the public call users make
(``docmill.open_index(index).search(q, k=10, mode=m, abstain=False)``), then compare two dumps.

    python bench/compare_topk.py dump INDEX QUESTIONS OUT.json [--limit N]
    python bench/compare_topk.py diff A.json B.json

A dump made by the code before a change and one made by the code after it, each on an index that
code built from the same tree, must be identical (chunk ids, order, scores to 1e-5)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

MODES = ("bm25", "vector", "hybrid")


def questions(path: Path, limit: int | None) -> list[str]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            out.append(row.get("query") or row.get("text") or row["question"])
    return out[:limit] if limit else out


def dump(index: str, question_file: Path, out: Path, limit: int | None) -> None:
    import docmill

    idx = docmill.open_index(index)
    rows = []
    for q in questions(question_file, limit):
        entry: dict[str, object] = {"query": q}
        for mode in MODES:
            result = idx.search(q, k=10, mode=mode, abstain=False)
            entry[mode] = [[h.chunk.id, round(float(h.score), 6)] for h in result.hits]
        entry["confidence"] = round(float(idx.search(q, k=10).confidence), 6)
        rows.append(entry)
    out.write_text(json.dumps(rows, ensure_ascii=False, indent=0), encoding="utf-8")
    print(f"{len(rows)} questions x {len(MODES)} modes -> {out}")


def diff(a: Path, b: Path) -> int:
    left = json.loads(a.read_text(encoding="utf-8"))
    right = json.loads(b.read_text(encoding="utf-8"))
    if [r["query"] for r in left] != [r["query"] for r in right]:
        print("different question lists")
        return 2
    differ = 0
    for x, y in zip(left, right, strict=True):
        for key in (*MODES, "confidence"):
            same = x[key] == y[key] if key == "confidence" else _same(x[key], y[key])
            if not same:
                differ += 1
                print(f"{key}: {x['query'][:60]!r}\n  before {x[key]}\n  after  {y[key]}")
    total = len(left) * (len(MODES) + 1)
    print(f"{total - differ}/{total} rankings identical ({len(left)} questions)")
    return 1 if differ else 0


def _same(x: list, y: list) -> bool:
    return [i for i, _ in x] == [i for i, _ in y] and all(
        abs(s - t) <= 1e-5 for (_, s), (_, t) in zip(x, y, strict=False)
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("index")
    d.add_argument("questions", type=Path)
    d.add_argument("out", type=Path)
    d.add_argument("--limit", type=int)
    c = sub.add_parser("diff")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    args = parser.parse_args()
    if args.cmd == "dump":
        dump(args.index, args.questions, args.out, args.limit)
        return 0
    return diff(args.a, args.b)


if __name__ == "__main__":
    sys.exit(main())
