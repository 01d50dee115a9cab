"""The place column (indexers/build/places.py): each segment stores its lines' place keys, so a
search collapses its candidates without parsing their chunks. Checked on real builds (PDF,
Markdown, code; real BM25, MiniLM, FAISS): the column says what the chunks say, a search gives the
same hits with and without it (a build written before it falls back to the chunks), and
incremental segments and merges keep it."""

import json
import pickle
import shutil
from pathlib import Path

import numpy as np
import pytest

import docmill
from chunkers.model import Chunk
from chunkers.sizing import ChunkOptions
from docmill.hits import hit_of_place
from flows.config import IngestConfig
from indexers.build import chunk_json, chunkstore
from indexers.build.files import MANIFEST, PLACE_OFFSETS_FILE, PLACE_STRINGS_FILE, PLACES_FILE
from indexers.build.places import PlaceColumn, place_of, write_places
from indexers.build.segments import SegmentLines, load_segment, merge_segments, segment_infos
from indexers.build.store import IndexStore
from indexers.ranking import policy
from indexers.ranking.collapse import same_place

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
COLUMN_FILES = (PLACES_FILE, PLACE_STRINGS_FILE, PLACE_OFFSETS_FILE)
QUERIES = [
    "how does the retry backoff work",
    "install the device",
    "retry budget attempts",
    "maintenance schedule",
    "proxy server address",
    "safety warning",
    "error names every failed attempt",
    "specifications table",
]


def _tree(root: Path) -> Path:
    docs = {
        "docs/retries.md": "# Retries\n\n## Retry policy\n\n"
        + " ".join(f"Retry rule {i}: the client waits and retries, doubling the backoff." for i in range(12))
        + "\n\n## Giving up\n\nAfter the last retry the client raises an error naming every attempt.\n",
        "docs/proxies.md": "# Proxies\n\nSend traffic through a proxy server by passing its address.\n",
        "notes.txt": "Plain notes without headings about the retry budget and the proxy.\n",
        "pkg/retry.py": "class RetryPolicy:\n    def __init__(self, attempts=3):\n"
        "        self.attempts = attempts\n\n"
        "    def backoff(self, attempt):\n        return 0.5 * (2 ** attempt)\n\n"
        "    def should_retry(self, attempt):\n        return attempt < self.attempts\n",
    }
    for rel, text in docs.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    shutil.copy(SAMPLES / "pdf" / "lumen-manual.pdf", root / "manual.pdf")
    return root


@pytest.fixture(scope="module")
def built(tmp_path_factory, embedder):
    from flows.pipeline import run_ingest

    root = _tree(tmp_path_factory.mktemp("places") / "repo")
    index = tmp_path_factory.mktemp("places-index") / "idx"
    config = IngestConfig(chunk=ChunkOptions(max_tokens=40))
    run_ingest([root], index, config, embedder=embedder)
    return root, index, config


def _without_column(index: Path, target: Path) -> Path:
    """A copy of ``index`` whose current build has no place column (as a build written before it)."""
    shutil.copytree(index, target)
    build = IndexStore(target).current_build()
    manifest = json.loads((build / MANIFEST).read_text(encoding="utf-8"))
    for name in list(manifest["files"]):
        if name.rsplit("/", 1)[-1] in COLUMN_FILES:
            (build / name).unlink()
            del manifest["files"][name]
    (build / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    return target


def _hits(index, query: str, **options) -> list:
    result = index.search(query, k=5, **options)
    return [(h.chunk.id, round(h.score, 9), tuple(s.id for s in h.siblings)) for h in result.hits]


def test_column_says_what_the_chunks_say(built, embedder):
    _, path, _ = built
    index = docmill.open_index(path, embedder=embedder)
    store = index.chunks
    assert store.has_places
    chunks = [store[row] for row in range(len(store))]
    assert any(c.pages for c in chunks) and any(c.symbol for c in chunks) and any(c.lines for c in chunks)
    by_row = store.places(range(len(store)))
    assert [by_row[row] for row in range(len(store))] == [place_of(c) for c in chunks]
    assert [store.place(row) for row in range(len(store))] == [place_of(c) for c in chunks]


@pytest.mark.parametrize("mode", ["bm25", "hybrid"])
@pytest.mark.parametrize("collapse", ["section", "page", "document"])
def test_same_hits_with_and_without_the_column(built, embedder, tmp_path, mode, collapse):
    _, path, _ = built
    with_column = docmill.open_index(path, embedder=embedder)
    old = docmill.open_index(_without_column(path, tmp_path / "old"), embedder=embedder)
    assert with_column.chunks.has_places and not old.chunks.has_places
    grouped = 0
    for query in QUERIES:
        expected = _hits(old, query, mode=mode, collapse=collapse)
        assert _hits(with_column, query, mode=mode, collapse=collapse) == expected, query
        grouped += sum(len(siblings) for _, _, siblings in expected)
    assert grouped > 0  # the queries do collapse chunks into places


def test_ranking_reads_no_chunk_beyond_the_hits(built, embedder, monkeypatch):
    _, path, _ = built
    index = docmill.open_index(path, embedder=embedder)
    read, parsed = [], []
    line, lines, parse = SegmentLines.line, SegmentLines.lines, chunk_json.chunk_from_json
    monkeypatch.setattr(SegmentLines, "line", lambda self, row: read.append(row) or line(self, row))
    monkeypatch.setattr(
        SegmentLines, "lines", lambda self, rows: read.extend(rows.tolist()) or lines(self, rows)
    )
    monkeypatch.setattr(chunk_json, "chunk_from_json", lambda row: parsed.append(row["id"]) or parse(row))
    monkeypatch.setattr(chunkstore, "chunk_from_json", chunk_json.chunk_from_json)
    results = [index.search(q, k=3, mode="bm25", fetch_k=100) for q in QUERIES]
    hits = [hit for result in results for hit in result.hits]
    returned = sum(1 + len(hit.siblings) for hit in hits)
    # 100 candidates ranked a query, no chunk parsed to rank them: only the hits', by the code
    # graph's context (this build has code), then their siblings' when used
    assert hits and not read and parsed == [hit.chunk.id for hit in hits] and len(hits) < returned
    siblings = [s.id for hit in hits for s in hit.siblings]
    assert parsed[len(hits) :] == siblings
    # a build without code documents: the hits' chunks are parsed when one is first used
    index.graph_file.has_code = False
    parsed.clear()
    result = index.search(QUERIES[0], k=3, mode="bm25")
    assert len(result.hits) > 1 and not parsed
    assert result.hits[1].chunk == index.chunks[result.hits[1].row]
    assert parsed == [hit.chunk.id for hit in result.hits]


def _reference_hits(index, results, k, collapse):
    """What HybridIndex._rank made of one side's ranking before its own path: a Fused record per
    candidate (policy.one_side), policy.places over the column, hit_of_place with chunks read one
    by one."""
    ranking = policy.one_side(results)
    places = policy.places(ranking, index.chunks.place, collapse, k)
    raw = {name: dict(pairs) for name, pairs in results.items()}
    return [hit_of_place(place, raw, False, {}, index.chunks.__getitem__) for place in places]


@pytest.mark.parametrize("collapse", ["section", "page", "document", "none"])
def test_one_side_ranks_as_the_reference(built, embedder, tmp_path, collapse):
    """The one-side path (positions, place keys where places are classes, chunks read together,
    siblings parsed on use) gives the hits the reference composition gives, field by field, on a
    PDF + Markdown + code build (pages and code symbols: the step-by-step collapse) with and
    without the column, at several depths."""
    _, path, _ = built
    indexes = [docmill.open_index(path, embedder=embedder)]
    indexes.append(docmill.open_index(_without_column(path, tmp_path / "old"), embedder=embedder))
    paths = {"keys": 0, "steps": 0}
    for index in indexes:
        for query in [*QUERIES, "retry", "the", "page manual device proxy retry"]:
            for k in (1, 3, 10):
                for side in ("bm25", "vector"):
                    if side == "bm25":
                        pairs = index.bm25.search(index.tokenizer(query), 100).hits
                    else:
                        pairs = index._vector(query, 100, None)
                    rows = [row for row, _ in pairs]
                    keys = index.chunks.place_keys(rows, collapse) if collapse != "none" else None
                    paths["keys" if keys is not None else "steps"] += 1
                    got = index._rank(query, {side: pairs}, k, policy.Fusion(), None, 1.0, collapse)
                    assert got == _reference_hits(index, {side: pairs}, k, collapse), (query, k, side)
    assert paths["steps"] > 0 and (collapse == "none" or paths["keys"] > 0)


def test_place_keys_are_the_same_place_relation(built, embedder):
    _, path, _ = built
    index = docmill.open_index(path, embedder=embedder)
    store = index.chunks
    n = len(store)
    rng = np.random.default_rng(7)
    checked = 0
    for policy_name in ("section", "page", "document"):
        for size in (2, 5, 20, n):
            for _ in range(30):
                rows = rng.choice(n, size=min(size, n), replace=False).tolist()
                keys = store.place_keys(rows, policy_name)
                if keys is None:
                    continue
                checked += 1
                places = [store.place(row) for row in rows]
                for i in range(len(rows)):
                    for j in range(len(rows)):
                        same = same_place(places[i], places[j], policy_name)
                        assert same == (keys[i] == keys[j]), (policy_name, rows[i], rows[j])
    assert checked > 0
    assert store.place_keys(list(range(n)), "section") is None  # pages and code symbols overlap


def test_chunks_read_fast_are_the_chunks(built, embedder):
    _, path, _ = built
    index = docmill.open_index(path, embedder=embedder)
    store = index.chunks
    rows = list(range(len(store)))
    expected = [Chunk.from_json(json.loads(line)) for line in _lines(store, rows)]
    got = store.read(rows)
    assert got == expected and [c.__dict__ for c in got] == [c.__dict__ for c in expected]
    assert all(type(c.heading_path) is tuple and type(c.metadata) is dict for c in got)
    lazy = store.lazy([rows[:3], [], rows[5:6]])
    assert lazy[1] == () and lazy[0] == tuple(expected[:3]) and list(lazy[2]) == expected[5:6]
    assert len(lazy[0]) == 3 and lazy[0][1] == expected[1] and lazy[0][-2:] == tuple(expected[1:3])
    assert pickle.loads(pickle.dumps(lazy[0])) == lazy[0]
    with pytest.raises(IndexError):
        store.read([len(store)])
    with pytest.raises(ValueError, match="unknown chunk kind"):
        chunk_json.chunk_from_json({**expected[0].to_json(), "kind": "bogus"})


def _lines(store, rows):
    segment = store._segments[0]
    return [segment.line(row) for row in rows]


def test_siblings_stay_readable_after_the_build_is_closed(built, embedder):
    _, path, _ = built
    index = docmill.open_index(path, embedder=embedder)
    result = index.search("retry backoff attempt", k=2, mode="bm25")
    assert any(hit.siblings for hit in result.hits)
    index.close()
    assert all(s.citation() for hit in result.hits for s in hit.siblings)


@pytest.mark.parametrize("written_before_the_column", [False, True])
def test_a_merged_segment_has_the_column(built, tmp_path, written_before_the_column):
    _, path, _ = built
    build = IndexStore(path).current_build()
    manifest = json.loads((build / MANIFEST).read_text(encoding="utf-8"))
    info = segment_infos(manifest["segments"])[0]
    source = tmp_path / "source"
    shutil.copytree(build / "segments" / info.name, source)
    if written_before_the_column:  # its places come from its chunks
        for name in COLUMN_FILES:
            (source / name).unlink()
    deletions = load_segment(source, info)[1]
    merged, _ = merge_segments([(source, info, deletions)], tmp_path / "merged", "s000009")
    folder = tmp_path / "merged" / "segments" / "s000009"
    column, lines = PlaceColumn.open(folder), SegmentLines(folder)
    try:
        assert column is not None and len(column) == merged.rows == len(lines) > 0
        rows = np.arange(len(lines))
        assert column.places(rows) == [place_of(lines.chunk(int(r))) for r in rows]
    finally:
        column.close()
        lines.close()


def test_column_round_trip_of_every_field(tmp_path):
    chunks = [
        Chunk("a", "d1", "x.pdf", "text", "t", "t", ("Ü", "B"), pages=(3, 4)),
        Chunk("b", "d1", "x.pdf", "table", "t", "t", (), pages=(0, 0)),
        Chunk("c", "d2", "m.py", "code", "t", "t", (), lines=(10, 42), symbol="K.f"),
        Chunk("d", "", "", "text", "t", "t", ("",)),
    ]
    write_places(tmp_path, chunks)
    column = PlaceColumn.open(tmp_path)
    try:
        assert column.places(np.arange(4)) == [place_of(c) for c in chunks]
        assert [column.place(i) for i in (3, 0)] == [place_of(chunks[3]), place_of(chunks[0])]
    finally:
        column.close()
    (tmp_path / PLACE_STRINGS_FILE).write_bytes(b"short")
    with pytest.raises(ValueError, match="damaged"):
        PlaceColumn(tmp_path)
