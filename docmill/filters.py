"""Query-side metadata filters -> a boolean mask over chunk rows, shared by both retrievers so the
top-k cut happens after filtering."""

from __future__ import annotations

import difflib
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


class FilterError(ValueError):
    """A filter a person can fix; ``field`` names the filter key at fault (None: the filters as a
    whole). The CLI exits 1 with the message; the server answers 400."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def validate(filters: Mapping[str, Any]) -> None:
    """The filters' shape: known keys, kinds from the closed set, a page range."""
    unknown = set(filters) - set(FILTER_KEYS)
    if unknown:
        raise FilterError(
            f"unknown filter(s) {', '.join(sorted(unknown))}; expected any of: {', '.join(FILTER_KEYS)}",
            field=sorted(unknown)[0],
        )
    if "kind" in filters:  # a closed set: an unknown kind is a mistake, not "no hits"
        bad = sorted(_one_of(filters["kind"]) - set(CHUNK_KINDS))
        if bad:
            named, valid = ", ".join(map(repr, bad)), ", ".join(CHUNK_KINDS)
            raise FilterError(
                f"unknown kind {named} in filter 'kind'; expected any of: {valid}", field="kind"
            )
    if "pages" in filters:
        pages = filters["pages"]
        if not (isinstance(pages, Sequence) and len(pages) == 2 and pages[0] <= pages[1]):
            raise FilterError(f"filter 'pages' takes (first, last), got {pages!r}", field="pages")


def check_held(chunks: Sequence[Chunk], filters: Mapping[str, Any]) -> None:
    """``language`` and ``doc_id`` values must name something the build holds: a value no chunk
    has is a mistake (a typo, ``py`` for ``python``), not "no hits". ``path`` is a glob and
    ``metadata`` free-form: matching nothing is an answer there."""
    if "language" in filters:
        held = {c.language for c in chunks if c.language}
        bad = sorted(_one_of(filters["language"]) - held)
        if bad:
            known = ", ".join(sorted(held)) or "none (the build holds no code)"
            named = ", ".join(map(repr, bad))
            raise FilterError(
                f"unknown language {named} in filter 'language'; this build holds: {known}", "language"
            )
    if "doc_id" in filters:
        docs = {c.doc_id for c in chunks}
        bad = sorted(_one_of(filters["doc_id"]) - docs)
        if bad:
            near = difflib.get_close_matches(bad[0], sorted(docs), n=5, cutoff=0.5)
            hint = f"; did you mean: {', '.join(near)}" if near else " (use filter 'path' for a glob)"
            named = ", ".join(map(repr, bad))
            raise FilterError(
                f"unknown doc_id {named}: not among this build's {len(docs)} documents{hint}", "doc_id"
            )


def mask(chunks: Sequence[Chunk], filters: Mapping[str, Any] | None, held: bool = True) -> np.ndarray | None:
    """None when there is nothing to filter (cheaper than an all-True mask). ``held``: check that
    language and doc_id values name something in ``chunks`` (check_held; a shard, which holds only
    part of a build, passes False)."""
    if not filters:
        return None
    validate(filters)
    if held:
        check_held(chunks, filters)
    return np.fromiter((_matches(c, filters) for c in chunks), dtype=bool, count=len(chunks))


def from_pairs(pairs: Sequence[str]) -> dict[str, Any]:
    """``KEY=VALUE`` strings (the CLI's --filter, the server's ?filter=) -> filters for `mask`:
    path/kind/language/doc_id repeat as alternatives, ``pages=A-B``, ``metadata.KEY=V``."""
    filters: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise FilterError(f"a filter takes KEY=VALUE (e.g. kind=table), got {pair!r}")
        if key == "pages":
            lo, _, hi = value.partition("-")
            if not (lo.strip().isdigit() and (hi or lo).strip().isdigit()):
                raise FilterError(
                    f"filter pages takes FIRST-LAST page numbers (e.g. 2-5), got {value!r}", field="pages"
                )
            filters["pages"] = (int(lo), int(hi or lo))
        elif key.startswith("metadata."):
            filters.setdefault("metadata", {})[key.removeprefix("metadata.")] = value
        else:
            filters.setdefault(key, []).append(value)
    validate(filters)
    return filters
