"""Query-side metadata filters -> a boolean mask over chunk rows, shared by both retrievers so the
top-k cut happens after filtering."""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from chunkers.model import CHUNK_KINDS, Chunk

FILTER_KEYS = ("path", "kind", "language", "pages", "doc_id", "metadata")


def _one_of(value: Any) -> set[str]:
    return {value} if isinstance(value, str) else set(value)


def _matches(chunk: Chunk, filters: Mapping[str, Any]) -> bool:
    if "path" in filters:
        patterns = _one_of(filters["path"])
        if not any(fnmatch.fnmatchcase(chunk.path, p) for p in patterns):
            return False
    if "kind" in filters and chunk.kind not in _one_of(filters["kind"]):
        return False
    if "language" in filters and chunk.language not in _one_of(filters["language"]):
        return False
    if "doc_id" in filters and chunk.doc_id not in _one_of(filters["doc_id"]):
        return False
    if "pages" in filters:
        lo, hi = filters["pages"]
        if chunk.pages is None or chunk.pages[1] < lo or chunk.pages[0] > hi:
            return False
    for key, expected in (filters.get("metadata") or {}).items():
        if chunk.metadata.get(key) != expected:
            return False
    return True


def validate(filters: Mapping[str, Any]) -> None:
    unknown = set(filters) - set(FILTER_KEYS)
    if unknown:
        raise ValueError(
            f"unknown filter(s) {', '.join(sorted(unknown))}; expected any of: {', '.join(FILTER_KEYS)}"
        )
    if "kind" in filters:  # a closed set: an unknown kind is a mistake, not "no hits"
        bad = sorted(_one_of(filters["kind"]) - set(CHUNK_KINDS))
        if bad:
            named, valid = ", ".join(map(repr, bad)), ", ".join(CHUNK_KINDS)
            raise ValueError(f"unknown kind {named} in filter 'kind'; expected any of: {valid}")
    if "pages" in filters:
        pages = filters["pages"]
        if not (isinstance(pages, Sequence) and len(pages) == 2 and pages[0] <= pages[1]):
            raise ValueError(f"filter 'pages' takes (first, last), got {pages!r}")


def mask(chunks: Sequence[Chunk], filters: Mapping[str, Any] | None) -> np.ndarray | None:
    """None when there is nothing to filter (cheaper than an all-True mask)."""
    if not filters:
        return None
    validate(filters)
    return np.fromiter((_matches(c, filters) for c in chunks), dtype=bool, count=len(chunks))


def from_pairs(pairs: Sequence[str]) -> dict[str, Any]:
    """``KEY=VALUE`` strings (the CLI's --filter, the server's ?filter=) -> filters for `mask`:
    path/kind/language/doc_id repeat as alternatives, ``pages=A-B``, ``metadata.KEY=V``."""
    filters: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"a filter takes KEY=VALUE (e.g. kind=table), got {pair!r}")
        if key == "pages":
            lo, _, hi = value.partition("-")
            if not (lo.strip().isdigit() and (hi or lo).strip().isdigit()):
                raise ValueError(f"filter pages takes FIRST-LAST page numbers (e.g. 2-5), got {value!r}")
            filters["pages"] = (int(lo), int(hi or lo))
        elif key.startswith("metadata."):
            filters.setdefault("metadata", {})[key.removeprefix("metadata.")] = value
        else:
            filters.setdefault(key, []).append(value)
    validate(filters)
    return filters
