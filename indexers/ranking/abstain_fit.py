"""The abstain scales of a corpus (indexers/ranking/abstain.py), calibrated at build time.

Calibration (``calibrate_abstain``) samples in-domain pseudo-queries from the corpus: sentences
taken out of chunks, scored leave-one-out (terms found only in their own chunk count as unknown,
the best cosine is to another chunk), so they look like questions whose answer is worded
differently; and "paraphrase-like" ones that append one or two everyday questions to such a
sentence (a half to two thirds of the words the asker's own). Off-topic pseudo-queries are
everyday questions in the corpus's languages (indexers/offtopic.py). A query with no vector side
is judged on its lexical evidence alone; one with both on ``w * lexical + (1 - w) * cosine``,
``w`` fitted per corpus on the unmixed sentences (``fit_joint``). A threshold lies midway between
the in-domain floor (``in_domain_floor``: about the 1st percentile) and the highest off-topic
question (the 95th percentile before version 5, and still for the short-query scale), or at the
floor where the two overlap: answers win (``fit_scale``).
Since version 4 an in-domain pseudo-query's answer stays in the corpus: its cosine is the better of
the best other chunk's and its own chunk's rest (the sentence taken out), as a real question's
answer is in the corpus; scored against other chunks only, it modelled a question whose answer is
missing, set the floor too low and let everyday questions through (SciFact: 72 % of off-topic
questions abstained, 86 % with the rest; docs/EVALUATION.md "Abstaining v4"). A short query (at
most SHORT_TERMS distinct terms: "vitamin D", "nuts", "红烧肉") is judged on a scale of its own,
fitted on short pseudo-queries (one to three words, or two to four Chinese characters, taken from
the sentences) against short everyday searches: a one-word query's cosine is low for in-domain
and off-topic alike, and on the long queries' scale it abstained on short in-domain questions.
Since version 6 the long queries' scale may weigh the top hits' coverage of the query too
(abstain.best_coverage), with a weight of at most COVERAGE_MAX_WEIGHT (docs/EVALUATION.md
"Abstaining v6"). Since version 12 a pseudo-query's coverage is the better of the other chunks'
and its own chunk's rest's (``_pseudo_coverage``), as its cosine is: read over the other chunks
only, it modelled a question whose answer is missing.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from indexers.dense.windows import PassageVectors, as_passages
from indexers.lexical.segmented import BM25Scorer
from indexers.lexical.tokenize import ENGLISH_STOPWORDS
from indexers.ranking.abstain import (
    COVERAGE_DEPTH,
    DEFAULT_ALONE,
    DEFAULT_JOINT,
    VERSION,
    JointScale,
    SideScale,
    best_coverage,
    lexical_evidence,
    rest_coverage,
)
from indexers.ranking.calibrate import MIN_PSEUDO_QUERIES, PseudoQuery, held_out_best, sample_pseudo_queries
from indexers.ranking.offtopic import CHINESE, ENGLISH, SHORT_CHINESE, SHORT_ENGLISH
from parsers.scripts import HAN_FIRST, HAN_LAST, han_count

IN_DOMAIN_QUANTILE = 1.0  # percent of in-domain pseudo-queries allowed below the threshold
# The off-topic ceiling: the highest off-topic question's evidence (version 5; 95th percentile
# before). Where it stays below the in-domain floor the threshold lies midway between the two, so
# everyday questions near the top of the calibration list were let through (sqlmodel tree 60 %
# off-topic abstained, zh-faq 91 %); where it reaches the floor the floor stands, as before.
OFFTOPIC_QUANTILE = 100.0
# The short-query scale keeps the 95th percentile: a short search ("redefine the range in python")
# is ambiguous by nature, and the highest everyday short search as its ceiling abstained on 4 more
# of CoSQA's 500 web queries over code (0.4 % -> 1.2 %) while no set's off-topic rate rose with it.
SHORT_OFFTOPIC_QUANTILE = 95.0
# A corpus with at least this share of CJK characters is calibrated against Chinese off-topic
# questions too.
CJK_SHARE = 0.05


def cjk_share(texts: Sequence[str]) -> float:
    total = sum(len(t) for t in texts)
    cjk = sum(han_count(t) for t in texts)
    return cjk / total if total else 0.0


def offtopic_questions(texts: Sequence[str], short: bool = False) -> list[str]:
    english, chinese = (SHORT_ENGLISH, SHORT_CHINESE) if short else (ENGLISH, CHINESE)
    return list(english) + (list(chinese) if cjk_share(texts) >= CJK_SHARE else [])


def fit_scale(
    in_domain: Sequence[float] | np.ndarray,
    offtopic: Sequence[float] | np.ndarray,
    default: SideScale,
    ceiling_quantile: float = OFFTOPIC_QUANTILE,
) -> SideScale:
    """Threshold: the in-domain floor (IN_DOMAIN_QUANTILE) where the off-topic ceiling (its
    ``ceiling_quantile``) reaches it, so answers win an overlap; else midway between the two."""
    if len(in_domain) < MIN_PSEUDO_QUERIES or not len(offtopic):
        return default
    inside, outside = np.asarray(in_domain), np.asarray(offtopic)
    floor = in_domain_floor(inside)
    ceiling = float(np.percentile(outside, ceiling_quantile))
    threshold = floor if floor <= ceiling else (floor + ceiling) / 2
    low = min(float(np.median(outside)), threshold)
    high = max(float(np.median(inside)), threshold)
    return SideScale(low, threshold, high)


def in_domain_floor(inside: np.ndarray) -> float:
    """The in-domain floor (IN_DOMAIN_QUANTILE): from 150 pseudo-queries the empirical 1st
    percentile is set by one or two odd sentences (a heading, a list fragment), so it is read from
    the body of the distribution, ``median - 2.326 sigma`` with sigma from the interquartile range
    (a normal's 1st percentile), kept between the empirical 1st and 5th percentiles. On zh-faq the
    empirical one let 18 % of everyday questions through (docs/EVALUATION.md "Abstaining v4")."""
    p1, p5, q25, q50, q75 = np.percentile(inside, [IN_DOMAIN_QUANTILE, 5, 25, 50, 75])
    body = q50 - 2.326 * (q75 - q25) / 1.349
    return float(max(p1, min(body, p5)))


WEIGHT_GRID = tuple(i / 10 for i in range(11))  # the short-query scale's lexical weights
LEXICAL_GRID = tuple((weight, 0.0) for weight in WEIGHT_GRID)  # (lexical, coverage): no coverage
# The long queries' scale (version 6): (lexical, coverage) weights in steps of 1/20, the coverage
# weight at most COVERAGE_MAX_WEIGHT. Coverage is the evidence the pseudo-queries model least
# closely (a held-out sentence against the other chunks: the lowest a real question's could be),
# so it may tip the evidence, not lead it: with up to 0.2, SciFact's calibration took 0.15 and
# abstained on 4 of its 373 fit-half claims (none before); up to 0.05-0.15 held the fit halves of
# every dev set (docs/EVALUATION.md "Abstaining v6").
WEIGHT_STEP = 20
COVERAGE_MAX_WEIGHT = 0.1
JOINT_GRID = tuple(
    (lexical / WEIGHT_STEP, coverage / WEIGHT_STEP)
    for lexical in range(WEIGHT_STEP + 1)
    for coverage in range(round(COVERAGE_MAX_WEIGHT * WEIGHT_STEP) + 1)
    if lexical + coverage <= WEIGHT_STEP
)


def fit_joint(
    inside: np.ndarray,
    outside: np.ndarray,
    default: JointScale,
    ceiling_quantile: float = OFFTOPIC_QUANTILE,
    grid: Sequence[tuple[float, float]] = LEXICAL_GRID,
) -> JointScale:
    """A query with both sides is judged on ``w * lexical + c * coverage + (1 - w - c) * cosine``:
    the (``w``, ``c``) of ``grid`` whose threshold (fit_scale on the combined evidence) abstains
    on the most off-topic pseudo-queries; on a tie the least coverage, then the most even
    weighting of the other two. ``inside``/``outside``: rows of (lexical, cosine[, coverage])."""
    if len(inside) < MIN_PSEUDO_QUERIES or not len(outside):
        return default
    best: tuple[tuple[float, float, float], JointScale] | None = None
    for w, c in grid:
        if c and inside.shape[1] < 3:
            continue
        mix = np.array([w, 1 - w - c, c][: inside.shape[1]])
        scale = fit_scale(inside @ mix, outside @ mix, default.scale, ceiling_quantile)
        caught = float(np.mean(outside @ mix < scale.threshold))
        key = (caught, -c, -abs(w - 0.5))
        if best is None or key > best[0]:
            best = (key, JointScale(round(w, 4), scale, round(c, 4)))
    assert best is not None
    return best[1]


def calibrate_abstain(
    chunks: Sequence[Any],
    bm25: BM25Scorer,
    tokenize: Callable[[str], list[str]],
    vectors: np.ndarray | PassageVectors | None,
    encode: Callable[[list[str]], np.ndarray] | None,
    *,
    readable: Callable[[str], bool] | None = None,
    default_joint: JointScale | None = None,
    sample: tuple[int, int] = (150, 1),
    encode_passages: Callable[[list[str]], np.ndarray] | None = None,
) -> dict[str, Any]:
    """The abstain scales for this corpus with their evidence (deterministic for a corpus and
    seed): ``alone`` for a query with no vector side (lexical only), ``joint`` for one with
    both, ``short`` for a short one with both. ``encode``: queries; ``encode_passages``: passages
    (a pseudo-query's own chunk's rest; None: leave-one-out cosines only). ``readable(query)``:
    whether the embedding model can read it. ``sample``: (how many pseudo-queries, seed)."""
    n, seed = sample
    queries = sample_pseudo_queries(chunks, tokenize, n, seed, in_words=True)
    sampled = [c.text for c in chunks[:: max(1, len(chunks) // 500)]]
    offtopic = offtopic_questions(sampled)
    texts, rows, in_lexical = _in_domain(queries, chunks, bm25, tokenize, offtopic, random.Random(seed))
    off_lexical = [lexical_evidence(bm25, tokenize(q)) for q in offtopic]
    result: dict[str, Any] = {"version": VERSION, "pseudo_queries": len(texts), "offtopic": len(offtopic)}
    result["alone"] = fit_scale(in_lexical, off_lexical, DEFAULT_ALONE).to_dict()
    result["evidence"] = {"lexical": _quantiles(in_lexical, off_lexical)}
    if vectors is None or encode is None or not len(vectors) or len(queries) < MIN_PSEUDO_QUERIES:
        if default_joint is not None and vectors is not None and encode is not None:
            result["joint"] = {**default_joint.to_dict(), "default": True}  # the model's own default
        return result  # too few pseudo-queries to fit: the defaults, and no model time spent
    cosines = _PseudoCosines(
        as_passages(vectors), encode, encode_passages, readable or (lambda _: True), chunks
    )
    # the unmixed sentences: cosine from the sentence, lexical evidence from its first mix
    keep = [i for i in range(0, len(texts), 3) if cosines.readable(texts[i])]
    outside = [i for i, text in enumerate(offtopic) if cosines.readable(text)]
    in_cos = cosines.in_domain([texts[i] for i in keep], [queries[i // 3] for i in keep])
    off_cos = cosines.offtopic([offtopic[i] for i in outside])
    in_cov = [_pseudo_coverage(bm25, tokenize, tokenize(texts[i]), queries[i // 3]) for i in keep]
    off_cov = [_coverage(bm25, tokenize(offtopic[i])) for i in outside]
    joint = fit_joint(
        np.column_stack([[in_lexical[i + 1] for i in keep], in_cos, in_cov]),
        np.column_stack([[off_lexical[i] for i in outside], off_cos, off_cov]),
        DEFAULT_JOINT,
        grid=JOINT_GRID,
    )
    result["joint"] = joint.to_dict()
    result["evidence"]["vector"] = _quantiles(in_cos, off_cos)
    result["evidence"]["coverage"] = _quantiles(in_cov, off_cov)
    short_offtopic = offtopic_questions(sampled, short=True)
    short = _short_scale(queries, bm25, tokenize, cosines, short_offtopic, joint, seed)
    if short is not None:
        result["short"] = short
    return result


def _coverage(bm25: BM25Scorer, terms: Sequence[str]) -> float:
    """A query's coverage evidence (abstain.best_coverage over BM25's top hits)."""
    return best_coverage(bm25, terms, [row for row, _ in bm25.search(terms, COVERAGE_DEPTH).hits])


def _held_out_coverage(bm25: BM25Scorer, terms: Sequence[str], row: int) -> float:
    """A pseudo-query's coverage with its own chunk left out (``row``): the best share of its words
    one of the other chunks BM25 ranks first holds."""
    allowed = np.ones(bm25.n_docs, dtype=bool)
    allowed[row] = False
    hits = bm25.search(terms, COVERAGE_DEPTH, allowed=allowed).hits
    return best_coverage(bm25, terms, [hit for hit, _ in hits])


def _pseudo_coverage(
    bm25: BM25Scorer, tokenize: Callable[[str], list[str]], terms: Sequence[str], query: PseudoQuery
) -> float:
    """A pseudo-query's coverage evidence: the better of the other chunks' (``_held_out_coverage``)
    and its own chunk's rest's (the chunk without the sentence: the words the sentence shares with
    the rest of its place), as its cosine is the better of the two (version 12). A real question's
    answer is in the corpus and holds some of its words; read over the other chunks only, the
    pseudo-queries modelled a question whose answer is missing (CMRC: their coverage median 0.20
    against 0.51 for the real dev questions), so the in-domain floor sat low and everyday
    questions over a broad corpus passed (docs/EVALUATION.md, session 18)."""
    others = _held_out_coverage(bm25, terms, query.row)
    return max(others, rest_coverage(bm25, terms, tokenize(query.remainder)))


def _pairs(lexical: Sequence[float], cosine: Sequence[float]) -> np.ndarray:
    return np.column_stack([lexical, cosine]) if len(lexical) else np.zeros((0, 2))


@dataclass(frozen=True)
class _PseudoCosines:
    """The vector evidence of pseudo-queries: an in-domain one's best cosine is the better of the
    best other chunk's (leave-one-out) and its own chunk's rest's (the answer kept in the corpus);
    an off-topic one's is the best over the corpus."""

    vectors: PassageVectors
    encode: Callable[[list[str]], np.ndarray]
    encode_passages: Callable[[list[str]], np.ndarray] | None
    readable: Callable[[str], bool]
    chunks: Sequence[Any] = ()  # their windows' texts say which window holds a pseudo-query
    # a chunk's rest embedded once (row -> vector): the long and the short scale ask for the same
    rests: dict[int, np.ndarray] = field(default_factory=dict)

    def in_domain(self, texts: Sequence[str], queries: Sequence[PseudoQuery]) -> list[float]:
        if not texts:
            return []
        embedded = self.encode(list(texts))
        best = np.asarray(_best_cosines(self.vectors, embedded, [q.row for q in queries]))
        if self.encode_passages is not None:
            rests = self._rests(queries)
            best = np.maximum(best, np.sum(rests * embedded, axis=1))
        if self.vectors.windows is not None and len(self.chunks):  # the own chunk's other windows
            own = [
                held_out_best(self.vectors, self.chunks, q, v) for q, v in zip(queries, embedded, strict=True)
            ]
            best = np.maximum(best, np.asarray(own, dtype=np.float32))
        return [float(x) for x in best]

    def _rests(self, queries: Sequence[PseudoQuery]) -> np.ndarray:
        assert self.encode_passages is not None
        new = list({q.row: q.remainder for q in queries if q.row not in self.rests}.items())
        if new:
            embedded = self.encode_passages([remainder for _, remainder in new])
            self.rests.update(zip((row for row, _ in new), embedded, strict=True))
        return np.stack([self.rests[q.row] for q in queries])

    def offtopic(self, texts: Sequence[str]) -> list[float]:
        return _best_cosines(self.vectors, self.encode(list(texts))) if texts else []


def _short_scale(
    queries: Sequence[PseudoQuery],
    bm25: BM25Scorer,
    tokenize: Callable[[str], list[str]],
    cosines: _PseudoCosines,
    offtopic: Sequence[str],
    joint: JointScale,
    seed: int,
) -> dict[str, Any] | None:
    """The short-query scale (fit_joint over short pseudo-queries against short everyday
    searches), with its evidence; None without enough short pseudo-queries."""
    rng = random.Random(seed)
    pieces = [(q, short_query(q.query, rng)) for q in queries]
    picked = [(q, text) for q, text in pieces if text is not None and cosines.readable(text)]
    outside = [text for text in offtopic if cosines.readable(text)]
    if len(picked) < MIN_PSEUDO_QUERIES or not outside:
        return None
    # a word of the sentence must occur outside it (its chunk's rest counts)
    own = [frozenset(tokenize(q.query)) - frozenset(tokenize(q.remainder)) for q, _ in picked]
    in_lexical = [
        lexical_evidence(bm25, tokenize(text), mine) for (_, text), mine in zip(picked, own, strict=True)
    ]
    in_cos = cosines.in_domain([text for _, text in picked], [q for q, _ in picked])
    off_lexical = [lexical_evidence(bm25, tokenize(text)) for text in outside]
    off_cos = cosines.offtopic(outside)
    inside, outside_pairs = _pairs(in_lexical, in_cos), _pairs(off_lexical, off_cos)
    scale = fit_joint(inside, outside_pairs, joint, SHORT_OFFTOPIC_QUANTILE)
    evidence = {"lexical": _quantiles(in_lexical, off_lexical), "vector": _quantiles(in_cos, off_cos)}
    return {**scale.to_dict(), "evidence": evidence}


_HAN_RUN = re.compile(f"[{HAN_FIRST}-{HAN_LAST}]{{2,}}")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'-]*")


def short_query(sentence: str, rng: random.Random) -> str | None:
    """A short search taken from ``sentence``: two to four consecutive Chinese characters of a
    mostly Chinese one, else one to three consecutive content words (stopwords and words of
    two letters left out); None when it has none."""
    runs = _HAN_RUN.findall(sentence)
    if runs and sum(map(len, runs)) * 2 >= len(sentence.replace(" ", "")):
        run = rng.choice(runs)
        size = min(len(run), rng.randint(2, 4))
        start = rng.randrange(len(run) - size + 1)
        return run[start : start + size]
    words = [w for w in _WORD.findall(sentence) if len(w) > 2 and w.lower() not in ENGLISH_STOPWORDS]
    if not words:
        return None
    size = min(len(words), rng.randint(1, 3))
    start = rng.randrange(len(words) - size + 1)
    return " ".join(words[start : start + size])


def _in_domain(
    queries: Sequence[PseudoQuery],
    chunks: Sequence[Any],
    bm25: BM25Scorer,
    tokenize: Callable[[str], list[str]],
    offtopic: Sequence[str],
    rng: random.Random,
) -> tuple[list[str], list[int], list[float]]:
    """In-domain pseudo-queries (texts, their chunk rows, their lexical evidence): each sentence,
    then with one and two everyday questions appended (a half and two thirds of the words the
    asker's own, as in a paraphrase).

    The mixes model the lexical side only: a paraphrase rewords, it does not append an unrelated
    sentence, and in embedding space that sentence drags the cosine into the off-topic range
    (measured on trees/mixed-py, cobra, click: mixed p1 cosine 0.18-0.22 vs off-topic p95
    0.25-0.28), so the joint scale takes its cosine from the unmixed sentence, scored
    leave-one-out, and its lexical evidence from the same sentence mixed with one everyday
    question: a paraphrase keeps the meaning (cosine) and loses words (lexical). With the unmixed
    sentence's lexical evidence the joint scale leaned on words real paraphrases do not share:
    under multilingual-e5 on the zh-docs tree it abstained on 6 of 40 in-domain questions whose
    cosine (0.90-0.91) was above every off-topic one (0.85-0.87) (issue 21, docs/EVALUATION.md)."""
    texts: list[str] = []
    rows: list[int] = []
    in_lexical: list[float] = []
    for q in queries:
        own = frozenset(tokenize(chunks[q.row].index_text))
        mixes = (
            q.query,
            f"{q.query} {rng.choice(offtopic)}",
            f"{q.query} {rng.choice(offtopic)} {rng.choice(offtopic)}",
        )
        for text in mixes:
            texts.append(text)
            rows.append(q.row)
            in_lexical.append(lexical_evidence(bm25, tokenize(text), own))
    return texts, rows, in_lexical


def _best_cosines(
    vectors: np.ndarray | PassageVectors,
    queries: np.ndarray,
    rows: Sequence[int] | None = None,
    block: int = 65536,
) -> list[float]:
    """Each query's best cosine over the corpus, skipping its own chunk ``rows[i]`` when given
    (leave-one-out). Scored a block of chunks at a time, so memory stays bounded at any corpus
    size (a 1M-chunk corpus would need 600 MB for the whole similarity matrix at once)."""
    if not len(queries):
        return []
    best = np.full(len(queries), -np.inf, dtype=np.float32)
    own = np.asarray(rows) if rows is not None else None
    passages = as_passages(vectors)  # a chunk scores its cosine or its best window's
    for start in range(0, len(passages), block):
        sims = passages.block(start, min(start + block, len(passages)), queries)
        if own is not None:
            inside = (own >= start) & (own < start + len(sims))
            sims[own[inside] - start, np.flatnonzero(inside)] = -1.0
        np.maximum(best, sims.max(axis=0), out=best)
    return best.tolist()


def _quantiles(inside: Sequence[float], outside: Sequence[float]) -> dict[str, Any]:
    def q(values: Sequence[float]) -> dict[str, float]:
        if not len(values):
            return {}
        return {f"p{p}": round(float(np.percentile(values, p)), 4) for p in (2, 5, 25, 50, 75, 95)}

    return {"in_domain": q(inside), "offtopic": q(outside), "n": [len(inside), len(outside)]}
