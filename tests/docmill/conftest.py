"""Fixtures for the live index and the server: an index whose builds say which generation they
are, and a real uvicorn on 127.0.0.1 serving docmill.serve's app from a thread."""

from __future__ import annotations

import contextlib
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

GENERATION_DOC = "notes/generation.md"


def ingest_generation(tree: Path, index: Path, embedder, n: int) -> str:
    """Publish a build whose notes/generation.md says `marker<n>`; returns the build name."""
    from flows.pipeline import run_ingest

    (tree / GENERATION_DOC).parent.mkdir(parents=True, exist_ok=True)
    text = f"# Release notes\n\nThis build is generation marker{n} of the quokka release train.\n"
    (tree / GENERATION_DOC).write_text(text, encoding="utf-8")
    return run_ingest([tree], index, embedder=embedder).build


def marker_of(hits) -> str | None:
    """The `marker<n>` word of the generation note among ``hits`` (Hit objects or hit JSON)."""
    for hit in hits:
        path, text = (hit["path"], hit["text"]) if isinstance(hit, dict) else (hit.chunk.path, hit.chunk.text)
        if path.endswith(GENERATION_DOC):
            return next(w for w in text.split() if w.startswith("marker"))
    return None


@pytest.fixture
def live_tree(tmp_path, small_tree):
    tree = tmp_path / "tree"
    shutil.copytree(small_tree, tree)
    return tree


@pytest.fixture
def live_index(tmp_path, live_tree, embedder):
    index = tmp_path / "index"
    ingest_generation(live_tree, index, embedder, 1)
    return index


@contextlib.contextmanager
def running(app) -> Iterator[str]:
    """Serve ``app`` with a real uvicorn on 127.0.0.1 (a free port) until the block ends; yields
    the base URL."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@pytest.fixture
def publish_generation(live_tree, live_index, embedder):
    """`publish_generation(n)`: ingest the tree with `marker<n>` into live_index; the build name."""
    return lambda n: ingest_generation(live_tree, live_index, embedder, n)


@pytest.fixture
def marker():
    """`marker(hits)`: see marker_of."""
    return marker_of


@pytest.fixture
def live(live_index, embedder):
    """A LiveIndex that checks CURRENT before every search (check_interval 0)."""
    from docmill.live import LiveIndex

    index = LiveIndex(live_index, embedder, check_interval=0)
    yield index
    index.close()


@pytest.fixture
def server(live) -> Iterator[str]:
    from docmill.serve import create_app

    with running(create_app(live)) as url:
        yield url


@pytest.fixture
def run_server():
    """`with run_server(app) as url:` a real uvicorn on 127.0.0.1 (see running)."""
    return running
