"""Sentence windows in a real build (all-MiniLM-L6-v2, FAISS): a chunk's vector-side score is the
best of its own cosine and its windows' cosines, the vectors the model gives those window texts
(the reference); ``windows=False`` builds score the chunk alone; the next ingest reuses every
unchanged window's vector; a build without window files opens and searches as before."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import docmill
from flows.config import IngestConfig
from flows.pipeline import run_ingest
from indexers.build.manifest import Manifest
from indexers.build.store import IndexStore
from indexers.dense.windows import window_texts

from ..conftest import write_tree

LONG = (
    "The harbour office opens at eight and closes at noon on public holidays. Ferry tickets are sold "
    "at the kiosk beside the pier, cash or card. Parking on the quay is limited to two hours. The "
    "lighthouse keeper feeds the stray cats on the rocks every morning at dawn. Fishing from the "
    "breakwater needs a permit from the harbour master. Bicycles must be walked along the promenade. "
    "Lost property is kept at the harbour office for thirty days."
)
FILES = {
    "harbour.md": f"# Harbour rules\n\n{LONG}\n",
    "cats.md": "# Pets\n\nCats may be brought on the ferry in a closed basket. Dogs need a lead.\n",
    "tides.md": "# Tides\n\nHigh tide tables are posted weekly on the notice board by the pier.\n",
}
FILES_CHUNK_TEXT = f"Harbour rules\n{LONG}"
QUERY = "who feeds the cats at the lighthouse in the morning?"


@pytest.fixture(scope="module")
def harbour(tmp_path_factory, embedder):
    tree = write_tree(tmp_path_factory.mktemp("harbour") / "docs", FILES)
    index = tmp_path_factory.mktemp("idx") / "idx"
    run_ingest([tree], index, embedder=embedder)
    return tree, index


def _hit(index, embedder, path):
    result = docmill.open_index(index, embedder=embedder).search(QUERY, k=5, mode="vector", collapse="none")
    return next(h for h in result.hits if h.chunk.path == path)


def test_a_chunk_scores_its_best_window_as_the_model_embeds_it(harbour, embedder):
    tree, index = harbour
    hit = _hit(index, embedder, "docs/harbour.md")
    windows = window_texts(hit.chunk.index_text)
    assert len(windows) >= 2 and any("lighthouse keeper" in w for w in windows)
    query = embedder.encode_queries([QUERY])[0]
    whole = float(embedder.encode([hit.chunk.index_text])[0] @ query)
    best = float(np.max(embedder.encode(windows) @ query))
    assert best > whole + 0.05  # the one sentence the question is about stands out of the chunk
    assert hit.score == pytest.approx(best, abs=2e-3)
    plain = IngestConfig(windows=False)
    other = tree.parent / "plain-idx"
    run_ingest([tree], other, plain, embedder=embedder)
    assert not list((IndexStore(other).current_build() / "segments").glob("*/window_vectors.npy"))
    assert _hit(other, embedder, "docs/harbour.md").score == pytest.approx(whole, abs=2e-3)


def test_the_next_ingest_embeds_only_new_windows(harbour, embedder, tmp_path):
    tree, index = harbour
    before = _hit(index, embedder, "docs/harbour.md").score
    (tree / "quay.md").write_text(
        "# Quay\n\nThe crane on the quay lifts containers. It is inspected every spring. "
        "Visitors may not climb it. The crane operator works in shifts of six hours. Containers for "
        "the islands leave on Tuesdays and Fridays; the weight limit is posted at the gate.\n",
        encoding="utf-8",
    )
    report = run_ingest([tree], index, embedder=embedder)
    new_chunks = [
        c for c in docmill.open_index(index, embedder=embedder).chunks.all() if c.path == "docs/quay.md"
    ]
    expected = sum(1 + len(window_texts(c.index_text)) for c in new_chunks)
    assert expected > len(new_chunks)  # the new chunk has windows of its own
    assert report.published and report.embedded == expected  # the harbour's windows were reused
    assert _hit(index, embedder, "docs/harbour.md").score == pytest.approx(before, abs=1e-6)


def test_a_build_without_window_files_still_opens_and_searches(harbour, embedder, tmp_path):
    tree, index = harbour
    copy = tmp_path / "old"
    shutil.copytree(index, copy)
    build = IndexStore(copy).current_build()
    manifest = Manifest.read(build)
    for path in list(build.glob("segments/*/window_*.npy")):
        path.unlink()
    manifest.files = {k: v for k, v in manifest.files.items() if "/window_" not in k}
    manifest.embedding.pop("windows", None)
    manifest.write(build)
    index_old = docmill.open_index(copy, embedder=embedder)
    hit = _hit(copy, embedder, "docs/harbour.md")
    query = embedder.encode_queries([QUERY])[0]
    assert hit.score == pytest.approx(float(embedder.encode([hit.chunk.index_text])[0] @ query), abs=2e-3)
    assert index_old.search(QUERY, k=3).hits  # hybrid too


def test_a_renamed_file_reuses_its_windows(tmp_path, embedder):
    tree = write_tree(tmp_path / "docs", FILES)
    index = tmp_path / "idx"
    run_ingest([tree], index, embedder=embedder)
    (tree / "harbour.md").rename(tree / "port.md")
    report = run_ingest([tree], index, embedder=embedder)
    assert report.published and report.embedded == 0  # the chunk and its windows, found by their text
    query = embedder.encode_queries([QUERY])[0]
    best = float(np.max(embedder.encode(window_texts(FILES_CHUNK_TEXT)) @ query))
    assert _hit(index, embedder, "docs/port.md").score == pytest.approx(best, abs=2e-3)
    windows = [w for w in docmill.open_index(index, embedder=embedder).vectors.windows if w is not None]
    assert sum(len(w.vectors) for w in windows) >= 2  # the renamed chunk's windows are in the new build


CODE = {
    f"pkg/mod{i}.py": f"""
def handler_{i}(request, retries={i}):
    session = open_session(request.host, timeout={i * 10})
    for attempt in range(retries):
        response = session.get(request.path, params=request.params)
        if response.status == 200:
            return response.json()
        session.backoff(attempt)
    raise TimeoutError(request.path)


def parse_{i}(payload):
    items = [item.strip() for item in payload.split(",") if item]
    table = {{key: value for key, value in (item.split("=") for item in items)}}
    return table.get("id"), table.get("name"), table.get("kind")
"""
    for i in range(12)
}


def test_a_code_search_corpus_embeds_no_windows(tmp_path, embedder):
    tree = write_tree(tmp_path / "src", CODE)
    index = tmp_path / "idx"
    report = run_ingest([tree], index, embedder=embedder)
    opened = docmill.open_index(index, embedder=embedder)
    assert opened.calibration.code_search and not opened.vectors.has_windows
    assert report.embedded == len({c.index_text for c in opened.chunks.all()})  # one vector a chunk
    assert opened.manifest.embedding["windows"]  # as configured: the next ingest is not a rebuild
    assert not run_ingest([tree], index, embedder=embedder).published


def test_a_code_search_corpus_is_searched_without_windows(tmp_path, embedder, monkeypatch):
    from indexers.dense.embedder import search_faiss

    tree = write_tree(tmp_path / "src", CODE)
    index = tmp_path / "idx"
    monkeypatch.setattr("flows.stages.is_code_corpus", lambda *_: False)  # windows embedded anyway
    run_ingest([tree], index, embedder=embedder)
    opened = docmill.open_index(index, embedder=embedder)
    assert opened.calibration.code_search and not opened.calibration.reads_windows
    assert opened.vectors.has_windows  # the windows are there: the ranking does not read them
    query = "split the payload on commas and strip each item"  # one line of parse_N: its window wins
    hits = opened.search(query, k=5, mode="vector", collapse="none", abstain=False).hits
    plain = dict(search_faiss(opened._faiss, embedder.encode_queries([query])[0], 5))
    assert [h.row for h in hits] == list(plain) and all(h.score == pytest.approx(plain[h.row]) for h in hits)
    query_vector = embedder.encode_queries([query])[0]
    rescored = opened.vectors.rescore(query_vector, list(plain.items()))
    assert rescored[0][1] > max(plain.values()) + 0.05  # read, the windows would change the ranking
