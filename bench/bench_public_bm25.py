"""The public call against bm25s, per query: ``docmill.open_index(...).search(q, k=10,
mode="bm25")`` (tokenise, retrieve, abstain check, collapse to places, hits with their chunks) vs
bm25s ``retrieve(bm25s.tokenize(q), k=10)`` over the same chunk texts, alternated per query, same
run. Also the core alone (``BM25Index.top_k`` on pre-tokenised queries), labelled as such.

    PYTHONPATH=. .venv/bin/python bench/bench_public_bm25.py [--queries 809] [--index DIR | --ingest]
        [--before DIR] [--runs 3] [--peer-corpus chunks|documents] [--profile]
        [--dump FILE] [--expect FILE]

``--ingest``: the check of issue 25: build SciFact's corpus.jsonl with ``docmill ingest`` (the CLI,
in a subprocess) into a fresh folder seeded with a copy of the eval cache's SciFact index, so the
build re-uses its embeddings (an ingest embeds only texts it has no vector for; BM25 mode reads
none of them) and is written by this code (its place column included). ``--before DIR``: an index
built before the place column (its segments lack it, so collapse parses candidates' chunks) timed
in the same interleaving, and its top-10 ids and scores compared with ``--index``'s on every
query. ``--runs``: the interleaved timing repeated, one ratio per run: the public call and bm25s alone,
alternated per query (another call between them would warm or evict either's caches);
``--variants``: then the public call with every hit's chunk read (hits parse their chunk on first
use, docmill.hits.LazyHit), ``collapse="none"``, the core and ``--before`` with bm25s in a second
interleaving.
``--peer-corpus documents``: bm25s indexes SciFact's 5,183 documents (title + text) instead of
docmill's chunks of them (~2 per document). ``--profile``: also where the public call's time goes
(cProfile over the same queries, cumulative, top entries).
``--dump FILE``: every query's default result (top-10 chunk ids, scores, siblings, explain text,
abstained, confidence) written as JSON; ``--expect FILE``: the same compared with a file another
checkout (e.g. main's code on the same build) dumped, query by query: the check that a speed-up
returns the same results. Each run starts with the index's query-term cache cleared (bm25s caches
no tokens), so no run re-uses the previous run's tokenising.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

from bench.bench_query import scifact_index  # noqa: E402
from bench.common import REPO, SCIFACT, interleaved, load_jsonl, median, table  # noqa: E402


def ingest_scifact(seed: Path, target: Path) -> Path:
    """``docmill ingest corpus.jsonl --index target`` over a copy of ``seed`` (its embeddings
    re-used); prints what the ingest did."""
    shutil.copytree(seed, target, ignore=shutil.ignore_patterns("LOCK"))
    started = time.perf_counter()
    command = [sys.executable, "-m", "docmill.cli", "ingest", str(SCIFACT / "corpus.jsonl")]
    command += ["--index", str(target), "--progress", "never"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    print(f"docmill ingest corpus.jsonl: {time.perf_counter() - started:.1f} s; {done.stdout.strip()[-200:]}")
    return target


def same_results(after: object, before: object, queries: list[str]) -> str:
    """Top-10 ids and scores of both indexes on every query: how many agree, and the largest
    score difference."""
    same, diff = 0, 0.0
    for q in queries:
        a = after.search(q, k=10, mode="bm25").hits  # type: ignore[attr-defined]
        b = before.search(q, k=10, mode="bm25").hits  # type: ignore[attr-defined]
        ids_equal = [h.chunk.id for h in a] == [h.chunk.id for h in b]
        same += ids_equal
        if ids_equal:
            diff = max([diff, *(abs(x.score - y.score) for x, y in zip(a, b, strict=True))])
    return f"top-10 ids identical on {same} / {len(queries)} queries, max score difference {diff:g}"


def result_record(result: object) -> dict[str, object]:
    """What must not change when the call gets faster: hits (ids, scores, siblings' ids, explain),
    abstained and the reason, confidence."""
    return {
        "hits": [
            [h.chunk.id, h.score, [s.id for s in h.siblings], h.explain]
            for h in result.hits  # type: ignore[attr-defined]
        ],
        "abstained": result.abstained,  # type: ignore[attr-defined]
        "reason": result.reason,  # type: ignore[attr-defined]
        "confidence": result.confidence,  # type: ignore[attr-defined]
    }


def check_expected(index: object, queries: list[str], dump: Path | None, expect: Path | None) -> None:
    """``--dump`` / ``--expect``: every query's default result written, or compared with a dump."""
    records = {q: result_record(index.search(q, k=10, mode="bm25")) for q in queries}  # type: ignore[attr-defined]
    if dump is not None:
        dump.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
        print(f"results of {len(records)} queries written to {dump}")
    if expect is not None:
        expected = json.loads(expect.read_text(encoding="utf-8"))
        differ = [q for q in queries if records[q] != expected.get(q)]
        siblings = sum(len(h[2]) for r in records.values() for h in r["hits"])  # type: ignore[union-attr]
        print(
            f"results identical to {expect} (ids, scores, siblings, explain, abstain, confidence) on "
            f"{len(queries) - len(differ)} / {len(queries)} queries ({siblings} siblings in all)"
        )
        for q in differ[:5]:
            print(f"  differs: {q!r}\n    now {records[q]}\n    was {expected.get(q)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=809)
    parser.add_argument("--index", type=Path, default=None)
    parser.add_argument("--ingest", action="store_true", help="build the index with `docmill ingest` first")
    parser.add_argument("--before", type=Path, default=None, help="an index built before the place column")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=1, help="above 1, repeats hit the query-term cache")
    parser.add_argument("--peer-corpus", choices=("chunks", "documents"), default="chunks")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument(
        "--variants", action="store_true", help="also time collapse='none', the core and --before"
    )
    parser.add_argument("--dump", type=Path, default=None, help="write every query's result as JSON")
    parser.add_argument("--expect", type=Path, default=None, help="compare every result with a --dump")
    args = parser.parse_args()

    import bm25s

    import docmill

    with tempfile.TemporaryDirectory(prefix="bench-public-bm25-") as scratch:
        path = scifact_index(args.index)
        if args.ingest:
            path = ingest_scifact(path, Path(scratch) / "scifact")
        index = docmill.open_index(path)
        before = docmill.open_index(args.before) if args.before else None
        queries = [q["text"] for q in load_jsonl(SCIFACT / "queries.jsonl")][: args.queries]
        model = bm25s.BM25(method="lucene")
        if args.peer_corpus == "documents":
            peer_texts = [
                f"{d.get('title', '')} {d['text']}".strip() for d in load_jsonl(SCIFACT / "corpus.jsonl")
            ]
        else:
            peer_texts = [c.index_text for c in index.chunks.all()]
        model.index(bm25s.tokenize(peer_texts, show_progress=False), show_progress=False)
        index.chunks._all = None  # hydrate by row from the file, as an index opened for queries does
        tokens = {q: index.tokenizer(q) for q in queries}
        print(
            f"SciFact index {path} ({index.build.name}): {len(index)} chunks, place column: "
            f"{index.chunks.has_places}; bm25s over {len(peer_texts)} {args.peer_corpus}; "
            f"{len(queries)} queries x {args.rounds} rounds x {args.runs} runs"
        )
        if args.dump or args.expect:
            check_expected(index, queries, args.dump, args.expect)
        if before is not None:
            print(f"before: {args.before} ({before.build.name}), place column: {before.chunks.has_places}")
            print(same_results(index, before, queries))

        def peer(q: str) -> object:
            return model.retrieve(
                bm25s.tokenize(q, show_progress=False), k=10, show_progress=False, n_threads=0
            )

        head = {"public": lambda q: index.search(q, k=10, mode="bm25"), "bm25s": peer}
        more = {
            "read": lambda q: [hit.chunk for hit in index.search(q, k=10, mode="bm25").hits],
            "nocollapse": lambda q: index.search(q, k=10, mode="bm25", collapse="none"),
            "core": lambda q: index.bm25.top_k(tokens[q], 10),
            "bm25s": peer,
        }
        if before is not None:
            more["before"] = lambda q: before.search(q, k=10, mode="bm25")
        for run in range(1, args.runs + 1):
            print(f"\nrun {run}: the public call and bm25s alternated per query")
            for opened in (index, before):
                if opened is not None:
                    opened._terms.cache_clear()  # each run tokenises its queries afresh, as bm25s does
            report(interleaved(head, queries, rounds=args.rounds))
            if args.variants:
                print(f"run {run}, variants (a second interleaving, with bm25s again):")
                report(interleaved(more, queries, rounds=args.rounds))
        if args.profile:
            profile(lambda: [index.search(q, k=10, mode="bm25") for q in queries])


def report(samples: dict[str, list[float]]) -> None:
    rate = {name: 1000 * len(values) / sum(values) for name, values in samples.items()}
    rows = [
        ("docmill search(q, k=10, mode='bm25') (public call)", "public"),
        ("the same, then every hit's chunk read (a hit parses it on first use)", "read"),
        ("the same on the build without the place column (--before)", "before"),
        ("docmill search(..., collapse='none') (no place grouping)", "nocollapse"),
        ("docmill BM25Index.top_k(tokens, 10) (core only, pre-tokenised)", "core"),
        ("bm25s tokenize + retrieve(k=10) (peer)", "bm25s"),
    ]
    print(
        table(
            ["call", "queries/s", "p50 ms", "x bm25s"],
            [
                (label, round(rate[key]), median(samples[key]), rate[key] / rate["bm25s"])
                for label, key in rows
                if key in samples
            ],
        )
    )


def profile(call: object) -> None:
    """Cumulative time of the public call's parts (cProfile; it slows Python code, not numpy)."""
    import cProfile
    import io
    import pstats

    profiler = cProfile.Profile()
    profiler.runcall(call)  # type: ignore[arg-type]
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(35)
    print("\n" + out.getvalue())


if __name__ == "__main__":
    main()
