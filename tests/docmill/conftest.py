"""Fixtures for the live index and the server: an index whose builds say which generation they
are, and a real uvicorn on 127.0.0.1 serving docmill.serve's app from a thread."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import running

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
