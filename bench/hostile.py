"""Hostile-input reliability run: every file either indexed or skipped with a reason, none crashed.

    PYTHONPATH=. .venv/bin/python bench/hostile.py [--eval DIR] [--generated] [--ocr] [--guard]
                                                    [--only-scanned] [--json OUT]

Parses every file under ``--eval`` (default ../shared/eval/pdf: third-party material, measured
here, never copied into tests) and/or the generated hostile set (``--generated``: written to a
temporary folder by tests/reliability/hostile.py) one by one with ``flows.pipeline.parse_file``
(the pipeline's own per-file step), or with ``parsers.guard.parse_with_limits`` (``--guard``: the
hard per-file time limit in a worker process). Reports counts indexed / skipped by reason /
"parser error" (an exception the pipeline caught: a bug to fix) / crashed (an exception that
escaped parse_file: must be 0), and the slowest files.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import logging
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from flows.pipeline import ParseOutcome, SourceRef, parse_file  # noqa: E402
from indexers.build.manifest import DocumentRecord  # noqa: E402
from parsers.model import SkipFile  # noqa: E402
from parsers.options import ParseOptions  # noqa: E402

DEFAULT_EVAL = REPO.parent / "shared" / "eval" / "pdf"


def load_generator() -> Any:
    spec = importlib.util.spec_from_file_location(
        "docmill_hostile", REPO / "tests" / "reliability" / "hostile.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def every_file(root: Path) -> list[Path]:
    """All regular files and symlinks under ``root`` (symlinks are parse_file's problem too)."""
    out = []
    for dirpath, _dirnames, filenames in os.walk(root):
        out.extend(Path(dirpath) / name for name in filenames)
    return sorted(out)


def guarded_parse(ref: SourceRef, options: ParseOptions) -> ParseOutcome:
    """parse_file's contract with parsers.guard.parse_with_limits instead of parse_source."""
    from parsers.guard import ParserCrashed, parse_with_limits
    from parsers.registry import parser_name_for
    from parsers.source import SourceFile

    parser = parser_name_for(ref.path)
    try:
        source = SourceFile.read(ref.path, ref.rel_path)
    except OSError as exc:
        return ParseOutcome(
            DocumentRecord(ref.rel_path, "", 0, parser, "skipped", f"unreadable: {exc.strerror}")
        )
    record = DocumentRecord(ref.rel_path, source.sha256, len(source.data), parser, "indexed")
    try:
        docs = parse_with_limits(source, options)
    except SkipFile as exc:
        record.status, record.reason = "skipped", str(exc)
        return ParseOutcome(record)
    except ParserCrashed as exc:
        record.status, record.reason = "skipped", f"parser error: {exc}"
        return ParseOutcome(record)
    if not docs:
        record.status, record.reason = "skipped", "no content"
    return ParseOutcome(record, docs)


def reason_class(reason: str) -> str:
    """A reason without file-specific numbers and quotes, so reasons group."""
    reason = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", reason)
    reason = re.sub(r"\d+(\.\d+)?", "N", reason)
    return reason[:90]


def run(files: list[tuple[Path, str]], options: ParseOptions, guard: bool) -> dict[str, Any]:
    statuses: collections.Counter[str] = collections.Counter()
    reasons: collections.Counter[str] = collections.Counter()
    errors, crashes, timings = [], [], []
    for i, (path, rel) in enumerate(files, 1):
        started = time.perf_counter()
        try:
            outcome = (guarded_parse if guard else parse_file)(SourceRef(path, rel), options)
        except BaseException as exc:  # noqa: BLE001 - counting escapes is the point
            if isinstance(exc, KeyboardInterrupt):
                raise
            crashes.append((rel, f"{type(exc).__name__}: {exc}"))
            statuses["crashed"] += 1
            continue
        finally:
            timings.append((time.perf_counter() - started, rel))
        record = outcome.record
        statuses[record.status] += 1
        if record.status == "skipped":
            reasons[reason_class(record.reason or "")] += 1
            if (record.reason or "").startswith("parser error"):
                errors.append((rel, record.reason))
        print(
            f"[{i}/{len(files)}] {timings[-1][0]:6.2f}s {record.status:8s} {rel}", file=sys.stderr, flush=True
        )
    timings.sort(reverse=True)
    return {
        "files": len(files),
        "ocr": options.ocr,
        "guard": guard,
        "indexed": statuses["indexed"],
        "skipped": statuses["skipped"],
        "crashed": statuses["crashed"],
        "parser_errors": errors,
        "crashes": crashes,
        "skipped_by_reason": dict(reasons.most_common()),
        "slowest": [(round(t, 2), rel) for t, rel in timings[:8]],
        "total_seconds": round(sum(t for t, _ in timings), 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--eval", type=Path, default=None, help=f"folder to parse (default {DEFAULT_EVAL})")
    parser.add_argument(
        "--generated", action="store_true", help="also the generated hostile set (big files too)"
    )
    parser.add_argument("--ocr", action="store_true", help="OCR scanned pages (slow: ~10-30 s per page here)")
    parser.add_argument("--only-scanned", action="store_true", help="only PDFs whose path mentions ocr/scan")
    parser.add_argument(
        "--guard", action="store_true", help="parse in a worker process with the hard time limit"
    )
    parser.add_argument("--json", type=Path, help="write the report here too")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    files: list[tuple[Path, str]] = []
    if args.eval is not None or not args.generated:
        root = args.eval or DEFAULT_EVAL
        files += [(p, p.relative_to(root).as_posix()) for p in every_file(root)]
    if args.only_scanned:
        files = [(p, r) for p, r in files if p.suffix.lower() == ".pdf" and re.search(r"ocr|scan", r, re.I)]
    tmp = None
    if args.generated:
        tmp = tempfile.TemporaryDirectory(prefix="docmill-hostile-")
        root = Path(tmp.name) / "hostile"
        load_generator().write_hostile(root, big=True)
        files += [(p, "generated/" + p.relative_to(root).as_posix()) for p in every_file(root)]
    report = run(files, ParseOptions(ocr=args.ocr), args.guard)
    text = json.dumps(report, indent=1, ensure_ascii=False)
    print(text)
    if args.json:
        args.json.write_text(text, encoding="utf-8")
    if tmp is not None:
        tmp.cleanup()
    return 1 if report["crashed"] else 0


if __name__ == "__main__":
    sys.exit(main())
