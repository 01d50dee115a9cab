"""hits.LazyHit: a one-side search's hit whose chunk is parsed from its line on first use. It must
be the hit the eager path makes: equal field by field, through ``replace``, copies and pickling."""

import copy
import dataclasses
import pickle

import orjson

from chunkers.model import Chunk
from docmill.hits import Hit, LazyHit, hits_of_side
from indexers.build import chunk_json
from indexers.build.chunk_json import LazyChunks

CHUNKS = [
    Chunk(id=f"c{i}", doc_id="a.md", path="a.md", kind="text", text=f"text {i}", index_text=f"text {i}")
    for i in range(3)
]
PAIRS = [(7, 3.25), (4, 2.5), (9, 1.0)]
PLACES = [[0, 2], [1]]  # positions in PAIRS: place 1 led by row 7 with row 9 as a sibling


def _line(chunk: Chunk) -> bytes:
    return orjson.dumps(chunk.to_json()) + b"\n"


def _hits(lazy: bool) -> list[Hit]:
    leads = [CHUNKS[0], CHUNKS[1]]
    siblings = [(CHUNKS[2],), ()]
    read = LazyChunks([_line(c) for c in leads]) if lazy else leads
    return hits_of_side("bm25", PLACES, PAIRS, read, siblings)


def test_lazy_hits_parse_their_chunk_on_first_use_only(monkeypatch):
    parsed = []
    parse = chunk_json.chunk_from_json
    monkeypatch.setattr(chunk_json, "chunk_from_json", lambda row: parsed.append(row["id"]) or parse(row))
    hits = _hits(lazy=True)
    assert all(type(h) is LazyHit for h in hits) and not parsed
    assert [(h.row, h.score, h.explain) for h in hits] == [
        (7, 3.25, "bm25#1(3.25) +1 same place"),
        (4, 2.5, "bm25#2(2.50)"),
    ]
    assert not parsed  # rows, scores and explanations read no chunk
    assert hits[1].chunk == CHUNKS[1] and parsed == ["c0", "c1"]  # a search's hits: parsed together
    assert hits[1].chunk is hits[1].chunk and hits[0].chunk == CHUNKS[0] and parsed == ["c0", "c1"]


def test_lazy_hits_equal_the_eager_ones():
    lazy, eager = _hits(lazy=True), _hits(lazy=False)
    assert all(type(h) is Hit for h in eager)
    assert lazy == eager and eager == lazy  # either side of ==
    assert [h.to_json() for h in lazy] == [h.to_json() for h in eager]
    assert lazy[0] != eager[1] and lazy[0] != "c0"
    changed = dataclasses.replace(lazy[0], score=1.5)
    assert changed.chunk == CHUNKS[0] and changed.score == 1.5 and changed != eager[0]


def test_lazy_hits_copy_and_pickle_unread():
    hits = _hits(lazy=True)
    for copied in (pickle.loads(pickle.dumps(hits[0])), copy.deepcopy(hits[0]), copy.copy(hits[0])):
        assert copied == _hits(lazy=False)[0] and copied.chunk == CHUNKS[0]
    assert "chunk" not in hits[0].__dict__  # copying read nothing of the original
