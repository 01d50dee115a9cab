"""Helpers shared by the benchmark scripts: interleaved timing against a peer, percentiles,
Markdown tables, peak RSS of a child process.

The machine is 2 shared cores with other jobs on them, so absolute times drift: every script
measures docmill and its peer in the same run, alternating them, and reports the ratio of medians.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SCIFACT = Path(os.environ.get("DOCMILL_SCIFACT", "/work/shared/eval/retrieval/scifact"))
BENCH_CACHE = REPO / ".docmill-cache" / "bench"  # gitignored; generated inputs are kept here


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (q in 0..100) of a non-empty sequence."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("percentile of no values")
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def median(values: Sequence[float]) -> float:
    return percentile(values, 50)


def interleaved(
    candidates: Mapping[str, Callable[[Any], Any]], inputs: Sequence[Any], rounds: int = 1
) -> dict[str, list[float]]:
    """Milliseconds per call for every candidate on every input, alternating which candidate goes
    first, so load spikes from other jobs hit all of them alike."""
    names = list(candidates)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(rounds):
        for i, item in enumerate(inputs):
            order = names if (i + round_) % 2 == 0 else names[::-1]
            for name in order:
                started = time.perf_counter()
                candidates[name](item)
                samples[name].append((time.perf_counter() - started) * 1000)
    return samples


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    def cell(value: Any) -> str:
        if isinstance(value, float):
            return f"{value:,.2f}" if abs(value) < 100 else f"{value:,.0f}"
        return str(value)

    lines = [
        "| " + " | ".join(headers) + " |",
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(headers))) + "|",
    ]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def peak_rss_mib() -> float:
    """This process's peak RSS (ru_maxrss is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mib() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def run_child(args: Sequence[str], timeout: float = 900) -> dict[str, Any]:
    """Run ``python <args>`` from the repo root; the child prints one JSON object as its last line."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    done = subprocess.run(
        [sys.executable, *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def load_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def ingest_timed(corpus: Path, index: Path, config: Any) -> tuple[Any, float, Any]:
    """A full ingest of ``corpus`` into ``index`` through the public call, its wall seconds, and the
    index opened with its model loaded (one search off the clock)."""
    import docmill
    from flows.pipeline import run_ingest

    started = time.perf_counter()
    report = run_ingest([corpus], index, config)
    seconds = time.perf_counter() - started
    opened = docmill.open_index(index)
    opened.search("warm-up", k=10)
    return report, seconds, opened


def search_ms(opened: Any, queries: Sequence[str], **options: Any) -> list[float]:
    """Milliseconds of ``opened.search(query, k=10, **options)`` for each query."""
    out = []
    for text in queries:
        t = time.perf_counter()
        opened.search(text, k=10, **options)
        out.append(1000 * (time.perf_counter() - t))
    return out
