"""Collapse, agreement and context through `docmill.open_index(...).search(...)` on a real index
(real BM25, real MiniLM, real FAISS): k hits are k places, each carrying its siblings."""

import json

import pytest

import docmill
from chunkers.sizing import ChunkOptions
from flows.config import IngestConfig

RETRY = " ".join(
    f"Retry rule {i}: when a connection attempt fails the client waits and retries the request, "
    f"doubling the backoff delay after attempt {i} until the retry budget is spent."
    for i in range(1, 9)
)
FILES = {
    "docs/retries.md": f"# Retries\n\n## Retry policy\n\n{RETRY}\n\n## Giving up\n\n"
    "After the last retry the client raises an error that names every failed attempt.\n",
    "docs/timeouts.md": "# Timeouts\n\nA request that waits too long for the server is cancelled and "
    "retried once if the retry policy allows it.\n",
    "docs/proxies.md": "# Proxies\n\nSend traffic through a proxy server by passing its address.\n",
    "pkg/retry.py": '''
class RetryPolicy:
    """How a failed connection attempt is retried: the backoff and the retry budget."""

    def __init__(self, attempts=3):
        self.attempts = attempts

    def backoff(self, attempt):
        """Seconds to wait before retry number ``attempt``: the backoff doubles each time."""
        return 0.5 * (2 ** attempt)

    def should_retry(self, attempt):
        """Whether another retry is allowed by the retry budget."""
        return attempt < self.attempts
''',
}
QUERY = "how does the retry backoff work when a connection attempt fails"


@pytest.fixture(scope="module")
def index(tmp_path_factory, embedder):
    from flows.pipeline import run_ingest

    root = tmp_path_factory.mktemp("collapse") / "repo"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text.lstrip("\n"), encoding="utf-8")
    path = tmp_path_factory.mktemp("collapse-index") / "idx"
    run_ingest([root], path, IngestConfig(chunk=ChunkOptions(max_tokens=40)), embedder=embedder)
    return docmill.open_index(path, embedder=embedder)


def place(chunk):
    if chunk.kind == "code":
        return (chunk.path, (chunk.symbol or "").split(".")[0])
    return (chunk.path, chunk.heading_path)


def test_k_hits_are_k_places_and_carry_their_siblings(index):
    flat = index.search(QUERY, k=30, collapse="none", abstain=False).hits
    assert len({place(h.chunk) for h in flat[:5]}) < 5  # the situation: chunks of one place repeat
    hits = index.search(QUERY, k=5, abstain=False).hits
    assert len(hits) == 5 and len({place(h.chunk) for h in hits}) == 5
    section = [h for h in hits if h.chunk.heading_path == ("Retries", "Retry policy")]
    assert len(section) == 1 and len(section[0].siblings) >= 2
    expected = {h.chunk.id for h in flat if place(h.chunk) == place(section[0].chunk)}
    assert {section[0].chunk.id, *(s.id for s in section[0].siblings)} == expected
    # a class's chunk and its methods' chunks are one place
    code = [h for h in hits if h.chunk.path.endswith("retry.py")]
    assert len(code) == 1
    as_json = code[0].to_json()
    assert as_json["siblings"] and all("retry.py" in s["citation"] for s in as_json["siblings"])


def test_collapse_document_and_bad_policy(index):
    hits = index.search(QUERY, k=5, collapse="document", abstain=False).hits
    assert len({h.chunk.path for h in hits}) == len(hits)
    with pytest.raises(ValueError, match="unknown collapse"):
        index.search(QUERY, collapse="chapter")


def test_results_are_deterministic(index):
    runs = {json.dumps(index.search(QUERY, k=5, abstain=False).to_json(), sort_keys=True) for _ in range(3)}
    assert len(runs) == 1


def test_context_returns_the_whole_section_with_exact_citations(index):
    hit = next(
        h for h in index.search(QUERY, k=5, abstain=False) if h.chunk.heading_path[-1:] == ("Retry policy",)
    )
    passage = index.context(hit)
    assert hit.chunk.text in passage.text and all(f"Retry rule {i}:" in passage.text for i in range(1, 9))
    assert "Giving up" not in " ".join(c.citation() for c in passage.chunks)
    assert len(passage.citations) == len(passage.chunks) >= 3
    lines = [c.lines for c in passage.chunks]
    assert lines == sorted(lines)  # document order
    assert passage.citation.endswith(f"(L{lines[0][0]}-{lines[-1][1]})")
    small = index.context(hit, max_chars=len(hit.chunk.text) + 1)
    assert [c.id for c in small.chunks] == [hit.chunk.id]
    whole = index.context(hit, "document")
    assert "Giving up" in " ".join(c.citation() for c in whole.chunks)


def test_a_live_index_gives_the_same_context(index):
    live = docmill.open_index(index.root, follow=True, embedder=index.embedder)
    try:
        hit = live.search(QUERY, k=1, abstain=False).hits[0]
        assert live.context(hit, "document").citations == index.context(hit, "document").citations
    finally:
        live.close()
