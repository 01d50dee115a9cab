"""Fusion of the two sides' ranked lists, and the evidence that lifts a candidate above it, as pure
functions so the formulas are pinned by tests: ``zscore`` (the default: a convex combination of
each side's standard scores) and ``rrf`` (Reciprocal Rank Fusion, ranks only).

Weighted RRF alone can rank a candidate both retrievers put in their top 3 below candidates a
single side puts first (a small rrf_k, unequal weights) or below two-sided candidates one side
likes more, and lets a chunk holding a rare exact term of the query (an identifier, a number:
BM25 rank 1, df 1) sink below chunks both sides rank at middling depth when the vector side does
not know the term.
``promote`` puts such candidates in a first tier, ordered among themselves by their fused score:

- **agree**: in the top ``agree_depth`` of every side that answered, when both sides are weighted
  comparably for the query (``voters``: on CoSQA, where BM25's per-query weight is its coverage
  ** 4, BM25's top 3 is no evidence and lifting it lost nDCG);
- **exact**: BM25's top hit, when it holds an exact-looking query term (with a digit, ``_``, ``.``,
  an inner capital, capitalised like a name, or in backticks or quotes) that at most
  ``EXACT_MAX_DF`` chunks contain (the index checks the document frequency).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Fused:
    row: int
    score: float
    ranks: dict[str, int]  # retriever -> 1-based rank
    tier: int = 0  # -1: lifted by agreement or an exact rare term (promote); sorted before score
    evidence: str = ""  # why it was lifted: "agree", "exact:term"


def rrf(
    rankings: Mapping[str, Sequence[int]],
    rrf_k: float = 60.0,
    weights: Mapping[str, float] | None = None,
) -> list[Fused]:
    """score(d) = Σ_r w_r / (rrf_k + rank_r(d)), ranks from 1; ties broken by the best single rank,
    then by row id, so the order is deterministic."""
    ranks: dict[str, dict[int, int]] = {}
    for name, rows in rankings.items():
        side = ranks.setdefault(name, {})
        for rank, row in enumerate(rows, start=1):
            side.setdefault(row, rank)  # a retriever lists a row once; keep its best rank
    return rrf_ranks(ranks, rrf_k, weights)


def rrf_ranks(
    ranks: Mapping[str, Mapping[int, int]],
    rrf_k: float = 60.0,
    weights: Mapping[str, float] | None = None,
) -> list[Fused]:
    """RRF over given ranks (retriever -> row -> 1-based rank; several rows may share a rank, e.g.
    the rank of the place they belong to: collapse.place_ranks)."""
    if rrf_k < 0:
        raise ValueError(f"rrf_k must be >= 0, got {rrf_k}")
    weights = weights or {}
    scores: dict[int, float] = {}
    by_row: dict[int, dict[str, int]] = {}
    for name, side in ranks.items():
        weight = float(weights.get(name, 1.0))
        for row, rank in side.items():
            by_row.setdefault(row, {})[name] = rank
            scores[row] = scores.get(row, 0.0) + weight / (rrf_k + rank)
    order = sorted(scores, key=lambda r: (-scores[r], min(by_row[r].values()), r))
    return [Fused(row, scores[row], by_row[row]) for row in order]


# A candidate in every side's top AGREE_DEPTH is lifted above those only one side ranks there.
AGREE_DEPTH = 3
AGREE_MIN_WEIGHT = 0.5
# BM25's top EXACT_DEPTH chunks that hold an exact-looking query term found in at most
# EXACT_MAX_DF chunks are lifted too.
EXACT_DEPTH = 1
EXACT_MAX_DF = 3
_QUOTED = re.compile(r"`([^`]+)`|\"([^\"]+)\"|'([^'\s][^']*[^'\s])'")
_RAW_TOKEN = re.compile(r"[^\s,;:!?()\[\]{}<>\"'`]+")
_EXACT_LOOKING = re.compile(r"\d|_|\w\.\w|[a-z][A-Z]|[A-Z]{2,}|::|\(\)")
_NAME = re.compile(r"^[A-Z][a-z]")  # a capitalised word: a name (or a sentence's first word)
NAMES = True  # experiments (bench/ranking_lab.py +nonames)


def written_terms(query: str, marked: Callable[[str], bool]) -> list[str]:
    """What ``query`` puts in backticks or quotes, then its other tokens that ``marked`` accepts
    (each token given without its edge dots), in order: the terms a user copied rather than
    paraphrased (``exact_looking`` here, definitions.named_identifiers)."""
    found = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(query)]
    return found + [t.strip(".") for t in _RAW_TOKEN.findall(query) if marked(t)]


def exact_looking(query: str) -> list[str]:
    """The parts of ``query`` written like an identifier, a name with a digit or a number, or put
    in backticks or quotes: what a user copies from a document rather than paraphrases."""
    found = written_terms(
        query, lambda t: bool(_EXACT_LOOKING.search(t.strip(".")) or (NAMES and _NAME.search(t)))
    )
    return [t for t in dict.fromkeys(found) if t]


def voters(sides: Sequence[str], weights: Mapping[str, float] | None) -> list[str]:
    """The sides whose agreement counts: weighted at least AGREE_MIN_WEIGHT of the heaviest for
    this query. A side the build or the query weights far down (BM25 on a web-style question over
    code: coverage ** 4) is not trusted alone, and not as a voter either."""
    weights = weights or {}
    top = max((float(weights.get(s, 1.0)) for s in sides), default=0.0)
    return [s for s in sides if top > 0 and float(weights.get(s, 1.0)) >= AGREE_MIN_WEIGHT * top]


def promote(
    ranking: Sequence[Fused],
    sides: Sequence[str],
    exact_rows: Mapping[int, str] | None = None,
    weights: Mapping[str, float] | None = None,
    agree_depth: int | None = None,
    defined: Mapping[int, str] | None = None,
) -> list[Fused]:
    """``ranking`` with the candidates that every side in ``sides`` (at least two, each weighted at
    least AGREE_MIN_WEIGHT of the heaviest: ``voters``) ranks within ``agree_depth``, the
    ``exact_rows`` (row -> the rare exact term it holds) and the ``defined`` rows (row -> the
    identifier the query names that the row's code symbol defines: definitions.py) in a first
    tier; stable otherwise."""
    exact_rows = exact_rows or {}
    defined = defined or {}
    depth = AGREE_DEPTH if agree_depth is None else agree_depth
    counted = voters(sides, weights)
    out = []
    for item in ranking:
        agreed = len(counted) > 1 and all(item.ranks.get(s, depth + 1) <= depth for s in counted)
        if agreed:
            item = replace(item, tier=-1, evidence="agree")
        elif item.row in exact_rows:
            item = replace(item, tier=-1, evidence=f"exact:{exact_rows[item.row]}")
        elif item.row in defined:
            item = replace(item, tier=-1, evidence=f"defines:{defined[item.row]}")
        out.append(item)
    return sorted(out, key=lambda f: (f.tier, -f.score, min(f.ranks.values()), f.row))


def standard_scores(pairs: Sequence[tuple[int, float]], depth: int = 0) -> dict[int, float]:
    """One side's scores as standard scores over its own candidate list, shifted so its lowest
    candidate scores 0 (a row the side did not list counts as that lowest: 0).

    ``depth``: the side lists every row scoring above 0 (BM25: the rows holding a query term) and
    was asked for this many. A shorter list is then all there is, and the rows it could not list
    score 0: they are counted as that many zeros, so its few rows stand out as they do in the
    corpus. Unpadded, a query term found in two chunks gave the second 0, what an unlisted row
    gets, and the first a middling score (a lone match: 0, no spread), below the vector side's
    first hits ("website uptime" over a monitoring tool's docs; docs/EVALUATION.md)."""
    if not pairs:
        return {}
    values = [float(score) for _, score in pairs]
    zeros = max(0, depth - len(values))
    count = len(values) + zeros
    mean = sum(values) / count
    spread = ((sum((v - mean) ** 2 for v in values) + zeros * mean**2) / count) ** 0.5 or 1.0
    low = 0.0 if zeros else min(values)
    return {row: (float(score) - low) / spread for row, score in pairs}


def zscore(
    results: Mapping[str, Sequence[tuple[int, float]]],
    weights: Mapping[str, float] | None = None,
    complete: Mapping[str, int] | None = None,
) -> list[Fused]:
    """Convex combination of standard scores: score(d) = Σ_r w_r · z_r(d) / Σ_r w_r, z_r as in
    standard_scores. Each side counts by how far a candidate stands out in its own list, so a flat
    side (cosines 0.89-0.91 for everything) moves little while a side whose top hit stands clear
    (BM25 on a rare term) carries it (Bruch et al., "An Analysis of Fusion Functions for Hybrid
    Retrieval", TOIS 2023: a normalised convex combination beats RRF). ``complete``: the sides
    that list every row scoring above 0, with the depth they were asked for (standard_scores).
    Ties as in rrf."""
    weights, complete = weights or {}, complete or {}
    total = sum(float(weights.get(name, 1.0)) for name in results) or 1.0
    sides = {name: standard_scores(pairs, complete.get(name, 0)) for name, pairs in results.items()}
    by_row: dict[int, dict[str, int]] = {}
    for name, pairs in results.items():
        for rank, (row, _) in enumerate(pairs, start=1):
            by_row.setdefault(row, {}).setdefault(name, rank)
    scores = {
        row: sum(float(weights.get(name, 1.0)) * z.get(row, 0.0) for name, z in sides.items()) / total
        for row in by_row
    }
    order = sorted(scores, key=lambda r: (-scores[r], min(by_row[r].values()), r))
    return [Fused(row, scores[row], by_row[row]) for row in order]
