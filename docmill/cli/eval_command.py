"""`docmill eval`: BEIR sets and question sets over a tree."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

from docmill.cli.common import (
    EXIT_OK,
    _endpoint,
    _print_json,
    _reranker,
)
from indexers.build.sections import FusionSection
from indexers.ranking.options import Mode


def cmd_eval(args: argparse.Namespace) -> int:
    from docmill.api import open_index
    from docmill.eval.compare import compare_modes, format_comparisons
    from docmill.eval.runner import ensure_index, evaluate_per_query, format_table, load_beir
    from flows.config import IngestConfig

    modes = [Mode.from_str(m.strip()).value for m in args.modes.split(",") if m.strip()]
    if args.k < 1:
        raise ValueError(f"--k must be at least 1, got {args.k}")
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
        "fusion_method": args.fusion,
        "k": args.k,
        **({"rerank": args.rerank_url} if reranker else {}),
    }
    per_query = evaluate_per_query(
        index,
        dataset,
        modes,
        abstain=args.abstain,
        search_options={**options, "collapse": args.collapse, "fusion": args.fusion},
        k=args.k,
    )
    report["modes"] = {mode: result.summary() for mode, result in per_query.items()}
    report["compare"] = compare_modes(
        {mode: {f"ndcg@{args.k}": r.ndcg, f"mrr@{args.k}": r.mrr} for mode, r in per_query.items()}
    )
    if args.json:
        _print_json(report)
    else:
        print("\n".join([format_table(report), *format_comparisons(report["compare"])]))
    return EXIT_OK


def _eval_questions(args: argparse.Namespace, modes: list[str]) -> int:
    """`docmill eval --queries FILE (--docs DIR | --index INDEX)`: hit@k / MRR / abstain rates of
    a question set, the tree indexed through the real (incremental, cached) ingest."""
    from docmill.api import open_index
    from docmill.eval.compare import compare_modes, format_comparisons, question_measures
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
    options: dict[str, Any] = {"collapse": args.collapse, "fusion": args.fusion}
    if reranker:
        options["rerank"] = reranker
    summary, records = evaluate_questions(
        index, questions, modes, root=root, search_options=options, k=args.k
    )
    report = {
        "questions_file": str(args.queries or args.offtopic),
        "half": args.half,
        "questions": sum(not q.offtopic for q in questions),
        "offtopic": sum(q.offtopic for q in questions),
        "index": str(index_path),
        "fusion": FusionSection.read(index.manifest.extra).to_dict(),
        "collapse": args.collapse,
        "fusion_method": args.fusion,
        "k": args.k,
        "modes": summary,
        "compare": compare_modes(question_measures(records, args.k)),
    }
    if args.report:
        from docmill.eval.report import write_report

        report["report"] = str(write_report(Path(args.report), report, records))
    if args.json:
        _print_json({**report, "per_question": records} if args.per_question else report)
    else:
        print("\n".join([format_questions(report), *format_comparisons(report["compare"])]))
        if args.report:
            print(f"report: {report['report']}")
    return EXIT_OK
