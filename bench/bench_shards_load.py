"""A shard killed during a load test (issue 25, "done when"): a sharded root of a generated tree
served by Dask actors on a LocalCluster of N worker processes (127.0.0.1), queried by several
client threads through the public ``search(q, k=10, mode="bm25")`` for a fixed time; a third of the
way in, the worker process hosting shard 01's primary is killed (``os._exit``). Run twice: without
replicas (the shard's answers go missing until its actor is re-created on a live worker: partial
results) and with one replica per shard (flows.shards.add_replicas: the replica, on another
worker, answers for it: full results). Reports per run: calls, errors (exceptions raised by
search), partial answers, answers that differ from the undisturbed answer, p50/p99, and when the
answers were full again.

    PYTHONPATH=. .venv/bin/python bench/bench_shards_load.py --files 200 --shards 4 --seconds 30
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.bench_shards import make_queries, pct, write_tree  # noqa: E402


def _worker_of(shard: Any) -> str:
    (address,) = shard.client.who_has([shard._future])[shard._future.key]
    return address


def load_test(index: Any, client: Any, queries: list[str], seconds: float, threads: int) -> dict[str, Any]:
    """``threads`` clients querying for ``seconds``; shard 01's primary worker killed at a third."""
    expected = {q: [h.chunk.id for h in index.search(q, k=10, mode="bm25")] for q in queries}
    shard = index.shards["01"]
    primary = shard.members[0] if hasattr(shard, "members") else shard
    log: list[tuple[float, float, str]] = []  # (started, ms, "full" | "partial" | "differs" | "error")
    lock = threading.Lock()
    start = time.monotonic()
    stop = start + seconds

    def client_loop(offset: int) -> None:
        i = offset
        while time.monotonic() < stop:
            query = queries[i % len(queries)]
            i += threads
            began = time.monotonic()
            try:
                result = index.search(query, k=10, mode="bm25")
                ids = [h.chunk.id for h in result]
                kind = "partial" if result.partial else ("full" if ids == expected[query] else "differs")
            except Exception:  # noqa: BLE001 - counted: the load test's figure is how many there are
                kind = "error"
            with lock:
                log.append((began - start, (time.monotonic() - began) * 1000, kind))

    workers = [threading.Thread(target=client_loop, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    time.sleep(seconds / 3)
    address = _worker_of(primary)
    killed = time.monotonic() - start
    with contextlib.suppress(Exception):  # the worker dies before it answers
        client.run(os._exit, 1, workers=[address])
    for w in workers:
        w.join()
    after = [entry for entry in log if entry[0] >= killed]
    partial_times = [t for t, _, kind in after if kind != "full"]
    last_bad = max(partial_times, default=killed)
    return {
        "calls": len(log),
        "errors": sum(kind == "error" for _, _, kind in log),
        "partial": sum(kind == "partial" for _, _, kind in log),
        "differs": sum(kind == "differs" for _, _, kind in log),
        "calls_after_kill": len(after),
        "full_again_after_s": round(last_bad - killed, 2) if partial_times else 0.0,
        "full_at_end": all(kind == "full" for t, _, kind in log if t > last_bad),
        "p50_ms": pct([ms for _, ms, _ in log], 0.5),
        "p99_ms": pct([ms for _, ms, _ in log], 0.99),
        "killed_at_s": round(killed, 2),
    }


def run(root: Path, shards: int, queries: list[str], args: argparse.Namespace, replicas: int) -> dict:
    import distributed

    from docmill.sharded import open_sharded
    from flows.shards import add_replicas

    if replicas:
        add_replicas(root, copies=replicas)
    cluster = distributed.LocalCluster(
        n_workers=shards, threads_per_worker=2, processes=True, host="127.0.0.1", dashboard_address=None
    )
    try:
        with distributed.Client(cluster) as client:
            index = open_sharded(root, client=client, timeout=args.timeout)
            return load_test(index, client, queries, args.seconds, args.threads)
    finally:
        cluster.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--timeout", type=float, default=2.0, help="each round's deadline (s)")
    args = parser.parse_args()

    from docmill.cli import main as cli

    with tempfile.TemporaryDirectory(prefix="bench-shards-load-") as scratch:
        base = Path(scratch)
        words = write_tree(base / "src", args.files)
        queries = make_queries(words, 100)
        cli(
            [
                "ingest",
                str(base / "src"),
                "--index",
                str(base / "root"),
                "--shards",
                str(args.shards),
                "--json",
            ]
        )
        print(
            f"{args.files} files as {args.shards} shards; {args.threads} client threads for "
            f"{args.seconds:g} s; deadline {args.timeout:g} s; shard 01's primary worker killed at a third"
        )
        print("\n| replicas | calls | errors | partial | differs | p50 ms | p99 ms | full again after (s) |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for replicas in (0, 1):
            root = base / f"root-{replicas}"
            shutil.copytree(base / "root", root)
            r = run(root, args.shards, queries, args, replicas)
            print(
                f"| {replicas} | {r['calls']} | {r['errors']} | {r['partial']} | {r['differs']} | "
                f"{r['p50_ms']:.1f} | {r['p99_ms']:.1f} | {r['full_again_after_s']} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
