"""IVF-PQ vectors (``--vector-index ivfpq``): codes find candidates, the build's exact vectors
re-score them; recorded in the manifest, checked on load, close to flat."""

from __future__ import annotations

import json
import shutil

import docmill_test_fakes  # loaded by tests/conftest.py
import numpy as np
import pytest

from indexers.dense import ann
from indexers.dense.faiss_store import build_faiss, load_faiss, save_faiss, search_faiss
from indexers.dense.ivfpq import RerankedIVFPQ


def clustered(n: int, dim: int = 64, seed: int = 0) -> np.ndarray:
    return docmill_test_fakes.clustered_vectors(n, dim, seed=seed)


def test_choice_records_codes_and_refine():
    spec = ann.choose(10**6, "ivfpq", dim=384)
    assert (spec.kind, spec.nlist, spec.pq_m, spec.refine) == ("ivfpq", 4096, 48, ann.IVFPQ_REFINE)
    assert 0 < spec.probe <= spec.nlist
    assert ann.VectorIndexSpec.from_json(json.loads(json.dumps(spec.to_json()))) == spec
    small = ann.choose(100, "ivfpq")  # too few rows to train codes: flat, and says what was asked
    assert (small.kind, small.requested) == ("flat", "ivfpq")


@pytest.fixture(scope="module")
def data():
    both = clustered(20_100, seed=1)
    return both[:20_000], both[20_000:]  # queries from the same mixture, not indexed


@pytest.fixture(scope="module")
def reranked(data, tmp_path_factory):
    vectors, _ = data
    spec = ann.choose(len(vectors), "ivfpq", dim=vectors.shape[1])
    path = tmp_path_factory.mktemp("ivfpq") / "v.faiss"
    save_faiss(build_faiss(vectors, spec), path)
    loaded = load_faiss(path)
    ann.check(loaded, spec)  # the file is what the spec says
    found = ann.describe(loaded)
    assert (found.kind, found.nlist, found.pq_m) == ("ivfpq", spec.nlist, spec.pq_m)
    index = ann.with_exact_vectors(loaded, spec, lambda: vectors)
    assert isinstance(index, RerankedIVFPQ)
    return index


def test_recall_at_10_against_flat_and_exact_scores(data, reranked):
    vectors, queries = data
    flat = build_faiss(vectors, "flat")
    recall = []
    for query in queries:
        truth = search_faiss(flat, query, 10)
        found = search_faiss(reranked, query, 10)
        recall.append(len({r for r, _ in truth} & {r for r, _ in found}) / 10)
        for row, score in found:  # scores are the exact cosines, not the codes' estimates
            assert score == pytest.approx(float(vectors[row] @ query), abs=1e-5)
    assert np.mean(recall) >= 0.95
    wider = [  # every cell probed: recall does not drop
        len(
            {r for r, _ in search_faiss(flat, q, 10)}
            & {r for r, _ in search_faiss(reranked, q, 10, probe=10**6)}
        )
        / 10
        for q in queries[:30]
    ]
    assert np.mean(wider) >= np.mean(recall[:30]) - 1e-9


@pytest.mark.parametrize("allowed_share", [0.5, 0.005])
def test_filtered_search_returns_k_allowed_rows(data, reranked, allowed_share):
    vectors, queries = data
    allowed = np.random.default_rng(4).random(len(vectors)) < allowed_share
    flat = build_faiss(vectors, "flat")
    for query in queries[:40]:
        hits = search_faiss(reranked, query, 10, allowed=allowed)
        assert len(hits) == 10 and all(allowed[row] for row, _ in hits)
        if ann.narrow_filter(int(allowed.sum()), len(vectors), 10):  # scored exactly over the rows
            assert hits == [
                (r, pytest.approx(s, abs=1e-5)) for r, s in search_faiss(flat, query, 10, allowed=allowed)
            ]
    assert search_faiss(reranked, queries[0], 10, allowed=np.zeros(len(vectors), dtype=bool)) == []


@pytest.fixture(scope="module")
def flat_and_ivfpq(tmp_path_factory, embedder):
    """One tree of ~300 chunks built flat, then the same build re-ingested with ``ivfpq`` (its
    vectors reused: only the vector index changes)."""
    from chunkers.sizing import ChunkOptions
    from flows.config import IngestConfig
    from flows.pipeline import run_ingest

    from .conftest import write_corpus

    base = tmp_path_factory.mktemp("ivfpq-build")
    src = write_corpus(base / "corpus", files=110)
    run_ingest(
        [src], base / "flat", IngestConfig(chunk=ChunkOptions(60), vector_index="flat"), embedder=embedder
    )
    shutil.copytree(base / "flat", base / "ivfpq", symlinks=True)
    config = IngestConfig(chunk=ChunkOptions(60), vector_index="ivfpq")
    run_ingest([src], base / "ivfpq", config, embedder=embedder)
    return base / "flat", base / "ivfpq"


def test_a_small_ivfpq_build_opens_and_matches_flat(flat_and_ivfpq, shard_queries):
    import docmill

    flat_path, ivfpq_path = flat_and_ivfpq
    flat, pq = docmill.open_index(flat_path), docmill.open_index(ivfpq_path)
    try:
        assert len(pq) == len(flat) >= 256  # enough rows to train the codes
        assert pq.vector_index.kind == "ivfpq" and pq.vector_index.requested == "ivfpq"
        assert flat.vector_index.kind == "flat"
        overlap = []
        for q in shard_queries:
            a = [h.chunk.id for h in flat.search(q, k=10, mode="vector")]
            b = [h.chunk.id for h in pq.search(q, k=10, mode="vector")]
            assert len(b) == 10
            overlap.append(len(set(a) & set(b)) / 10)
        assert np.mean(overlap) >= 0.95
    finally:
        flat.close()
        pq.close()
