"""The plan and parse stages' per-file work: which files a source tree holds (discover) and one
file's parse (parse_file: a file that cannot be indexed becomes a skipped record, never an error)."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from flows.globs import selected
from flows.ignorefiles import Ignored, IgnoreRules
from flows.outcomes import EMPTY_REASON, ParseOutcome, SourceRef, skip_status
from indexers.build.manifest import EMPTY, INDEXED, SKIPPED, DocumentRecord
from parsers.guard import parse_with_limits
from parsers.model import SkipFile
from parsers.options import ParseOptions
from parsers.source import SourceFile

log = logging.getLogger(__name__)

IGNORED_DIRS = frozenset({".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".tox"})


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except (ValueError, RuntimeError, OSError):  # outside the root, a symlink loop, a dangling link
        return False
    return True


@dataclass
class Discovery:
    """What discover_tree found: the files to ingest, and what the ignore files left out."""

    refs: list[SourceRef]
    ignored: Ignored = field(default_factory=Ignored)


def discover_tree(
    sources: Sequence[str | Path],
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    ignore_files: bool = True,
) -> Discovery:
    """Files under the source roots, sorted, ids prefixed with the root's own name. Hidden and tool
    folders are skipped; symlinks are followed only while they stay inside their root. With
    ``ignore_files``, each root's ``.gitignore`` / ``.docmillignore`` files are honoured
    (flows.ignorefiles). ``include`` / ``exclude``: globs selecting files under a root folder
    (flows.globs). A source named as a file is always taken."""
    refs: dict[str, SourceRef] = {}
    ignored = Ignored()
    for source in sources:
        root = Path(source)
        keeps = getattr(source, "keeps", lambda rel: True)  # a shard's part (flows.shards.ShardSource)
        if not root.exists():
            raise FileNotFoundError(f"source {root} does not exist")
        if root.is_file():
            if keeps(root.name):
                refs[root.name] = SourceRef(root, root.name)
            continue
        rules = IgnoreRules(root) if ignore_files else None
        for ref in _walk(root, rules, ignored):
            inner = ref.rel_path.split("/", 1)[1]
            if selected(inner, ref.rel_path, include, exclude) and keeps(ref.rel_path):
                refs[ref.rel_path] = ref
    return Discovery([refs[k] for k in sorted(refs)], ignored)


def discover(
    sources: Sequence[str | Path],
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    ignore_files: bool = True,
) -> list[SourceRef]:
    """discover_tree's files."""
    return discover_tree(sources, include, exclude, ignore_files).refs


def _walk(root: Path, rules: IgnoreRules | None, ignored: Ignored) -> Iterator[SourceRef]:
    """Every file under ``root`` an ingest may take (ids ``<root name>/<path>``), counting in
    ``ignored`` what ``rules`` leave out."""
    base = root.resolve().name or "root"
    for dirpath, dirnames, filenames in os.walk(root):
        folder = Path(dirpath).relative_to(root).as_posix()
        folder = "" if folder == "." else folder
        if rules is not None:
            rules.enter(folder)
        kept = []
        for d in sorted(dirnames):
            if d in IGNORED_DIRS or d.startswith("."):
                continue
            if rules is not None and rules.ignored(f"{folder}/{d}".lstrip("/"), is_dir=True):
                ignored.folders += 1
                continue
            kept.append(d)
        dirnames[:] = kept
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if name.startswith(".") or (path.is_symlink() and not _inside(path, root)):
                continue
            if not path.is_file():
                continue
            inner = path.relative_to(root).as_posix()
            if rules is not None and rules.ignored(inner):
                ignored.files += 1
                continue
            yield SourceRef(path, f"{base}/{inner}")


def parse_file(ref: SourceRef, options: ParseOptions) -> ParseOutcome:
    """Parse one file; a file that cannot be indexed becomes a "skipped" record with its reason."""
    from parsers.registry import parser_name_for

    parser = parser_name_for(ref.path)
    try:
        source = SourceFile.read(ref.path, ref.rel_path, max_bytes=options.max_file_bytes)
    except SkipFile as exc:
        size = ref.path.stat().st_size
        return ParseOutcome(DocumentRecord(ref.rel_path, "", size, parser, skip_status(str(exc)), str(exc)))
    except OSError as exc:
        reason = f"unreadable: {exc.strerror or exc}"
        return ParseOutcome(DocumentRecord(ref.rel_path, "", 0, parser, SKIPPED, reason))
    record = DocumentRecord(ref.rel_path, source.sha256, len(source.data), parser, INDEXED)
    if not source.data.strip():
        record.status, record.reason = EMPTY, EMPTY_REASON
        return ParseOutcome(record)
    try:
        docs = parse_with_limits(source, options)  # in a worker process: a hard time limit per file
    except SkipFile as exc:
        record.status, record.reason = skip_status(str(exc)), str(exc)
        log.info("skipping %s: %s", ref.rel_path, exc)
        return ParseOutcome(record)
    except Exception as exc:  # a parser bug must cost one file, not the whole ingest
        record.status, record.reason = SKIPPED, f"parser error: {type(exc).__name__}: {exc}"
        where = getattr(exc, "worker_traceback", "")  # parsers.guard.ParserCrashed: the worker's
        if where:
            log.warning("could not parse %s, skipping it: %s", ref.rel_path, where.rstrip())
        else:
            log.warning("could not parse %s, skipping it", ref.rel_path, exc_info=True)
        return ParseOutcome(record)
    if not docs:
        record.status, record.reason = SKIPPED, "no content"
        return ParseOutcome(record)
    record.records = len(docs)
    if len(docs) == 1 and docs[0].metadata:
        record.metadata = {
            k: v for k, v in docs[0].metadata.items() if isinstance(v, str | int | float | bool)
        }
    return ParseOutcome(record, docs)
