"""graph.jsonl: plain JSON rows that read back to the same records, and a version that is checked."""

from __future__ import annotations

import json

import pytest

from indexers.build.graph_file import (
    GRAPH_FILE,
    GRAPH_VERSION,
    FileGraph,
    GraphUnavailable,
    check_version,
    read_graph,
    write_graph,
)
from parsers.model import CodeGraph, Definition, Reference

FILES = [
    FileGraph(
        "proj/a.py",
        "python",
        CodeGraph(
            (
                Definition("Client", (1, 9), "class", "class Client:"),
                Definition("Client.chat", (3, 4), "function", "def chat(self):"),
            ),
            (
                Reference("send", 4, "Client.chat", "call", None, True),
                Reference("chat", 2, None, "import", "pkg.x"),
            ),
        ),
    ),
    FileGraph("proj/b.go", "go", CodeGraph()),
]


def test_rows_round_trip_and_summary(tmp_path):
    summary = write_graph(tmp_path, FILES)
    assert summary == {"version": GRAPH_VERSION, "files": 2, "definitions": 2, "references": 2}
    assert read_graph(tmp_path) == {f.path: f for f in FILES}
    first = json.loads((tmp_path / GRAPH_FILE).read_text().splitlines()[0])
    assert first["references"][0] == ["send", 4, "Client.chat", "call", None, True]


def test_a_build_without_a_graph_reads_as_empty_and_is_refused_with_what_to_do(tmp_path):
    assert read_graph(tmp_path) == {}
    with pytest.raises(GraphUnavailable, match="re-ingest"):
        check_version({}, "IDX")
    with pytest.raises(GraphUnavailable, match="version 99"):
        check_version({"graph": {"version": 99}}, "IDX")
    check_version({"graph": {"version": GRAPH_VERSION}}, "IDX")
