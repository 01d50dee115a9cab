"""`docmill ingest | query | parse | chunk | inspect | refs | repo-map | eval | serve`."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence

from docmill.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from docmill.cli.parser import _index_option_first, build_parser

__all__ = ["EXIT_FAILED", "EXIT_OK", "EXIT_USAGE", "build_parser", "main"]


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
