"""What a search returns: hits that carry their chunk, per-retriever evidence and a citation."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from chunkers.model import Chunk
from indexers.build.chunk_json import LazyChunks
from indexers.ranking.fusion import Fused

RETRIEVERS = ("bm25", "vector")
_LABELS = {"vector": "vec", "bm25": "bm25"}  # each retriever's name in ``explain``


@dataclass(frozen=True)
class Hit:
    chunk: Chunk
    score: float
    ranks: dict[str, int | None]
    scores: dict[str, float | None]
    explain: str
    # code hits, from the code graph: where the hit's symbol is called, and what it calls (a few)
    used_by: tuple[str, ...] = ()
    calls: tuple[str, ...] = ()
    # chunks of the same place (page, section, symbol: indexers/ranking/collapse.py) that ranked
    # below this one, best first; collapsed into this hit so k hits are k different places. A
    # search's hits carry them unread until used (indexers.build.chunk_json.LazyChunks: a sequence
    # equal to the tuple of its chunks, readable after the build is closed).
    siblings: Sequence[Chunk] = ()
    row: int | None = None  # the chunk's row in the build it came from (HybridIndex.context reads around it)

    @property
    def place(self) -> str:
        """The citation of the whole place: this chunk's, widened to its siblings' pages or lines."""
        return place_citation(self.chunk, self.siblings)

    @property
    def citation(self) -> str:
        return self.chunk.citation()

    def to_json(self) -> dict[str, Any]:
        c = self.chunk
        return {
            "chunk_id": c.id,
            "doc_id": c.doc_id,
            "score": self.score,
            "path": c.path,
            "kind": c.kind,
            "heading_path": list(c.heading_path),
            "symbol": c.symbol,
            "symbol_path": c.symbol_path,
            "page": c.pages[0] if c.pages else None,
            "pages": list(c.pages) if c.pages else None,
            "lines": list(c.lines) if c.lines else None,
            "citation": self.citation,
            "text": c.text,
            "explain": self.explain,
            "ranks": {r: self.ranks.get(r) for r in RETRIEVERS},
            "scores": {r: self.scores.get(r) for r in RETRIEVERS},
            **({"used_by": list(self.used_by), "calls": list(self.calls)} if c.kind == "code" else {}),
            "siblings": [sibling_json(s) for s in self.siblings],
        }


def hit_of_place(
    place: Sequence[Fused],
    raw: Mapping[str, Mapping[int, float]],
    fused: bool,
    factors: Mapping[int, float],
    chunk_of: Callable[[int], Chunk],
    fusion: str = "rrf",
    siblings: Sequence[Chunk] | None = None,
) -> Hit:
    """The hit of one ranked place (indexers.ranking.policy.places): its lead chunk with each
    side's rank and raw score, the explanation (fused score, evidence tier, test-code factor,
    how many chunks of the same place) and the place's other chunks as ``siblings`` (read by
    ``chunk_of`` when not given)."""
    item = place[0]
    ranks: dict[str, int | None] = {name: item.ranks.get(name) for name in RETRIEVERS}
    scores: dict[str, float | None] = {n: raw.get(n, {}).get(item.row) for n in RETRIEVERS}
    text = explain(ranks, scores, item.score if fused else None, "z" if fusion == "zscore" else "rrf")
    if item.evidence:
        text += f" {item.evidence}"
    if item.row in factors:
        text += f" test-code x{factors[item.row]:g}"
    if len(place) > 1:
        text += f" +{len(place) - 1} same place"
    if siblings is None:
        siblings = tuple(chunk_of(other.row) for other in place[1:])
    return Hit(chunk_of(item.row), item.score, ranks, scores, text, siblings=siblings, row=item.row)


class LazyHit(Hit):
    """A ``Hit`` whose chunk is parsed on first use, from its line read with the search (as its
    siblings are): what a search of one side returns, so a caller that reads ids and scores
    parses no chunk. The hits of one search share one LazyChunks of their chunks
    (indexers.build.chunk_json), parsed together when the first is used. Equal to the ``Hit`` of
    the same fields; ``dataclasses.replace`` of one holds its chunk."""

    @functools.cached_property
    def chunk(self) -> Chunk:  # type: ignore[override]
        leads: LazyChunks = self.__dict__["_leads"]
        return leads[self.__dict__["_lead"]]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Hit):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _HIT_FIELDS)

    __hash__ = None  # type: ignore[assignment]


def hits_of_side(
    name: str,
    places: Sequence[Sequence[int]],
    pairs: Sequence[tuple[int, float]],
    leads: Sequence[Chunk],
    siblings: Sequence[Sequence[Chunk]],
) -> list[Hit]:
    """``hit_of_place`` for each place of a ranking of one side: ``name``'s (row, score)
    ``pairs`` in its order, each place given as positions in ``pairs`` (its lead first), with the
    places' lead chunks (a LazyChunks of them makes LazyHits) and their siblings already read.
    The same hits, without a ``Fused`` record per candidate (one side: no fused score, tier or
    test-code factor to explain)."""
    label = _LABELS.get(name)
    lazy = _HIT_DIRECT and type(leads) is LazyChunks  # not isinstance: an ABC's check is slow
    out = []
    for i, (members, around) in enumerate(zip(places, siblings, strict=True)):
        lead = members[0]
        row, score = pairs[lead]
        ranks: dict[str, int | None] = dict.fromkeys(RETRIEVERS)  # RETRIEVERS' order, as hit_of_place
        scores: dict[str, float | None] = dict.fromkeys(RETRIEVERS)
        text = ""
        if label is not None:  # what explain() writes for one side's rank and score
            ranks[name], scores[name] = lead + 1, score
            text = f"{label}#{lead + 1}({score:.2f})"
        if len(members) > 1:
            text += f" +{len(members) - 1} same place"
        hit: dict[str, Any] = {"score": score, "ranks": ranks, "scores": scores, "explain": text}
        hit.update(used_by=(), calls=(), siblings=around, row=row)
        if lazy:
            hit["_leads"], hit["_lead"] = leads, i
            out.append(_made(LazyHit, hit))
        else:
            hit["chunk"] = leads[i]
            out.append(_made(Hit, hit) if _HIT_DIRECT else Hit(**hit))
    return out


_HIT_FIELDS = ("chunk", "score", "ranks", "scores", "explain", "used_by", "calls", "siblings", "row")


def _made(cls: type[Hit], attributes: dict[str, Any]) -> Hit:
    """A ``cls`` with ``attributes`` (every field of Hit) without the frozen dataclass's
    ``__init__``: one ``object.__setattr__`` per field, and a search makes ten hits."""
    hit = object.__new__(cls)
    object.__setattr__(hit, "__dict__", attributes)
    return hit


def sibling_json(chunk: Chunk) -> dict[str, Any]:
    return {
        "chunk_id": chunk.id,
        "kind": chunk.kind,
        "heading_path": list(chunk.heading_path),
        "symbol": chunk.symbol,
        "pages": list(chunk.pages) if chunk.pages else None,
        "lines": list(chunk.lines) if chunk.lines else None,
        "citation": chunk.citation(),
    }


def _span(ranges: list[tuple[int, int]]) -> tuple[int, int]:
    return min(a for a, _ in ranges), max(b for _, b in ranges)


def place_citation(chunk: Chunk, siblings: Sequence[Chunk]) -> str:
    """``chunk.citation()`` with its page or line range widened to cover the siblings."""
    if not siblings:
        return chunk.citation()
    chunks = (chunk, *siblings)
    pages = [c.pages for c in chunks if c.pages]
    lines = [c.lines for c in chunks if c.lines]
    if chunk.pages and pages:
        return replace(chunk, pages=_span(pages)).citation()
    if chunk.lines and lines:
        return replace(chunk, lines=_span(lines)).citation()
    return chunk.citation()


_HIT_DIRECT = tuple(f.name for f in fields(Hit)) == _HIT_FIELDS and not hasattr(Hit, "__post_init__")


@dataclass(frozen=True)
class SearchResult:
    """A list of hits; ``abstained`` with a ``reason`` when nothing relevant was found. Not
    abstained, no hits and a ``reason`` (confidence None): the filters leave no chunk to search
    (docmill.filters.no_match)."""

    hits: list[Hit]
    abstained: bool = False
    reason: str | None = None
    notes: list[str] = field(default_factory=list)
    # How sure the index is that the corpus answers the query (0..1, monotone in the evidence;
    # the index abstains below 0.5: indexers/abstain.py). None (JSON null) where nothing was
    # judged: an empty query, filters no chunk passes.
    confidence: float | None = None
    # The build that answered (its folder name under builds/): with open_index(follow=True) the
    # build can change between two searches; a result names the one it was computed on.
    build: str | None = None

    def __iter__(self) -> Iterator[Hit]:
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    def __getitem__(self, i: int) -> Hit:
        return self.hits[i]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"hits": [h.to_json() for h in self.hits], "abstained": self.abstained}
        out["confidence"] = round(self.confidence, 4) if self.confidence is not None else None
        if self.reason:
            out["reason"] = self.reason
        if self.notes:
            out["notes"] = self.notes
        if self.build:
            out["build"] = self.build
        return out


def explain(
    ranks: dict[str, int | None], scores: dict[str, float | None], fused: float | None, fused_as: str = "rrf"
) -> str:
    """`vec#1(0.71) bm25#3(12.40) z=2.3140` (z-score fusion) or `... rrf=0.0323`; a retriever that
    did not return the chunk is omitted."""
    parts = []
    for name in ("vector", "bm25"):
        rank, score = ranks.get(name), scores.get(name)
        if rank is not None and score is not None:
            parts.append(f"{_LABELS[name]}#{rank}({score:.2f})")
    if fused is not None:
        parts.append(f"{fused_as}={fused:.4f}")
    return " ".join(parts)
