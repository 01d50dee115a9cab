"""Label-free calibration of the hybrid fusion weights for one corpus.

Plain RRF lets a weak retriever drag the fused ranking down (code search with an English
sentence model beside BM25; Chinese text under an English-only model). So at build time we ask
the corpus itself how good each retriever is, with the inverse cloze task (ICT): take a sentence
out of a sampled chunk, search with that sentence, and see where each retriever ranks the rest
of the chunk. The held-out chunk is scored without its sentence (BM25 under the index's
statistics, the vector side by embedding the remainder), so neither side gets the exact-overlap
advantage a copied sentence would give. The BM25 weight (vector weight 1) that maximises the
fused MRR@10 of these pseudo-queries is recorded in the manifest and used by `search`.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from chunkers.model import Chunk
from indexers.dense.windows import PassageVectors, as_passages, window_texts
from indexers.lexical.segmented import BM25Scorer
from indexers.lexical.tokenize import CHINESE_STOPWORDS, ENGLISH_STOPWORDS, words
from indexers.ranking.collapse import PlaceKey
from indexers.ranking.defaults import DEFAULT_WEIGHTS
from indexers.ranking.fusion import rrf

METHOD = "ict-v2"
# Bumped whenever what calibrate_fusion returns for a corpus may change; a build whose fusion has
# another version is recalibrated by the next ingest.
VERSION = 14  # 12: scores with sentence windows (indexers/dense/windows.py); 13: every corpus
# sampled by words (on main for an hour, not kept); 14: a corpus of long Chinese sentences sampled by words
# (sample_pseudo_queries)
# BM25 weight relative to a vector weight of 1; inf = BM25 only, 0 = vector only.
WEIGHT_GRID = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 4.0, math.inf)
RRF_K_GRID = (10.0, 60.0)
BASELINE = (60.0, 1.0)  # plain RRF: kept unless another setting is better beyond sampling noise
# A pseudo-query must read like language, not code: at least this many function words.
MIN_FUNCTION_WORDS = 2
# Below this share of text written in language (not code), the corpus is a code corpus: questions
# are asked in words while the documents are identifiers, a gap held-out sentences cannot show
# (inside a function, code lines repeat each other's identifiers, so BM25 looks strong). There the
# code-search prior is used instead of ICT: RRF k=10 with a per-query BM25 weight of
# coverage ** CODE_CORPUS_COVERAGE_POWER (coverage: share of the query's idf mass found in the top
# BM25 hit, docmill/index.py). A question that names what the code names (identifiers, words of
# its docstring) keeps BM25 in the fusion; a web-style question whose words the code lacks leaves
# it to the vector side. Measured on CoSQA dev and our developer questions against cobra (Go) and
# click (Python), docs/EVALUATION.md.
CODE_CORPUS_LANGUAGE_SHARE = 0.5
CODE_CORPUS_RRF_K = 10.0
CODE_CORPUS_COVERAGE_POWER = 4.0
# A tree with at least this share of its chunks from source files and this share from prose
# (Markdown, PDF, text) is a mixed docs + code tree: calibrated on its sentences like prose (the
# code-search prior would silence BM25, which finds code for developer questions that the vector
# side answers with tutorial sections). It is no longer searched with a kind floor (one chunk of
# each kind kept in the first 3 hits): measured on the held halves of trees/mixed-py and mixed2 it
# moved MRR by +0.008 and -0.004 and put a PDF-building script into `make run`'s install answer
# (issue 22, docs/EVALUATION.md); builds that recorded "kind_floor" are searched without it.
MIXED_MIN_SHARE = 0.1
PROSE_SUFFIXES = frozenset(
    {".md", ".markdown", ".mdx", ".rst", ".txt", ".pdf", ".html", ".htm", ".jsonl", ".json"}
)
_LETTERS = re.compile(r"[^\W\d_]", re.UNICODE)
_SPLIT = re.compile(r"(?<=[.!?。！？；;])\s*|\n+")


@dataclass(frozen=True)
class PseudoQuery:
    row: int
    query: str
    remainder: str


def _function_words(segment: str) -> int:
    """English function words and Chinese function characters: sentences have them, code rarely."""
    words = re.findall(r"[a-z]+", segment.lower())
    return sum(w in ENGLISH_STOPWORDS for w in words) + sum(ch in CHINESE_STOPWORDS for ch in segment)


def _is_language(segment: str) -> bool:
    """Mostly letters and at least MIN_FUNCTION_WORDS function words: a sentence, not code."""
    if not segment or len(_LETTERS.findall(segment)) < 0.6 * len(segment.replace(" ", "")):
        return False
    return _function_words(segment) >= MIN_FUNCTION_WORDS


def _segments(text: str) -> list[str]:
    return [s.strip() for s in _SPLIT.split(text) if s and s.strip()]


def _eligible_segments(text: str, length: Callable[[str], int]) -> list[str]:
    """Sentence-like pieces that read like a question could: written in language (function words)
    rather than code, 3-40 long by ``length`` (terms, or words: sample_pseudo_queries). Code lines
    repeat the identifiers of the rest of their function, so as pseudo-queries they would flatter
    BM25 far beyond how people ask."""
    return [s for s in _segments(text) if _is_language(s) and 3 <= length(s) <= 40]


# Fewer pseudo-queries than this and a calibration keeps its defaults (calibrate_fusion, and
# abstain_fit's scales).
MIN_PSEUDO_QUERIES = 30


def sample_pseudo_queries(
    chunks: Sequence[Chunk],
    tokenize: Callable[[str], list[str]],
    n: int,
    seed: int = 0,
    in_words: bool = False,
) -> list[PseudoQuery]:
    """Up to ``n`` (chunk, held-out sentence) pairs; a chunk needs a sentence left over after one is
    taken out, so the remainder still says something. Sentences of 3-40 terms; where that leaves
    fewer than MIN_PSEUDO_QUERIES, of 3-40 words (tokenize.words) instead: a Chinese sentence's
    terms count each character again (the Han-character field), so a corpus of long Chinese
    sentences (a 70-page thesis: 25 pseudo-queries) was left to the default scales, which let 9 of
    10 everyday questions through (issue 21). Counting in words everywhere moved the other Chinese
    corpora's samples to longer sentences and cost CMRC's off-topic abstaining 89 % -> 54 %, so
    question-length sentences stay the first choice (for the fusion calibration; measured on the
    256 CMRC passages the dev questions come from).

    ``in_words``: sentences of 3-40 words from the start: the abstain calibration's (version 11).
    The Han-character field (session 12) doubled a Chinese sentence's terms, so "3-40 terms" came
    to mean sentences of up to about 20 characters there, shorter than before and than many real
    questions; their lower cosines set a lower threshold, and on CMRC's full corpus off-topic
    abstaining fell from 68 % (session 10) to 48 %. Counted in words it is 68 % again, with no
    in-domain question more abstained on any Chinese set (docs/EVALUATION.md, session 17); in
    a text without Han characters words and terms are the same."""
    by_words = lambda text: len(words(tokenize(text)))  # noqa: E731
    if in_words:
        return _sample(chunks, tokenize, n, seed, by_words)
    picked = _sample(chunks, tokenize, n, seed, lambda text: len(tokenize(text)))
    if len(picked) >= MIN_PSEUDO_QUERIES:
        return picked
    return _sample(chunks, tokenize, n, seed, by_words)


def _sample(
    chunks: Sequence[Chunk],
    tokenize: Callable[[str], list[str]],
    n: int,
    seed: int,
    length: Callable[[str], int],
) -> list[PseudoQuery]:
    rng = random.Random(seed)
    rows = list(range(len(chunks)))
    rng.shuffle(rows)
    picked: list[PseudoQuery] = []
    for row in rows:
        if len(picked) >= n:
            break
        chunk = chunks[row]
        segments = _eligible_segments(chunk.text, length)
        if len(segments) < 2:
            continue
        query = rng.choice(segments)
        remainder = chunk.index_text.replace(query, " ", 1)
        if len(tokenize(remainder)) < 3:
            continue
        picked.append(PseudoQuery(row, query, remainder))
    return picked


def _ranked(scores: np.ndarray, depth: int, positive_only: bool) -> list[int]:
    candidates = np.flatnonzero(scores > 0) if positive_only else np.arange(len(scores))
    if len(candidates) > depth:
        candidates = candidates[np.argpartition(-scores[candidates], depth - 1)[:depth]]
    order = np.lexsort((candidates, -scores[candidates]))
    return candidates[order].tolist()


def _reciprocal_rank(ranking: Sequence[int], row: int, cutoff: int = 10) -> float:
    for i, r in enumerate(ranking[:cutoff]):
        if r == row:
            return 1.0 / (i + 1)
    return 0.0


def _weights(bm25_weight: float) -> dict[str, float]:
    if math.isinf(bm25_weight):
        return {"bm25": 1.0, "vector": 0.0}
    return {"bm25": bm25_weight, "vector": 1.0}


def language_share(
    chunks: Sequence[Chunk], tokenize: Callable[[str], list[str]], sample: int = 500, seed: int = 0
) -> float:
    """Share of the characters of a fixed sample of chunks that lie in sentence-like segments
    written in language (see _eligible_segments): near 1 for prose, low for source code. Table
    chunks are left out: cells are not sentences, yet a table is not code (a PDF report of
    tables read 0.46 with them, as if it were a code tree); a corpus of tables only reads 1.
    Code blocks inside prose files (Markdown, PDF ...) are left out too: they are a docs page's
    examples, not a code corpus (the Vue.js Chinese docs tree read 0.46 with them and got the
    code-search prior, whose per-query BM25 weight silenced BM25 for paraphrased questions once
    a multilingual vector side existed; 0.65 without them, issue 21)."""
    rows = [
        row
        for row, chunk in enumerate(chunks)
        if chunk.kind != "table" and (chunk.kind != "code" or is_source_chunk(chunk))
    ]
    if not rows:
        return 1.0
    random.Random(seed).shuffle(rows)
    total = in_language = 0
    for row in rows[:sample]:
        text = chunks[row].text
        total += len(text)
        in_language += sum(len(s) for s in _segments(text) if _is_language(s))
    return round(in_language / total, 4) if total else 0.0


def is_source_chunk(chunk: Chunk | PlaceKey) -> bool:
    """A chunk of a source file (not a code block inside Markdown or a PDF)."""
    suffix = chunk.path.rsplit(".", 1)[-1].lower() if "." in chunk.path.rsplit("/", 1)[-1] else ""
    return chunk.kind == "code" and f".{suffix}" not in PROSE_SUFFIXES


def source_share(chunks: Sequence[Chunk]) -> float:
    return round(sum(is_source_chunk(c) for c in chunks) / len(chunks), 4) if chunks else 0.0


def choose_setting(fused_rr: dict[tuple[float, float], list[float]]) -> tuple[float, float]:
    """The best (rrf_k, BM25 weight) by mean reciprocal rank, if it beats plain RRF by more than two
    standard errors of the paired per-query difference; otherwise plain RRF. A few hundred
    pseudo-queries cannot tell settings a point apart, and equal weights are the safe default."""
    base = np.asarray(fused_rr[BASELINE])
    best, best_mean = BASELINE, float(base.mean())
    for setting, values in fused_rr.items():
        diff = np.asarray(values) - base
        stderr = float(diff.std(ddof=1) / math.sqrt(len(diff))) if len(diff) > 1 else math.inf
        mean = float(np.mean(values))
        if diff.mean() > 2 * stderr and mean > best_mean:
            best, best_mean = setting, mean
    return best


@dataclass(frozen=True)
class ICTSettings:
    """How many pseudo-queries calibrate_fusion samples (``n``, with ``seed``), the RRF constant
    reported when too few of them (< ``min_queries``) leave the default weights, and how deep each
    retriever's ranking is read (``fetch_k``)."""

    n: int = 200
    rrf_k: float = 60.0
    fetch_k: int = 100
    min_queries: int = MIN_PSEUDO_QUERIES
    seed: int = 0


def calibrate_fusion(
    chunks: Sequence[Chunk],
    bm25: BM25Scorer,
    tokenize: Callable[[str], list[str]],
    vectors: np.ndarray | PassageVectors,
    encode: Callable[[list[str]], np.ndarray],
    *,
    encode_passages: Callable[[list[str]], np.ndarray] | None = None,
    settings: ICTSettings | None = None,
) -> dict[str, Any]:
    """The fusion settings for this corpus, with the evidence; default weights when the corpus is
    too small to say (fewer than ``settings.min_queries`` pseudo-queries). ``encode`` embeds
    queries, ``encode_passages`` passages (the held-out rest of a chunk; default ``encode``: the
    same for symmetric models, not for e5's query:/passage: prefixes)."""
    settings = settings or ICTSettings()
    share = language_share(chunks, tokenize, seed=settings.seed)
    sources = source_share(chunks)
    if _is_code_corpus(share, sources):
        return _code_prior(share, sources)
    queries = sample_pseudo_queries(chunks, tokenize, settings.n, settings.seed)
    result: dict[str, Any] = {
        "version": VERSION,
        "method": METHOD,
        "language_share": share,
        "source_share": sources,
        "pseudo_queries": len(queries),
        "rrf_k": settings.rrf_k,
    }
    if len(queries) < settings.min_queries:
        result.update(weights=dict(DEFAULT_WEIGHTS), reason=f"only {len(queries)} pseudo-queries")
        return result
    query_vecs = encode([q.query for q in queries])
    remainder_vecs = (encode_passages or encode)([q.remainder for q in queries])
    passages = as_passages(vectors)
    # a pseudo-query's own chunk scores its rest and its windows that do not hold the sentence
    rests = np.sum(remainder_vecs * query_vecs, axis=1)
    own = [
        max(float(r), held_out_best(passages, chunks, q, qv))
        for q, qv, r in zip(queries, query_vecs, rests, strict=True)
    ]
    rr, fused_rr = _ict_ranks(queries, query_vecs, own, bm25, tokenize, passages, settings.fetch_k)
    chosen = choose_setting(fused_rr)
    result.update(
        rrf_k=chosen[0],
        weights=_weights(chosen[1]),
        mrr={"bm25": float(np.mean(rr["bm25"])), "vector": float(np.mean(rr["vector"]))},
        fused_mrr={f"k={k:g} w={w:g}": round(float(np.mean(v)), 4) for (k, w), v in fused_rr.items()},
    )
    return result


def held_out_best(
    passages: PassageVectors, chunks: Sequence[Chunk], q: PseudoQuery, query: np.ndarray
) -> float:
    """The best cosine of pseudo-query ``q``'s own chunk's windows that do not hold its sentence."""
    if passages.windows is None:
        return -np.inf
    return passages.held_out_best(q.row, window_texts(chunks[q.row].index_text), q.query, query)


def _is_code_corpus(share: float, sources: float) -> bool:
    """Under CODE_CORPUS_LANGUAGE_SHARE of its text language, and not a docs + code tree."""
    mixed = MIXED_MIN_SHARE <= sources <= 1 - MIXED_MIN_SHARE
    return share < CODE_CORPUS_LANGUAGE_SHARE and not mixed


def is_code_corpus(chunks: Sequence[Chunk], tokenize: Callable[[str], list[str]], seed: int = 0) -> bool:
    """Whether calibrate_fusion will give these chunks the code-search prior (decided before the
    embed stage: such a corpus is searched without sentence windows, so none are embedded)."""
    return _is_code_corpus(language_share(chunks, tokenize, seed=seed), source_share(chunks))


def _code_prior(share: float, sources: float) -> dict[str, Any]:
    """A code corpus's fusion: the code-search prior, not ICT (see CODE_CORPUS_LANGUAGE_SHARE)."""
    return {
        "version": VERSION,
        "method": "code-prior",
        "language_share": share,
        "source_share": sources,
        "rrf_k": CODE_CORPUS_RRF_K,
        "weights": _weights(1.0),
        "bm25_coverage_power": CODE_CORPUS_COVERAGE_POWER,
        "reason": f"code corpus: {share:.0%} of its text is language, < {CODE_CORPUS_LANGUAGE_SHARE:.0%}",
    }


def _ict_ranks(
    queries: Sequence[PseudoQuery],
    query_vecs: np.ndarray,
    own: Sequence[float],
    bm25: BM25Scorer,
    tokenize: Callable[[str], list[str]],
    vectors: PassageVectors,
    fetch_k: int,
) -> tuple[dict[str, list[float]], dict[tuple[float, float], list[float]]]:
    """Each pseudo-query's reciprocal rank of its held-out chunk: per retriever, and fused under
    every (rrf_k, BM25 weight) setting of the grid."""
    rr: dict[str, list[float]] = {"bm25": [], "vector": []}
    settings = [(k, w) for k in RRF_K_GRID for w in WEIGHT_GRID]
    fused_rr: dict[tuple[float, float], list[float]] = {setting: [] for setting in settings}
    for q, qv, own_score in zip(queries, query_vecs, own, strict=True):
        terms = tokenize(q.query)
        lexical = bm25.scores(terms).astype(np.float64)
        lexical[q.row] = bm25.score_document(terms, tokenize(q.remainder))
        dense = vectors.scores(qv)  # a chunk's cosine or its best window's (indexers.dense.windows)
        dense[q.row] = own_score
        lists = {"bm25": _ranked(lexical, fetch_k, True), "vector": _ranked(dense, fetch_k, False)}
        for name, ranking in lists.items():
            rr[name].append(_reciprocal_rank(ranking, q.row))
        for k, w in settings:
            fused = rrf(lists, k, _weights(w))
            fused_rr[(k, w)].append(_reciprocal_rank([f.row for f in fused], q.row))
    return rr, fused_rr
