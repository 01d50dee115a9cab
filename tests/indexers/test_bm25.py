import json
import math
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from indexers.lexical.bm25 import BM25FormatError, BM25Index, BM25Params


def reference_scores(docs: list[list[str]], query: list[str], k1: float, b: float) -> list[float]:
    """The formula written out with loops: Lucene idf, (k1 + 1) numerator, each query occurrence counts."""
    n = len(docs)
    avgdl = sum(len(d) for d in docs) / n
    df: Counter[str] = Counter()
    for doc in docs:
        df.update(set(doc))
    scores = []
    for doc in docs:
        tf = Counter(doc)
        score = 0.0
        for term in query:
            if tf[term] == 0:
                continue
            idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
            score += idf * tf[term] * (k1 + 1) / (tf[term] + k1 * (1 - b + b * len(doc) / avgdl))
        scores.append(score)
    return scores


def random_corpus(rng: random.Random, n_docs: int, vocab_size: int) -> list[list[str]]:
    vocab = [f"w{i}" for i in range(vocab_size)]
    # Zipf-like draws, so some terms are in most documents and some in one; a few empty documents.
    weights = [1 / (i + 1) for i in range(vocab_size)]
    return [rng.choices(vocab, weights, k=rng.choice([0, 1, 3, 10, 40, 120])) for _ in range(n_docs)]


@pytest.mark.parametrize(("k1", "b"), [(1.2, 0.75), (0.9, 0.4), (2.0, 1.0), (1.5, 0.0)])
def test_scores_match_reference(k1: float, b: float) -> None:
    rng = random.Random(f"{k1}-{b}")
    docs = random_corpus(rng, 300, 400)
    index = BM25Index.build(docs, BM25Params(k1, b))
    for _ in range(40):
        query = [f"w{rng.randrange(420)}" for _ in range(rng.randint(1, 8))]  # some unseen, some repeated
        np.testing.assert_allclose(
            index.scores(query), reference_scores(docs, query, k1, b), rtol=1e-6, atol=0
        )


def test_repeated_query_term_counts_once_per_occurrence() -> None:
    docs = [["apple", "pie"], ["apple"], ["banana"]]
    index = BM25Index.build(docs)
    np.testing.assert_allclose(index.scores(["apple", "apple"]), 2 * index.scores(["apple"]), rtol=1e-6)


def test_hand_computed_score() -> None:
    # N=2, df(a)=1 -> idf = ln(1 + 1.5/1.5) = ln 2; doc 0: tf=2, |d|=3, avgdl=2.
    index = BM25Index.build([["a", "a", "b"], ["b"]], BM25Params(k1=1.2, b=0.75))
    expected = math.log(2) * 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 3 / 2))
    assert index.scores(["a"])[0] == pytest.approx(expected, rel=1e-6)
    assert index.scores(["a"])[1] == 0


def test_matches_rank_bm25_formula_on_shared_terms() -> None:
    """rank_bm25's BM25Okapi differs only in idf; swapping in our idf must give our scores."""
    rank_bm25 = pytest.importorskip("rank_bm25")
    rng = random.Random(7)
    docs = [d for d in random_corpus(rng, 200, 300) if d]
    okapi = rank_bm25.BM25Okapi(docs, k1=1.2, b=0.75)
    n = len(docs)
    doc_freq = Counter(term for freqs in okapi.doc_freqs for term in freqs)
    okapi.idf = {t: math.log(1 + (n - df + 0.5) / (df + 0.5)) for t, df in doc_freq.items()}
    index = BM25Index.build(docs)
    for _ in range(20):
        query = [f"w{rng.randrange(300)}" for _ in range(5)]
        np.testing.assert_allclose(index.scores(query), okapi.get_scores(query), rtol=1e-6)


def test_top_k_is_sorted_never_returns_zero_scores_and_breaks_ties_by_id() -> None:
    docs = [["x"], ["y"], ["x"], ["z"], ["x", "y"]]
    index = BM25Index.build(docs)
    hits = index.top_k(["x"], k=10)
    assert [doc for doc, _ in hits] == [0, 2, 4]  # 0 and 2 tie; 4 is longer
    assert all(score > 0 for _, score in hits)
    assert index.top_k(["unseen"], k=5) == []
    assert index.top_k([], k=5) == []
    assert index.top_k(["x"], k=0) == []
    assert [doc for doc, _ in index.top_k(["x"], k=1)] == [0]


def test_top_k_agrees_with_full_sort() -> None:
    rng = random.Random(3)
    docs = random_corpus(rng, 500, 200)
    index = BM25Index.build(docs)
    for _ in range(30):
        query = [f"w{rng.randrange(200)}" for _ in range(3)]
        scores = index.scores(query)
        order = sorted((i for i in range(len(docs)) if scores[i] > 0), key=lambda i: (-scores[i], i))
        assert [doc for doc, _ in index.top_k(query, k=25)] == order[:25]


def test_allowed_mask_is_applied_before_the_cut() -> None:
    # 20 strong matches that are filtered out, then 5 weaker allowed ones: all 5 must come back.
    docs = [["rare", "rare", "rare"]] * 20 + [["rare"] + ["filler"] * 30] * 5 + [["other"]] * 10
    index = BM25Index.build(docs)
    allowed = np.zeros(len(docs), dtype=bool)
    allowed[20:] = True
    hits = index.top_k(["rare"], k=5, allowed=allowed)
    assert [doc for doc, _ in hits] == [20, 21, 22, 23, 24]
    assert len(index.top_k(["rare"], k=10, allowed=allowed)) == 5  # only 5 allowed docs match


@pytest.mark.parametrize("bad", [np.ones(3, dtype=bool), np.ones(4, dtype=np.int8)])
def test_allowed_mask_must_be_bool_of_length_n(bad: np.ndarray) -> None:
    index = BM25Index.build([["a"], ["b"], ["c"], ["d"]])
    with pytest.raises(ValueError, match="allowed must be a bool array"):
        index.top_k(["a"], k=2, allowed=bad)


def test_save_load_round_trip_with_mmap(tmp_path: Path) -> None:
    rng = random.Random(11)
    docs = random_corpus(rng, 200, 150) + [["héllo", "中文", "写代"]]
    index = BM25Index.build(docs, BM25Params(k1=0.9, b=0.4))
    tokenizer = {"name": "docmill-words", "version": 1}
    written = index.save(tmp_path / "bm25", tokenizer=tokenizer)
    assert sorted(p.name for p in written) == sorted(p.name for p in (tmp_path / "bm25").iterdir())
    loaded = BM25Index.load(tmp_path / "bm25", mmap=True)
    assert isinstance(loaded.data, np.memmap)
    assert loaded.params == BM25Params(k1=0.9, b=0.4)
    assert loaded.tokenizer == tokenizer
    assert loaded.n_docs == index.n_docs and loaded.avgdl == pytest.approx(index.avgdl)
    params = json.loads((tmp_path / "bm25" / "params.json").read_text())
    assert params["n_docs"] == len(docs) and params["k1"] == 0.9
    for query in (["w1", "w5", "w5"], ["héllo", "写代"], ["w149"]):
        np.testing.assert_array_equal(loaded.scores(query), index.scores(query))
        assert loaded.top_k(query, 10) == index.top_k(query, 10)
    in_memory = BM25Index.load(tmp_path / "bm25", mmap=False)
    assert not isinstance(in_memory.data, np.memmap)


def test_empty_corpus_and_empty_documents(tmp_path: Path) -> None:
    empty = BM25Index.build([])
    assert empty.scores(["a"]).shape == (0,)
    assert empty.top_k(["a"], 3) == []
    empty.save(tmp_path / "e")
    assert BM25Index.load(tmp_path / "e").n_docs == 0
    only_blank = BM25Index.build([[], []])
    assert only_blank.top_k(["a"], 3) == []


@pytest.mark.parametrize("name", ["data.npy", "indices.npy", "indptr.npy", "doc_lengths.npy", "vocab.json"])
def test_load_refuses_missing_file(tmp_path: Path, name: str) -> None:
    BM25Index.build([["a", "b"], ["b", "c"]]).save(tmp_path)
    (tmp_path / name).unlink()
    with pytest.raises(BM25FormatError, match="missing"):
        BM25Index.load(tmp_path)


@pytest.mark.parametrize("mmap", [True, False])
@pytest.mark.parametrize("name", ["data.npy", "indices.npy", "indptr.npy"])
def test_load_refuses_truncated_array(tmp_path: Path, name: str, mmap: bool) -> None:
    BM25Index.build([["a", "b", "c", "d"], ["b", "c"], ["e"]]).save(tmp_path)
    path = tmp_path / name
    path.write_bytes(path.read_bytes()[:-4])
    with pytest.raises(BM25FormatError, match="truncated"):
        BM25Index.load(tmp_path, mmap=mmap)


def test_load_refuses_inconsistent_arrays_and_other_versions(tmp_path: Path) -> None:
    BM25Index.build([["a", "b"], ["b", "c"]]).save(tmp_path)
    np.save(tmp_path / "doc_lengths.npy", np.array([1, 2, 3], dtype=np.int32))
    with pytest.raises(BM25FormatError, match="doc_lengths has 3 entries"):
        BM25Index.load(tmp_path)
    params = json.loads((tmp_path / "params.json").read_text())
    (tmp_path / "params.json").write_text(json.dumps({**params, "format_version": 99}))
    with pytest.raises(BM25FormatError, match="rebuild the index"):
        BM25Index.load(tmp_path)


def test_arrays_are_never_pickled(tmp_path: Path) -> None:
    BM25Index.build([["a"], ["b"]]).save(tmp_path)
    for name in ["data", "indices", "indptr", "doc_lengths"]:
        assert np.load(tmp_path / f"{name}.npy", allow_pickle=False).dtype != object


@pytest.mark.parametrize(("k1", "b"), [(-0.1, 0.5), (1.2, 1.5), (float("nan"), 0.5), (1.2, -0.01)])
def test_params_check_themselves(k1: float, b: float) -> None:
    with pytest.raises(ValueError, match="BM25Params"):
        BM25Params(k1, b)


def test_params_from_dict() -> None:
    assert BM25Params.from_dict({"k1": 0.9, "b": 0.4}) == BM25Params(0.9, 0.4)
    with pytest.raises(ValueError, match="unknown BM25 parameter"):
        BM25Params.from_dict({"k1": 0.9, "delta": 1})


def test_postings_layout_is_term_major_csc() -> None:
    index = BM25Index.build([["b", "a"], ["a"], ["c", "a"]])
    assert index.terms == ["b", "a", "c"]  # first-seen order
    assert index.indptr.tolist() == [0, 1, 4, 5]
    assert index.indices.tolist() == [0, 0, 1, 2, 2]
    assert index.indices.dtype == np.int32 and index.data.dtype == np.float32


def test_score_document_matches_the_indexed_score_of_the_same_document():
    docs = [["alpha", "beta", "beta"], ["beta", "gamma"], ["gamma", "delta", "alpha", "alpha"]]
    index = BM25Index.build(docs)
    query = ["alpha", "beta", "zeta"]
    indexed = index.scores(query)
    for i, doc in enumerate(docs):
        assert index.score_document(query, doc) == pytest.approx(float(indexed[i]), rel=1e-6)
    assert index.score_document(query, ["zeta"]) == 0.0


def test_coverage_is_the_share_of_query_idf_mass_in_the_document():
    docs = [["alpha", "beta"], ["beta", "gamma"], ["gamma", "delta"], ["beta"]]
    index = BM25Index.build(docs)
    n = 4

    def idf(df):
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    assert index.idf("alpha") == pytest.approx(idf(1))
    assert index.idf("never-seen") == pytest.approx(idf(0))
    # query: alpha (df 1) + beta (df 3) + unseen (df 0); doc 0 holds alpha and beta
    expected = (idf(1) + idf(3)) / (idf(1) + idf(3) + idf(0))
    assert index.coverage(["alpha", "beta", "zzz"], 0) == pytest.approx(expected)
    assert index.coverage(["alpha", "alpha"], 0) == pytest.approx(1.0)
    assert index.coverage(["alpha"], 2) == 0.0
    assert index.coverage([], 0) == 0.0


def test_a_han_character_field_term_scores_a_quarter_of_its_bm25_weight() -> None:
    from indexers.lexical.tokenize import UNIGRAM_WEIGHT, Tokenizer

    tokenize = Tokenizer()
    texts = ["弹窗组件挂到页面最外层", "列表过渡动画", "组件的插槽内容", "页面路由"]
    docs = [tokenize(t) for t in texts]
    index = BM25Index.build(docs, BM25Params(1.2, 0.75))
    query = tokenize("弹出框")  # no bigram of it is indexed; its characters 弹 and 出 ...
    assert query == ["弹出", "出框", "u:弹", "u:出", "u:框"]
    scores = index.scores(query)
    # ... only 弹 is: the first text scores its one character at a quarter of BM25's weight
    n, avgdl, tf, dl = len(docs), sum(map(len, docs)) / len(docs), 1, len(docs[0])
    idf = math.log1p((n - 1 + 0.5) / (1 + 0.5))
    full = idf * tf * 2.2 / (tf + 1.2 * (1 - 0.75 + 0.75 * dl / avgdl))
    assert scores[0] == pytest.approx(UNIGRAM_WEIGHT * full, rel=1e-6)
    assert scores[1:].tolist() == [0.0, 0.0, 0.0]
    assert index.score_document(query, docs[0]) == pytest.approx(scores[0], rel=1e-6)
    # a bigram match outweighs a character match: "页面" in two texts, "组件" in two
    ranked = index.scores(tokenize("页面组件"))
    assert ranked[0] > ranked[2] > 0 and ranked[0] > ranked[3] > 0
