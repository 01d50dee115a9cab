"""Builds by segments, end to end through run_ingest and docmill.open_index: an incremental
re-ingest searches like a full rebuild of the same tree, leaves the previous build's files as they
were, hard-links what did not change, and merges segments by the policy."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

import docmill
from flows.pipeline import publish_changes, run_ingest
from indexers.build.manifest import Manifest, ManifestError
from indexers.build.segments import MAX_SEGMENTS, SegmentInfo, plan_merge
from indexers.build.store import IndexStore

WORDS = [
    "orbital",
    "daemon",
    "cache",
    "index",
    "build",
    "token",
    "bucket",
    "limiter",
    "queue",
    "retry",
    "backoff",
    "snapshot",
    "replica",
    "shard",
    "lease",
    "heartbeat",
    "config",
    "install",
    "upgrade",
    "rollback",
    "metric",
    "latency",
    "throughput",
    "schema",
    "migration",
    "parser",
    "chunk",
    "vector",
    "embedding",
    "manifest",
    "publish",
    "atomic",
    "pointer",
    "reader",
    "writer",
    "lock",
    "prune",
    "release",
    "archive",
]
QUERIES = [" ".join(random.Random(i).sample(WORDS, 3)) for i in range(40)]
WEIGHTS = {"bm25": 1.0, "vector": 1.0}  # the same fusion for both builds (calibration is reused)


def page(rng: random.Random, n: int) -> str:
    sections = [
        f"## Part {s} {rng.choice(WORDS)}\n\n" + " ".join(rng.choices(WORDS, k=rng.randint(12, 40))) + ".\n"
        for s in range(rng.randint(1, 3))
    ]
    return f"# Page {n} {rng.choice(WORDS)}\n\n" + "\n".join(sections)


def make_tree(root: Path, files: int = 40) -> Path:
    rng = random.Random(5)
    for n in range(files):
        (root / f"area{n % 4}").mkdir(parents=True, exist_ok=True)
        (root / f"area{n % 4}" / f"doc{n:03d}.md").write_text(page(rng, n), encoding="utf-8")
    return root


def ranked(index, query: str, mode: str) -> list[tuple[str, float]]:
    """(chunk id, score) of the top 10; hits with exactly equal scores sorted by id (their
    tie-break is by row, and rows are numbered differently in the two builds)."""
    hits = index.search(query, k=10, mode=mode, abstain=False, weights=WEIGHTS, rrf_k=60.0)
    pairs = [(h.chunk.id, round(h.score, 6)) for h in hits]
    return sorted(pairs, key=lambda p: (-p[1], p[0]))


def assert_searches_alike(a: Path, b: Path, embedder) -> None:
    ia, ib = docmill.open_index(a, embedder=embedder), docmill.open_index(b, embedder=embedder)
    assert len(ia) == len(ib) and ia.bm25.n_docs == ib.bm25.n_docs and ia.bm25.avgdl == ib.bm25.avgdl
    for query in QUERIES:
        for mode in ("bm25", "vector", "hybrid"):
            assert ranked(ia, query, mode) == ranked(ib, query, mode), (query, mode)
    for mode in ("bm25", "vector"):  # a filter is a mask over the same rows in both builds
        got = ia.search(QUERIES[0], k=10, mode=mode, abstain=False, filters={"path": "*/area3/*"}).hits
        want = ib.search(QUERIES[0], k=10, mode=mode, abstain=False, filters={"path": "*/area3/*"}).hits
        assert [h.chunk.id for h in got] == [h.chunk.id for h in want] and got
    assert [c.id for c in ia.chunks.all()] == [c.id for c in ib.chunks.all()]  # rows agree


def snapshot(build: Path) -> dict[str, bytes]:
    return {p.relative_to(build).as_posix(): p.read_bytes() for p in sorted(build.rglob("*")) if p.is_file()}


def test_incremental_reingest_searches_like_a_full_rebuild_and_never_touches_the_old_build(
    tmp_path, hash_config, hash_embedder
):
    tree, index = make_tree(tmp_path / "tree"), tmp_path / "index"
    run_ingest([tree], index, hash_config, embedder=hash_embedder)
    first = IndexStore(index).current_build()
    before = snapshot(first)
    rng = random.Random(9)
    (tree / "area1/doc001.md").write_text(page(rng, 1001), encoding="utf-8")  # change
    (tree / "area2/doc002.md").unlink()  # delete
    (tree / "area3/new.md").write_text(page(rng, 1002), encoding="utf-8")  # add
    hash_embedder.encoded.clear()
    report = run_ingest([tree], index, hash_config, embedder=hash_embedder)
    assert (report.added, report.changed, report.removed) == (1, 1, 1)
    second = IndexStore(index).current_build()
    assert snapshot(first) == before  # the previous build is byte for byte what it was

    manifest = Manifest.read(second)
    old_segment, new_segment = (s["name"] for s in manifest.segments)
    assert manifest.segments[0]["deleted"] > 0 and manifest.extra["fusion"]["reused"]
    manifest.verify_files(second, checksums=True)  # carried checksums are the files' own
    for name in ("chunks.jsonl", "embeddings.npy", "vectors.faiss", "bm25/tf.npy", "bm25/vocab.json"):
        old, new = first / "segments" / old_segment / name, second / "segments" / old_segment / name
        assert old.stat().st_ino == new.stat().st_ino  # hard-linked, not rewritten
    new_lines = (second / "segments" / new_segment / "chunks.jsonl").read_text().splitlines()
    assert len(new_lines) == len(set(hash_embedder.encoded)) > 0  # only the new files' chunks

    run_ingest([tree], tmp_path / "full", hash_config, embedder=hash_embedder, full_rebuild=True)
    assert_searches_alike(index, tmp_path / "full", hash_embedder)
    assert not any(
        c.path.endswith("doc002.md") for c in docmill.open_index(index, embedder=hash_embedder).chunks.all()
    )


def test_segments_merge_when_there_are_too_many_and_still_search_like_a_full_rebuild(
    tmp_path, hash_config, hash_embedder
):
    tree, index = make_tree(tmp_path / "tree", files=30), tmp_path / "index"
    run_ingest([tree], index, hash_config, embedder=hash_embedder)
    rng = random.Random(11)
    counts = []
    for step in range(MAX_SEGMENTS + 2):
        (tree / f"area0/add{step}.md").write_text(page(rng, 2000 + step), encoding="utf-8")
        (tree / f"area1/doc{4 * step + 1:03d}.md").write_text(page(rng, 3000 + step), encoding="utf-8")
        run_ingest([tree], index, hash_config, embedder=hash_embedder)
        manifest = Manifest.read(IndexStore(index).current_build())
        counts.append(len(manifest.segments))
        assert len(manifest.segments) <= MAX_SEGMENTS
    assert max(counts) == MAX_SEGMENTS and any(
        Manifest.read(b).extra.get("segments", {}).get("merged") for b in IndexStore(index).builds()
    )
    run_ingest([tree], tmp_path / "full", hash_config, embedder=hash_embedder, full_rebuild=True)
    assert_searches_alike(index, tmp_path / "full", hash_embedder)


def test_a_mostly_masked_segment_is_compacted(tmp_path, hash_config, hash_embedder):
    tree, index = make_tree(tmp_path / "tree", files=20), tmp_path / "index"
    run_ingest([tree], index, hash_config, embedder=hash_embedder)
    for n in range(2, 4):  # two small deletions: masked, nothing rewritten
        (tree / f"area{n % 4}/doc{n:03d}.md").unlink()
        run_ingest([tree], index, hash_config, embedder=hash_embedder)
    assert Manifest.read(IndexStore(index).current_build()).segments[0]["deleted"] > 0
    for n in range(4, 8):  # 6 of 20 files gone: over the masked share, the segment is rewritten
        (tree / f"area{n % 4}/doc{n:03d}.md").unlink()
    run_ingest([tree], index, hash_config, embedder=hash_embedder)
    segments = Manifest.read(IndexStore(index).current_build()).segments
    assert [s["deleted"] for s in segments] == [0]
    run_ingest([tree], tmp_path / "full", hash_config, embedder=hash_embedder, full_rebuild=True)
    assert_searches_alike(index, tmp_path / "full", hash_embedder)


def test_plan_merge_policy():
    def seg(name: str, rows: int, deleted: int = 0) -> SegmentInfo:
        return SegmentInfo(name, rows, deleted)

    assert plan_merge([seg("s1", 1000), seg("s2", 5)], max_segments=8) == []
    assert plan_merge([seg("s1", 1000, 400), seg("s2", 5)]) == ["s1"]  # 40% masked
    many = [seg("s1", 1000)] + [seg(f"s{i}", 10 + i) for i in range(2, 11)]
    assert plan_merge(many, max_segments=8) == ["s2", "s3", "s4"]  # the three smallest -> 8 left


def test_publish_changes_indexes_one_file_without_a_model(tmp_path, hash_config, hash_embedder):
    tree, index = make_tree(tmp_path / "tree", files=10), tmp_path / "index"
    run_ingest([tree], index, hash_config, embedder=hash_embedder)
    ix = docmill.open_index(index, embedder=hash_embedder)
    old = [c for c in ix.chunks.all() if c.path.endswith("doc003.md")]
    changed = [
        type(c)(**{**c.__dict__, "text": c.text + " quokka", "index_text": c.index_text + " quokka"})
        for c in old
    ]
    vectors = hash_embedder.encode([c.index_text for c in changed])
    gone = next(c.path for c in ix.chunks.all() if c.path.endswith("doc004.md"))
    folder = publish_changes(index, changed, vectors, removed=[gone])
    assert IndexStore(index).current_build() == folder
    after = docmill.open_index(index, embedder=hash_embedder)
    assert len(after) == len(ix) - sum(1 for c in ix.chunks.all() if c.path.endswith("doc004.md"))
    assert {h.chunk.path for h in after.search("quokka", mode="bm25", abstain=False).hits} == {old[0].path}


def test_a_damaged_segment_file_is_refused_naming_it(tmp_path, hash_config, hash_embedder):
    tree, index = make_tree(tmp_path / "tree", files=5), tmp_path / "index"
    run_ingest([tree], index, hash_config, embedder=hash_embedder)
    build = IndexStore(index).current_build()
    name = Manifest.read(build).segments[0]["name"]
    tf = build / "segments" / name / "bm25" / "tf.npy"
    tf.write_bytes(tf.read_bytes()[:-8])
    with pytest.raises(ManifestError, match=f"segments/{name}/bm25/tf.npy"):
        docmill.open_index(index, embedder=hash_embedder)


def test_full_rebuild_still_writes_one_segment(tmp_path, hash_config, hash_embedder):
    tree, index = make_tree(tmp_path / "tree", files=8), tmp_path / "index"
    run_ingest([tree], index, hash_config, embedder=hash_embedder)
    (tree / "area0/doc000.md").write_text("# Changed\n\nNew words about a quokka.\n", encoding="utf-8")
    run_ingest([tree], index, hash_config, embedder=hash_embedder)
    assert len(Manifest.read(IndexStore(index).current_build()).segments) == 2
    run_ingest([tree], index, hash_config, embedder=hash_embedder, full_rebuild=True)
    segments = Manifest.read(IndexStore(index).current_build()).segments
    assert len(segments) == 1 and segments[0]["deleted"] == 0
    assert np.isfinite(docmill.open_index(index, embedder=hash_embedder).bm25.avgdl)


@pytest.mark.slow
def test_a_few_new_chunks_embed_without_torch_as_torch_does(embedder, small_tree):
    from flows.config import IngestConfig
    from flows.embeddings import encode_texts

    texts = [p.read_text(encoding="utf-8")[:1500] for p in sorted(small_tree.rglob("*.md"))] + ["one line"]
    assert embedder.query_path in ("onnx", "torch")  # checks the query path and saves its bundle
    vectors, how = encode_texts(texts, IngestConfig(model="all-MiniLM-L6-v2"))
    assert how == "torch-free"  # no model loaded in this call
    np.testing.assert_allclose(vectors, embedder.encode(texts), atol=1e-5, rtol=0)


def test_a_build_from_before_segments_is_rebuilt_reusing_its_embeddings(tmp_path, hash_config, hash_embedder):
    import json

    from flows import incremental

    tree, index = make_tree(tmp_path / "tree", files=6), tmp_path / "index"
    run_ingest([tree], index, hash_config, embedder=hash_embedder)
    build = IndexStore(index).current_build()
    segment = build / "segments" / Manifest.read(build).segments[0]["name"]
    old = IndexStore(index).new_build_dir()  # what docmill wrote before: one folder, schema 1
    files = {}
    for name in ("embeddings.npy", "embedding_keys.npy", "chunks.jsonl"):
        (old / name).write_bytes((segment / name).read_bytes())
        files[name] = {"bytes": (old / name).stat().st_size, "sha256": ""}
    manifest = json.loads((build / "manifest.json").read_text())
    (old / "manifest.json").write_text(json.dumps({**manifest, "schema_version": 1, "files": files}))
    with IndexStore(index).lock():
        IndexStore(index).publish(old)
    cache = incremental.legacy_cache(IndexStore(index))
    assert len(cache) == len(np.load(segment / "embeddings.npy"))
    hash_embedder.encoded.clear()
    report = run_ingest([tree], index, hash_config, embedder=hash_embedder)
    assert report.published and report.previous_build is None and report.embedded == 0
    assert len(Manifest.read(IndexStore(index).current_build()).segments) == 1


def _built_with_an_older_abstain_version(tmp_path, hash_config, hash_embedder):
    """A tree ingested once, its build's abstain calibration marked one version older: (tree,
    index, that build)."""
    from indexers.ranking.abstain import VERSION

    tree, index = make_tree(tmp_path / "tree"), tmp_path / "index"
    run_ingest([tree], index, hash_config, embedder=hash_embedder)
    first = IndexStore(index).current_build()
    raw = json.loads((first / "manifest.json").read_text())
    raw["extra"]["fusion"]["abstain"]["version"] = VERSION - 1
    (first / "manifest.json").write_text(json.dumps(raw))
    return tree, index, first


def test_an_older_abstain_calibration_is_not_kept_by_the_next_ingest(tmp_path, hash_config, hash_embedder):
    """A build whose abstain scales were calibrated an older way (version < abstain.VERSION) gets
    them calibrated again by the next plain ingest, though one file changed; the same version is
    kept (the test above)."""
    from indexers.ranking.abstain import VERSION

    tree, index, _ = _built_with_an_older_abstain_version(tmp_path, hash_config, hash_embedder)
    (tree / "area1/doc001.md").write_text(page(random.Random(3), 1003), encoding="utf-8")
    run_ingest([tree], index, hash_config, embedder=hash_embedder)
    fusion = Manifest.read(IndexStore(index).current_build()).extra["fusion"]
    assert not fusion.get("reused") and fusion["abstain"]["version"] == VERSION


def test_an_unchanged_tree_with_an_older_abstain_calibration_is_calibrated_again(
    tmp_path, hash_config, hash_embedder
):
    """Upgrading docmill and re-indexing an unchanged tree applies the new abstain calibration: a
    build calibrated an older way is not a no-op, and nothing is embedded again."""
    from indexers.ranking.abstain import VERSION

    tree, index, first = _built_with_an_older_abstain_version(tmp_path, hash_config, hash_embedder)
    hash_embedder.encoded.clear()
    report = run_ingest([tree], index, hash_config, embedder=hash_embedder)
    assert report.published and report.embedded == 0
    assert IndexStore(index).current_build() != first
    fusion = Manifest.read(IndexStore(index).current_build()).extra["fusion"]
    assert fusion["abstain"]["version"] == VERSION
    again = run_ingest([tree], index, hash_config, embedder=hash_embedder)  # now the same: a no-op
    assert not again.published
