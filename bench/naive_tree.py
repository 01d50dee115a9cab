"""The naive pipeline a user could write in an afternoon, as the peer of `docmill eval --queries`.

    PYTHONPATH=. .venv/bin/python bench/naive_tree.py --docs DIR --queries FILE [--offtopic FILE]
        [--half fit|held|all] [--json [--per-question]]

Chunks: Markdown split at every heading outside code fences; Python split with ``ast`` into
top-level functions, each method (``Class.method``) and each class's own lines; other code in
60-line windows; PDFs one chunk per page (pdfplumber ``extract_text``); other text whole. BM25 is
bm25s (k1 0.9, b 0.4) over lowercased alphanumeric runs split at camelCase/snake_case plus CJK
character bigrams; the vector side is all-MiniLM-L6-v2 cosine; hybrid is plain RRF (k=60, equal
weights) of each side's top 100. Scored with the same rules as `docmill eval --queries`
(docmill.eval.questions), so the two tables compare. It never abstains: its off-topic row is what a
pipeline without abstaining does.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bm25s
import numpy as np

from docmill.eval.questions import Question, Tally, first_rank, load_questions, select_half, tally_question
from indexers.dense.embedder import Embedder
from indexers.ranking.fusion import rrf

WORD = re.compile(r"[A-Za-z0-9]+")
CAMEL = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
HEADING = re.compile(r"^#{1,6}\s")
FENCE = re.compile(r"^\s*(```|~~~)")
WINDOW = 60


@dataclass(frozen=True)
class NaiveChunk:
    path: str
    text: str
    lines: tuple[int, int] | None = None
    pages: tuple[int, int] | None = None
    symbol: str | None = None


def tokenize(text: str) -> list[str]:
    tokens = [part.lower() for word in WORD.findall(text) for part in (CAMEL.findall(word) or [word])]
    for run in CJK_RUN.findall(text):
        tokens += [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
    return tokens


def markdown_chunks(path: str, text: str) -> list[NaiveChunk]:
    lines = text.splitlines()
    starts, fenced = [0], False
    for i, line in enumerate(lines):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and HEADING.match(line) and i > 0:
            starts.append(i)
    bounds = list(zip(starts, [*starts[1:], len(lines)], strict=True))
    return [
        NaiveChunk(path, "\n".join(lines[a:b]), (a + 1, b)) for a, b in bounds if "".join(lines[a:b]).strip()
    ]


def python_chunks(path: str, text: str) -> list[NaiveChunk]:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return window_chunks(path, text)
    lines = text.splitlines()
    chunks = []

    def add(a: int, b: int, symbol: str) -> None:
        chunks.append(NaiveChunk(path, f"{symbol}\n" + "\n".join(lines[a - 1 : b]), (a, b), symbol=symbol))

    for node in tree.body:
        end = node.end_lineno or node.lineno
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            add(node.lineno, end, node.name)
        elif isinstance(node, ast.ClassDef):
            methods = [n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
            add(node.lineno, max(node.lineno, methods[0].lineno - 1) if methods else end, node.name)
            for m in methods:
                add(m.lineno, m.end_lineno or m.lineno, f"{node.name}.{m.name}")
    return chunks or window_chunks(path, text)


def window_chunks(path: str, text: str) -> list[NaiveChunk]:
    lines = text.splitlines()
    return [
        NaiveChunk(path, "\n".join(lines[i : i + WINDOW]), (i + 1, min(i + WINDOW, len(lines))))
        for i in range(0, max(len(lines), 1), WINDOW)
    ]


def pdf_chunks(path: str, file: Path) -> list[NaiveChunk]:
    import pdfplumber

    with pdfplumber.open(file) as pdf:
        return [
            NaiveChunk(path, page.extract_text() or "", pages=(n, n)) for n, page in enumerate(pdf.pages, 1)
        ]


CODE_SUFFIXES = {".go", ".js", ".ts", ".java", ".rs", ".c", ".h", ".cpp", ".cc", ".hpp", ".tsx", ".jsx"}


def tree_chunks(root: Path) -> list[NaiveChunk]:
    chunks: list[NaiveChunk] = []
    for file in sorted(p for p in root.rglob("*") if p.is_file()):
        path = file.relative_to(root).as_posix()
        suffix = file.suffix.lower()
        if suffix == ".pdf":
            chunks += pdf_chunks(path, file)
            continue
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if suffix in (".md", ".markdown"):
            chunks += markdown_chunks(path, text)
        elif suffix == ".py":
            chunks += python_chunks(path, text)
        elif suffix in CODE_SUFFIXES:
            chunks += window_chunks(path, text)
        elif suffix in (".txt", ".rst"):
            chunks.append(NaiveChunk(path, text))
    return [c for c in chunks if c.text.strip()]


class NaivePipeline:
    def __init__(self, chunks: Sequence[NaiveChunk], embedder: Embedder, depth: int = 100) -> None:
        self.chunks, self.embedder, self.depth = list(chunks), embedder, depth
        self.bm25 = bm25s.BM25(k1=0.9, b=0.4)
        self.bm25.index([tokenize(c.text) for c in self.chunks], show_progress=False)
        self.vectors = embedder.encode([c.text for c in self.chunks])

    def ranking(self, query: str, mode: str) -> list[NaiveChunk]:
        lists: dict[str, list[int]] = {}
        if mode in ("bm25", "hybrid"):
            tokens = [t for t in tokenize(query) if t in self.bm25.vocab_dict] or ["\x00"]
            k = min(self.depth, len(self.chunks))
            docs, scores = self.bm25.retrieve([tokens], k=k, show_progress=False)
            lists["bm25"] = [int(d) for d, s in zip(docs[0], scores[0], strict=True) if s > 0]
        if mode in ("vector", "hybrid"):
            sims = self.vectors @ self.embedder.encode([query])[0]
            lists["vector"] = np.argsort(-sims)[: self.depth].tolist()
        rows = [f.row for f in rrf(lists, 60.0)] if mode == "hybrid" else lists[mode]
        return [self.chunks[r] for r in rows]


def evaluate(
    pipeline: NaivePipeline, questions: Sequence[Question], records: list[dict[str, Any]] | None = None
) -> dict[str, dict[str, Any]]:
    """Summaries per mode and kind; with ``records``, one record per question and mode is appended
    there in the shape of `docmill eval --per-question` (for bench/pair_runs.py)."""
    out: dict[str, dict[str, Any]] = {}
    for mode in ("bm25", "vector", "hybrid"):
        tallies: dict[str, Tally] = {}
        for q in questions:  # it never abstains
            rank = None if q.offtopic else first_rank(q, pipeline.ranking(q.query, mode))
            tally_question(tallies, q, rank, False)
            if records is not None:
                records.append(
                    {
                        "id": q.id,
                        "mode": mode,
                        "kind": q.kind,
                        "offtopic": q.offtopic,
                        "rank": rank,
                        "abstained": False,
                    }
                )
        out[mode] = {kind: t.summary() for kind, t in sorted(tallies.items())}
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", required=True, type=Path)
    ap.add_argument("--queries", required=True)
    ap.add_argument("--offtopic")
    ap.add_argument("--half", default="all", choices=("all", "fit", "held"))
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--per-question", action="store_true", help="with --json: each question's rank per mode")
    args = ap.parse_args(argv)
    questions = load_questions(args.queries) + (
        load_questions(args.offtopic, offtopic=True) if args.offtopic else []
    )
    questions = select_half(questions, args.half)
    chunks = tree_chunks(args.docs)
    report = {"peer": "naive", "half": args.half, "chunks": len(chunks)}
    records: list[dict[str, Any]] = []
    report["modes"] = evaluate(NaivePipeline(chunks, Embedder()), questions, records)
    if args.json:
        print(json.dumps({**report, "per_question": records} if args.per_question else report))
        return 0
    print(f"naive pipeline over {args.docs} ({len(chunks)} chunks), {args.half} half")
    print("| mode | kind | n | hit@1 | hit@5 | MRR@10 |\n|---|---|---:|---:|---:|---:|")
    for mode, kinds in report["modes"].items():
        for kind, m in kinds.items():
            if "hit@5" in m:
                print(
                    f"| {mode} | {kind} | {m['questions']} | {m['hit@1']:.3f} | {m['hit@5']:.3f} "
                    f"| {m['mrr@10']:.3f} |"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
