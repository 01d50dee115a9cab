"""Reader questions against real multi-page PDFs: does a top-k hit cite the right file AND page?

    PYTHONPATH=. .venv/bin/python bench/pdf_questions.py --docs /tmp/pdfq/docs
        [--index IDX] [--questions eval/pdf/questions.jsonl] [--k 5] [--show-misses]

This is the release check of issue 3. The questions (eval/pdf/questions.jsonl,
``{"q": ..., "file": "name.pdf", "pages": [N, ...]}``) are ours, written about third-party PDFs
that are not part of this repository (eval/pdf/README.md says where they come from). A hit counts
when its chunk's path has the question's file name and its cited page range (``chunk.pages``,
first and last page, 1-based) contains one of the answer pages. Reports hit@k and MRR@10 for

- docmill in bm25 / vector / hybrid mode, over an index of ``--docs`` (ingested here with
  ``docmill ingest`` into a temporary folder unless ``--index`` names one built from it);
- the naive baseline the release check compares against: one chunk per page (pdfplumber
  ``extract_text``), docmill's BM25 over docmill's tokenizer, all-MiniLM-L6-v2 cosine, and plain
  RRF with k=60 and equal weights.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import docmill
from indexers.dense.embedder import Embedder
from indexers.lexical.bm25 import BM25Index
from indexers.lexical.tokenize import Tokenizer
from indexers.ranking.fusion import rrf

Ranker = Callable[[str], list["Cited"]]


@dataclass(frozen=True)
class Cited:
    """What a hit cites: the file name and the first/last page (None when the hit has no pages)."""

    file: str
    pages: tuple[int, int] | None


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def is_hit(cited: Cited, q: dict[str, Any]) -> bool:
    if cited.file != q["file"] or cited.pages is None:
        return False
    first, last = cited.pages
    return any(first <= p <= last for p in q["pages"])


def first_rank(cited: Sequence[Cited], q: dict[str, Any]) -> int | None:
    return next((rank for rank, c in enumerate(cited, 1) if is_hit(c, q)), None)


def score(ranks: Sequence[int | None], k: int) -> dict[str, float]:
    n = len(ranks)
    return {
        f"hit@{k}": sum(1 for r in ranks if r is not None and r <= k) / n,
        "mrr@10": sum(1.0 / r for r in ranks if r is not None and r <= 10) / n,
    }


# --- docmill -------------------------------------------------------------------------------------


def ingest(docs: Path, index: Path) -> None:
    cmd = [sys.executable, "-m", "docmill.cli", "ingest", str(docs), "--index", str(index), "--json"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def docmill_ranker(index: Any, mode: str, **search: Any) -> Ranker:
    def rank(query: str) -> list[Cited]:
        hits = index.search(query, k=10, mode=mode, abstain=False, **search)
        return [Cited(Path(h.chunk.path).name, tuple(h.chunk.pages) if h.chunk.pages else None) for h in hits]

    return rank


# --- naive baseline: one chunk per page ----------------------------------------------------------


@dataclass(frozen=True)
class Page:
    file: str
    page: int
    text: str


def pdf_pages(docs: Path) -> list[Page]:
    import pdfplumber

    pages: list[Page] = []
    for path in sorted(docs.glob("*.pdf")):
        with pdfplumber.open(path) as pdf:
            for number, page in enumerate(pdf.pages, 1):
                pages.append(Page(path.name, number, page.extract_text() or ""))
    return pages


class NaiveIndex:
    """Page-per-chunk BM25 + MiniLM + plain RRF (k=60, equal weights): the release check's bar."""

    def __init__(self, pages: Sequence[Page], embedder: Embedder, tokenizer: Tokenizer) -> None:
        self.pages = list(pages)
        self.tokenizer = tokenizer
        self.embedder = embedder
        self.bm25 = BM25Index.build([tokenizer(p.text) for p in self.pages])
        self.vectors = embedder.encode([p.text for p in self.pages])

    def _bm25(self, query: str, n: int) -> list[int]:
        s = self.bm25.scores(self.tokenizer(query))
        order = np.argsort(-s, kind="stable")[:n]
        return [int(i) for i in order if s[i] > 0]

    def _vector(self, query: str, n: int) -> list[int]:
        s = self.vectors @ self.embedder.encode_query(query).reshape(-1)
        return [int(i) for i in np.argsort(-s, kind="stable")[:n]]

    def ranker(self, mode: str) -> Ranker:
        def rank(query: str) -> list[Cited]:
            if mode == "bm25":
                rows = self._bm25(query, 10)
            elif mode == "vector":
                rows = self._vector(query, 10)
            else:
                fused = rrf({"bm25": self._bm25(query, 100), "vector": self._vector(query, 100)}, rrf_k=60.0)
                rows = [f.row for f in fused[:10]]
            return [Cited(self.pages[i].file, (self.pages[i].page, self.pages[i].page)) for i in rows]

        return rank


# --- report --------------------------------------------------------------------------------------

Results = dict[str, list[tuple[list[Cited], int | None]]]


def runs_for(index: Any, naive: NaiveIndex) -> list[tuple[str, Ranker]]:
    runs = [(f"docmill {mode}", docmill_ranker(index, mode)) for mode in ("hybrid", "bm25", "vector")]
    # Diagnostic: the same index under plain RRF (explicit equal weights switch off any per-query
    # BM25 weight the build stored), to tell the fusion's share of a miss from the chunks'.
    plain = docmill_ranker(index, "hybrid", rrf_k=60.0, weights={"bm25": 1.0, "vector": 1.0})
    runs.append(("docmill hybrid, plain RRF k=60", plain))
    runs += [(f"naive page-per-chunk {mode}", naive.ranker(mode)) for mode in ("hybrid", "bm25", "vector")]
    return runs


def run_all(runs: list[tuple[str, Ranker]], questions: list[dict[str, Any]], k: int) -> Results:
    print(f"| run | hit@{k} | MRR@10 | misses@{k} |\n|---|---:|---:|---:|")
    results: Results = {}
    for label, ranker in runs:
        cited = [ranker(q["q"]) for q in questions]
        ranks = [first_rank(c, q) for c, q in zip(cited, questions, strict=True)]
        results[label] = list(zip(cited, ranks, strict=True))
        s = score(ranks, k)
        n_miss = sum(1 for r in ranks if r is None or r > k)
        print(f"| {label} | {s[f'hit@{k}']:.3f} | {s['mrr@10']:.3f} | {n_miss} |")
    return results


COMPARED = ("docmill hybrid", "naive page-per-chunk hybrid")


def print_by_file(results: Results, questions: list[dict[str, Any]], k: int) -> None:
    print(f"\n| file | questions | docmill hybrid hit@{k} | naive hybrid hit@{k} |\n|---|---:|---:|---:|")
    for name in sorted({q["file"] for q in questions}):
        rows = [i for i, q in enumerate(questions) if q["file"] == name]
        got = [
            sum(1 for i in rows if (r := results[label][i][1]) is not None and r <= k) for label in COMPARED
        ]
        print(f"| {name} | {len(rows)} | {got[0]} | {got[1]} |")


def _cite(c: Cited) -> str:
    if c.pages is None:
        return f"{c.file}:-"
    first, last = c.pages
    return f"{c.file}:{first}" if first == last else f"{c.file}:{first}-{last}"


def print_misses(results: Results, questions: list[dict[str, Any]], k: int) -> None:
    for label in COMPARED:
        print(f"\n{label} misses:")
        for q, (cited, rank) in zip(questions, results[label], strict=True):
            if rank is None or rank > k:
                top = ", ".join(_cite(c) for c in cited[:3])
                print(f"  ({rank}) {q['q']}  -> {q['file']} p{q['pages']}  | top3: {top}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", required=True, type=Path, help="folder holding the PDFs the questions name")
    ap.add_argument("--index", type=Path, help="a docmill index built from --docs (default: ingest one)")
    ap.add_argument("--questions", type=Path, default=Path("eval/pdf/questions.jsonl"))
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--show-misses", action="store_true", help="list docmill hybrid and naive hybrid misses")
    ap.add_argument(
        "--by-file", action="store_true", help="hit@k of docmill hybrid and naive hybrid per file"
    )
    args = ap.parse_args(argv)
    questions = load(args.questions)
    missing = sorted({q["file"] for q in questions} - {p.name for p in args.docs.glob("*.pdf")})
    if missing:
        raise SystemExit(f"{args.docs} lacks {', '.join(missing)}: see eval/pdf/README.md")

    with tempfile.TemporaryDirectory(prefix="pdfq-") as tmp:
        index_path = args.index
        if index_path is None:
            index_path = Path(tmp) / "index"
            t0 = time.perf_counter()
            ingest(args.docs, index_path)
            print(f"ingested {args.docs} in {time.perf_counter() - t0:.0f} s")
        index = docmill.open_index(index_path)
        naive = NaiveIndex(pdf_pages(args.docs), index.embedder, Tokenizer())
        fusion = index.manifest.extra.get("fusion", {})
        print(
            f"{len(questions)} questions over {len(naive.pages)} pages; docmill {len(index)} chunks, stored "
            f"fusion: {fusion.get('method')} rrf_k={index.fusion_rrf_k:g} weights={index.fusion_weights} "
            f"bm25_coverage_power={index.fusion_coverage_power} ({fusion.get('reason', '')})\n"
        )
        results = run_all(runs_for(index, naive), questions, args.k)
        if args.by_file:
            print_by_file(results, questions, args.k)
        if args.show_misses:
            print_misses(results, questions, args.k)
        index.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
