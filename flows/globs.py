"""`--include` / `--exclude` globs of an ingest: which discovered files are indexed.

A pattern is matched (fnmatch, case-sensitive; ``*`` also crosses ``/``) against a file's path
relative to its source root, against that path with the root's own name in front (the id the
index uses, e.g. ``proj/docs/a.md``), and, when the pattern has no ``/``, against the file name
alone. A leading ``**/`` also matches at the top level (``**/*.md`` takes ``README.md``).
A file is kept when it matches an include pattern (or none are given) and no exclude pattern.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence


def _matches(pattern: str, rel: str, rel_id: str) -> bool:
    candidates = [pattern, pattern[3:]] if pattern.startswith("**/") else [pattern]
    names = [rel, rel_id] if "/" in pattern else [rel, rel_id, rel.rsplit("/", 1)[-1]]
    return any(fnmatch.fnmatchcase(name, p) for p in candidates for name in names)


def selected(rel: str, rel_id: str, include: Sequence[str] = (), exclude: Sequence[str] = ()) -> bool:
    """Whether a file (``rel``: relative to its root; ``rel_id``: its id in the index) is ingested."""
    if include and not any(_matches(p, rel, rel_id) for p in include):
        return False
    return not any(_matches(p, rel, rel_id) for p in exclude)
