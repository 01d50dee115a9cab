"""The code graph end to end: ingest a small tree (real tree-sitter, a hash embedder), then refs,
repo map, PageRank, hit context, the CLI, old builds and incremental ingest."""

from __future__ import annotations

import dataclasses
import json
import shutil
import textwrap
from pathlib import Path

import docmill_test_fakes  # loaded by tests/conftest.py
import numpy as np
import pytest

from chunkers.sizing import count_tokens
from docmill.api import open_index
from docmill.cli import main
from docmill.graph import open_graph
from docmill.repomap import Ranker, pagerank
from flows.config import IngestConfig
from flows.pipeline import run_ingest
from indexers.build.graph_file import GRAPH_FILE, read_graph
from indexers.build.manifest import Manifest
from indexers.build.store import IndexStore

TREE = {
    "pkg/core.py": '''
        """The engine everything runs on."""


        class Engine:
            def run(self, job):
                return start(job)


        def start(job):
            """Start the engine on a job."""
            return job
        ''',
    "pkg/client.py": """
        from pkg.core import Engine
        from pkg.core import start as boot


        def chat(text):
            boot(text)
            return Engine().run(text)
        """,
    "pkg/app.py": """
        from pkg.client import chat
        from pkg.core import start


        def main():
            chat("hi")
            start(None)
            return start(1)
        """,
    "pkg/other.py": """
        import numpy as np


        def chat():
            return np.chat()
        """,
}


def ingest(root: Path, index: Path, **kwargs):
    """Ingest ``root/proj`` (written from TREE the first time) with the hash embedder."""
    fakes = docmill_test_fakes
    source = root / "proj"
    if not source.exists():
        for rel, text in TREE.items():
            (source / rel).parent.mkdir(parents=True, exist_ok=True)
            (source / rel).write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    config = IngestConfig(model=fakes.HASH_MODEL)
    return run_ingest([source], index, config, embedder=fakes.HashEmbedder(), **kwargs)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("graph")
    ingest(root, root / "idx")
    return root


@pytest.fixture(scope="module")
def index(built):
    idx = open_index(built / "idx", embedder=docmill_test_fakes.HashEmbedder())
    yield idx
    idx.close()


def test_references_list_definitions_and_calls_through_an_alias(index):
    found = index.references("start").to_json()
    assert found["symbol"] == "start"
    assert found["definitions"] == [
        {"path": "proj/pkg/core.py", "lines": [9, 11], "symbol_path": "proj/pkg/core.py::start"}
    ]
    where = [(r["path"], r["line"], r["symbol_path"], r["kind"]) for r in found["references"]]
    assert where == [
        ("proj/pkg/app.py", 2, None, "import"),
        ("proj/pkg/app.py", 7, "proj/pkg/app.py::main", "call"),
        ("proj/pkg/app.py", 8, "proj/pkg/app.py::main", "call"),
        ("proj/pkg/client.py", 2, None, "import"),
        ("proj/pkg/client.py", 6, "proj/pkg/client.py::chat", "call"),  # boot() is start()
        ("proj/pkg/core.py", 6, "proj/pkg/core.py::Engine.run", "call"),
    ]


def test_an_imported_module_keeps_its_calls_away_from_a_local_namesake(index):
    found = index.references("chat")
    assert [d.to_json()["symbol_path"] for d in found.definitions] == [
        "proj/pkg/client.py::chat",
        "proj/pkg/other.py::chat",
    ]
    lines = {(r.path, r.reference.line) for r in found.references}
    assert ("proj/pkg/app.py", 6) in lines
    assert ("proj/pkg/other.py", 5) not in lines  # np.chat() is numpy's
    only_client = index.references("proj/pkg/other.py::chat")
    assert [r.path for r in only_client.references] == []  # app.py imports chat from pkg.client


def test_pagerank_matches_networkx():
    nx = pytest.importorskip("networkx")
    rng = np.random.default_rng(3)
    edges = {
        (int(a), int(b)): float(w)
        for a, b, w in zip(rng.integers(0, 7, 15), rng.integers(0, 7, 15), rng.random(15), strict=True)
        if a != b
    }
    personal = np.array([0, 0, 1.0, 0, 0, 0.5, 0])
    graph = nx.DiGraph()
    graph.add_nodes_from(range(8))  # node 7 is isolated, so dangling
    graph.add_weighted_edges_from((a, b, w) for (a, b), w in edges.items())
    for ours, theirs in [
        (pagerank(8, edges), nx.pagerank(graph, alpha=0.85, tol=1e-12, max_iter=500)),
        (
            pagerank(8, edges, np.append(personal, 0)),
            nx.pagerank(
                graph,
                alpha=0.85,
                personalization=dict(enumerate(np.append(personal, 0))),
                tol=1e-12,
                max_iter=500,
            ),
        ),
    ]:
        assert np.allclose(ours, [theirs[i] for i in range(8)], atol=1e-6)
        assert ours.sum() == pytest.approx(1.0)


def test_repo_map_fits_its_budget_and_follows_the_rank(index):
    graph = index.graph_file.load()
    ranked = [d for _, d in Ranker(graph).ranked_definitions()]
    assert ranked[0].to_json()["symbol_path"] == "proj/pkg/core.py::start"  # used the most
    previous = 0
    for budget in (12, 30, 60, 1000):
        result = index.repo_map(tokens=budget)
        assert result.tokens == count_tokens(result.text()) <= budget
        chosen = {(f.path, s.line) for f in result.files for s in f.symbols}
        assert chosen == {(d.path, d.definition.lines[0]) for d in ranked[: len(chosen)]}  # a prefix
        assert len(chosen) >= previous
        previous = len(chosen)
    full = index.repo_map(tokens=1000)
    assert len(chosen) == len(ranked)
    assert [f.path for f in full.files][0] == "proj/pkg/core.py"
    text = full.text()
    assert text.startswith(
        "proj/pkg/core.py:\n     4│ class Engine:\n     5│     def run(self, job):\n     9│ def start(job):\n"
    )


def test_repo_map_focus_ranks_the_focused_file_first(index):
    focused = index.repo_map(tokens=1000, focus="pkg/other.py")
    assert focused.files[0].path == "proj/pkg/other.py"
    with pytest.raises(ValueError, match="matches no file or symbol"):
        index.repo_map(focus="nope.py")


def test_code_hits_carry_used_by_and_calls(index):
    hits = index.search("start the engine on a job", k=5, mode="bm25", abstain=False).hits
    start = next(h for h in hits if h.chunk.symbol == "start")
    data = start.to_json()
    assert data["used_by"] == [
        "proj/pkg/app.py::main",
        "proj/pkg/client.py::chat",
        "proj/pkg/core.py::Engine.run",
    ]
    run = index.search("Engine run job", k=5, mode="bm25", abstain=False).hits
    assert next(h for h in run if h.chunk.symbol == "Engine.run").calls == ("start",)


def test_cli_refs_and_repo_map(built, capsys):
    assert main(["refs", str(built / "idx"), "Engine", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"symbol", "definitions", "references"}
    assert [r["line"] for r in out["references"] if r["kind"] == "call"] == [7]
    assert main(["refs", str(built / "idx"), "Engine"]) == 0
    assert "proj/pkg/client.py:7  call   in chat" in capsys.readouterr().out
    assert main(["repo-map", str(built / "idx"), "--tokens", "40", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["tokens"] <= 40 and out["files"][0]["path"] == "proj/pkg/core.py"
    start = {"name": "start", "symbol": "start", "line": 9, "signature": "def start(job):"}
    assert start in out["files"][0]["symbols"]
    assert main(["repo-map", str(built / "idx"), "--tokens", "40"]) == 0
    assert capsys.readouterr().out.startswith("proj/pkg/core.py:\n")


def test_a_build_from_before_the_graph_opens_searches_and_refs_say_to_reingest(built, tmp_path, capsys):
    old = tmp_path / "old"
    shutil.copytree(built / "idx", old)
    build = IndexStore(old).current_build()
    manifest = Manifest.read(build)
    manifest.extra.pop("graph")
    manifest.files.pop(GRAPH_FILE)
    manifest.write(build)
    (build / GRAPH_FILE).unlink()
    idx = open_index(old, embedder=docmill_test_fakes.HashEmbedder())
    hits = idx.search("start the engine", k=3, mode="bm25", abstain=False).hits
    assert hits and all(h.used_by == () for h in hits)
    idx.close()
    assert main(["refs", str(old), "start"]) == 1
    err = capsys.readouterr().err
    assert "has no code graph" in err and "docmill ingest" in err and "Traceback" not in err
    assert main(["repo-map", str(old)]) == 1


def test_incremental_ingest_reuses_unchanged_files_graph_and_matches_a_full_build(tmp_path):
    first = ingest(tmp_path, tmp_path / "idx")
    assert first.parsed == 4
    app = tmp_path / "proj" / "pkg" / "app.py"
    app.write_text(app.read_text() + "\n\ndef again():\n    return chat('x')\n")
    second = ingest(tmp_path, tmp_path / "idx")
    assert second.parsed == 1 and second.unchanged == 3
    again = open_graph(tmp_path / "idx").references("proj/pkg/client.py::chat")
    assert ("proj/pkg/app.py", 12, "again") in {
        (r.path, r.reference.line, r.reference.symbol) for r in again.references
    }
    ingest(tmp_path, tmp_path / "full", full_rebuild=True)
    incremental = read_graph(IndexStore(tmp_path / "idx").current_build())
    assert incremental == read_graph(IndexStore(tmp_path / "full").current_build())
    assert set(incremental) == {f"proj/{p}" for p in TREE}


def test_the_search_page_shows_a_code_hits_callers_and_callees(index):
    from docmill.page import hit_html

    hits = index.search("start the engine on a job", k=5, mode="bm25", abstain=False).hits
    start = next(h for h in hits if h.chunk.symbol == "start")
    shown = hit_html(1, start, ["start"])
    assert '<div class="graph meta">used by: proj/pkg/app.py::main, proj/pkg/client.py::chat' in shown
    assert "graph meta" not in hit_html(1, dataclasses.replace(start, used_by=(), calls=()), [])
