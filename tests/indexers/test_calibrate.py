"""Fusion calibration picks the side that can find held-out sentences, on corpora built so that
one side is known to be useless."""

import random

import numpy as np

from chunkers.model import Chunk
from indexers.lexical.bm25 import BM25Index
from indexers.lexical.tokenize import Tokenizer
from indexers.ranking.calibrate import (
    MIN_PSEUDO_QUERIES,
    calibrate_fusion,
    language_share,
    sample_pseudo_queries,
)

TOKENIZE = Tokenizer()
_LETTERS = "bcdfghjklmnprstvz"
WORDS = sorted({"".join(random.Random(i).choices(_LETTERS, k=7)) for i in range(3000)})


def _corpus(n=120, seed=1, disjoint=False):
    """Three sentences per chunk over a chunk-specific vocabulary: shared between the sentences (BM25
    can find the rest of the chunk from one sentence) or ``disjoint`` (it cannot)."""
    rng = random.Random(seed)
    chunks = []
    for i in range(n):
        vocab = rng.sample(WORDS, 18)
        parts = [vocab[6 * s : 6 * s + 6] if disjoint else rng.sample(vocab[:12], 6) for s in range(3)]
        text = " ".join("The {} {} of the {} {} and {} {}.".format(*p) for p in parts)
        chunks.append(
            Chunk(id=str(i), doc_id=str(i), path="c.jsonl", kind="text", text=text, index_text=text)
        )
    return chunks


def _unit(rows):
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_pseudo_queries_are_sentences_taken_out_of_their_chunk():
    chunks = _corpus()
    queries = sample_pseudo_queries(chunks, TOKENIZE, 50)
    assert len(queries) == 50
    for q in queries:
        assert q.query in chunks[q.row].text and q.query not in q.remainder
    assert sample_pseudo_queries(chunks, TOKENIZE, 50) == queries  # seeded: deterministic


def _chinese_chunks(lengths, n=40, seed=3):
    """``n`` chunks of Chinese sentences of ``lengths`` characters (random characters around a
    clause of function characters: language, not code)."""
    rng = random.Random(seed)
    han = [chr(c) for c in range(0x4E00, 0x4E00 + 400)]
    clauses = ["的发展对", "在推动了", "和企业的", "是一个与"]
    chunks = []
    for i in range(n):
        sentences = []
        for length in lengths:
            head = (length - 4) // 2
            body = (
                rng.choices(han, k=head) + list(rng.choice(clauses)) + rng.choices(han, k=length - 4 - head)
            )
            sentences.append("".join(body) + "。")
        text = "".join(sentences)
        chunks.append(Chunk(id=str(i), doc_id=str(i), path="t.pdf", kind="text", text=text, index_text=text))
    return chunks


def test_a_corpus_of_long_chinese_sentences_is_sampled_by_words():
    # a thesis's sentences, 30-40 characters: each over 40 terms with the Han-character field
    # (a character counted again), so none was a pseudo-query and the calibrations kept defaults
    chunks = _chinese_chunks([30, 34, 38])
    assert all(len(TOKENIZE(s)) > 40 for s in chunks[0].text.split("。") if s)
    queries = sample_pseudo_queries(chunks, TOKENIZE, 50)
    assert len(queries) >= MIN_PSEUDO_QUERIES
    assert all(30 <= len(q.query) <= 40 and q.query in chunks[q.row].text for q in queries)


def test_question_length_sentences_stay_the_first_choice():
    # enough sentences of question length (12-16 characters): the long ones are not sampled
    chunks = _chinese_chunks([12, 14, 16, 38], n=60)
    queries = sample_pseudo_queries(chunks, TOKENIZE, 50)
    assert len(queries) >= MIN_PSEUDO_QUERIES
    assert all(len(q.query) <= 17 for q in queries)


def test_the_abstain_calibration_counts_a_sentence_in_words():
    # the abstain calibration's sample (in_words): question-length and long sentences alike, each
    # counted in words, so a Chinese sentence of 38 characters (37 words, 75 terms) is a candidate
    chunks = _chinese_chunks([12, 14, 16, 38], n=60)
    queries = sample_pseudo_queries(chunks, TOKENIZE, 50, in_words=True)
    assert len(queries) >= MIN_PSEUDO_QUERIES
    assert any(len(q.query) > 30 for q in queries)
    assert all(q.query in chunks[q.row].text and q.query not in q.remainder for q in queries)
    assert sample_pseudo_queries(chunks, TOKENIZE, 50, in_words=True) == queries  # seeded


def test_without_han_characters_words_and_terms_sample_alike():
    chunks = _corpus()
    assert sample_pseudo_queries(chunks, TOKENIZE, 50, in_words=True) == sample_pseudo_queries(
        chunks, TOKENIZE, 50
    )


def test_noise_vectors_get_no_weight_against_a_working_bm25():
    chunks = _corpus()
    rng = np.random.default_rng(0)
    vectors = _unit(rng.normal(size=(len(chunks), 16))).astype(np.float32)
    bm25 = BM25Index.build([TOKENIZE(c.index_text) for c in chunks])
    result = calibrate_fusion(
        chunks, bm25, TOKENIZE, vectors, lambda texts: _unit(rng.normal(size=(len(texts), 16)))
    )
    assert result["pseudo_queries"] >= 30
    assert result["mrr"]["bm25"] > 0.8 and result["mrr"]["vector"] < 0.2
    assert result["weights"]["bm25"] >= 2 * result["weights"]["vector"]


def test_a_useless_bm25_gets_less_weight_than_a_working_vector_side():
    chunks = _corpus(disjoint=True)  # a held-out sentence shares no word with the rest of its chunk
    rng = np.random.default_rng(0)
    vectors = _unit(rng.normal(size=(len(chunks), 16))).astype(np.float32)
    bm25 = BM25Index.build([TOKENIZE(c.index_text) for c in chunks])

    def oracle(texts):  # a vector side that knows which chunk a text came from
        words = [set(TOKENIZE(t)) for t in texts]
        rows = [max(range(len(chunks)), key=lambda i: len(w & set(TOKENIZE(chunks[i].text)))) for w in words]
        return vectors[rows]

    result = calibrate_fusion(chunks, bm25, TOKENIZE, vectors, oracle)
    assert result["mrr"]["vector"] > 0.9 and result["mrr"]["bm25"] < 0.1
    assert result["weights"]["bm25"] < result["weights"]["vector"]


def test_small_corpus_keeps_equal_weights_without_encoding():
    chunks = _corpus(n=10)
    bm25 = BM25Index.build([TOKENIZE(c.index_text) for c in chunks])

    def never(texts):
        raise AssertionError("must not encode")

    result = calibrate_fusion(chunks, bm25, TOKENIZE, np.zeros((10, 4), np.float32), never)
    assert result["weights"] == {"bm25": 1.0, "vector": 1.0} and "pseudo-queries" in result["reason"]


def test_a_code_corpus_gets_the_code_search_prior_without_encoding():
    code = "def parse_pdf(path):\n    data = read_bytes(path)\n    return decode(data, strict=True)\n"
    chunks = [
        Chunk(id=str(i), doc_id=str(i), path=f"m{i}.py", kind="code", text=code, index_text=code)
        for i in range(50)
    ]
    bm25 = BM25Index.build([TOKENIZE(c.index_text) for c in chunks])

    def never(texts):
        raise AssertionError("must not encode")

    result = calibrate_fusion(chunks, bm25, TOKENIZE, np.zeros((50, 4), np.float32), never)
    assert result["method"] == "code-prior" and result["language_share"] < 0.5
    assert result["rrf_k"] == 10.0 and result["weights"] == {"bm25": 1.0, "vector": 1.0}
    assert result["bm25_coverage_power"] == 4.0  # scaled per query by docmill.index


def test_tables_do_not_make_a_report_look_like_code():
    prose = "The committee met in May and agreed that the budget for the new school should rise."
    table = "| Donor | Amount |\n|---|---|\n| Saint Paul Foundation | 25,000.00 |\n| Ecolab | 10,000.00 |"
    tables = [
        Chunk(id=f"t{i}", doc_id="r.pdf", path="r.pdf", kind="table", text=table, index_text=table)
        for i in range(40)
    ]
    texts = [
        Chunk(id=f"p{i}", doc_id="r.pdf", path="r.pdf", kind="text", text=prose, index_text=prose)
        for i in range(10)
    ]
    chunks = tables + texts
    assert language_share(chunks, TOKENIZE) > 0.9
    assert language_share(chunks[:40], TOKENIZE) == 1.0  # tables only: not code either


def test_code_blocks_of_a_docs_tree_do_not_make_it_a_code_corpus():
    """A Markdown docs tree with many code examples is prose with examples, not a code corpus
    (issue 21: a Chinese docs tree read as code and lost BM25 in fusion); source files still count."""
    example = (
        "const count = ref(0)\nwatch(count, (value) => console.log(value))\nexport default { setup() {} }"
    )
    prose = "组件挂载之后，我们可以在这个钩子里访问它的模板引用，也可以在这里发起网络请求。"
    docs = [
        Chunk(id=f"c{i}", doc_id="g.md", path="guide.md", kind="code", text=example, index_text=example)
        for i in range(60)
    ] + [
        Chunk(id=f"p{i}", doc_id="g.md", path="guide.md", kind="text", text=prose, index_text=prose)
        for i in range(40)
    ]
    assert language_share(docs, TOKENIZE) > 0.9
    source = [
        Chunk(id=f"s{i}", doc_id="a.js", path="src/a.js", kind="code", text=example, index_text=example)
        for i in range(60)
    ]
    assert language_share(source + docs[60:], TOKENIZE) < 0.5
