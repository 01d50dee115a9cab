"""Segmented BM25 (indexers/bm25_segments.py) equals a full rebuild over the live documents: after
adds, changes, deletes and merges, the same top-100 documents with scores within 1e-6."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from indexers.lexical.bm25 import BM25FormatError, BM25Index, BM25Params, count_terms
from indexers.lexical.segment_files import Deletions, SegmentPostings, merge_postings
from indexers.lexical.segmented import SegmentedBM25


def corpus(rng: random.Random, n_docs: int, vocab_size: int = 300) -> list[list[str]]:
    # "u:" terms are the Han-character field, weighed UNIGRAM_WEIGHT in a query by every scorer
    vocab = [f"{'u:' if i % 7 == 3 else ''}w{i}" for i in range(vocab_size)]
    weights = [1 / (i + 1) for i in range(vocab_size)]  # Zipf-like: common and rare terms
    return [rng.choices(vocab, weights, k=rng.choice([0, 1, 3, 10, 40, 120])) for _ in range(n_docs)]


class Segments:
    """A toy writer over in-memory segments: what flows/ does with files, as plain lists."""

    def __init__(self, params: BM25Params) -> None:
        self.params = params
        self.segments: list[tuple[SegmentPostings, Deletions, list[list[str]]]] = []

    def add(self, docs: list[list[str]]) -> None:
        self.segments.append((SegmentPostings(count_terms(docs)), Deletions(), docs))

    def delete(self, segment: int, rows: list[int]) -> None:
        postings, deletions, docs = self.segments[segment]
        self.segments[segment] = (postings, deletions.adding(rows, [docs[r] for r in rows]), docs)

    def merge(self, which: list[int]) -> None:
        parts, docs = [], []
        for i in which:
            postings, deletions, seg_docs = self.segments[i]
            keep = np.setdiff1d(np.arange(postings.counts.n_docs), deletions.rows)
            parts.append((postings, keep))
            docs += [seg_docs[r] for r in keep.tolist()]
        merged = (SegmentPostings(merge_postings(parts)), Deletions(), docs)
        self.segments = [s for i, s in enumerate(self.segments) if i not in which] + [merged]

    def live(self) -> list[list[str]]:
        out = []
        for _, deletions, docs in self.segments:
            masked = set(deletions.rows.tolist())
            out += [d for r, d in enumerate(docs) if r not in masked]
        return out

    def index(self) -> SegmentedBM25:
        return SegmentedBM25([(p, d) for p, d, _ in self.segments], self.params)


def assert_same_as_full_rebuild(segments: Segments, rng: random.Random, queries: int = 60) -> None:
    live = segments.live()
    reference, index = BM25Index.build(live, segments.params), segments.index()
    assert (index.n_docs, index.avgdl) == (reference.n_docs, reference.avgdl)
    for _ in range(queries):
        # unseen and repeated terms, some of the Han-character field
        field = ["", "", "u:"]
        query = [f"{rng.choice(field)}w{rng.randrange(320)}" for _ in range(rng.randint(1, 8))]
        np.testing.assert_allclose(index.scores(query), reference.scores(query), rtol=0, atol=1e-6)
        got, want = index.search(query, 100), reference.search(query, 100)
        assert got.df == want.df
        assert [d for d, _ in got.hits] == [d for d, _ in want.hits]  # same ranks, same tie-breaks
        np.testing.assert_allclose([s for _, s in got.hits], [s for _, s in want.hits], rtol=0, atol=1e-6)
        docs = [d for d, _ in want.hits[:5]] + [rng.randrange(len(live))]
        np.testing.assert_allclose(
            index.coverage_many(query, docs), reference.coverage_many(query, docs), atol=1e-12
        )
        other = live[rng.randrange(len(live))]
        assert index.score_document(query, other) == pytest.approx(
            reference.score_document(query, other), abs=1e-9
        )


@pytest.mark.parametrize(("k1", "b"), [(1.2, 0.75), (0.9, 0.4), (1.5, 0.0)])
def test_adds_changes_deletes_and_merges_score_like_a_full_rebuild(k1: float, b: float) -> None:
    rng = random.Random(f"segments-{k1}-{b}")
    segments = Segments(BM25Params(k1, b))
    segments.add(corpus(rng, 400))
    assert_same_as_full_rebuild(segments, rng)
    for step in range(6):
        # A "changed file": mask its old documents where they live, add the new version; plus adds.
        victim = rng.randrange(len(segments.segments))
        n_local = segments.segments[victim][0].counts.n_docs
        masked = set(segments.segments[victim][1].rows.tolist())
        free = [r for r in range(n_local) if r not in masked]
        segments.delete(victim, sorted(rng.sample(free, min(len(free), rng.randint(1, 12)))))
        segments.add(corpus(rng, rng.randint(1, 25)))
        assert_same_as_full_rebuild(segments, rng, queries=25)
        if step == 3:
            segments.merge([1, 2, 3])
            assert_same_as_full_rebuild(segments, rng, queries=25)
    segments.merge(list(range(len(segments.segments))))
    assert len(segments.segments) == 1 and not len(segments.segments[0][1])
    assert_same_as_full_rebuild(segments, rng)


def test_allowed_mask_is_over_rows_and_deleted_documents_never_score() -> None:
    segments = Segments(BM25Params())
    segments.add([["apple", "pie"], ["apple"], ["banana"]])
    segments.add([["apple", "tart"]])
    segments.delete(0, [1])
    index = segments.index()
    assert index.n_docs == 3 and index.document_frequencies(["apple", "banana", "kiwi"]) == {
        "apple": 2,
        "banana": 1,
        "kiwi": 0,
    }
    assert [d for d, _ in index.top_k(["apple"], 10)] == [0, 2]  # tied: by row; 2 is segment 1
    assert [d for d, _ in index.top_k(["apple"], 10, allowed=np.array([True, True, False]))] == [0]
    with pytest.raises(ValueError, match="shape"):
        index.top_k(["apple"], 1, allowed=np.ones(4, dtype=bool))


def test_segment_files_round_trip_and_a_damaged_one_names_the_file(tmp_path: Path) -> None:
    rng = random.Random(3)
    docs = corpus(rng, 50)
    folder = tmp_path / "bm25"
    SegmentPostings(count_terms(docs)).save(folder)
    deletions = Deletions().adding([3, 7], [docs[3], docs[7]])
    deletions.save(folder)
    loaded, masked = SegmentPostings.load(folder), Deletions.load(folder)
    assert masked.rows.tolist() == [3, 7] and masked.df == deletions.df and masked.length == deletions.length
    live = [d for r, d in enumerate(docs) if r not in (3, 7)]
    np.testing.assert_allclose(
        SegmentedBM25([(loaded, masked)], BM25Params()).scores(["w1", "w2"]),
        BM25Index.build(live).scores(["w1", "w2"]),
        atol=1e-6,
    )
    np.save(folder / "tf.npy", np.zeros(3, dtype=np.int32))
    with pytest.raises(BM25FormatError, match="tf has 3 entries"):
        SegmentPostings.load(folder)
    (folder / "indices.npy").write_bytes(b"garbage")
    with pytest.raises(BM25FormatError, match=r"indices\.npy"):
        SegmentPostings.load(folder)


def test_merge_in_another_order_numbers_documents_by_that_order() -> None:
    rng = random.Random(21)
    first, second = corpus(rng, 30), corpus(rng, 20)
    keep_first, keep_second = np.array([0, 4, 9, 17, 29]), np.array([1, 2, 19])
    kept = [first[r] for r in keep_first.tolist()] + [second[r] for r in keep_second.tolist()]
    gather = np.array([6, 0, 5, 1, 2, 7, 3, 4])  # new document i = kept document gather[i]
    merged = merge_postings(
        [
            (SegmentPostings(count_terms(first)), keep_first),
            (SegmentPostings(count_terms(second)), keep_second),
        ],
        gather,
    )
    index = SegmentedBM25([(SegmentPostings(merged), Deletions())], BM25Params())
    reference = BM25Index.build([kept[i] for i in gather.tolist()])
    for query in (["w1", "w2"], ["w3"], ["w0", "w7", "w7"]):
        np.testing.assert_allclose(index.scores(query), reference.scores(query), atol=1e-6, rtol=0)


def test_a_whole_build_segment_scores_from_its_stored_weights_like_bm25index(tmp_path: Path) -> None:
    rng = random.Random(8)
    docs = corpus(rng, 120)
    params = BM25Params(0.9, 0.4)
    SegmentPostings(count_terms(docs)).with_weights(params).save(tmp_path / "bm25")
    loaded = SegmentPostings.load(tmp_path / "bm25")
    assert loaded.weights_for == (0.9, 0.4) and loaded.weights is not None
    whole = SegmentedBM25([(loaded, Deletions())], params)
    reference = BM25Index.build(docs, params)
    np.testing.assert_array_equal(loaded.weights, reference.data)  # the very weights BM25Index stores
    for query in (["w1", "w5"], ["w2", "w2", "w40"], ["w299"]):
        np.testing.assert_array_equal(whole.scores(query), reference.scores(query))
    # Masked or next to another segment, the stored weights no longer apply: computed from tf.
    masked = SegmentedBM25([(loaded, Deletions().adding([0], [docs[0]]))], params)
    np.testing.assert_allclose(
        masked.scores(["w1"]), BM25Index.build(docs[1:], params).scores(["w1"]), atol=1e-6
    )
    other_k1 = SegmentedBM25([(loaded, Deletions())], BM25Params(1.2, 0.75))
    np.testing.assert_allclose(other_k1.scores(["w1"]), BM25Index.build(docs).scores(["w1"]), atol=1e-6)


def test_search_ranks_as_top_hits_over_float32_scores(tmp_path: Path) -> None:
    """SegmentedBM25.search cuts and orders the float64 totals of the matched rows only
    (bm25.top_of_totals): the same hits, scores and ties by row as top_hits over every row's
    float32 score, with and without a filter, for a full build (stored weights) and a segmented
    one, down to k past the matches; ties are made common by a tiny vocabulary."""
    from indexers.lexical.bm25 import top_hits

    rng = random.Random(11)
    docs = corpus(rng, 400, vocab_size=25)
    full = SegmentPostings(count_terms(docs)).with_weights(BM25Params())
    stored = SegmentedBM25([(full, Deletions())], BM25Params())
    segments = Segments(BM25Params())
    segments.add(docs[:250])
    segments.add(docs[250:])
    segments.delete(0, [3, 7, 8])
    for index in (stored, segments.index()):
        assert (index._stored is not None) == (index is stored)
        for _ in range(60):
            query = rng.sample([f"w{i}" for i in range(30)], rng.randint(1, 6))
            allowed = (
                np.array([rng.random() < 0.4 for _ in range(index.n_docs)]) if rng.random() < 0.3 else None
            )
            for k in (1, 10, 100, 1000):
                expected = top_hits(index.scores(query), k, allowed, index.n_docs)
                assert index.search(query, k, allowed).hits == expected


def test_a_segment_vocabulary_is_read_on_first_use_from_the_file_opened_at_load(tmp_path: Path) -> None:
    """SegmentPostings.load opens vocab.json and parses it on the first query (Vocabulary): the
    scores are those of an eagerly read vocabulary, the file may be unlinked after loading (a
    pruned build), and a damaged one is a BM25FormatError naming it, at first use."""
    from indexers.lexical.bm25_files import Vocabulary

    rng = random.Random(5)
    docs = corpus(rng, 80)
    folder = tmp_path / "bm25"
    SegmentPostings(count_terms(docs)).save(folder)
    loaded = SegmentPostings.load(folder)
    assert isinstance(loaded.counts.terms, Vocabulary) and loaded.counts.terms._terms is None
    (folder / "vocab.json").unlink()  # pruned after opening: the open file still reads
    index = SegmentedBM25([(loaded, Deletions())], BM25Params())
    assert loaded.counts.terms._terms is None  # nothing parsed before a query
    reference = BM25Index.build(docs)
    for query in (["w1", "w2"], ["w7", "w40", "w40"], ["nope"]):
        np.testing.assert_allclose(index.scores(query), reference.scores(query), atol=1e-6)
    assert loaded.counts.terms == count_terms(docs).terms and len(loaded.counts.terms) == len(reference.terms)
    SegmentPostings(count_terms(docs)).save(folder)
    (folder / "vocab.json").write_text('["w1", "w2"]', encoding="utf-8")
    damaged = SegmentedBM25([(SegmentPostings.load(folder), Deletions())], BM25Params())
    with pytest.raises(BM25FormatError, match=r"vocab\.json must hold a JSON list of \d+ terms"):
        damaged.scores(["w1"])


def test_top_of_totals_keeps_rows_that_tie_only_in_float32() -> None:
    """top_of_totals reads only the totals above a bound from every 4th row (top_k._cut): totals
    that differ in float64 but round to the same float32 as the k-th best are still tied with
    it, so kept and ordered by row, as top_hits over the float32 scores keeps them."""
    from indexers.lexical.bm25 import top_hits, top_of_totals

    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(40, 2000))
        # a few float32 levels, each total a level plus less than a quarter of its float32 step
        levels = np.sort(rng.choice(np.linspace(0.5, 3.0, 12, dtype=np.float32), n))
        step = np.spacing(levels).astype(np.float64)
        totals = levels.astype(np.float64) + rng.uniform(-0.25, 0.25, n) * step
        totals[rng.random(n) < 0.3] = 0.0  # unmatched rows
        rng.shuffle(totals)
        for k in (1, 7, 10, 100):
            assert top_of_totals(totals, k, None, n) == top_hits(totals.astype(np.float32), k, None, n)
