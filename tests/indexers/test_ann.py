"""indexers.dense.ann: the FAISS index chosen by size or by force, recorded in the manifest, checked and
honoured on load, accurate against flat, and filtered searches that still return k rows."""

from __future__ import annotations

import json

import docmill_test_fakes  # loaded by tests/conftest.py
import numpy as np
import pytest

from indexers.dense import ann
from indexers.dense.faiss_store import build_faiss, load_faiss, save_faiss, search_faiss


def hash_embedder():
    return docmill_test_fakes.HashEmbedder()


def clustered(n: int, dim: int = 48, seed: int = 0) -> np.ndarray:
    return docmill_test_fakes.clustered_vectors(n, dim, seed=seed)


def test_choice_by_size_and_by_force():
    assert ann.choose(ann.FLAT_MAX_VECTORS - 1).kind == "flat"
    big = ann.choose(ann.FLAT_MAX_VECTORS)
    assert big.kind == ann.AUTO_ANN and big.requested == "auto" and big.probe > 0
    assert ann.choose(10, "hnsw").kind == "hnsw"
    assert ann.choose(10**6, "flat").kind == "flat"
    ivf = ann.choose(10**6, "ivf")
    assert (ivf.kind, ivf.nlist) == ("ivf", 4096) and 0 < ivf.probe <= ivf.nlist


@pytest.mark.parametrize("bad", ["hsnw", "", "Flat"])
def test_a_bad_option_is_a_clear_value_error(bad):
    with pytest.raises(ValueError, match=r"unknown vector index .*expected one of: auto, flat, hnsw, ivf"):
        ann.choose(100, bad)
    from flows.config import IngestConfig

    with pytest.raises(ValueError, match="unknown vector_index"):
        IngestConfig(vector_index=bad)


@pytest.mark.parametrize("kind", ["flat", "hnsw", "ivf"])
def test_file_round_trip_is_described_as_built(tmp_path, kind):
    vectors = clustered(3000)
    spec = ann.choose(len(vectors), kind)
    save_faiss(build_faiss(vectors, spec), tmp_path / "v.faiss")
    loaded = load_faiss(tmp_path / "v.faiss")
    found = ann.describe(loaded)
    assert (found.kind, found.m, found.nlist, found.probe) == (spec.kind, spec.m, spec.nlist, spec.probe)
    ann.check(loaded, spec)  # no error


@pytest.mark.parametrize("kind", ["hnsw", "ivf"])
def test_recall_at_10_against_flat(kind):
    both = clustered(30_200, seed=1)
    vectors, queries = both[:30_000], both[30_000:]  # queries from the same mixture, not indexed
    flat = build_faiss(vectors, "flat")
    approx = build_faiss(vectors, kind)
    recall = []
    for query in queries:
        truth = {row for row, _ in search_faiss(flat, query, 10)}
        found = {row for row, _ in search_faiss(approx, query, 10)}
        recall.append(len(truth & found) / 10)
    assert np.mean(recall) >= 0.95
    # A larger probe explores more: recall does not drop.
    wider = [
        len(
            {r for r, _ in search_faiss(flat, q, 10)} & {r for r, _ in search_faiss(approx, q, 10, probe=256)}
        )
        / 10
        for q in queries[:50]
    ]
    assert np.mean(wider) >= np.mean(recall[:50]) - 1e-9


@pytest.mark.parametrize("kind", ["hnsw", "ivf"])
@pytest.mark.parametrize("allowed_share", [0.5, 0.01, 0.0005])
def test_filtered_search_returns_k_allowed_rows(kind, allowed_share):
    both = clustered(20_010, seed=3)
    vectors, queries = both[:20_000], both[20_000:]
    index = build_faiss(vectors, kind)
    rng = np.random.default_rng(4)
    allowed = rng.random(len(vectors)) < allowed_share
    allowed[:12] = True  # at least 12 rows allowed
    flat = build_faiss(vectors, "flat")
    for query in queries:
        hits = search_faiss(index, query, 10, allowed=allowed)
        assert len(hits) == 10
        assert all(allowed[row] for row, _ in hits)
        scores = [s for _, s in hits]
        assert scores == sorted(scores, reverse=True)
        if ann.narrow_filter(int(allowed.sum()), len(vectors), 10):  # searched exactly
            assert [r for r, _ in hits] == [r for r, _ in search_faiss(flat, query, 10, allowed=allowed)]
    few = np.zeros(len(vectors), dtype=bool)
    few[[3, 7]] = True
    assert sorted(r for r, _ in search_faiss(index, vectors[0], 10, allowed=few)) == [3, 7]
    assert search_faiss(index, vectors[0], 10, allowed=np.zeros(len(vectors), dtype=bool)) == []


def test_bad_probe_is_a_value_error():
    index = build_faiss(clustered(500), "hnsw")
    with pytest.raises(ValueError, match="probe must be positive"):
        search_faiss(index, clustered(1)[0], 5, probe=0)


@pytest.fixture
def hnsw_index(tmp_path, small_tree):
    from flows.config import IngestConfig
    from flows.pipeline import run_ingest

    embedder = hash_embedder()
    index = tmp_path / "index"
    run_ingest(
        [small_tree], index, IngestConfig(model=embedder.model_name, vector_index="hnsw"), embedder=embedder
    )
    return index, embedder


def test_choice_is_recorded_and_honoured_on_open(hnsw_index):
    import docmill
    from indexers.build.manifest import Manifest
    from indexers.build.store import IndexStore

    root, embedder = hnsw_index
    manifest = Manifest.read(IndexStore(root).current_build())
    assert manifest.extra["vectors"] == {
        "kind": "hnsw",
        "requested": "hnsw",
        "M": ann.HNSW_M,
        "ef_construction": ann.HNSW_EF_CONSTRUCTION,
        "ef_search": ann.HNSW_EF_SEARCH,
    }
    index = docmill.open_index(root, embedder=embedder)
    assert index.vector_index.kind == "hnsw"
    assert ann.describe(index._faiss).kind == "hnsw"
    default = index.search("orbital daemon install", k=3, mode="vector", abstain=False)
    wide = index.search("orbital daemon install", k=3, mode="vector", abstain=False, probe=500)
    assert default.hits and [h.chunk.id for h in default.hits] == [h.chunk.id for h in wide.hits]
    filtered = index.search("install", k=2, mode="vector", abstain=False, filters={"kind": "code"})
    assert len(filtered.hits) == 2 and all(h.chunk.kind == "code" for h in filtered.hits)
    with pytest.raises(ValueError, match="probe must be positive"):
        index.search("install", mode="vector", probe=-1)


def test_manifest_and_file_mismatch_is_a_clear_error(hnsw_index):
    import docmill
    from indexers.build.store import IndexStore

    root, embedder = hnsw_index
    path = IndexStore(root).current_build() / "manifest.json"
    data = json.loads(path.read_text())
    data["extra"]["vectors"] = {"kind": "flat", "requested": "flat"}
    path.write_text(json.dumps(data))
    with pytest.raises(ann.VectorIndexMismatch, match="hnsw index .* manifest records .*flat.*rebuild"):
        docmill.open_index(root, embedder=embedder)


def test_re_ingest_with_another_choice_rebuilds(hnsw_index, small_tree):
    from flows.config import IngestConfig
    from flows.pipeline import run_ingest

    root, embedder = hnsw_index
    same = run_ingest(
        [small_tree], root, IngestConfig(model=embedder.model_name, vector_index="hnsw"), embedder=embedder
    )
    assert not same.published
    other = run_ingest(
        [small_tree], root, IngestConfig(model=embedder.model_name, vector_index="flat"), embedder=embedder
    )
    assert other.published


def test_cli_options_parse_and_refuse_bad_values(capsys):
    from docmill.cli import build_parser

    parser = build_parser()
    args = parser.parse_args(["ingest", "src", "--index", "idx", "--vector-index", "hnsw"])
    assert args.vector_index == "hnsw"
    assert parser.parse_args(["query", "idx", "text", "--probe", "64"]).probe == 64
    assert parser.parse_args(["query", "idx", "text"]).probe is None
    with pytest.raises(SystemExit):
        parser.parse_args(["ingest", "src", "--index", "idx", "--vector-index", "hsnw"])
    assert "invalid choice: 'hsnw'" in capsys.readouterr().err
