"""Sharded builds and in-process sharded search against one index over the same tree (real model,
real FAISS, the real ingest)."""

from __future__ import annotations

import json

import pytest

import docmill
from docmill.sharded import ShardedIndex
from indexers.build.manifest import Manifest
from indexers.build.shards import SHARDS_FILE, RootManifest, ShardsError, shard_of
from indexers.build.store import IndexStore

pytestmark = pytest.mark.slow


def _documents(index_folder) -> set[str]:
    store = IndexStore(index_folder)
    return {d.path for d in Manifest.read(store.current_build()).documents}


def _same_top(single, sharded, query: str, **options) -> None:
    """Same chunks in the same order, scores within 1e-5 (chunks tied on score may swap)."""
    a = single.search(query, **options)
    b = sharded.search(query, **options)
    assert not b.partial, b.shards
    assert len(a) == len(b), query
    for x, y in zip(a, b, strict=True):
        assert y.score == pytest.approx(x.score, abs=1e-5), query
    ranked_a = sorted((round(h.score, 5), h.chunk.id) for h in a)
    ranked_b = sorted((round(h.score, 5), h.chunk.id) for h in b)
    assert ranked_a == ranked_b, query


def test_every_file_lands_in_the_shard_its_path_hashes_to(built):
    root = RootManifest.read(built["root"])
    assert [e.name for e in root.shards] == ["00", "01", "02"]
    seen: set[str] = set()
    for i, entry in enumerate(root.shards):
        folder = built["root"] / entry.path
        assert entry.build == IndexStore(folder).current_name()  # the manifest names its build
        docs = _documents(folder)
        assert docs and all(shard_of(path, len(root.shards)) == i for path in docs)
        assert not docs & seen
        seen |= docs
    assert seen == _documents(built["single"])
    data = json.loads((built["root"] / SHARDS_FILE).read_text())
    assert data["format"] == "docmill-shards" and len(data["shards"]) == 3


def test_bm25_over_shards_equals_one_index(built, embedder, shard_queries):
    single = docmill.open_index(built["single"], embedder=embedder)
    sharded = docmill.open_index(built["root"], embedder=embedder)
    assert isinstance(sharded, ShardedIndex)
    for query in shard_queries:
        _same_top(single, sharded, query, k=10, mode="bm25", abstain=False)
    # The shards' own statistics would score otherwise: the corpus's are what makes them equal.
    alone = docmill.open_index(built["root"] / "shards" / "00", embedder=embedder)
    gaps = []
    for q in shard_queries:
        found = sharded.search(q, k=50, mode="bm25", abstain=False, collapse="none")
        everywhere = {h.chunk.id: h.score for h in found}
        own = alone.search(q, k=3, mode="bm25", abstain=False, collapse="none")
        gaps += [abs(h.score - everywhere[h.chunk.id]) for h in own]
    assert gaps and max(gaps) > 1e-3


def test_filters_and_vector_mode_match_one_index(built, embedder, shard_queries):
    single = docmill.open_index(built["single"], embedder=embedder)
    sharded = docmill.open_index(built["root"], embedder=embedder)
    for query in shard_queries[:8]:
        _same_top(single, sharded, query, k=5, mode="bm25", abstain=False, filters={"path": "*/part1/*"})
        _same_top(single, sharded, query, k=10, mode="vector", abstain=False)
    with pytest.raises(ValueError):
        sharded.search("cache", filters={"colour": "red"})  # an unknown filter: the caller's error


def test_hybrid_top10_overlap_with_one_index(built, embedder, shard_queries):
    single = docmill.open_index(built["single"], embedder=embedder)
    sharded = docmill.open_index(built["root"], embedder=embedder)
    overlaps = []
    for query in shard_queries:
        a, b = single.search(query, k=10), sharded.search(query, k=10)
        assert a.abstained == b.abstained, query
        assert b.confidence == pytest.approx(a.confidence, abs=1e-6)
        if a.hits:
            overlaps.append(len({h.chunk.id for h in a} & {h.chunk.id for h in b}) / len(a.hits))
    mean = sum(overlaps) / len(overlaps)
    print(f"hybrid top-10 overlap, sharded vs one index: {mean:.3f} over {len(overlaps)} queries")
    assert overlaps and sum(overlaps) / len(overlaps) >= 0.9


def test_hybrid_over_shards_ranks_exactly_like_one_index(built, embedder, shard_queries):
    """Same calibration (passed in: each shard calibrates on its own part), same policy
    (indexers/ranking/policy.py): the same hybrid top 10, evidence tiers included."""
    single = docmill.open_index(built["single"], embedder=embedder)
    sharded = docmill.open_index(built["root"], embedder=embedder)
    same = {"weights": single.fusion_weights, "rrf_k": single.fusion_rrf_k, "abstain": False}
    # headings hold "Install note 5" ...: a capitalised word and a rare number, the exact-term tier
    named = ["Install note 5", "note 13 backup", "Cache note 9 storage"]
    lifted = 0
    for query in [*shard_queries, *named]:
        _same_top(single, sharded, query, k=10, **same)
        a, b = single.search(query, k=10, **same), sharded.search(query, k=10, **same)
        assert [h.chunk.id for h in a] == [h.chunk.id for h in b], query
        assert [h.explain.split(" +")[0] for h in a] == [h.explain.split(" +")[0] for h in b], query
        lifted += sum(" agree" in h.explain or " exact:" in h.explain for h in b)
    assert lifted  # the tiers the sharded search used to lack are exercised


def test_a_shard_reindexed_while_the_others_serve(built_copy, embedder, shard_queries):
    from flows.pipeline import run_ingest
    from flows.shards import run_sharded_ingest

    src, root = built_copy["src"], built_copy["root"]
    run_sharded_ingest([src], root, 3, built_copy["config"], embedder=embedder)  # the copy's own source path
    sharded = docmill.open_index(root, embedder=embedder)
    for shard in sharded.shards.values():
        shard.searcher.check_interval = 0.0  # follow CURRENT at once
    changed = sorted(src.rglob("*.md"))[0]
    changed.write_text(changed.read_text() + "\nzebrafinch migration zebrafinch.\n", encoding="utf-8")
    before = {e.name: e.build for e in RootManifest.read(root).shards}
    report = run_sharded_ingest([src], root, 3, built_copy["config"], embedder=embedder)
    after = {e.name: e.build for e in RootManifest.read(root).shards}
    moved = [name for name in before if before[name] != after[name]]
    target = f"{shard_of(src.name + '/' + changed.relative_to(src).as_posix(), 3):02d}"
    assert moved == [target]
    assert [n for n, r in report.shards.items() if r and r.published] == [target]
    hits = sharded.search("zebrafinch", k=3, mode="bm25")  # the index opened before the run
    assert hits.hits and hits.hits[0].chunk.path.endswith(changed.name) and not hits.partial
    run_ingest([src], built_copy["single"], built_copy["config"], embedder=embedder)
    single = docmill.open_index(built_copy["single"], embedder=embedder)
    for query in [*shard_queries[:8], "zebrafinch migration"]:
        _same_top(single, sharded, query, k=10, mode="bm25", abstain=False)


def test_a_shard_that_fails_gives_a_partial_result(built_copy, embedder):
    root = built_copy["root"]
    sharded = docmill.open_index(root, embedder=embedder)
    for shard in sharded.shards.values():
        shard.searcher.check_interval = 0.0
    current = root / "shards" / "01" / "CURRENT"
    good = current.read_text()
    full = sharded.search("cache", k=10, mode="bm25")
    current.write_text("20990101T000000.000000-missing\n")  # mid-publish: CURRENT names no build
    broken = sharded.search("cache", k=10, mode="bm25")
    assert broken.partial and broken.answered == ["00", "02"]
    assert "01" in broken.to_json()["shards"] and broken.to_json()["partial"] is True
    assert {h.chunk.id for h in broken} <= {h.chunk.id for h in sharded.search("cache", k=50, mode="bm25")}
    current.write_text(good)
    again = sharded.search("cache", k=10, mode="bm25")
    assert not again.partial and [h.chunk.id for h in again] == [h.chunk.id for h in full]


def test_resharding_and_plain_roots_are_refused(built_copy, embedder):
    from flows.shards import run_sharded_ingest

    with pytest.raises(ShardsError, match="holds 3 shards, not 2"):
        run_sharded_ingest([built_copy["src"]], built_copy["root"], 2, embedder=embedder)
    with pytest.raises(ShardsError, match="ordinary"):
        run_sharded_ingest([built_copy["src"]], built_copy["single"], 2, embedder=embedder)
