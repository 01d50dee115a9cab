"""Filters that leave no chunk (a ``path`` glob matching nothing, a kind the build lacks) are an
answer, not an error: no hits, the reason "no chunk matches the filters: ...", and no confidence
(None / JSON null: nothing was judged), the same in Python, the CLI, over HTTP and on a sharded
root. A sharded root's text line names each shard's build (real model, FAISS and server)."""

from __future__ import annotations

import json
import re

import httpx
import pytest

import docmill
from docmill.cli import main
from docmill.filters import describe

NOTHING = {"path": "nowhere/*"}


@pytest.fixture(scope="module")
def sharded_root(tmp_path_factory, small_tree, embedder):
    from flows.config import IngestConfig
    from flows.shards import run_sharded_ingest

    root = tmp_path_factory.mktemp("nomatch") / "root"
    run_sharded_ingest([small_tree], root, 2, IngestConfig(), embedder=embedder)
    return root


def test_describe_gives_the_filters_as_key_value_pairs():
    filters = {"path": ["a/*", "b/*"], "kind": "table", "pages": (2, 5), "metadata": {"lang": "en"}}
    assert describe(filters) == "path=a/*, path=b/*, kind=table, pages=2-5, metadata.lang=en"


@pytest.mark.parametrize("mode", ["hybrid", "bm25", "vector"])
def test_a_filter_no_chunk_passes_gives_no_hits_a_reason_and_no_confidence(small_index, embedder, mode):
    index = docmill.open_index(small_index, embedder=embedder)
    result = index.search("LRU cache eviction", mode=mode, filters=NOTHING)
    assert result.hits == [] and not result.abstained
    assert result.confidence is None
    assert result.reason == "no chunk matches the filters: path=nowhere/*"
    assert result.to_json()["confidence"] is None and result.build == index.build.name
    kept = index.search("LRU cache eviction", mode=mode, filters={"path": "*/src/*"})
    assert kept.hits and kept.confidence is not None and kept.reason is None


def test_the_cli_says_no_chunk_matches_and_claims_no_confidence(small_index, capsys):
    args = ["query", str(small_index), "LRU cache eviction", "--filter", "path=nowhere/*"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "confidence 1.00" not in out
    assert re.search(r"^confidence - \(nothing to judge\); build \S+$", out, re.M)
    assert "no hits: no chunk matches the filters: path=nowhere/*" in out
    assert main([*args, "--filter", "kind=table", "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["confidence"] is None and body["hits"] == [] and body["abstained"] is False
    assert body["reason"] == "no chunk matches the filters: path=nowhere/*, kind=table"


def test_http_answers_null_confidence_and_the_reason(small_index, embedder, run_server):
    from docmill.live import LiveIndex
    from docmill.serve import create_app

    live = LiveIndex(small_index, embedder)
    try:
        with run_server(create_app(live)) as url:
            got = httpx.get(f"{url}/search", params={"q": "cache", "filter": "path=nowhere/*"}, timeout=30)
            posted = httpx.post(
                f"{url}/search", json={"query": "cache", "filters": {"path": "nowhere/*"}}, timeout=30
            )
            page = httpx.get(f"{url}/", params={"q": "cache", "path": "nowhere/*"}, timeout=30)
    finally:
        live.close()
    for response in (got, posted):
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["confidence"] is None and body["hits"] == [] and body["abstained"] is False
        assert body["reason"] == "no chunk matches the filters: path=nowhere/*"
    assert "No hits: no chunk matches the filters: path=nowhere/*." in page.text


def test_a_sharded_root_says_the_same_and_names_each_shards_build(sharded_root, embedder, capsys):
    from indexers.build.store import IndexStore

    index = docmill.open_index(sharded_root, embedder=embedder)
    result = index.search("LRU cache eviction", filters=NOTHING)
    assert result.hits == [] and result.confidence is None and not result.abstained
    assert result.reason == "no chunk matches the filters: path=nowhere/*"
    shards = sorted(p for p in (sharded_root / "shards").iterdir() if p.is_dir())
    builds = {p.name: IndexStore(p).current_name() for p in shards}
    answered = index.search("LRU cache eviction", k=1)
    assert answered.build == "+".join(f"{name}={build}" for name, build in builds.items())
    assert main(["query", str(sharded_root), "LRU cache eviction", "--k", "1"]) == 0
    out = capsys.readouterr().out
    named = ", ".join(f"{name} {build}" for name, build in builds.items())
    assert f"(answers at >= 0.50); builds: {named}\n" in out and "build None" not in out
    assert main(["query", str(sharded_root), "LRU cache eviction", "--filter", "path=nowhere/*"]) == 0
    out = capsys.readouterr().out
    assert f"confidence - (nothing to judge); builds: {named}" in out
    assert "no hits: no chunk matches the filters: path=nowhere/*" in out
