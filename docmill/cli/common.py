"""What the commands share: exit codes, JSON output, filters, the rerank and embedding endpoint
options read back from the arguments, progress bars."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _print_json(data: Any) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


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


def _print_skips(skipped_files: Sequence[tuple[str, str]], empty: Sequence[str]) -> None:
    """One stderr line per skipped file; the empty files (an empty `__init__.py`) in one line."""
    for path, reason in skipped_files:
        print(f"skipped {path}: {reason}", file=sys.stderr)
    if empty:
        shown = ", ".join(empty[:3]) + (f" and {len(empty) - 3} more" if len(empty) > 3 else "")
        print(f"{len(empty)} empty file(s) recorded, nothing to index: {shown}", file=sys.stderr)


def _progress_bars(args: argparse.Namespace) -> Any:
    """Progress on stderr: bars for `--progress always`, or `auto` on a terminal that reports its
    width, without --json; one line per stage for `auto` off a terminal (a CI log, a pipe) or on
    one of 0 columns, without --json; nothing for `never` or `auto` with --json (stdout is then
    the JSON report, and 2>&1 must keep it whole)."""
    if args.progress == "never" or (args.progress == "auto" and args.json):
        return None
    from docmill.progress import StageBars, StageLines, terminal_columns

    model = f"{args.model} ({args.embedding_backend})"
    # `auto`: bars on a terminal that gives its width; lines off a terminal and on one of 0 columns
    if args.progress == "always" or terminal_columns(sys.stderr):
        return StageBars(model)
    return StageLines(lambda line: print(line, file=sys.stderr, flush=True), model)


def _filters(pairs: Sequence[str]) -> dict[str, Any]:
    from docmill.filters import from_pairs

    return from_pairs(pairs)
