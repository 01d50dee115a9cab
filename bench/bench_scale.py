"""How build time, memory and query latency grow with the corpus: synthetic corpora of 100k, 1M
(3M) chunks (bench/scale_corpus.py: Zipf-Mandelbrot words and chunk lengths fitted to SciFact,
vectors from a Gaussian mixture fitted to real MiniLM vectors), built through the pipeline's own
build code (flows.pipeline.build_index) and opened through docmill.open_index.

Every measurement runs in its own subprocess (honest peak RSS, no warm caches between them), one
at a time: BM25 build docmill vs bm25s on the same token lists; BM25 query p50 (both loaded with
mmap, queries alternated); vector build, recall@10 vs flat and p50 for flat and the ANN index
``auto`` picks; the full build_index (whose peak RSS is the whole build's); one file's re-index;
open_index time and RSS, and the public ``search(mode="bm25")`` p50.

    PYTHONPATH=. .venv/bin/python bench/bench_scale.py [--sizes 100000,1000000] [--json]
        [--plot bench/scale.png] [--sweep 5000,10000,20000,50000,100000]
    PYTHONPATH=. .venv/bin/python bench/bench_scale.py --ivfpq 200000   # IVF-PQ vs flat only
    PYTHONPATH=. .venv/bin/python bench/bench_scale.py --shards 4 --sizes 3000000   # bench/scale_shards.py

``--json`` prints one JSON object per size; otherwise a Markdown table (bench/RESULTS.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import scale_ivfpq, scale_shards  # noqa: E402
from bench.common import REPO, current_rss_mib, interleaved, median, peak_rss_mib, run_child, table  # noqa: E402
from bench.scale_corpus import CACHE, CHUNKS_PER_FILE, corpus  # noqa: E402

QUERIES = 200
CHILD_TIMEOUT = 4 * 3600
# The whole build may use at most this much address space: past it a child fails with MemoryError
# instead of pushing the shared machine into its OOM killer.
BUILD_ADDRESS_LIMIT = 16 * 2**30
INCREMENTAL_SEGMENTS_LABEL = (
    "flows.pipeline.publish_changes (segments): previous build read, its segments hard-linked, the "
    "file's old chunks masked, its new chunks (vectors given, embedding excluded) in a new segment, "
    "manifest written, published"
)
INCREMENTAL_LABEL = (
    "today's re-index: build_index over all chunks with one file's chunks replaced (vectors reused, "
    "as run_ingest does after its diff; parse and embed of that file not included)"
)


def child_bm25(kind: str, n: int) -> dict[str, Any]:
    """Build BM25 over the corpus's token lists with docmill or bm25s; saved for the query child.
    ``docmill-gen``: BM25Index.build fed by a generator that makes each chunk's list when it is
    read, as flows.builds.build_index feeds the segment's count (not part of ``measure``)."""
    data = corpus(n)
    token_lists = token_source(data, generator=kind == "docmill-gen")
    before = current_rss_mib()
    started = time.perf_counter()
    if kind in ("docmill", "docmill-gen"):
        from indexers.lexical.bm25 import BM25Index

        index = BM25Index.build(token_lists)
        seconds = time.perf_counter() - started
        index.save(data.folder / ("bm25-docmill" if kind == "docmill" else "bm25-docmill-gen"))
    else:
        import bm25s

        model = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
        model.index(token_lists, show_progress=False)
        seconds = time.perf_counter() - started
        model.save(str(data.folder / "bm25s"), show_progress=False)
    return {"build_s": seconds, "peak_rss_mib": peak_rss_mib(), "input_rss_mib": before, "docs": n}


def token_source(data: Any, generator: bool) -> Any:
    """The corpus's token lists, all in memory (equal words one str), or a generator making each
    chunk's list only when it is read."""
    import numpy as np

    vocabulary = data.vocabulary()
    if not generator:
        return data.token_lists(vocabulary)
    lookup = np.array([vocabulary.get(r, "") for r in range(max(vocabulary) + 1)], dtype=object)
    tokens = data.tokens()
    bounds = np.concatenate([[0], np.cumsum(data.lengths(), dtype=np.int64)])
    return (lookup[tokens[bounds[i] : bounds[i + 1]]].tolist() for i in range(len(bounds) - 1))


def child_bm25_profile(n: int) -> dict[str, Any]:
    """cProfile of BM25Index.build on the corpus's token lists: where its time goes (own time
    per function, top entries), for the report; run with --profile-bm25."""
    import cProfile
    import pstats

    from indexers.lexical.bm25 import BM25Index

    data = corpus(n)
    token_lists = data.token_lists(data.vocabulary())
    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.enable()
    BM25Index.build(token_lists)
    profiler.disable()
    total = time.perf_counter() - started
    stats = pstats.Stats(profiler)
    rows = []
    for (filename, line, name), (_, calls, own, cumulative, _) in stats.stats.items():  # type: ignore[attr-defined]
        rows.append(
            {
                "function": f"{Path(filename).name}:{line}:{name}",
                "calls": calls,
                "own_s": own,
                "cum_s": cumulative,
            }
        )
    rows.sort(key=lambda r: -r["own_s"])
    tokens = sum(len(t) for t in token_lists)
    return {"build_s": total, "tokens": tokens, "top": rows[:12]}


def child_terms(kind: str, n: int) -> dict[str, Any]:
    """Term counting alone, the step BM25 builds share: indexers.lexical.bm25.count_terms on the token
    lists, indexers.lexical.term_counts.count_terms_stream on the same lists ("stream") or on a generator
    that makes each chunk's list only when it is read ("stream-gen", as a pipeline tokenizing one
    chunk at a time would feed it)."""
    source = token_source(corpus(n), generator=kind == "stream-gen")
    before = current_rss_mib()
    started = time.perf_counter()
    if kind == "count":
        from indexers.lexical.bm25 import count_terms

        counts = count_terms(source)
    else:
        from indexers.lexical.term_counts import count_terms_stream

        counts = count_terms_stream(source)
    seconds = time.perf_counter() - started
    return {
        "seconds": seconds,
        "peak_rss_mib": peak_rss_mib(),
        "input_rss_mib": before,
        "postings": len(counts.tf),
    }


def child_bm25_query(n: int) -> dict[str, Any]:
    """Per-call p50 of docmill's BM25 core (BM25Index.search) and bm25s.retrieve, top 10, both
    loaded with mmap, alternated query by query."""
    import bm25s

    from indexers.lexical.bm25 import BM25Index

    data = corpus(n)
    queries = data.query_words(data.vocabulary())
    ours = BM25Index.load(data.folder / "bm25-docmill", mmap=True)
    theirs = bm25s.BM25.load(str(data.folder / "bm25s"), mmap=True, show_progress=False)
    known = [[t for t in q if t in theirs.vocab_dict] or [""] for q in queries]
    for q, kq in zip(queries[:5], known[:5], strict=True):  # warm both (page cache, lazy setup)
        ours.search(q, 10)
        theirs.retrieve([kq], k=10, show_progress=False, n_threads=1)
    pairs = list(zip(queries, known, strict=True))
    samples = interleaved(
        {
            "docmill": lambda p: ours.search(p[0], 10),
            "bm25s": lambda p: theirs.retrieve([p[1]], k=10, show_progress=False, n_threads=1),
        },
        pairs,
        rounds=2,
    )
    return {"docmill_p50_ms": median(samples["docmill"]), "bm25s_p50_ms": median(samples["bm25s"])}


def child_vectors(n: int) -> dict[str, Any]:
    """Flat and the ANN index ``auto`` picks (HNSW when n is below the threshold too): build time,
    RSS growth, recall@10 vs flat, p50 per query (one thread, as the query path), and a probe
    sweep of recall vs p50."""
    import numpy as np

    from indexers.dense import ann
    from indexers.dense.embedder import build_faiss, search_faiss

    data = corpus(n)
    vectors = np.ascontiguousarray(data.vectors())
    queries = data.query_vectors()
    out: dict[str, Any] = {}
    before = current_rss_mib()
    started = time.perf_counter()
    flat = build_faiss(vectors, "flat")
    out["flat_build_s"] = time.perf_counter() - started
    out["flat_rss_mib"] = current_rss_mib() - before
    spec = ann.choose(n)
    if spec.kind == "flat":
        spec = ann.choose(n, ann.AUTO_ANN)
    before = current_rss_mib()
    started = time.perf_counter()
    index = build_faiss(vectors, spec)
    out["ann_build_s"] = time.perf_counter() - started
    out["ann_rss_mib"] = current_rss_mib() - before
    out["ann_spec"] = spec.to_json()
    truth = [[r for r, _ in search_faiss(flat, q, 10)] for q in queries]

    def recall(probe: int | None) -> float:
        found = [[r for r, _ in search_faiss(index, q, 10, probe=probe)] for q in queries]
        return float(np.mean([len(set(a) & set(b)) / 10 for a, b in zip(truth, found, strict=True)]))

    out["ann_recall_at_10"] = recall(None)
    samples = interleaved(
        {"flat": lambda q: search_faiss(flat, q, 10), "ann": lambda q: search_faiss(index, q, 10)},
        list(queries[:100]),
    )
    out["flat_p50_ms"], out["ann_p50_ms"] = median(samples["flat"]), median(samples["ann"])
    sweep = []
    for probe in (16, 32, 64, 128, 256):
        timed = interleaved(
            {"ann": lambda q, p=probe: search_faiss(index, q, 10, probe=p)}, list(queries[:100])
        )
        sweep.append({"probe": probe, "recall_at_10": recall(probe), "p50_ms": median(timed["ann"])})
    out["probe_sweep"] = sweep
    allowed = np.random.default_rng(5).random(n) < 0.01  # a 1% filter: still k hits, time it
    timed = interleaved({"ann": lambda q: search_faiss(index, q, 10, allowed=allowed)}, list(queries[:50]))
    out["ann_filtered_1pct_p50_ms"] = median(timed["ann"])
    out["vectors_bytes_per_chunk"] = 4 * vectors.shape[1]
    return out


def index_root(n: int) -> Path:
    return CACHE / f"index-{n}"


def _chunks(texts: list[str], first_row: int = 0) -> list[Any]:
    from chunkers.model import Chunk, chunk_id

    chunks = []
    for offset, text in enumerate(texts):
        row = first_row + offset
        doc = f"docs/file{row // CHUNKS_PER_FILE:06d}.md"
        position = row % CHUNKS_PER_FILE
        chunks.append(Chunk(chunk_id(doc, position, text), doc, doc, "text", text, text, ("Scale",)))
    return chunks


def _records(chunks: list[Any]) -> list[Any]:
    from indexers.build.manifest import DocumentRecord

    per_file: dict[str, int] = {}
    for chunk in chunks:
        per_file[chunk.path] = per_file.get(chunk.path, 0) + 1
    return [
        DocumentRecord(
            path, f"{hash(path) & (2**64 - 1):064x}", 1000 * count, "markdown", "indexed", None, count
        )
        for path, count in per_file.items()
    ]


def child_build(n: int) -> dict[str, Any]:
    """flows.pipeline.build_index over the whole corpus (chunks.jsonl, BM25 from the pipeline's
    tokenizer, embeddings, the FAISS index ``auto`` picks, abstain calibration, manifest), then
    published; then one file's re-index, as the code does it today."""
    import resource

    import numpy as np

    from flows.config import IngestConfig
    from flows.pipeline import build_index, embedding_info, publish
    from indexers.build.store import IndexStore

    resource.setrlimit(resource.RLIMIT_AS, (BUILD_ADDRESS_LIMIT, BUILD_ADDRESS_LIMIT))
    data = corpus(n)
    vocabulary = data.vocabulary()
    chunks = _chunks(data.texts(vocabulary))
    del vocabulary
    vectors = np.ascontiguousarray(data.vectors())
    config = IngestConfig()
    store = IndexStore(index_root(n))
    steps: dict[str, float] = {}
    clock = [time.perf_counter()]

    def progress(stage: str, done: int, total: int) -> None:
        now = time.perf_counter()
        steps[stage.removeprefix("write:")] = now - clock[0]
        clock[0] = now

    input_rss = current_rss_mib()
    started = time.perf_counter()
    with store.lock():
        folder = build_index(
            store,
            chunks,
            vectors,
            _records(chunks),
            config,
            ["generated"],
            embedding_info(config, vectors),
            progress=progress,
        )
        publish(store, folder, keep_builds=1)
    full = time.perf_counter() - started
    build_peak = peak_rss_mib()
    out = {
        "full_build_s": full,
        "build_steps_s": steps,
        "peak_rss_mib": build_peak,
        "input_rss_mib": input_rss,
        **build_sizes(folder),
    }
    out.update(incremental_one_file(store, chunks, vectors, config))
    return out


def build_sizes(folder: Path) -> dict[str, Any]:
    """Bytes of each kind of build file (summed over segments, if the layout has them)."""
    files: dict[str, int] = {}
    bm25 = 0
    for path in folder.rglob("*"):
        if path.is_file():
            files[path.name] = files.get(path.name, 0) + path.stat().st_size
            bm25 += path.stat().st_size if path.parent.name == "bm25" else 0
    return {"files_bytes": files, "bm25_dir_bytes": bm25}


def incremental_one_file(store: Any, chunks: list[Any], vectors: Any, config: Any) -> dict[str, Any]:
    """Re-index after one file (its CHUNKS_PER_FILE chunks) changed, its new chunks' vectors given
    (embedding excluded, as the issue's goal excludes model loading). With segments
    (flows.pipeline.publish_changes, what run_ingest does for a small change): the previous build
    read, its segments kept, the file's old chunks masked, a new segment for its new chunks,
    published. Without: build_index over every chunk, which is what run_ingest did after its diff."""
    import numpy as np

    from flows import pipeline

    path = chunks[0].path
    edited = _chunks([c.text + " editedx" for c in chunks[:CHUNKS_PER_FILE]])
    edited_vectors = np.ascontiguousarray(vectors[: len(edited)][::-1])
    publish_changes = getattr(pipeline, "publish_changes", None)
    started = time.perf_counter()
    if publish_changes is not None:
        publish_changes(store.root, edited, edited_vectors, config=config)
        method = INCREMENTAL_SEGMENTS_LABEL
    else:
        changed = np.array([c.path == path for c in chunks])
        new_chunks = edited + [c for c, hit in zip(chunks, changed, strict=True) if not hit]
        new_vectors = np.concatenate([edited_vectors, vectors[np.flatnonzero(~changed)]])
        embedding = pipeline.embedding_info(config, new_vectors)
        with store.lock():
            folder = pipeline.build_index(
                store, new_chunks, new_vectors, _records(new_chunks), config, ["generated"], embedding
            )
            pipeline.publish(store, folder, keep_builds=1)
        method = INCREMENTAL_LABEL
    return {"incremental_one_file_s": time.perf_counter() - started, "incremental_method": method}


def child_open(n: int) -> dict[str, Any]:
    """docmill.open_index: wall time and RSS growth, then the public search(mode="bm25") p50."""
    import faiss  # noqa: F401  (imports are not what is measured)

    import docmill

    data = corpus(n)
    queries = [" ".join(q) for q in data.query_words(data.vocabulary())]
    before = current_rss_mib()
    started = time.perf_counter()
    index = docmill.open_index(index_root(n))
    opened = time.perf_counter() - started
    rss = current_rss_mib() - before
    for q in queries[:5]:
        index.search(q, k=10, mode="bm25", abstain=False)
    samples = interleaved({"public": lambda q: index.search(q, k=10, mode="bm25")}, queries)
    return {
        "open_index_s": opened,
        "open_index_rss_mib": rss,
        "public_bm25_p50_ms": median(samples["public"]),
        "vector_index": index.vector_index.to_json(),
    }


CHILDREN = {
    "bm25": lambda n, kind: child_bm25(kind, n),
    "bm25-query": lambda n, _: child_bm25_query(n),
    "bm25-profile": lambda n, _: child_bm25_profile(n),
    "terms": lambda n, kind: child_terms(kind, n),
    "vectors": lambda n, _: child_vectors(n),
    "build": lambda n, _: child_build(n),
    "open": lambda n, _: child_open(n),
    "ivfpq": lambda n, _: scale_ivfpq.child_ivfpq(n),
}


def measure(n: int, log: Any) -> dict[str, Any]:
    """Every child for one size, one after another; the JSON record of that size."""
    started = time.perf_counter()
    corpus(n)
    generated = time.perf_counter() - started

    def run(name: str, arg: str = "-") -> dict[str, Any]:
        t = time.perf_counter()
        result = run_child([__file__, "--child", name, str(n), arg], timeout=CHILD_TIMEOUT)
        print(
            f"  {n:,} {name} {arg}: {time.perf_counter() - t:.0f} s {json.dumps(result)[:300]}",
            file=log,
            flush=True,
        )
        return result

    ours, theirs = run("bm25", "docmill"), run("bm25", "bm25s")
    query = run("bm25-query")
    vectors = run("vectors")
    build = run("build")
    opened = run("open")
    record = {
        "chunks": n,
        "bm25_build_docs_per_s": n / ours["build_s"],
        "bm25s_build_docs_per_s": n / theirs["build_s"],
        "bm25_peak_rss_mib": ours["peak_rss_mib"],
        "bm25s_peak_rss_mib": theirs["peak_rss_mib"],
        "bm25_input_rss_mib": ours["input_rss_mib"],
        "bm25_query_p50_ms": query["docmill_p50_ms"],
        "bm25s_query_p50_ms": query["bm25s_p50_ms"],
        "public_bm25_query_p50_ms": opened["public_bm25_p50_ms"],
        "ann_kind": vectors["ann_spec"]["kind"],
        "ann_spec": vectors["ann_spec"],
        "ann_recall_at_10": vectors["ann_recall_at_10"],
        "ann_p50_ms": vectors["ann_p50_ms"],
        "flat_p50_ms": vectors["flat_p50_ms"],
        "ann_filtered_1pct_p50_ms": vectors["ann_filtered_1pct_p50_ms"],
        "ann_build_s": vectors["ann_build_s"],
        "ann_rss_mib": vectors["ann_rss_mib"],
        "flat_build_s": vectors["flat_build_s"],
        "flat_rss_mib": vectors["flat_rss_mib"],
        "probe_sweep": vectors["probe_sweep"],
        "build_vector_index": opened["vector_index"],
        "open_index_s": opened["open_index_s"],
        "open_index_rss_mib": opened["open_index_rss_mib"],
        "full_build_s": build["full_build_s"],
        "build_steps_s": build["build_steps_s"],
        "incremental_one_file_s": build["incremental_one_file_s"],
        "incremental_method": build["incremental_method"],
        "peak_rss_mib": build["peak_rss_mib"],
        "build_input_rss_mib": build["input_rss_mib"],
        "files_bytes": build["files_bytes"],
        "bm25_dir_bytes": build["bm25_dir_bytes"],
        "generate_s": generated,
    }
    (CACHE / f"result-{n}.json").write_text(json.dumps(record, indent=1), encoding="utf-8")
    return record


def sweep(sizes: list[int]) -> list[dict[str, Any]]:
    """Where an ANN index starts to pay: flat vs HNSW (the default parameters) on mixture vectors
    of growing size: p50 per query, build seconds, recall@10 vs flat. In this process."""
    import numpy as np

    from bench.scale_corpus import Mixture, seed_vectors
    from indexers.dense.embedder import build_faiss, search_faiss

    mixture = Mixture.fit(seed_vectors())
    rng = np.random.default_rng(21)
    rows = []
    for n in sizes:
        both = mixture.sample(n + 100, rng)
        vectors, queries = both[:n], list(both[n:])
        flat = build_faiss(vectors, "flat")
        started = time.perf_counter()
        hnsw = build_faiss(vectors, "hnsw")
        build_s = time.perf_counter() - started
        samples = interleaved(
            {
                "flat": lambda q, f=flat: search_faiss(f, q, 10),
                "hnsw": lambda q, h=hnsw: search_faiss(h, q, 10),
            },
            queries,
        )
        recall = np.mean(
            [
                len({r for r, _ in search_faiss(flat, q, 10)} & {r for r, _ in search_faiss(hnsw, q, 10)})
                / 10
                for q in queries
            ]
        )
        rows.append(
            {
                "n": n,
                "flat_p50_ms": median(samples["flat"]),
                "hnsw_p50_ms": median(samples["hnsw"]),
                "hnsw_build_s": build_s,
                "recall_at_10": float(recall),
            }
        )
    return rows


def plot(records: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    records = sorted(records, key=lambda r: r["chunks"])
    x = [r["chunks"] for r in records]
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    panels = [
        ("BM25 build (docs/s)", [("docmill", "bm25_build_docs_per_s"), ("bm25s", "bm25s_build_docs_per_s")]),
        (
            "peak RSS (MiB)",
            [
                ("docmill BM25 build", "bm25_peak_rss_mib"),
                ("bm25s build", "bm25s_peak_rss_mib"),
                ("whole build_index", "peak_rss_mib"),
            ],
        ),
        (
            "query p50 (ms)",
            [
                ("BM25 docmill core", "bm25_query_p50_ms"),
                ("BM25 bm25s", "bm25s_query_p50_ms"),
                ("BM25 public search()", "public_bm25_query_p50_ms"),
                ("vector flat", "flat_p50_ms"),
                ("vector ANN", "ann_p50_ms"),
            ],
        ),
        (
            "seconds",
            [
                ("full build_index", "full_build_s"),
                ("re-index one file", "incremental_one_file_s"),
                ("open_index", "open_index_s"),
            ],
        ),
    ]
    for ax, (title, series) in zip(axes.ravel(), panels, strict=True):
        for label, key in series:
            ax.plot(x, [r[key] for r in records], marker="o", label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(title)
        ax.set_xlabel("chunks")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("docmill at scale (bench/bench_scale.py; synthetic corpora fitted to SciFact + MiniLM)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def report(records: list[dict[str, Any]], sweep_rows: list[dict[str, Any]], png: Path | None) -> str:
    rows = []
    for r in sorted(records, key=lambda r: r["chunks"]):
        rows.append(
            (
                f"{r['chunks']:,}",
                r["bm25_build_docs_per_s"],
                r["bm25s_build_docs_per_s"],
                r["bm25_build_docs_per_s"] / r["bm25s_build_docs_per_s"],
                r["bm25_peak_rss_mib"],
                r["bm25s_peak_rss_mib"],
                r["bm25_query_p50_ms"],
                r["bm25s_query_p50_ms"],
                r["public_bm25_query_p50_ms"],
            )
        )
    lines = [
        "Synthetic corpora (bench/scale_corpus.py): chunk lengths and a Zipf-Mandelbrot vocabulary fitted to "
        "SciFact, vectors from a Gaussian mixture fitted to 3,200 real all-MiniLM-L6-v2 vectors; each "
        "measurement in its own subprocess. BM25 build: indexers.lexical.bm25.BM25Index.build vs bm25s, "
        "both given "
        "the same token lists (peak RSS includes those lists, the same for both); BM25Index.build counts "
        "with indexers.lexical.term_counts.count_terms_stream and computes weights block by block, as a full "
        "build's segment does (fed one chunk's tokens at a time by flows.builds.build_index).",
        "",
        table(
            [
                "chunks",
                "BM25 build docs/s",
                "bm25s docs/s",
                "x bm25s",
                "BM25 peak MiB",
                "bm25s peak MiB",
                "BM25 core p50 ms",
                "bm25s p50 ms",
                "public search(bm25) p50 ms",
            ],
            rows,
        ),
        "",
    ]
    rows = []
    for r in sorted(records, key=lambda r: r["chunks"]):
        spec = r["ann_spec"]
        rows.append(
            (
                f"{r['chunks']:,}",
                f"{spec['kind']} { ({k: v for k, v in spec.items() if k not in ('kind', 'requested')}) }",
                r["ann_recall_at_10"],
                r["flat_p50_ms"],
                r["ann_p50_ms"],
                r["ann_filtered_1pct_p50_ms"],
                r["ann_build_s"],
                r["ann_rss_mib"],
                r["open_index_s"],
                r["open_index_rss_mib"],
                r["full_build_s"],
                r["incremental_one_file_s"],
                r["peak_rss_mib"] / 1024,
            )
        )
    lines += [
        table(
            [
                "chunks",
                "ANN (auto)",
                "recall@10 vs flat",
                "flat p50 ms",
                "ANN p50 ms",
                "ANN p50 ms, 1% filter",
                "ANN build s",
                "ANN RSS MiB",
                "open_index s",
                "open RSS MiB",
                "full build s",
                "re-index 1 file s",
                "build peak GiB",
            ],
            rows,
        ),
        "",
        "Re-index of one file: "
        + "; ".join(
            f"{r['chunks']:,}: {r['incremental_method']}" for r in sorted(records, key=lambda r: r["chunks"])
        )
        + ".",
        "",
    ]
    for r in sorted(records, key=lambda r: r["chunks"]):
        steps = ", ".join(f"{k} {v:.1f} s" for k, v in r["build_steps_s"].items())
        sizes = ", ".join(f"{k} {v / r['chunks']:.0f}" for k, v in sorted(r["files_bytes"].items()))
        sweep_text = "; ".join(
            f"probe {s['probe']}: {s['recall_at_10']:.3f} @ {s['p50_ms']:.2f} ms" for s in r["probe_sweep"]
        )
        lines.append(
            f"- {r['chunks']:,}: build_index steps {steps}. Bytes per chunk: {sizes}, bm25/ "
            f"{r['bm25_dir_bytes'] / r['chunks']:.0f}. ANN recall@10 / p50 by probe: {sweep_text}."
        )
    if sweep_rows:
        lines += [
            "",
            "Where HNSW starts to pay (mixture vectors, default parameters; indexers/ann.py "
            "FLAT_MAX_VECTORS):",
            "",
            table(
                ["vectors", "flat p50 ms", "HNSW p50 ms", "HNSW build s", "HNSW recall@10"],
                [
                    (f"{s['n']:,}", s["flat_p50_ms"], s["hnsw_p50_ms"], s["hnsw_build_s"], s["recall_at_10"])
                    for s in sweep_rows
                ],
            ),
        ]
    if png is not None:
        lines += ["", f"![growth curves]({png.name})"]
    return "\n".join(lines)


def profile_report(profiles: dict[int, dict[str, Any]]) -> str:
    lines = [
        "BM25 build profile (cProfile of BM25Index.build, own time of the top functions) and term "
        "counting alone:",
        "",
    ]
    for n, p in sorted(profiles.items()):
        top = ", ".join(f"{r['function'].split(':')[-1]} {r['own_s']:.1f} s" for r in p["profile"]["top"][:6])
        lines.append(
            f"- {n:,} chunks, {p['profile']['tokens']:,} tokens: BM25Index.build "
            f"{p['profile']['build_s']:.1f} s: {top}."
        )
        rows = [
            (
                label,
                p[kind]["seconds"],
                n / p[kind]["seconds"],
                p[kind]["peak_rss_mib"],
                p[kind]["input_rss_mib"],
            )
            for kind, label in (
                ("count", "indexers.lexical.bm25.count_terms (token lists in memory)"),
                ("stream", "indexers.lexical.term_counts.count_terms_stream (same lists)"),
                ("stream-gen", "count_terms_stream from a generator (one chunk's list at a time)"),
            )
        ]
        lines += ["", table(["term counting", "s", "docs/s", "peak RSS MiB", "input RSS MiB"], rows), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--json", action="store_true", help="one JSON object per size, nothing else")
    parser.add_argument("--plot", type=Path, default=REPO / "bench" / "scale.png")
    parser.add_argument("--sweep", default="", help="sizes for the flat vs HNSW threshold sweep")
    parser.add_argument("--reuse", action="store_true", help="report cached results of --sizes, measure none")
    parser.add_argument(
        "--profile-bm25", action="store_true", help="also profile BM25Index.build and time term counting"
    )
    parser.add_argument(
        "--ivfpq", default="", help="sizes for IVF-PQ vs flat only (bench/scale_ivfpq.py), nothing else"
    )
    parser.add_argument(
        "--shards",
        type=int,
        default=0,
        help="one index vs N shards on N Dask workers (bench/scale_shards.py)",
    )
    parser.add_argument("--queries", type=int, default=QUERIES, help="with --shards")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        name, n, arg = args.child
        print(json.dumps(CHILDREN[name](int(n), arg)))
        return
    if args.ivfpq:
        for n in [int(s) for s in args.ivfpq.split(",") if s.strip()]:
            record = run_child([__file__, "--child", "ivfpq", str(n), "-"], timeout=CHILD_TIMEOUT)
            (CACHE / f"ivfpq-{n}.json").write_text(json.dumps(record, indent=1), encoding="utf-8")
            print(json.dumps(record) if args.json else scale_ivfpq.report(record), flush=True)
        return
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if args.shards:
        for n in sizes:
            record = scale_shards.measure(
                n, args.shards, args.queries, lambda line: print(line, file=sys.stderr)
            )
            (CACHE / f"shards-{n}-{args.shards}.json").write_text(
                json.dumps(record, indent=1), encoding="utf-8"
            )
            print(json.dumps(record) if args.json else scale_shards.report(record), flush=True)
        return
    records = []
    for n in sizes:
        cached = CACHE / f"result-{n}.json"
        if args.reuse and cached.is_file():
            records.append(json.loads(cached.read_text(encoding="utf-8")))
        else:
            records.append(measure(n, sys.stderr))
        if args.json:
            print(json.dumps(records[-1]), flush=True)
    sweep_rows = []
    sweep_file = CACHE / "sweep.json"
    if args.reuse and args.sweep and sweep_file.is_file():
        sweep_rows = json.loads(sweep_file.read_text(encoding="utf-8"))
    elif args.sweep:
        sweep_rows = sweep([int(s) for s in args.sweep.split(",") if s.strip()])
        sweep_file.write_text(json.dumps(sweep_rows, indent=1), encoding="utf-8")
    if args.json and sweep_rows:
        print(json.dumps({"sweep": sweep_rows}), flush=True)
    profiles = {}
    for n in sizes if args.profile_bm25 else []:
        cached = CACHE / f"profile-{n}.json"
        if args.reuse and cached.is_file():
            profiles[n] = json.loads(cached.read_text(encoding="utf-8"))
            continue
        profiles[n] = {
            "profile": run_child([__file__, "--child", "bm25-profile", str(n), "-"], timeout=CHILD_TIMEOUT)
        }
        for kind in ("count", "stream", "stream-gen"):
            profiles[n][kind] = run_child([__file__, "--child", "terms", str(n), kind], timeout=CHILD_TIMEOUT)
        cached.write_text(json.dumps(profiles[n], indent=1), encoding="utf-8")
        if args.json:
            print(json.dumps({"chunks": n, "bm25_profile": profiles[n]}), flush=True)
    png = args.plot if len(records) > 1 else None
    if png is not None:
        plot(records, png)
    if not args.json:
        print(report(records, sweep_rows, png))
        if profiles:
            print("\n" + profile_report(profiles))


if __name__ == "__main__":
    main()
