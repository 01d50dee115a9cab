"""indexers/ranking/collapse.py: one hit per place, the lead carrying its siblings."""

import pytest

from chunkers.model import Chunk
from indexers.ranking.collapse import collapse, collapse_keys, same_place


def chunk(cid, doc="a.pdf", kind="text", pages=None, lines=None, heading=(), symbol=None):
    return Chunk(cid, doc, doc, kind, cid, cid, heading_path=heading, pages=pages, lines=lines, symbol=symbol)


PDF = [
    chunk("p2a", pages=(2, 2)),
    chunk("p2b", pages=(2, 2)),
    chunk("p6", pages=(6, 6)),
    chunk("p2c", pages=(2, 2)),
    chunk("p4", pages=(4, 4)),
    chunk("p7", pages=(7, 7)),
    chunk("p1", pages=(1, 1)),
    chunk("p3", pages=(3, 3)),
    chunk("p6b", pages=(6, 6)),
]


def ids(places):
    return [[c.id for c in place] for place in places]


def test_k_hits_are_k_different_pages_and_keep_their_siblings():
    places = collapse(PDF, lambda c: c, "section", 5)
    assert [p[0].id for p in places] == ["p2a", "p6", "p4", "p7", "p1"]
    assert len({p[0].pages for p in places}) == 5
    # siblings found after the 5th place still join their page, best first
    assert ids(places)[0] == ["p2a", "p2b", "p2c"] and ids(places)[1] == ["p6", "p6b"]


def test_none_keeps_every_chunk_and_document_one_per_file():
    assert ids(collapse(PDF, lambda c: c, "none", 3)) == [["p2a"], ["p2b"], ["p6"]]
    other = [*PDF[:2], chunk("x", doc="b.md"), PDF[2]]
    assert ids(collapse(other, lambda c: c, "document", 5)) == [["p2a", "p2b", "p6"], ["x"]]


def test_a_class_and_its_method_are_one_place_two_methods_are_not():
    cls = chunk("Client", "c.py", "code", lines=(10, 200), symbol="Client")
    send = chunk("send", "c.py", "code", lines=(50, 80), symbol="Client.send")
    get = chunk("get", "c.py", "code", lines=(90, 120), symbol="Client.get")
    part2 = chunk("send2", "c.py", "code", lines=(81, 85), symbol="Client.send")
    assert same_place(cls, send, "section") and same_place(send, cls, "section")
    assert not same_place(send, get, "section")
    assert same_place(send, part2, "section")  # parts of one long function
    assert ids(collapse([send, get, cls, part2], lambda c: c, "section", 5)) == [
        ["send", "Client", "send2"],
        ["get"],
    ]


def test_markdown_sections_and_the_page_policy():
    a1 = chunk("a1", "g.md", heading=("Install", "Linux"), lines=(1, 5))
    a2 = chunk("a2", "g.md", heading=("Install", "Linux"), lines=(6, 9))
    b = chunk("b", "g.md", heading=("Install", "macOS"), lines=(10, 12))
    assert ids(collapse([a1, b, a2], lambda c: c, "section", 5)) == [["a1", "a2"], ["b"]]
    assert ids(collapse([a1, b, a2], lambda c: c, "page", 5)) == [["a1", "b", "a2"]]


def test_unknown_policy_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown collapse 'chapter'"):
        collapse(PDF, lambda c: c, "chapter", 5)  # type: ignore[arg-type]


def test_deterministic():
    runs = {str(ids(collapse(PDF, lambda c: c, "section", 4))) for _ in range(5)}
    assert len(runs) == 1


def test_grouping_by_key_is_collapse_over_an_equivalence():
    """collapse_keys (one dictionary lookup a candidate) makes the places collapse makes when "the
    same place" is "the same key": random rankings of text chunks whose key is (document,
    heading), every k, and the documents-given shortcut of collapse agrees too."""
    import random

    rng = random.Random(3)
    for _ in range(300):
        n = rng.randint(0, 40)
        items = [
            chunk(f"c{i}", doc=f"d{rng.randint(0, 6)}", heading=(f"h{rng.randint(0, 2)}",)) for i in range(n)
        ]
        keys = [hash((c.doc_id, c.heading_path)) for c in items]
        for k in (0, 1, 3, 10, 50):
            expected = collapse(list(range(n)), items.__getitem__, "section", k)
            assert collapse_keys(keys, k) == expected
            docs = [c.doc_id for c in items]
            assert collapse(list(range(n)), items.__getitem__, "section", k, docs) == expected


def test_the_documents_shortcut_keeps_overlapping_places():
    """With pages (overlap is no equivalence) collapse with ``docs`` reads only candidates of a
    document that leads a place once k are open, and returns the same places."""
    read = []

    def place_of(i):
        read.append(i)
        return PDF[i]

    docs = [c.doc_id for c in PDF]
    expected = collapse(list(range(len(PDF))), lambda i: PDF[i], "section", 2)
    assert collapse(list(range(len(PDF))), place_of, "section", 2, docs) == expected
    other = [chunk("x", doc="b.pdf", pages=(1, 1)), *PDF]
    read.clear()
    got = collapse(
        list(range(len(other))), lambda i: read.append(i) or other[i], "page", 1, [c.doc_id for c in other]
    )
    assert got == [[0]] and read == [0]  # one place open: a.pdf's chunks are never read
