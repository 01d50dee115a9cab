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


HELD_KEYS = ("language", "doc_id")
CLOSE = 0.5  # difflib's similarity for a doc_id hint


def held_values(chunks: Sequence[Chunk], filters: Mapping[str, Any]) -> dict[str, Any]:
    """What ``chunks`` hold of the filter's ``language`` / ``doc_id`` values, as plain data (a
    shard's answer travels to the coordinator): ``languages`` (every language held), ``doc_ids``
    (the asked doc_ids held), ``documents`` (how many) and ``near`` (held doc_ids close to each
    asked one not held, for the hint)."""
    out: dict[str, Any] = {}
    if "language" in filters:
        out["languages"] = sorted({c.language for c in chunks if c.language})
    if "doc_id" in filters:
        docs = {c.doc_id for c in chunks}
        asked = _one_of(filters["doc_id"])
        out["doc_ids"] = sorted(asked & docs)
        out["documents"] = len(docs)
        out["near"] = {
            value: difflib.get_close_matches(value, sorted(docs), n=5, cutoff=CLOSE) for value in asked - docs
        }
    return out


def merge_held(parts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``held_values`` of disjoint parts of a build (a sharded root's shards) as one build's."""
    out: dict[str, Any] = {}
    if any("languages" in p for p in parts):
        out["languages"] = sorted({lang for p in parts for lang in p.get("languages", ())})
    if any("doc_ids" in p for p in parts):
        out["doc_ids"] = sorted({d for p in parts for d in p.get("doc_ids", ())})
        out["documents"] = sum(p.get("documents", 0) for p in parts)
        near: dict[str, list[str]] = {}
        for p in parts:
            for value, close in p.get("near", {}).items():
                near.setdefault(value, []).extend(close)
        out["near"] = {
            v: difflib.get_close_matches(v, sorted(set(c)), n=5, cutoff=CLOSE) for v, c in near.items()
        }
    return out


def check_values(filters: Mapping[str, Any], held: Mapping[str, Any]) -> None:
    """``language`` and ``doc_id`` values must name something the build holds (``held``, from
    ``held_values`` or ``merge_held``): a value no chunk has is a mistake (a typo, ``py`` for
    ``python``), not "no hits". ``path`` is a glob and ``metadata`` free-form: matching nothing is
    an answer there."""
    if "language" in filters:
        languages = set(held.get("languages", ()))
        bad = sorted(_one_of(filters["language"]) - languages)
        if bad:
            known = ", ".join(sorted(languages)) or "none (the build holds no code)"
            named = ", ".join(map(repr, bad))
            raise FilterError(
                f"unknown language {named} in filter 'language'; this build holds: {known}", "language"
            )
    if "doc_id" in filters:
        bad = sorted(_one_of(filters["doc_id"]) - set(held.get("doc_ids", ())))
        if bad:
            near = held.get("near", {}).get(bad[0], [])
            hint = f"; did you mean: {', '.join(near)}" if near else " (use filter 'path' for a glob)"
            named = ", ".join(map(repr, bad))
            raise FilterError(
                f"unknown doc_id {named}: not among this build's {held.get('documents', 0)} documents{hint}",
                "doc_id",
            )


def check_held(chunks: Sequence[Chunk], filters: Mapping[str, Any]) -> None:
    """``check_values`` over the values ``chunks`` (one build's) hold."""
    if any(key in filters for key in HELD_KEYS):
        check_values(filters, held_values(chunks, filters))


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


NO_MATCH = "no chunk matches the filters"


def describe(filters: Mapping[str, Any]) -> str:
    """The filters as the CLI's ``KEY=VALUE`` pairs: ``path=docs/*, kind=table, pages=2-5``."""
    parts: list[str] = []
    for key in FILTER_KEYS:
        value = filters.get(key)
        if value is None:
            continue
        if key == "pages":
            parts.append(f"pages={value[0]}-{value[1]}")
        elif key == "metadata":
            parts += [f"metadata.{name}={v}" for name, v in value.items()]
        else:
            parts += [f"{key}={v}" for v in ([value] if isinstance(value, str) else value)]
    return ", ".join(parts)


def no_match(filters: Mapping[str, Any]) -> str:
    """Why a search has no hits when no chunk passes ``filters`` (a result's ``reason``; it is
    not judged, so its confidence is None)."""
    return f"{NO_MATCH}: {describe(filters)}"


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
