"""Build-time abstain calibration (indexers/abstain.py): evidence, scales, determinism, and the
confidence being monotone in each side's evidence."""

import math
import random
import zlib

import numpy as np
import pytest

from chunkers.model import Chunk
from indexers.lexical.bm25 import BM25Index
from indexers.lexical.tokenize import Tokenizer
from indexers.ranking.abstain import (
    DECISION,
    DEFAULT_ALONE,
    VERSION,
    AbstainModel,
    JointScale,
    SideScale,
    lexical_evidence,
)
from indexers.ranking.abstain_fit import calibrate_abstain, fit_scale, offtopic_questions

TOKENIZE = Tokenizer()
TOPICS = ["reactive", "component", "template", "router", "store", "render", "props", "slots", "hooks"]


def _corpus(n=150, seed=3):
    """English prose about one technical domain: sentences that mix its terms with function words."""
    rng = random.Random(seed)
    chunks = []
    for i in range(n):
        words = rng.sample(TOPICS, 4) + [f"term{rng.randrange(60)}" for _ in range(3)]
        text = (
            f"The {words[0]} of the {words[1]} is updated when the {words[4]} changes. "
            f"A {words[2]} can use the {words[3]} and the {words[5]} together. "
            f"When the {words[6]} is set, the {words[0]} is rendered again."
        )
        chunks.append(
            Chunk(id=str(i), doc_id=str(i), path=f"d{i}.md", kind="text", text=text, index_text=text)
        )
    return chunks


@pytest.fixture(scope="module")
def corpus():
    chunks = _corpus()
    return chunks, BM25Index.build([TOKENIZE(c.index_text) for c in chunks])


def test_lexical_evidence_is_the_known_share_of_the_query_idf_mass(corpus):
    chunks, bm25 = corpus
    assert lexical_evidence(bm25, TOKENIZE("reactive component router")) == pytest.approx(1.0)
    assert lexical_evidence(bm25, TOKENIZE("lasagne recipe marathon")) == 0.0
    half = lexical_evidence(bm25, TOKENIZE("reactive lasagne"))
    assert 0.0 < half < 1.0
    # leave-one-out: a term found only in the pseudo-query's own chunk does not count as known
    only_here = {t for t in TOKENIZE(chunks[0].index_text) if bm25.term_ids.get(t) is not None}
    rare = [
        t for t in only_here if int(bm25.indptr[bm25.term_ids[t] + 1] - bm25.indptr[bm25.term_ids[t]]) == 1
    ]
    if rare:
        assert lexical_evidence(bm25, rare, frozenset(only_here)) == 0.0


def test_abstaining_reads_words_not_the_han_character_field():
    from indexers.ranking.abstain import best_coverage, is_short

    texts = ["组件的模板在数据变化时重新渲染", "路由把地址映射到组件", "状态管理集中保存数据"]
    bm25 = BM25Index.build([TOKENIZE(t) for t in texts])
    # 数, 字, 组, 变 ... occur in the corpus, but none of the question's words (bigrams) does
    everyday = TOKENIZE("数字组合变法")
    assert any(bm25.term_ids.get(t) is not None for t in everyday)  # known characters
    assert lexical_evidence(bm25, everyday) == 0.0
    assert lexical_evidence(bm25, TOKENIZE("组件数据")) == pytest.approx(
        lexical_evidence(bm25, Tokenizer(cjk_unigrams=False)("组件数据"))
    )
    assert best_coverage(bm25, TOKENIZE("组件渲染"), [0]) == pytest.approx(
        best_coverage(bm25, Tokenizer(cjk_unigrams=False)("组件渲染"), [0])
    )
    # "红烧肉" is two bigrams and three characters: a short query of two words
    assert is_short(TOKENIZE("红烧肉")) and not is_short(TOKENIZE("组件模板数据渲染"))


def test_side_scale_maps_evidence_monotonically_through_the_decision_point():
    scale = SideScale(low=0.1, threshold=0.3, high=0.7)
    values = np.linspace(-0.5, 1.5, 201)
    confidences = [scale.confidence(v) for v in values]
    assert all(b >= a for a, b in zip(confidences, confidences[1:], strict=False))
    assert scale.confidence(0.1) == 0.0 and scale.confidence(0.3) == DECISION and scale.confidence(0.7) == 1.0
    assert scale.confidence(0.29) < DECISION <= scale.confidence(0.31)


def test_model_confidence_is_monotone_in_each_evidence_and_abstains_below_the_decision():
    model = AbstainModel(DEFAULT_ALONE, JointScale(0.4, SideScale(0.1, 0.3, 0.6)))
    grid = np.linspace(0, 1, 21)
    for cosine in grid:
        row = [model.confidence(lexical, cosine) for lexical in grid]
        assert all(b >= a for a, b in zip(row, row[1:], strict=False))
    for lexical in grid:
        column = [model.confidence(lexical, cosine) for cosine in grid]
        assert all(b >= a for a, b in zip(column, column[1:], strict=False))
    assert model.reason(0.0, 0.05) is not None and "best cosine 0.05" in model.reason(0.0, 0.05)
    assert model.reason(1.0, 0.9) is None
    assert "no vector side" in model.reason(0.0, None)


def test_threshold_lies_between_the_in_domain_floor_and_the_offtopic_ceiling_or_at_the_floor():
    inside = list(np.linspace(0.4, 1.0, 100))
    outside = list(np.linspace(0.0, 0.2, 40))
    midway = (np.percentile(inside, 1) + max(outside)) / 2
    assert fit_scale(inside, outside, DEFAULT_ALONE).threshold == pytest.approx(midway)
    overlapping = list(np.linspace(0.0, 0.9, 40))  # off-topic reaching into the in-domain range
    assert fit_scale(inside, overlapping, DEFAULT_ALONE).threshold == pytest.approx(np.percentile(inside, 1))
    assert fit_scale(inside[:5], outside, DEFAULT_ALONE) == DEFAULT_ALONE  # too few to fit


def test_the_offtopic_ceiling_is_the_highest_everyday_question_not_its_95th_percentile():
    """Everyday questions near the top of the calibration list sat just above a threshold midway
    to the 95th percentile (sqlmodel, zh-faq: confidence 0.50-0.56 against real in-domain questions
    at 0.79 and up): with a gap between the two, the threshold lies midway to the highest."""
    inside = list(np.linspace(0.4, 1.0, 100))
    outside = list(np.linspace(0.0, 0.2, 38)) + [0.3, 0.36]  # two everyday questions close to the corpus
    scale = fit_scale(inside, outside, DEFAULT_ALONE)
    assert scale.threshold == pytest.approx((np.percentile(inside, 1) + 0.36) / 2)
    assert scale.threshold > 0.36 > np.percentile(outside, 95)
    model = AbstainModel(alone=scale)
    assert model.reason(0.36, None) is not None  # the highest everyday question abstains
    assert model.reason(float(np.percentile(inside, 1)), None) is None  # the in-domain floor answers
    # an everyday question above the in-domain floor: the floor stands (answers win an overlap)
    floor = np.percentile(inside, 1)
    assert fit_scale(inside, outside + [0.9], DEFAULT_ALONE).threshold == pytest.approx(floor)


def _vectors(chunks):
    """Unit vectors that know the domain: a chunk's vector is the mean of its topic words' vectors."""
    basis = {w: np.random.default_rng(i).normal(size=16) for i, w in enumerate(TOPICS)}

    def encode(texts):
        rows = []
        for text in texts:
            hits = [basis[w] for w in TOPICS if w in text] or [
                np.random.default_rng(len(text)).normal(size=16)
            ]
            v = np.mean(hits, axis=0)
            rows.append(v / np.linalg.norm(v))
        return np.asarray(rows, dtype=np.float32)

    return encode([c.text for c in chunks]), encode


def test_calibration_is_deterministic_and_separates_the_domain_from_everyday_questions(corpus):
    chunks, bm25 = corpus
    vectors, encode = _vectors(chunks)
    first = calibrate_abstain(chunks, bm25, TOKENIZE, vectors, encode)
    again = calibrate_abstain(chunks, bm25, TOKENIZE, vectors, encode)
    assert first == again
    assert first["pseudo_queries"] >= 90 and first["offtopic"] == len(offtopic_questions(["x"]))
    model = AbstainModel.from_manifest(first)
    inside = [
        model.confidence(lexical_evidence(bm25, TOKENIZE(c.text.split(". ")[1])), None) for c in chunks[:50]
    ]
    outside = [model.confidence(lexical_evidence(bm25, TOKENIZE(q)), None) for q in offtopic_questions(["x"])]
    assert sum(c < DECISION for c in inside) <= 1
    assert sum(c < DECISION for c in outside) >= 0.9 * len(outside)
    assert "joint" in first and 0.0 <= first["joint"]["lexical_weight"] <= 1.0


def test_chinese_corpus_is_calibrated_against_chinese_offtopic_questions_too():
    assert len(offtopic_questions(["组件的响应式状态"])) > len(offtopic_questions(["reactive state"]))


def test_builds_without_calibration_get_the_defaults():
    model = AbstainModel.from_manifest(None)
    assert model.alone == DEFAULT_ALONE and model.confidence(1.0, None) == 1.0


def test_best_cosines_in_blocks_equal_the_whole_matrix_and_skip_the_own_chunk():
    from indexers.ranking.abstain_fit import _best_cosines

    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(50, 8)).astype(np.float32)
    queries = vectors[[3, 17, 42]] + 0.01
    whole = (vectors @ queries.T).max(axis=0)
    assert _best_cosines(vectors, queries, block=7) == pytest.approx(whole.tolist(), abs=1e-6)
    rows = [3, 17, 42]
    sims = vectors @ queries.T
    sims[rows, [0, 1, 2]] = -1.0
    assert _best_cosines(vectors, queries, rows, block=7) == pytest.approx(
        sims.max(axis=0).tolist(), abs=1e-6
    )


def test_an_in_domain_pseudo_query_keeps_its_answer_its_own_chunks_rest():
    """Version 4: a held-out sentence is scored against its chunk's rest too (the answer stays in
    the corpus). Here each chunk's two sentences share a word no other chunk has, and the model
    embeds a text by that word: leave-one-out the sentence finds nothing close, its rest is
    identical, so the in-domain cosines rise; the off-topic ones do not move."""
    rng = np.random.default_rng(5)
    basis = rng.normal(size=(120, 16))
    basis /= np.linalg.norm(basis, axis=1, keepdims=True)
    chunks = []
    for i in range(120):
        text = f"The widget{i} is used when the value changes. A widget{i} can be set with the other option."
        chunks.append(
            Chunk(id=str(i), doc_id=str(i), path=f"d{i}.md", kind="text", text=text, index_text=text)
        )

    def encode(texts):
        rows = []
        for text in texts:
            found = [i for i in range(120) if f"widget{i} " in text or text.endswith(f"widget{i}")]
            noise = np.random.default_rng(zlib.crc32(text.encode())).normal(size=16) / 4.0
            rows.append(basis[found[0]] if found else noise)
        return np.asarray(rows, dtype=np.float32)

    bm25 = BM25Index.build([TOKENIZE(c.index_text) for c in chunks])
    vectors = encode([c.text for c in chunks])
    out = calibrate_abstain(chunks, bm25, TOKENIZE, vectors, encode)
    kept = calibrate_abstain(chunks, bm25, TOKENIZE, vectors, encode, encode_passages=encode)
    before, after = out["evidence"]["vector"], kept["evidence"]["vector"]
    assert after["offtopic"] == before["offtopic"]
    assert before["in_domain"]["p50"] < 0.9 <= after["in_domain"]["p2"]


def test_short_queries_get_a_scale_of_their_own_fitted_on_short_pseudo_queries(corpus):
    chunks, bm25 = corpus
    vectors, encode = _vectors(chunks)
    stored = calibrate_abstain(chunks, bm25, TOKENIZE, vectors, encode, encode_passages=encode)
    assert stored["version"] == VERSION and "short" in stored
    assert stored["short"]["evidence"]["lexical"]["n"][1] == len(offtopic_questions(["x"], short=True))
    model = AbstainModel.from_manifest(stored)
    assert model.short is not None and model.short != model.joint
    # the same evidence is judged on the short scale only for a short query
    lexical, cosine = 0.6, float(model.short.scale.threshold)
    assert model.confidence(lexical, cosine, short=True) == model.short.scale.confidence(
        model.short.evidence(lexical, cosine)
    )
    assert model.confidence(lexical, cosine) == model.joint.scale.confidence(
        model.joint.evidence(lexical, cosine)
    )
    # a build made before version 4 has no short scale: every query on the joint one
    older = AbstainModel.from_manifest({k: v for k, v in stored.items() if k != "short"})
    assert older.short is None and older.confidence(lexical, cosine, short=True) == older.confidence(
        lexical, cosine
    )


def test_short_pseudo_queries_are_a_few_consecutive_content_words_or_chinese_characters():
    from indexers.ranking.abstain import is_short
    from indexers.ranking.abstain_fit import short_query

    rng = random.Random(0)
    sentence = "The reactive store is updated when the router changes the current component"
    content = "reactive store updated router changes current component"  # stopwords left out
    for _ in range(50):
        query = short_query(sentence, rng)
        assert 1 <= len(query.split()) <= 3 and f" {query} " in f" {content} "
    chinese = "组件的响应式状态在路由变化时会被更新。"
    for _ in range(50):
        query = short_query(chinese, rng)
        assert 2 <= len(query) <= 4 and query in chinese
    assert short_query("a b of it", rng) is None
    assert is_short(TOKENIZE("vitamin D")) and not is_short(
        TOKENIZE("does vitamin D lower the risk of fractures")
    )
    assert not is_short([])


def test_the_in_domain_floor_is_read_from_the_body_not_from_two_odd_pseudo_queries():
    from indexers.ranking.abstain_fit import in_domain_floor

    rng = np.random.default_rng(1)
    body = rng.normal(0.9, 0.01, size=148)
    inside = np.concatenate([body, [0.5, 0.52]])  # two odd sentences: a heading, a list fragment
    floor = in_domain_floor(inside)
    assert np.percentile(inside, 1) < 0.8 < 0.87 < floor <= np.percentile(inside, 5)
    offtopic = rng.normal(0.84, 0.01, size=40)
    assert fit_scale(inside, offtopic, DEFAULT_ALONE).threshold > np.percentile(offtopic, 90)
    # a long, even tail is the distribution itself: the empirical 1st percentile stands
    uniform = np.linspace(0.4, 1.0, 150)
    assert in_domain_floor(uniform) == pytest.approx(np.percentile(uniform, 1))


def test_the_short_scale_keeps_the_95th_percentile_as_its_ceiling(corpus, monkeypatch):
    """A short search is ambiguous by nature ("redefine the range in python"): the short-query
    scale's off-topic ceiling stays the 95th percentile of the short everyday searches (with the
    highest one, 4 more of CoSQA's 500 web queries over code abstained), while the scales of
    longer queries take the highest everyday question."""
    from indexers.ranking import abstain_fit

    inside = np.column_stack([np.linspace(0.4, 1.0, 100), np.linspace(0.4, 1.0, 100)])
    outside = np.column_stack([[*np.linspace(0.0, 0.2, 38), 0.3, 0.36]] * 2)
    lenient = abstain_fit.fit_joint(inside, outside, abstain_fit.DEFAULT_JOINT, 95.0)
    strict = abstain_fit.fit_joint(inside, outside, abstain_fit.DEFAULT_JOINT)
    assert lenient.scale.threshold < strict.scale.threshold
    chunks, bm25 = corpus
    vectors, encode = _vectors(chunks)
    asked: list[float] = []
    fit_scale_now = abstain_fit.fit_scale

    def spy(inside, outside, default, ceiling_quantile=abstain_fit.OFFTOPIC_QUANTILE):
        asked.append(ceiling_quantile)
        return fit_scale_now(inside, outside, default, ceiling_quantile)

    monkeypatch.setattr(abstain_fit, "fit_scale", spy)
    stored = calibrate_abstain(chunks, bm25, TOKENIZE, vectors, encode, encode_passages=encode)
    assert "short" in stored
    assert set(asked) == {abstain_fit.OFFTOPIC_QUANTILE, abstain_fit.SHORT_OFFTOPIC_QUANTILE} == {100.0, 95.0}


def test_the_joint_evidence_weighs_the_top_hits_coverage_where_the_build_says_so():
    """Version 6: ``w * lexical + c * coverage + (1 - w - c) * cosine``; a build without a coverage
    weight (before version 6, or where coverage did not help) reads as before, and a caller that
    has no coverage to give gets the two-sided evidence."""
    scale = SideScale(low=0.2, threshold=0.5, high=0.8)
    joint = JointScale(0.2, scale, coverage_weight=0.1)
    assert joint.evidence(0.5, 0.6, 0.9) == pytest.approx(0.2 * 0.5 + 0.7 * 0.6 + 0.1 * 0.9)
    assert joint.evidence(0.5, 0.6) == pytest.approx(0.2 * 0.5 + 0.8 * 0.6)
    assert JointScale.from_dict(joint.to_dict()) == joint
    older = JointScale.from_dict({"lexical_weight": 0.2, "low": 0.2, "threshold": 0.5, "high": 0.8})
    assert older.coverage_weight == 0.0 and "coverage_weight" not in older.to_dict()
    model = AbstainModel(joint=joint)
    assert model.reads_coverage() and not AbstainModel(joint=older).reads_coverage()
    # the same words and cosine: a query whose words one top hit holds answers, one whose words
    # are spread over unrelated chunks does not
    lexical, cosine = 0.5, 0.55
    assert model.reason(lexical, cosine, coverage=0.9) is None
    why = model.reason(lexical, cosine, coverage=0.1)
    assert why is not None and "top-hit coverage 0.10" in why
    assert model.confidence(lexical, cosine, coverage=0.1) < model.confidence(lexical, cosine, coverage=0.9)


def test_coverage_gets_a_weight_only_where_it_catches_more_everyday_questions_and_a_small_one():
    """fit_joint over (lexical, cosine, coverage): in-domain and everyday questions the same on
    lexical and cosine evidence (a general-knowledge corpus under a multilingual model) but apart
    on coverage: coverage gets a weight, at most COVERAGE_MAX_WEIGHT; where coverage tells them
    apart no better, it gets none (a tie keeps the two-sided evidence)."""
    from indexers.ranking.abstain_fit import COVERAGE_MAX_WEIGHT, DEFAULT_JOINT, JOINT_GRID, fit_joint

    rng = np.random.default_rng(2)
    inside = np.column_stack(
        [rng.uniform(0.5, 1.0, 150), rng.normal(0.89, 0.01, 150), rng.uniform(0.3, 0.9, 150)]
    )
    outside = np.column_stack(
        [rng.uniform(0.4, 0.9, 60), rng.normal(0.88, 0.01, 60), rng.uniform(0.0, 0.2, 60)]
    )
    two_sided = fit_joint(inside[:, :2], outside[:, :2], DEFAULT_JOINT, grid=JOINT_GRID)
    joint = fit_joint(inside, outside, DEFAULT_JOINT, grid=JOINT_GRID)
    assert two_sided.coverage_weight == 0.0
    assert 0.0 < joint.coverage_weight <= COVERAGE_MAX_WEIGHT

    def caught(scale, rows):
        return np.mean([scale.evidence(*row) < scale.scale.threshold for row in rows])

    assert caught(joint, outside) > caught(two_sided, outside[:, :2])
    same = outside.copy()
    same[:, 2] = rng.uniform(0.3, 0.9, 60)  # coverage no different from the in-domain questions'
    assert fit_joint(inside, same, DEFAULT_JOINT, grid=JOINT_GRID).coverage_weight == 0.0


def test_a_pseudo_querys_coverage_leaves_its_own_chunk_out(corpus):
    """A sentence taken out of a chunk is covered by that chunk entirely; its coverage evidence is
    read over the other chunks (the lowest a real question's could be)."""
    from indexers.ranking.abstain import best_coverage
    from indexers.ranking.abstain_fit import _coverage, _held_out_coverage

    chunks, bm25 = corpus
    terms = TOKENIZE(chunks[7].text)
    assert _coverage(bm25, terms) == pytest.approx(1.0)
    held_out = _held_out_coverage(bm25, terms, 7)
    assert held_out < 1.0
    others = [row for row, _ in bm25.search(terms, 6).hits if row != 7][:5]
    assert held_out == pytest.approx(best_coverage(bm25, terms, others))
    assert best_coverage(bm25, terms, []) == 0.0 == best_coverage(bm25, [], [1, 2])


def test_rest_coverage_is_the_idf_share_of_the_query_words_a_text_holds():
    from indexers.ranking.abstain import rest_coverage

    texts = ["router maps paths to components", "the store keeps state", "templates render data"]
    bm25 = BM25Index.build([TOKENIZE(t) for t in texts])
    query = TOKENIZE("router store marathon")
    known, unknown = math.log1p(2.5 / 1.5), math.log1p(3.5 / 0.5)  # idf at df 1 and 0 of 3 docs
    both = rest_coverage(bm25, query, TOKENIZE("the router and the store"))
    assert both == pytest.approx(2 * known / (2 * known + unknown))
    assert rest_coverage(bm25, query, TOKENIZE("router store marathon")) == pytest.approx(1.0)
    assert rest_coverage(bm25, query, TOKENIZE("nothing shared")) == 0.0
    assert rest_coverage(bm25, [], TOKENIZE("router")) == 0.0
    # weighted by idf: the unknown word (df 0) weighs most, so holding it covers more than half
    with_unknown = rest_coverage(bm25, query, TOKENIZE("marathon"))
    assert with_unknown > rest_coverage(bm25, query, TOKENIZE("router"))
    # words, not the Han-character field: shared characters without a shared bigram cover nothing
    han = BM25Index.build([TOKENIZE(t) for t in ["组件的模板", "路由把地址映射到组件"]])
    assert rest_coverage(han, TOKENIZE("数据变化"), TOKENIZE("数字变量")) == 0.0


def test_a_pseudo_querys_coverage_is_the_better_of_the_others_and_its_own_chunks_rest():
    """Version 12: a real question's answer is in the corpus and holds some of its words, so a
    pseudo-query's coverage may come from the rest of its own chunk (the sentence taken out), as
    its cosine may; never below what the other chunks give it."""
    from indexers.ranking.abstain import rest_coverage
    from indexers.ranking.abstain_fit import _held_out_coverage, _pseudo_coverage
    from indexers.ranking.calibrate import sample_pseudo_queries

    # passages about one subject each, named in every sentence and nowhere else, as an article is
    rng = random.Random(5)
    texts = []
    for i in range(60):
        name, a, b, c = f"subject{i}", *rng.sample(TOPICS, 3)
        texts.append(
            f"The {name} {a} was built for the {b} team. Later the {name} {a} served the {c} "
            f"again. Every {name} keeps its {b} and its {c} apart."
        )
    chunks = [
        Chunk(id=str(i), doc_id=str(i), path=f"d{i}.md", kind="text", text=t, index_text=t)
        for i, t in enumerate(texts)
    ]
    bm25 = BM25Index.build([TOKENIZE(c.index_text) for c in chunks])
    queries = sample_pseudo_queries(chunks, TOKENIZE, 40, 0, in_words=True)
    assert len(queries) >= 20
    raised = 0
    for q in queries:
        terms = TOKENIZE(q.query)
        others = _held_out_coverage(bm25, terms, q.row)
        rest = rest_coverage(bm25, terms, TOKENIZE(q.remainder))
        got = _pseudo_coverage(bm25, TOKENIZE, terms, q)
        assert got == pytest.approx(max(others, rest))
        raised += rest > others
    assert raised == len(queries)  # its subject's name: in the rest of its chunk, in no other


def test_calibration_stores_the_coverage_evidence_and_a_coverage_weight_within_its_cap(corpus):
    from indexers.ranking.abstain_fit import COVERAGE_MAX_WEIGHT

    chunks, bm25 = corpus
    vectors, encode = _vectors(chunks)
    stored = calibrate_abstain(chunks, bm25, TOKENIZE, vectors, encode, encode_passages=encode)
    assert stored["version"] == VERSION == 12
    coverage = stored["evidence"]["coverage"]
    assert coverage["n"] == stored["evidence"]["vector"]["n"]
    assert coverage["offtopic"]["p95"] < coverage["in_domain"]["p50"]
    assert 0.0 <= stored["joint"].get("coverage_weight", 0.0) <= COVERAGE_MAX_WEIGHT
    assert "coverage_weight" not in stored["short"]  # the short-query scale stays two-sided
