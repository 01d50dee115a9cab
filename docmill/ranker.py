"""The last step of a search over one build (docmill.index.HybridIndex): the sides' rankings made into
hits, one per place. Several sides are fused by the policy (indexers/ranking/policy.py: tiers,
test-code demotion) over the build's place column, so no chunk is parsed to rank; one side's
ranking goes a shorter way (positions in its list, places grouped by key where they are classes,
LazyHits parsed on first use) to the same hits. What they read of the index is read at each call
(a benchmark may swap its tokenizer; a test, its code graph's flag)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Protocol

from docmill.graph import GraphFile
from docmill.hits import Hit, hit_of_place, hits_of_side
from indexers.build.chunkstore import ChunkStore
from indexers.build.places import Place
from indexers.lexical.tokenize import Tokenizer
from indexers.ranking import policy
from indexers.ranking.collapse import DEFAULT_POLICY as DEFAULT_COLLAPSE
from indexers.ranking.collapse import CollapsePolicy, collapse_keys
from indexers.ranking.collapse import check_policy as check_collapse
from indexers.ranking.collapse import collapse as collapse_positions
from indexers.ranking.definitions import defined_rows
from indexers.ranking.policy import Ranked


class RankedBuild(Protocol):
    """What ranking reads of a build's index (docmill.index.HybridIndex)."""

    chunks: ChunkStore
    tokenizer: Tokenizer
    test_code_paths: frozenset[str]  # test-code files, demoted in fused rankings
    graph_file: GraphFile  # has_code: definitions named in the query are lifted
    kind_floor: int  # experiments only (HybridIndex.kind_floor)
    evidence_tiers: bool  # agreement and exact rare terms lifted


def rank(
    index: RankedBuild,
    query: str,
    results: Mapping[str, Ranked],
    k: int,
    fusion: policy.Fusion,
    weights: Mapping[str, float] | None,
    test_code_weight: float = 1.0,
    collapse: str = DEFAULT_COLLAPSE,
    df: Mapping[str, int] | None = None,
) -> list[Hit]:
    """The top ``k`` places: fused (or one side's) ranking -> tiers and test-code demotion
    (several sides) -> one hit per place (indexers/ranking/collapse.py) -> kind floor."""
    if len(results) == 1:
        return rank_side(index.chunks, results, k, collapse)
    chunks = index.chunks
    chunk_of = functools.cache(chunks.__getitem__)
    # each candidate's place from the build's place column, in one gather: no chunk parsed to rank
    known = chunks.places([row for pairs in results.values() for row, _ in pairs])

    def place_of(row: int) -> Place:
        found = known.get(row)
        return found if found is not None else chunks.place(row)

    factors: dict[int, float] = {}
    fused = len(results) > 1
    if fused:
        exact = exact_rows(index, query, results.get("bm25"), df) if index.evidence_tiers else None
        in_tests = policy.is_test_code_row(index.test_code_paths, place_of)
        named = defined_rows(query, known) if exact is not None and index.graph_file.has_code else None
        ranking, factors = policy.fuse(results, fusion, weights, exact, test_code_weight, in_tests, named)
    else:
        ranking = policy.one_side(results)
    places = policy.places(ranking, place_of, collapse, k, index.kind_floor if fused else 0)
    raw = {name: dict(pairs) for name, pairs in results.items()}
    siblings = chunks.lazy([[item.row for item in place[1:]] for place in places])
    return [
        hit_of_place(place, raw, fused, factors, chunk_of, fusion.method, around)
        for place, around in zip(places, siblings, strict=True)
    ]


def rank_side(chunks: ChunkStore, results: Mapping[str, Ranked], k: int, collapse: str) -> list[Hit]:
    """``rank`` of one side's ranking: what policy.one_side, policy.places and hit_of_place
    give (one side: no tiers, demotion or kind floor), over positions in the side's list, so
    no record is made per candidate; the hits' chunks are read together."""
    ((name, pairs),) = results.items()
    rows = [row for row, _ in pairs]
    places = side_places(chunks, rows, check_collapse(collapse), k)
    # the places' leads, then each place's siblings: read together, parsed on use (hits.LazyHit)
    groups = [[rows[members[0]] for members in places]]
    groups += [[rows[i] for i in members[1:]] for members in places]
    leads, *siblings = chunks.lazy(groups, ranked=True)
    return hits_of_side(name, places, pairs, leads, siblings)


def side_places(chunks: ChunkStore, rows: list[int], collapse: CollapsePolicy, k: int) -> list[list[int]]:
    """The top ``k`` places of one side's ranked ``rows`` as positions in it (collapse.py):
    where "the same place" is an equivalence among the candidates (the place column's keys: no
    page ranges or code symbols to overlap) one grouping by key, else collapse step by step,
    reading only the documents of candidates past the ``k``-th place."""
    if collapse == "none":
        return [[i] for i in range(min(k, len(rows)))]
    keys = chunks.place_keys(rows, collapse)
    if keys is not None:
        return collapse_keys(keys, k)
    place = chunks.place_reader()
    docs = chunks.doc_ids(rows)
    return collapse_positions(range(len(rows)), lambda i: place(rows[i]), collapse, k, docs)[:k]


def exact_rows(
    index: RankedBuild, query: str, bm25_hits: Ranked | None, df: Mapping[str, int] | None
) -> dict[int, str]:
    """policy.exact_rows over the build's chunks."""
    return policy.exact_rows(query, bm25_hits, df, index.tokenizer, lambda row: index.chunks[row].index_text)
