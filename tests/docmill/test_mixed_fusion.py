"""A docs + code tree in one index (indexers/calibrate.py: mixed trees), with real BM25 and
MiniLM: calibrated like prose rather than with the code-search prior, so a where-is question gets
its code and a how-to question its page; no kind floor lifts code nobody asked for (issue 22)."""

import pytest

import docmill

PAGES = {
    "docs/retries.md": "# Retrying requests\n\nWhen a server is flaky you can ask the client to try again. "
    "Set `retries=3` on the transport and failed connection attempts are repeated, waiting a little "
    "longer each time. Reads are never retried, because a request may already have been processed.\n",
    "docs/timeouts.md": "# Timeouts\n\nEvery request has a deadline. Set a connect timeout for "
    "establishing the connection and a read timeout for waiting on the response. A timeout raises "
    "an error you can catch and report to the user.\n",
    "docs/proxies.md": "# Proxies\n\nTo send traffic through a proxy server, pass its address when you "
    "create the client. Credentials can be part of the proxy address.\n",
    "docs/auth.md": "# Authentication\n\nPass a username and a password to use basic authentication. "
    "Digest authentication answers the server's challenge with a hashed response.\n",
}

CODE = {
    "pkg/transport.py": '''
class Transport:
    def __init__(self, retries=0):
        self.retries = retries

    def _backoff_delay(self, attempt):
        """Seconds to sleep before connection attempt number ``attempt``: doubles each time."""
        return 0.5 * (2 ** attempt)

    def connect(self, address):
        for attempt in range(self.retries + 1):
            try:
                return open_socket(address)
            except ConnectionError:
                if attempt == self.retries:
                    raise
                sleep(self._backoff_delay(attempt))
''',
    "pkg/auth.py": '''
class DigestAuth:
    def __init__(self, username, password):
        self.username, self.password = username, password

    def _hash_response(self, challenge, method, uri):
        """The hashed answer to a server's digest challenge."""
        ha1 = md5(f"{self.username}:{challenge.realm}:{self.password}")
        ha2 = md5(f"{method}:{uri}")
        return md5(f"{ha1}:{challenge.nonce}:{ha2}")
''',
}


@pytest.fixture(scope="module")
def mixed_index(tmp_path_factory, embedder):
    from flows.pipeline import run_ingest

    root = tmp_path_factory.mktemp("mixed") / "repo"
    for rel, text in {**PAGES, **CODE}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.lstrip("\n"), encoding="utf-8")
    index = tmp_path_factory.mktemp("mixed-index") / "idx"
    run_ingest([root], index, embedder=embedder)
    return docmill.open_index(index, embedder=embedder)


def test_a_mixed_tree_is_not_given_the_code_search_prior(mixed_index):
    fusion = mixed_index.manifest.extra["fusion"]
    assert fusion["method"] != "code-prior" and 0.1 <= fusion["source_share"] <= 0.9
    assert "kind_floor" not in fusion and mixed_index.fusion_coverage_power is None


def test_where_is_question_gets_the_code_and_how_to_question_the_page(mixed_index):
    where = mixed_index.search("where is the doubling wait between connection attempts computed", k=3)
    assert any(h.chunk.symbol == "Transport._backoff_delay" for h in where.hits), [h.citation for h in where]
    how = mixed_index.search("how can I make my requests try again when the server is flaky", k=3)
    assert how.hits[0].chunk.path.endswith("docs/retries.md"), [h.citation for h in how]


def test_no_kind_floor_the_fused_order_stands(mixed_index):
    assert mixed_index.kind_floor == 0
    for query in ("digest authentication hashed response", "how do I set a timeout for reading the response"):
        hits = mixed_index.search(query, k=5, abstain=False).hits
        lifted = ["agree" in h.explain or "exact:" in h.explain for h in hits]
        assert lifted == sorted(lifted, reverse=True), [h.explain for h in hits]  # the evidence tier first
        for tier in (True, False):
            scores = [h.score for h, up in zip(hits, lifted, strict=True) if up is tier]
            assert scores == sorted(scores, reverse=True), [h.explain for h in hits]
