"""One hit per place: a ranked list of chunks -> a ranked list of places, each led by its best chunk.

A search over chunks repeats itself: three chunks of one PDF page, a class's chunk and its
method's chunk (the class chunk's lines enclose the method's), two halves of a long Markdown
section. A reader wants k different places. ``collapse`` walks the ranking best first; a chunk
that lies in the same place as an earlier kept hit joins it as a sibling (its lines or pages stay
available to the caller), any other chunk opens a new hit, until ``k`` hits are open (later
candidates may still join them as siblings).

Policies (what "the same place" means):

- ``none``: every chunk is its own place.
- ``section``: a PDF chunk: the same document and overlapping pages (a PDF's page is its smallest
  citable place); a code chunk: the same file and the same symbol or overlapping lines (a class
  and its method; the parts of a long function); any other chunk: the same document and heading
  path (a Markdown section; a document without headings is one section).
- ``page``: PDF chunks by page as above; any other document is one page.
- ``document``: one hit per document.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, Protocol, TypeVar

CollapsePolicy = Literal["none", "section", "page", "document"]
POLICIES: tuple[str, ...] = ("none", "section", "page", "document")
DEFAULT_POLICY: CollapsePolicy = "section"

T = TypeVar("T")


class PlaceKey(Protocol):
    """What deciding a chunk's place reads: a ``Chunk``, or its row of a build's place column
    (indexers.build.places.Place) so ranking does not parse candidates' chunks."""

    @property
    def doc_id(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def heading_path(self) -> tuple[str, ...]: ...
    @property
    def symbol(self) -> str | None: ...
    @property
    def pages(self) -> tuple[int, int] | None: ...
    @property
    def lines(self) -> tuple[int, int] | None: ...


def check_policy(policy: str) -> CollapsePolicy:
    if policy not in POLICIES:
        raise ValueError(f"unknown collapse {policy!r}; expected one of: {', '.join(POLICIES)}")
    return policy  # type: ignore[return-value]


def _overlap(a: tuple[int, int] | None, b: tuple[int, int] | None) -> bool:
    return a is not None and b is not None and a[0] <= b[1] and b[0] <= a[1]


def same_place(lead: PlaceKey, other: PlaceKey, policy: CollapsePolicy) -> bool:
    """Whether ``other`` lies in the place that the hit led by ``lead`` cites."""
    if policy == "none" or lead.doc_id != other.doc_id:
        return False
    if policy == "document":
        return True
    if lead.pages or other.pages:  # PDF (or any paged document): by page
        return _overlap(lead.pages, other.pages)
    if policy == "page":
        return True
    if lead.kind == "code" and other.kind == "code" and (lead.symbol or other.symbol):
        return lead.symbol == other.symbol or _overlap(lead.lines, other.lines)
    return lead.heading_path == other.heading_path


def collapse(
    items: Sequence[T],
    chunk_of: Callable[[T], PlaceKey],
    policy: CollapsePolicy,
    k: int | None,
    docs: Sequence[str] | None = None,
) -> list[list[T]]:
    """``items`` (best first) grouped into at most ``k`` places (None: all), each a list whose
    first member leads. Deterministic: the order of ``items`` decides everything.

    ``docs``: each item's ``doc_id`` (what ``chunk_of(item).doc_id`` says), when the caller has
    them cheaper than the whole place: once ``k`` places are open an item can only join one led
    from its own document, so an item whose document leads none is passed over without
    ``chunk_of``. The places are the same with or without ``docs``."""
    check_policy(policy)
    limit = len(items) if k is None else k
    if policy == "none":
        return [[item] for item in items[:limit]]
    places: list[list[T]] = []
    by_doc: dict[str, list[tuple[PlaceKey, list[T]]]] = {}  # a document's places, with their leads
    full = limit <= 0
    for i, item in enumerate(items):
        if full and docs is not None and docs[i] not in by_doc:
            continue  # no place of its document to join, and none to open
        chunk = chunk_of(item)
        same_doc = by_doc.setdefault(chunk.doc_id, [])
        for lead, place in same_doc:
            if same_place(lead, chunk, policy):
                place.append(item)
                break
        else:
            if not full:
                places.append([item])
                same_doc.append((chunk, places[-1]))
                full = len(places) >= limit
    return places


def collapse_keys(keys: Sequence[int], k: int) -> list[list[int]]:
    """``collapse`` over positions 0..len(keys)-1 where "the same place" is "the same key" (an
    equivalence, e.g. the same document and heading path: indexers.build.places'
    ``place_keys``): each key's positions form one place, the places open in the order of their
    first positions and the first ``k`` are kept. What ``collapse`` returns for such a relation,
    with a dictionary lookup per candidate instead of comparing it with each lead."""
    places: list[list[int]] = []
    slot: dict[int, int] = {}
    position = 0
    for position, key in enumerate(keys):
        if len(places) >= k:
            break
        found = slot.get(key)
        if found is None:
            slot[key] = len(places)
            places.append([position])
        else:
            places[found].append(position)
    else:
        return places
    # k places are open: a later candidate can only join one of them
    for later, key in enumerate(keys[position:], position):
        found = slot.get(key)
        if found is not None:
            places[found].append(later)
    return places
