"""When a search should say "nothing relevant here": the evidence a query has and the scales a
build stores for it (calibrated per corpus at build time: indexers/ranking/abstain_fit.py).

A false abstain costs more than a weak hit: the caller can judge a hit, not a silence. So the
rule is read from the corpus itself, with evidence each retriever really has:

- **lexical**: the share of the query's idf mass made of terms the corpus knows at all (df > 0).
  An off-topic question is mostly words the corpus never uses ("红烧", "marathon"); an in-domain
  paraphrase, however far from the answer's wording, is mostly words used somewhere in the corpus.
  This holds for Chinese under an English-only model, where there is no vector side.
- **vector**: the top cosine, only where the embedding model can read the query.
- **coverage** (version 6): the best share of the query's idf mass that one of BM25's top
  COVERAGE_DEPTH chunks holds. A question about the corpus is about one place, and that place
  holds most of its words; an everyday question over a general-knowledge corpus finds its words
  known but spread over unrelated passages ("北京到上海的高铁票多少钱" over Wikipedia text).

A query with no vector side is judged on its lexical evidence alone (``alone``); one with both on
``w * lexical + c * coverage + (1 - w - c) * cosine`` (``joint``, ``w`` and ``c`` fitted per
corpus, ``c`` 0 before version 6 and where coverage does not help); a short query (at most
SHORT_TERMS distinct terms: "vitamin D", "nuts", "红烧肉") on a scale of its own (``short``), since a
one-word query's cosine is low for in-domain and off-topic alike. Confidence maps the evidence
piecewise-linearly (off-topic median -> 0, threshold -> 0.5, in-domain median -> 1), so it is
monotone in each evidence and an app can pick its own cut; the index abstains below 0.5.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from indexers.lexical.segmented import BM25Scorer
from indexers.lexical.tokenize import words

# The calibration's version, stored with the scales: a build calibrated by an older one is
# calibrated again by its next ingest (flows/settings.py).
VERSION = 12  # 7: cosines with sentence windows (indexers/dense/windows.py); 8: not on code search
# 9: every corpus sampled by words (not kept); 10: a corpus of long Chinese sentences sampled by
# words (calibrate.sample_pseudo_queries); 11: every corpus's pseudo-queries counted in words (its
# in_words: measured on CMRC's full corpus, not the 256-passage subset that ruled out version 9);
# 12: a pseudo-query's coverage also read in the rest of its own chunk (abstain_fit._pseudo_coverage)
DECISION = 0.5  # confidence below this abstains
# A query with at most this many distinct terms is short: judged on the short scale when the build
# has one (version 4).
SHORT_TERMS = 3
# Coverage is read over this many of BM25's top hits (version 6).
COVERAGE_DEPTH = 5


def is_short(terms: Sequence[str]) -> bool:
    """At most SHORT_TERMS distinct words (tokenize.words: a Han character is not one)."""
    return 0 < len(set(words(terms))) <= SHORT_TERMS


@dataclass(frozen=True)
class SideScale:
    """One retriever's evidence -> confidence: ``low`` (off-topic median) maps to 0,
    ``threshold`` to DECISION, ``high`` (in-domain median) to 1, linearly between."""

    low: float
    threshold: float
    high: float

    def confidence(self, value: float) -> float:
        if value >= self.threshold:
            span = self.high - self.threshold
            part = 1.0 if span <= 0 else min(1.0, (value - self.threshold) / span)
            return DECISION + (1 - DECISION) * part
        span = self.threshold - self.low
        part = 0.0 if span <= 0 else max(0.0, (value - self.low) / span)
        return DECISION * part

    def to_dict(self) -> dict[str, float]:
        return {"low": round(self.low, 4), "threshold": round(self.threshold, 4), "high": round(self.high, 4)}

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> SideScale:
        return cls(float(values["low"]), float(values["threshold"]), float(values["high"]))


@dataclass(frozen=True)
class JointScale:
    """Both sides present: the evidence is ``lexical_weight * lexical + coverage_weight *
    coverage + (1 - lexical_weight - coverage_weight) * cosine``, mapped by ``scale``. A linear
    mix, not the better of the two: an everyday question shares a few common words with a large
    English corpus and a low cosine, and neither alone should let it through. Without a coverage
    (a caller that did not read it) its weight goes to the cosine."""

    lexical_weight: float
    scale: SideScale
    coverage_weight: float = 0.0

    def evidence(self, lexical: float, cosine: float, coverage: float | None = None) -> float:
        share = self.coverage_weight if coverage is not None else 0.0
        mixed = self.lexical_weight * lexical + (1 - self.lexical_weight - share) * cosine
        return mixed + share * coverage if coverage is not None else mixed

    def to_dict(self) -> dict[str, Any]:
        extra = {"coverage_weight": self.coverage_weight} if self.coverage_weight else {}
        return {"lexical_weight": self.lexical_weight, **extra, **self.scale.to_dict()}

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> JointScale:
        coverage = float(values.get("coverage_weight", 0.0))
        return cls(float(values["lexical_weight"]), SideScale.from_dict(values), coverage)


# Used by builds made before calibration existed and corpora too small to calibrate: fitted on
# the fit halves of our dev sets (docs/EVALUATION.md), placed low (answers win).
DEFAULT_ALONE = SideScale(low=0.15, threshold=0.25, high=0.6)
DEFAULT_JOINT = JointScale(0.5, SideScale(low=0.15, threshold=0.25, high=0.55))
# multilingual-e5's cosines sit far higher (unrelated texts ~0.75-0.8), so a corpus too small to
# calibrate under it gets this scale instead, between what the calibration found on zh-docs
# (weight 0.2, threshold 0.75) and CMRC (0.1, 0.80) (issue 21, docs/EVALUATION.md).
DEFAULT_JOINT_E5 = JointScale(0.1, SideScale(low=0.7, threshold=0.76, high=0.84))


def lexical_evidence(
    bm25: BM25Scorer, terms: Sequence[str], own_terms: frozenset[str] = frozenset()
) -> float:
    """Share of the idf mass of the query's distinct words (tokenize.words) that the corpus knows
    (df > 0). Terms in ``own_terms`` (a pseudo-query's own chunk) must occur in another chunk too."""
    terms = words(terms)
    return known_idf_share(terms, bm25.document_frequencies(terms), bm25.n_docs, own_terms)


def best_coverage(bm25: BM25Scorer, terms: Sequence[str], rows: Sequence[int]) -> float:
    """The coverage evidence: the best share of the query's idf mass one of ``rows`` (BM25's top
    hits, at most COVERAGE_DEPTH of them are read) holds, over its words (tokenize.words)."""
    top, terms = list(rows)[:COVERAGE_DEPTH], words(terms)
    return max(bm25.coverage_many(terms, top)) if top and terms else 0.0


def rest_coverage(bm25: BM25Scorer, terms: Sequence[str], rest: Sequence[str]) -> float:
    """The share of the query's idf mass (over its words, as best_coverage reads it) whose words
    occur in ``rest``, a text's terms that need not be a chunk of the index (a pseudo-query's own
    chunk with the sentence taken out: abstain_fit._pseudo_coverage)."""
    unique = list(dict.fromkeys(words(terms)))
    present = frozenset(words(rest))
    df = bm25.document_frequencies(unique) if unique else {}
    return _idf_share(unique, df, bm25.n_docs, lambda term, _: term in present)


def known_idf_share(
    terms: Sequence[str], df: Mapping[str, int], n_docs: int, own_terms: frozenset[str] = frozenset()
) -> float:
    """``lexical_evidence`` from document frequencies already read (a BM25 search returns those of
    its query: docmill.index reuses them rather than reading the postings bounds again)."""
    unique = list(dict.fromkeys(words(terms)))
    return _idf_share(unique, df, n_docs, lambda term, count: count > (1 if term in own_terms else 0))


def _idf_share(
    unique: Sequence[str], df: Mapping[str, int], n_docs: int, counts: Callable[[str, int], bool]
) -> float:
    """The share of the idf mass of ``unique`` (distinct words) made of the words ``counts``
    accepts (given each word and its document frequency)."""
    total = share = 0.0
    for term in unique:
        count = df.get(term, 0)
        idf = math.log1p((n_docs - count + 0.5) / (count + 0.5))
        total += idf
        share += idf if counts(term, count) else 0.0
    return share / total if total > 0 else 0.0


@dataclass(frozen=True)
class AbstainModel:
    """The stored calibration: a scale for a query with no vector side (``alone``), one for a
    query with both (``joint``) and, from version 4, one for a short query with both (``short``;
    None in older builds: ``joint`` judges every query)."""

    alone: SideScale = DEFAULT_ALONE
    joint: JointScale = DEFAULT_JOINT
    short: JointScale | None = None

    def _joint(self, short: bool) -> JointScale:
        return self.short if short and self.short is not None else self.joint

    def reads_coverage(self, short: bool = False) -> bool:
        """Whether a query's judgement uses its coverage (so a search reads it only then)."""
        return self._joint(short).coverage_weight > 0

    def confidence(
        self, lexical: float, cosine: float | None, short: bool = False, coverage: float | None = None
    ) -> float:
        if cosine is None:
            return self.alone.confidence(lexical)
        joint = self._joint(short)
        return joint.scale.confidence(joint.evidence(lexical, cosine, coverage))

    def reason(
        self, lexical: float, cosine: float | None, short: bool = False, coverage: float | None = None
    ) -> str | None:
        """None to answer, else why not (each side's evidence and the threshold)."""
        confidence = self.confidence(lexical, cosine, short, coverage)
        if confidence >= DECISION:
            return None
        if cosine is None:
            return (
                f"confidence {confidence:.2f} < {DECISION}: known-term share {lexical:.2f} < "
                f"{self.alone.threshold:.2f} (no vector side)"
            )
        joint = self._joint(short)
        w = joint.lexical_weight
        c = joint.coverage_weight if coverage is not None else 0.0
        scale = " (the short-query scale)" if joint is not self.joint else ""
        covered = f" + {c:g} x top-hit coverage {coverage:.2f}" if c and coverage is not None else ""
        return (
            f"confidence {confidence:.2f} < {DECISION}: {w:g} x known-term share {lexical:.2f} + "
            f"{1 - w - c:g} x best cosine {cosine:.2f}{covered} < {joint.scale.threshold:.2f}{scale}"
        )

    @classmethod
    def from_manifest(cls, stored: Mapping[str, Any] | None) -> AbstainModel:
        """The build's calibration; the defaults for what a build did not store."""
        stored = stored or {}
        alone, joint, short = stored.get("alone"), stored.get("joint"), stored.get("short")
        return cls(
            SideScale.from_dict(alone) if alone else DEFAULT_ALONE,
            JointScale.from_dict(joint) if joint else DEFAULT_JOINT,
            JointScale.from_dict(short) if short else None,
        )
