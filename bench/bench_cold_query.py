"""A cold `docmill query INDEX "..."`: a new process per query, hybrid vs bm25, before and after the
torch-free query path (indexers/query_encoder.py).

"before" is today's path as it was: the ONNX export is cached, but the saved query bundle is
deleted before every run, so the process loads sentence-transformers (and torch) to check its
ONNX path, as every cold process did. "after" keeps the bundle a first warm run saved. Runs are
interleaved (bm25, hybrid-before, hybrid-after) so machine load hits all three alike.

    PYTHONPATH=. .venv/bin/python bench/bench_cold_query.py [--index samples-index] [--repeat 5]

The index defaults to .docmill-cache/bench/samples-index (built from samples/ if missing).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import BENCH_CACHE, REPO, median, table  # noqa: E402
from indexers.build.files import CURRENT  # noqa: E402

QUERY = "How do I install Lumen on Linux?"


def docmill(*args: str, cache: Path) -> float:
    """Wall time of one `docmill ...` process (its output must be a real answer)."""
    env = {
        **os.environ,
        "DOCMILL_CACHE_DIR": str(cache),
        "HF_HUB_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    started = time.perf_counter()
    out = subprocess.run([str(REPO / ".venv/bin/docmill"), *args], env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if out.returncode != 0 or "[1]" not in out.stdout:
        raise RuntimeError(f"docmill {' '.join(args)} failed: {out.stderr or out.stdout}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, default=BENCH_CACHE / "samples-index")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    cache = BENCH_CACHE / "cold-query-cache"
    if not (args.index / CURRENT).is_file():
        subprocess.run(
            [str(REPO / ".venv/bin/docmill"), "ingest", str(REPO / "samples"), "--index", str(args.index)],
            check=True,
            env={**os.environ, "HF_HUB_OFFLINE": "1"},
        )
    query = ["query", str(args.index), QUERY, "--k", "3"]
    docmill(*query, cache=cache)  # warm: ONNX export and query bundle saved
    times: dict[str, list[float]] = {"bm25": [], "hybrid, before": [], "hybrid, after": []}
    for _ in range(args.repeat):
        times["bm25"].append(docmill(*query, "--mode", "bm25", cache=cache))
        shutil.rmtree(cache / "query", ignore_errors=True)
        times["hybrid, before"].append(docmill(*query, "--mode", "hybrid", cache=cache))
        shutil.rmtree(cache / "query", ignore_errors=True)
        docmill(*query, cache=cache)  # saves the bundle again (not timed)
        times["hybrid, after"].append(docmill(*query, "--mode", "hybrid", cache=cache))
    bm25 = median(times["bm25"])
    rows = [
        [name, f"{median(values):.2f}", f"{min(values):.2f}", f"{median(values) / bm25:.1f}x"]
        for name, values in times.items()
    ]
    print(f'cold `docmill query INDEX "{QUERY}" --k 3`, {args.repeat} runs each, interleaved')
    print(table(["mode", "median s", "min s", "vs bm25"], rows))


if __name__ == "__main__":
    main()
