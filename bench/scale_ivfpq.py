"""IVF-PQ against flat on bench/bench_scale.py's synthetic vectors (a Gaussian mixture fitted to
real MiniLM vectors), measured the way bench_scale measures HNSW: build time and RSS growth,
recall@10 against flat over the corpus's 200 held-out query vectors, p50 per query (one thread,
interleaved with flat), a probe (nprobe) sweep and a refine sweep (candidates re-scored with the
exact vectors per hit asked), a 1 % filter. The exact vectors are the corpus's vectors.npy opened
memory-mapped, as a build's embeddings.npy is. Run as ``bench_scale.py --child ivfpq N -`` (or
``bench_scale.py --ivfpq N``, which runs it in a fresh process and prints a table)."""

from __future__ import annotations

import io
import time
from typing import Any

from bench.common import current_rss_mib, interleaved, median, table
from bench.scale_corpus import corpus

PROBES = (16, 32, 64, 128, 256)
REFINES = (1, 3, 10, 30)


def child_ivfpq(n: int) -> dict[str, Any]:
    import faiss
    import numpy as np

    from indexers.dense import ann
    from indexers.dense.faiss_store import build_faiss, search_faiss

    data = corpus(n)
    vectors = data.vectors()  # memory-mapped: the exact vectors the re-rank reads
    queries = data.query_vectors()
    flat = build_faiss(np.ascontiguousarray(vectors), "flat")
    spec = ann.choose(n, "ivfpq", dim=vectors.shape[1])
    before = current_rss_mib()
    started = time.perf_counter()
    codes = build_faiss(np.ascontiguousarray(vectors), spec)
    out: dict[str, Any] = {"chunks": n, "ivfpq_build_s": time.perf_counter() - started}
    out["ivfpq_rss_mib"] = current_rss_mib() - before
    out["ivfpq_spec"] = spec.to_json()
    out["ivfpq_file_bytes_per_vector"] = len(faiss.serialize_index(codes)) / n
    out["flat_file_bytes_per_vector"] = 4 * vectors.shape[1]
    index = ann.with_exact_vectors(codes, spec, lambda: vectors)
    truth = [[r for r, _ in search_faiss(flat, q, 10)] for q in queries]

    def recall(**options: Any) -> float:
        found = [[r for r, _ in search_faiss(index, q, 10, **options)] for q in queries]
        return float(np.mean([len(set(a) & set(b)) / 10 for a, b in zip(truth, found, strict=True)]))

    out["ivfpq_recall_at_10"] = recall()
    samples = interleaved(
        {"flat": lambda q: search_faiss(flat, q, 10), "ivfpq": lambda q: search_faiss(index, q, 10)},
        list(queries[:100]),
    )
    out["flat_p50_ms"], out["ivfpq_p50_ms"] = median(samples["flat"]), median(samples["ivfpq"])
    out["probe_sweep"] = [_point(index, queries, recall, probe=p) for p in PROBES]
    refine_sweep = []
    for refine in REFINES:
        index.refine = refine
        refine_sweep.append(_point(index, queries, recall, refine=refine))
    index.refine = spec.refine
    out["refine_sweep"] = refine_sweep
    allowed = np.random.default_rng(5).random(n) < 0.01
    timed = interleaved({"ivfpq": lambda q: search_faiss(index, q, 10, allowed=allowed)}, list(queries[:50]))
    out["ivfpq_filtered_1pct_p50_ms"] = median(timed["ivfpq"])
    return out


def _point(index: Any, queries: Any, recall: Any, **setting: int) -> dict[str, Any]:
    from indexers.dense.faiss_store import search_faiss

    probe = setting.get("probe")
    timed = interleaved({"q": lambda q: search_faiss(index, q, 10, probe=probe)}, list(queries[:100]))
    return {**setting, "recall_at_10": recall(probe=probe), "p50_ms": median(timed["q"])}


def report(record: dict[str, Any]) -> str:
    out = io.StringIO()
    spec = record["ivfpq_spec"]
    print(
        f"IVF-PQ at {record['chunks']:,} mixture vectors ({spec}): build {record['ivfpq_build_s']:.1f} s, "
        f"RSS +{record['ivfpq_rss_mib']:.0f} MiB, {record['ivfpq_file_bytes_per_vector']:.0f} B/vector "
        f"(flat {record['flat_file_bytes_per_vector']} B)\n",
        file=out,
    )
    rows = [
        ["recall@10 vs flat (defaults)", record["ivfpq_recall_at_10"]],
        ["p50 flat / ivfpq (ms, one thread)", f"{record['flat_p50_ms']:.2f} / {record['ivfpq_p50_ms']:.2f}"],
        ["ivfpq p50 with a 1 % filter (ms)", record["ivfpq_filtered_1pct_p50_ms"]],
    ]
    print(table(["", "value"], rows), file=out)
    sweep = [["nprobe", p["probe"], p["recall_at_10"], p["p50_ms"]] for p in record["probe_sweep"]]
    sweep += [["refine", p["refine"], p["recall_at_10"], p["p50_ms"]] for p in record["refine_sweep"]]
    print("\n" + table(["sweep", "value", "recall@10", "p50 (ms)"], sweep), file=out)
    return out.getvalue()
