"""The commands that build and read an index: ingest, query, parse, chunk, refs, repo-map,
inspect, serve (eval: docmill/cli/eval_command.py)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from docmill.cli.common import (
    EXIT_OK,
    EXIT_USAGE,
    _endpoint,
    _filters,
    _print_json,
    _print_skips,
    _progress_bars,
    _reranker,
)


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
        windows=args.windows,
        **_endpoint(args),
        include=tuple(args.include),
        exclude=tuple(args.exclude),
        ignore_files=args.ignore_files,
    )
    if args.replicas < 0 or (args.replicas and not args.shards):
        print("error: --replicas R needs --shards N (R >= 1 replica folders of each shard)", file=sys.stderr)
        return EXIT_USAGE
    if args.shards:  # N ordinary index folders under --index and a root manifest (flows/shards.py)
        from flows.shards import run_sharded_ingest

        sharded = run_sharded_ingest(
            args.sources, args.index, args.shards, config, full_rebuild=args.full_rebuild
        )
        replicas = _replicate(args.index, args.replicas)
        out = {**sharded.to_json(), "replicas": replicas}
        summary = sharded.summary() + (f"; {replicas} replica(s) of each shard" if replicas else "")
        print(json.dumps(out, indent=1) if args.json else summary)
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
                "empty_files": report.empty_files,
                "ignored": {"files": report.ignored.files, "folders": report.ignored.folders},
                "skipped_files": [{"path": p, "reason": r} for p, r in report.skipped_files],
            }
        )
    else:
        _print_skips(report.skipped_files, report.empty_files)
        print(report.summary())
    return EXIT_OK


def _replicate(root: str, copies: int) -> int:
    """``--replicas``: give each shard of ``root`` ``copies`` replica folders when it has another
    number (the ingest just published its builds in the ones it has); the count it now has."""
    from flows.shards import add_replicas
    from indexers.build.shards import RootManifest

    shards = RootManifest.read(Path(root)).shards
    if copies and any(len(entry.replicas) != copies for entry in shards):
        shards = add_replicas(root, copies).shards
    return min((len(entry.replicas) for entry in shards), default=0)


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
        fusion=args.fusion,
    )
    if args.json:
        _print_json(result.to_json())
        return EXIT_OK
    for note in result.notes:
        print(f"note: {note}")
    print(_verdict_line(result))
    if result.abstained:
        print(f"no answer: {result.reason}")
        return EXIT_OK
    if not result.hits:
        print(f"no hits: {result.reason}" if result.reason else "no hits")
    for i, hit in enumerate(result.hits, start=1):
        print(f"[{i}] {hit.citation}  {hit.explain}")
        text = " ".join(hit.chunk.text.split())
        print(f"    {text[:300]}{'...' if len(text) > 300 else ''}")
        if hit.used_by or hit.calls:
            print(f"    used by: {', '.join(hit.used_by) or '-'}; calls: {', '.join(hit.calls) or '-'}")
        if hit.siblings:
            print(f"    also here: {'; '.join(s.citation() for s in hit.siblings)}")
    return EXIT_OK


def _verdict_line(result: Any) -> str:
    """``confidence 0.72 (answers at >= 0.50); build NAME`` (a sharded root: ``builds: 00 NAME,
    01 NAME``); ``confidence -`` where nothing was judged (filters no chunk passes)."""
    from indexers.ranking.abstain import DECISION

    sure = (
        f"confidence {result.confidence:.2f} (answers at >= {DECISION:.2f})"
        if result.confidence is not None
        else "confidence - (nothing to judge)"
    )
    shards = getattr(result, "shards", None)
    if shards is None:
        return f"{sure}; build {result.build}"
    builds = dict(part.split("=", 1) for part in (result.build or "").split("+") if "=" in part)
    named = [
        f"{name} {builds.get(name, '?')}" if status == "ok" else f"{name} did not answer ({status})"
        for name, status in shards.items()
    ]
    return f"{sure}; builds: {', '.join(named) or '-'}"


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


def _code_graph(index: str, command: str) -> Any:
    """The index's code graph; a ValueError (exit 1, said on stderr) when it holds no code."""
    from docmill.graph import open_code_graph

    return open_code_graph(index, command)


def cmd_refs(args: argparse.Namespace) -> int:
    found = _code_graph(args.index, args.command).references(args.name)
    if args.json:
        _print_json(found.to_json())
    else:
        print(found.text())
    return EXIT_OK


def cmd_repo_map(args: argparse.Namespace) -> int:
    from docmill.repomap import repo_map

    result = repo_map(_code_graph(args.index, args.command), tokens=args.tokens, focus=args.focus)
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
