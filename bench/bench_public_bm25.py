"""The public call against bm25s, per query: ``docmill.open_index(...).search(q, k=10,
mode="bm25")`` (tokenise, retrieve, abstain check, hits with their chunks) vs bm25s
``retrieve(bm25s.tokenize(q), k=10)`` over the same chunk texts, alternated per query, same run.
Also the core alone (``BM25Index.top_k`` on pre-tokenised queries), labelled as such.

    PYTHONPATH=. .venv/bin/python bench/bench_public_bm25.py [--queries 809] [--index DIR]
        [--peer-corpus chunks|documents] [--profile]

``--peer-corpus documents``: bm25s indexes SciFact's 5,183 documents (title + text) instead of
docmill's chunks of them (~2 per document), as a check that builds the corpus with `docmill
ingest` and bm25s from corpus.jsonl does: the peer then searches half the rows. ``--profile``:
also where the public call's time goes (cProfile over the same queries, cumulative, top entries).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

from bench.bench_query import scifact_index  # noqa: E402
from bench.common import SCIFACT, interleaved, load_jsonl, median, table  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=809)
    parser.add_argument("--index", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=1, help="above 1, repeats hit the query-term cache")
    parser.add_argument("--peer-corpus", choices=("chunks", "documents"), default="chunks")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()

    import bm25s

    import docmill

    path = scifact_index(args.index)
    index = docmill.open_index(path)
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

    def peer(q: str) -> object:
        return model.retrieve(bm25s.tokenize(q, show_progress=False), k=10, show_progress=False, n_threads=0)

    samples = interleaved(
        {
            "public": lambda q: index.search(q, k=10, mode="bm25"),
            "nocollapse": lambda q: index.search(q, k=10, mode="bm25", collapse="none"),
            "core": lambda q: index.bm25.top_k(tokens[q], 10),
            "bm25s": peer,
        },
        queries,
        rounds=args.rounds,
    )
    rate = {name: 1000 * len(values) / sum(values) for name, values in samples.items()}
    print(
        f"SciFact index {path.name}: {len(index)} chunks; bm25s over {len(peer_texts)} {args.peer_corpus}; "
        f"{len(queries)} queries x {args.rounds} rounds\n"
    )
    rows = [
        ("docmill search(q, k=10, mode='bm25') (public call)", "public"),
        (
            "docmill search(..., collapse='none') (no place grouping: 10 chunks hydrated, not 100)",
            "nocollapse",
        ),
        ("docmill BM25Index.top_k(tokens, 10) (core only, pre-tokenised)", "core"),
        ("bm25s tokenize + retrieve(k=10) (peer)", "bm25s"),
    ]
    print(
        table(
            ["call", "queries/s", "p50 ms", "x bm25s"],
            [
                (label, round(rate[key]), median(samples[key]), rate[key] / rate["bm25s"])
                for label, key in rows
            ],
        )
    )
    if args.profile:
        profile(lambda: [index.search(q, k=10, mode="bm25") for q in queries])


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
