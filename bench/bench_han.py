"""What the Han-character BM25 field (indexers/lexical/tokenize.py ``cjk_unigrams``) costs, in one
run: the same Chinese corpus ingested with the field (the default) and without it, through the
public calls (`run_ingest`, `open_index(...).search`). Reports the BM25 postings' size on disk,
the build stage's seconds and BM25-mode query p50, the two indexes' queries alternated so both
see the same load. English text has no Han characters: its indexes are identical either way.

Corpus: the first ``--chinese`` CMRC passages and ``--queries`` queries, read from
../shared/eval/retrieval (not copied); MiniLM without sentence windows, so the embed stage stays
short (the field does not touch vectors). Quality: `docmill eval` (docs/EVALUATION.md "Han
characters"), not here.

    PYTHONPATH=. .venv/bin/python bench/bench_han.py [--chinese 1104] [--queries 200]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def _bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and "bm25" in p.parts)


def main() -> None:
    from bench.bench_windows import load
    from bench.common import ingest_timed
    from flows.config import IngestConfig

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chinese", type=int, default=1104, help="CMRC passages")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    docs, queries = load("cmrc-zh", args.chinese, args.queries)
    rows, opened = {}, {}
    with tempfile.TemporaryDirectory(prefix="bench-han-") as tmp:
        work = Path(tmp)
        corpus = work / "cmrc.jsonl"
        corpus.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
        for field in (False, True):  # the peer (no field) first, then the default
            config = IngestConfig(model="all-MiniLM-L6-v2", windows=False, tokenizer={"cjk_unigrams": field})
            index = work / f"idx-{field}"
            report, seconds, opened[field] = ingest_timed(corpus, index, config)
            rows[field] = {
                "chunks": report.chunks,
                "build_s": report.timings.get("build", 0.0),
                "bm25_mb": _bytes(index) / 1e6,
                "ms": [],
            }
        for text in queries:  # alternated: both indexes under the same load
            for field in (False, True):
                started = time.perf_counter()
                opened[field].search(text, k=10, mode="bm25", abstain=False)
                rows[field]["ms"].append(1000 * (time.perf_counter() - started))
    print(f"{os.cpu_count()} cores, shared; CMRC, {args.chinese} passages, {len(queries)} queries\n")
    print("| Han-character field | chunks | BM25 files MB | build stage s | BM25-mode p50 ms | p95 ms |")
    print("|---|---:|---:|---:|---:|---:|")
    for field, row in rows.items():
        ms = sorted(row["ms"])
        print(
            f"| {'yes' if field else 'no'} | {row['chunks']} | {row['bm25_mb']:.1f} | {row['build_s']:.1f} "
            f"| {statistics.median(ms):.2f} | {ms[int(0.95 * (len(ms) - 1))]:.2f} |"
        )
    off, on = rows[False], rows[True]
    print(
        f"\nthe field costs x{on['bm25_mb'] / off['bm25_mb']:.2f} BM25 size, "
        f"x{statistics.median(on['ms']) / statistics.median(off['ms']):.2f} BM25 p50"
    )


if __name__ == "__main__":
    main()
