"""The public call against bm25s, per query: ``docmill.open_index(...).search(q, k=10,
mode="bm25")`` (tokenise, retrieve, abstain check, hits with their chunks) vs bm25s
``retrieve(bm25s.tokenize(q), k=10)`` over the same chunk texts, alternated per query, same run.
Also the core alone (``BM25Index.top_k`` on pre-tokenised queries), labelled as such.

    PYTHONPATH=. .venv/bin/python bench/bench_public_bm25.py [--queries 809] [--index DIR]
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
    args = parser.parse_args()

    import bm25s

    import docmill

    path = scifact_index(args.index)
    index = docmill.open_index(path)
    queries = [q["text"] for q in load_jsonl(SCIFACT / "queries.jsonl")][: args.queries]
    model = bm25s.BM25(method="lucene")
    model.index(
        bm25s.tokenize([c.index_text for c in index.chunks.all()], show_progress=False), show_progress=False
    )
    index.chunks._all = None  # hydrate by row from the file, as an index opened for queries does
    tokens = {q: index.tokenizer(q) for q in queries}

    def peer(q: str) -> object:
        return model.retrieve(bm25s.tokenize(q, show_progress=False), k=10, show_progress=False, n_threads=0)

    samples = interleaved(
        {
            "public": lambda q: index.search(q, k=10, mode="bm25"),
            "core": lambda q: index.bm25.top_k(tokens[q], 10),
            "bm25s": peer,
        },
        queries,
        rounds=args.rounds,
    )
    rate = {name: 1000 * len(values) / sum(values) for name, values in samples.items()}
    print(f"SciFact index {path.name}: {len(index)} chunks; {len(queries)} queries x {args.rounds} rounds\n")
    rows = [
        ("docmill search(q, k=10, mode='bm25') (public call)", "public"),
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


if __name__ == "__main__":
    main()
