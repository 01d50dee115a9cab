"""The public search call against a straightforward reference built from its parts: BM25Index.top_k,
a flat FAISS search re-scored with the stored sentence windows, and RRF written out here. Pins
that the fast paths of HybridIndex.search (issue 13: no fusion when one retriever answers,
hydration of the k returned only, abstain evidence from what retrieval computed) return the same
top-10, ids and scores, in every mode. Chunk level (``collapse="none"``); hybrid puts the rows
both sides rank in their top 3 first (indexers/ranking/fusion.py: the agreement tier), as
written out here."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

TOPICS = {
    "orbital": "satellite orbit launch rocket telemetry antenna ground station payload",
    "garden": "tomato compost soil seedling watering greenhouse pruning harvest",
    "database": "index query transaction replica shard postgres vacuum checkpoint",
    "kitchen": "oven recipe flour yeast dough knead bake crust",
    "network": "router packet latency bandwidth firewall subnet gateway dns",
    "music": "violin orchestra tempo chord melody rehearsal concert score",
}
QUERIES = [
    "rocket launch telemetry",
    "how do I water tomato seedlings in a greenhouse",
    "postgres vacuum checkpoint replica",
    "bake bread with yeast",
    "router firewall latency",
    "violin rehearsal tempo",
    "satellite payload antenna ground station",
    "dough crust oven",
    "shard transaction index",
    "melody chord concert orchestra score",
    "dns subnet gateway packet",
    "compost harvest pruning soil",
]


@pytest.fixture(scope="module")
def index(tmp_path_factory, embedder):
    from docmill import open_index
    from flows.pipeline import run_ingest
    from tests.conftest import write_tree

    rng = random.Random(13)
    files = {}
    for topic, words in TOPICS.items():
        vocab = words.split()
        for i in range(8):
            sections = []
            for s in range(3):
                sentences = [
                    "The {} and the {} of this {} are what we {} when the {} is {}.".format(
                        *rng.choices(vocab, k=6)
                    )
                    for _ in range(4)
                ]
                sections.append(f"## {topic} part {s}\n\n" + " ".join(sentences))
            files[f"{topic}/note{i}.md"] = f"# {topic} {i}\n\n" + "\n\n".join(sections) + "\n"
    root = write_tree(tmp_path_factory.mktemp("reference") / "tree", files)
    folder = tmp_path_factory.mktemp("reference-index") / "idx"
    run_ingest([root], folder, embedder=embedder)
    opened = open_index(folder, embedder=embedder)
    assert len(opened) > 100
    return opened


def reference(index, query, mode, weights=None, k=10, fetch_k=100, fusion="rrf"):
    """(chunk id, score) of the top k, computed the long way. Hybrid search with one retriever
    weighted 0 is the other retriever alone, with its own scores. ``fusion`` "zscore": each side's
    scores as standard scores over its list, less its lowest, averaged with the weights; a BM25
    list shorter than ``fetch_k`` is every chunk holding a query word, so the rest count as 0s."""
    from indexers.dense.embedder import search_faiss

    bm25 = index.bm25.top_k(index.tokenizer(query), fetch_k)
    query_vector = index.embedder.encode([query])[0]
    vector = windowed(index, query_vector, search_faiss(index._faiss, query_vector, fetch_k))
    weights = weights or (index.fusion_weights if fusion == "rrf" else {"bm25": 1.0, "vector": 1.0})
    if mode == "hybrid" and weights["vector"] <= 0:
        mode = "bm25"
    if mode == "hybrid" and weights["bm25"] <= 0:
        mode = "vector"
    if mode == "bm25":
        return [(index.chunks[row].id, score) for row, score in bm25[:k]]
    if mode == "vector":
        return [(index.chunks[row].id, score) for row, score in vector[:k]]
    rrf_k = index.fusion_rrf_k
    score: dict[int, float] = {}
    best_rank: dict[int, int] = {}
    total = weights["bm25"] + weights["vector"]
    for name, pairs in (("bm25", bm25), ("vector", vector)):
        values = np.array([s for _, s in pairs], dtype=np.float64)
        if name == "bm25" and len(values) < fetch_k:
            values = np.concatenate([values, np.zeros(fetch_k - len(values))])
        for rank, (row, value) in enumerate(pairs, start=1):
            if fusion == "rrf":
                score[row] = score.get(row, 0.0) + weights[name] / (rrf_k + rank)
            else:
                z = (value - values.min()) / values.std()
                score[row] = score.get(row, 0.0) + weights[name] * z / total
            best_rank[row] = min(best_rank.get(row, rank), rank)
    top3 = [{row for row, _ in pairs[:3]} for pairs in (bm25, vector)]
    agreed = top3[0] & top3[1]
    order = sorted(score, key=lambda row: (row not in agreed, -score[row], best_rank[row], row))[:k]
    return [(index.chunks[row].id, score[row]) for row in order]


def windowed(index, query_vector, pairs):
    """The vector side's candidates scored as the best of their cosine and their sentence windows'
    (the segment's stored window vectors, indexers.dense.windows), best first, ties by row."""
    windows = index.vectors.windows[0]
    assert windows is not None and len(windows.vectors) > 0
    q = np.asarray(query_vector, dtype=np.float32)
    scored = []
    for row, score in pairs:
        start, stop = int(windows.offsets[row]), int(windows.offsets[row + 1])
        if stop > start:
            score = max(score, float(np.max(np.asarray(windows.vectors[start:stop]) @ q)))
        scored.append((row, score))
    return sorted(scored, key=lambda pair: (-pair[1], pair[0]))


@pytest.mark.parametrize(
    ("mode", "weights"),
    [
        ("bm25", None),
        ("vector", None),
        ("hybrid", None),  # this corpus's calibrated weights
        ("hybrid", {"bm25": 1.0, "vector": 1.0}),
        ("hybrid", {"bm25": 0.7, "vector": 1.3}),
    ],
)
@pytest.mark.parametrize("fusion", ["rrf", "zscore"])
def test_search_returns_the_reference_top_10_in_every_mode(index, mode, weights, fusion):
    assert index.fusion_coverage_power is None  # a prose corpus: "auto" fusion is zscore here
    for query in QUERIES:
        result = index.search(
            query, k=10, mode=mode, weights=weights, abstain=False, collapse="none", fusion=fusion
        )
        got = [(hit.chunk.id, hit.score) for hit in result.hits]
        want = reference(index, query, mode, weights, fusion=fusion)
        assert [chunk_id for chunk_id, _ in got] == [chunk_id for chunk_id, _ in want], query
        for (_, ours), (_, theirs) in zip(got, want, strict=True):
            assert math.isclose(ours, theirs, rel_tol=1e-12, abs_tol=1e-12), query


@pytest.mark.parametrize("mode", ["bm25", "vector"])
def test_single_retriever_hits_carry_their_rank_and_score(index, mode):
    other = "vector" if mode == "bm25" else "bm25"
    hits = index.search(QUERIES[0], k=10, mode=mode, abstain=False, collapse="none").hits
    assert [hit.ranks for hit in hits] == [{mode: i, other: None} for i in range(1, len(hits) + 1)]
    assert all(hit.scores == {mode: hit.score, other: None} for hit in hits)
    assert hits[0].explain.startswith(("bm25#1(", "vec#1("))


def test_abstain_confidence_matches_the_lexical_evidence_computed_from_scratch(index):
    from indexers.dense.embedder import search_faiss

    model = index.abstain_model
    documents = [set(index.tokenizer(chunk.index_text)) for chunk in index.chunks.all()]
    n = len(documents)
    for query in [*QUERIES, "lasagne marathon holiday", "rocket lasagne"]:
        terms = list(dict.fromkeys(index.tokenizer(query)))
        df = {t: sum(t in d for d in documents) for t in terms}
        idf = {t: math.log1p((n - df[t] + 0.5) / (df[t] + 0.5)) for t in terms}
        total = sum(idf.values())
        lexical = sum(v for t, v in idf.items() if df[t] > 0) / total if total else 0.0
        query_vector = index.embedder.encode([query])[0]
        cosine = windowed(index, query_vector, search_faiss(index._faiss, query_vector, 100))[0][1]
        short = 0 < len(terms) <= 3  # a short query is judged on the short-query scale
        assert index.search(query, mode="bm25").confidence == pytest.approx(model.confidence(lexical, None))
        assert index.search(query, mode="vector").confidence == pytest.approx(
            model.confidence(lexical, cosine, short)
        )
        assert index.search(query, mode="hybrid").confidence == pytest.approx(
            model.confidence(lexical, cosine, short)
        )
