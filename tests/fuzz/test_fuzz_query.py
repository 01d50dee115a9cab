"""Fuzz: the query path on a small real index (built once per session by tests/conftest.py with the
real embedder): any unicode query (empty, whitespace, 10k characters, control characters, CJK) in
any mode, with any k and filters, returns a well-formed result and never raises; bad arguments
raise ValueError naming the valid values; searches from several threads agree with serial ones.

Examples per test: DOCMILL_FUZZ_EXAMPLES (default 50)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import docmill

pytestmark = pytest.mark.slow  # loads the embedding model (session fixture)

FUZZ = settings(
    max_examples=int(os.environ.get("DOCMILL_FUZZ_EXAMPLES", "50")),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

QUERIES = st.one_of(
    st.text(),
    st.just(""),
    st.text(alphabet=" \t\n\r\x0b\x0c\u00a0\u2028\u3000", max_size=20),
    st.text(min_size=1, max_size=12).map(lambda s: (s * (10_000 // len(s) + 1))[:10_000]),
    st.sampled_from(["install linux", "LRUCache evict_oldest", "安装 守护进程", "orbital", "*", "NOT"]),
)
FILTERS = st.one_of(
    st.none(),
    st.fixed_dictionaries({"kind": st.sampled_from(["text", "table", "code"])}),
    st.fixed_dictionaries({"path": st.sampled_from(["proj/guide/*", "nothing/*", "*"])}),
)


@pytest.fixture(scope="module")
def index(small_index, embedder):
    opened = docmill.open_index(small_index, embedder=embedder)
    yield opened
    opened.close()


@FUZZ
@given(
    query=QUERIES,
    mode=st.sampled_from(["bm25", "vector", "hybrid"]),
    k=st.integers(1, 30),
    filters=FILTERS,
    abstain=st.booleans(),
)
def test_any_query_gives_a_well_formed_result(index, query, mode, k, filters, abstain) -> None:
    result = index.search(query, k=k, mode=mode, filters=filters, abstain=abstain)
    assert len(result.hits) <= k
    if result.abstained:
        assert not result.hits and result.reason
    ids = [hit.chunk.id for hit in result.hits]
    assert len(set(ids)) == len(ids)
    for hit in result.hits:
        assert hit.chunk.text and hit.chunk.path and isinstance(hit.explain, str)
        assert hit.score == hit.score  # not NaN
        if filters and "kind" in filters:
            assert hit.chunk.kind == filters["kind"]
    if not query.strip():
        assert result.abstained and not result.hits


def test_bad_arguments_raise_value_error_with_the_valid_values(index) -> None:
    with pytest.raises(ValueError, match="expected one of: bm25, vector, hybrid"):
        index.search("install", mode="hybird")
    for k in (0, -1):
        with pytest.raises(ValueError, match="must be positive"):
            index.search("install", k=k)


def test_concurrent_searches_agree_with_serial_ones(index) -> None:
    queries = ["install on linux", "evict the oldest entry", "安装", "platform notes", "windows driver"] * 4
    modes = ["bm25", "vector", "hybrid"]
    jobs = [(q, modes[i % 3]) for i, q in enumerate(queries)]

    def run(job):
        result = index.search(job[0], k=5, mode=job[1])
        return [(h.chunk.id, round(h.score, 6)) for h in result.hits]

    serial = [run(job) for job in jobs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        assert list(pool.map(run, jobs)) == serial
