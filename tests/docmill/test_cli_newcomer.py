"""Issue 23: what a newcomer meets on the command line (progress, strict mode on packages, a
failed ingest leaves nothing behind, confidence in text output, filter values checked)."""

from __future__ import annotations

import re

from docmill.cli import main


def test_forced_progress_draws_stage_bars_with_rates_and_the_model_on_stderr(small_tree, tmp_path, capsys):
    index = tmp_path / "idx"
    assert main(["ingest", str(small_tree), "--index", str(index), "--progress", "always"]) == 0
    captured = capsys.readouterr()
    err = captured.err
    assert re.search(r"parse: 100%.*\d+/\d+ \[.*(file/s|s/file)", err), err
    assert re.search(r"embed with all-MiniLM-L6-v2 \(torch\): 100%.*(passage/s|s/passage)", err), err
    assert re.search(r"write: 100%.*4/4", err), err
    assert re.search(r"stages: diff [\d.]+ s, parse [\d.]+ s, chunk [\d.]+ s, embed [\d.]+ s, build", err)
    assert "published build" in captured.out  # the summary stays on stdout


def test_progress_off_a_terminal_is_one_line_per_stage_and_quiet_with_json(small_tree, tmp_path, capsys):
    assert main(["ingest", str(small_tree), "--index", str(tmp_path / "a")]) == 0
    err = capsys.readouterr().err  # stderr is not a TTY under pytest
    assert "%|" not in err  # no bars
    lines = err.splitlines()
    assert [line.split(":")[0] for line in lines if re.match(r"(parse|embed with .*|write): \d+ ", line)] == [
        "parse",
        "embed with all-MiniLM-L6-v2 (torch)",
        "write",
    ], err
    assert re.search(r"^parse: 5 files in [\d.]+ s \(([\d.]+ files/s|instant)\)$", err, re.M), err
    assert re.search(
        r"^embed with all-MiniLM-L6-v2 \(torch\): \d+ passages in [\d.]+ s \([\d.]+ passages/s", err, re.M
    )
    assert re.search(r"^write: 4 steps in [\d.]+ s \(chunks, vectors, bm25, manifest\)$", err, re.M), err
    assert re.search(r"^stages: diff [\d.]+ s, parse", err, re.M), err
    assert (
        main(
            [
                "ingest",
                str(small_tree),
                "--index",
                str(tmp_path / "a"),
                "--progress",
                "never",
                "--full-rebuild",
            ]
        )
        == 0
    )
    err = capsys.readouterr().err
    assert "parse:" not in err and "stages:" not in err
    assert main(["ingest", str(small_tree), "--index", str(tmp_path / "b"), "--json", "--full-rebuild"]) == 0
    err = capsys.readouterr().err
    assert "%|" not in err and "stages:" not in err


PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/sub/__init__.py": "\n",
    "pkg/sub/tool.py": 'def shout(text: str) -> str:\n    """Upper-case a greeting."""\n    return text.upper()\n',  # noqa: E501
    "pkg/README.md": "# pkg\n\nShouts greetings.\n",
    # a docs page that is only a component: nothing to index either
    "pkg/docs/index.md": "---\ntitle: API\n---\n<script setup>\nimport A from './A.vue'\n</script>\n<A />\n",
}


def test_strict_ingest_of_a_package_with_empty_init_files_succeeds_and_says_so_once(tmp_path, tree, capsys):
    from indexers.build.manifest import Manifest
    from indexers.build.store import IndexStore

    src = tree(tmp_path / "src", PACKAGE)
    index = tmp_path / "idx"
    assert main(["ingest", str(src / "pkg"), "--index", str(index), "--strict"]) == 0
    captured = capsys.readouterr()
    assert "skipped pkg/" not in captured.err  # no line per empty file
    assert captured.err.count("empty file(s)") == 1
    listed = "pkg/__init__.py, pkg/docs/index.md, pkg/sub/__init__.py"
    assert f"3 empty file(s) recorded, nothing to index: {listed}" in captured.err
    docs = {d.path: d for d in Manifest.read(IndexStore(index).current_build()).documents}
    # counted as indexed-empty in the manifest too, not as skipped (issue 23)
    assert (docs["pkg/__init__.py"].status, docs["pkg/__init__.py"].reason) == ("empty", "empty file")
    manifest = Manifest.read(IndexStore(index).current_build())
    assert (manifest.counts["empty"], manifest.counts["skipped"]) == (3, 0)
    assert docs["pkg/sub/tool.py"].status == "indexed"


def test_strict_still_fails_on_a_file_that_could_not_be_read(tmp_path, tree, capsys):
    src = tree(tmp_path / "src", {**PACKAGE, "pkg/bad.pdf": "not a pdf"})
    assert main(["ingest", str(src / "pkg"), "--index", str(tmp_path / "idx"), "--strict", "--json"]) == 1
    err = capsys.readouterr().err
    assert "strict mode: 1 file(s) skipped" in err and "pkg/bad.pdf" in err and "__init__" not in err


def test_the_summary_counts_empty_files_as_indexed_empty_not_skipped(tmp_path, tree, capsys):
    src = tree(tmp_path / "src", PACKAGE)
    assert main(["ingest", str(src / "pkg"), "--index", str(tmp_path / "idx"), "--strict"]) == 0
    out = capsys.readouterr().out
    assert "2 indexed, 3 indexed empty, 0 skipped of 5 files" in out
    tree(src, {"pkg/bad.pdf": "not a pdf"})  # a real skip is still counted as one
    assert main(["ingest", str(src / "pkg"), "--index", str(tmp_path / "idx")]) == 0
    captured = capsys.readouterr()
    assert "2 indexed, 3 indexed empty, 1 skipped of 6 files" in captured.out
    assert "skipped pkg/bad.pdf" in captured.err


def test_a_failed_first_ingest_leaves_no_index_folder_and_a_later_one_keeps_the_good_index(
    small_tree, tmp_path, capsys
):
    from indexers.build.store import IndexStore

    index = tmp_path / "idx"
    assert main(["ingest", str(tmp_path / "no-such-dir"), "--index", str(index)]) == 1
    assert "does not exist" in capsys.readouterr().err
    assert not index.exists()
    assert main(["ingest", str(small_tree), "--index", str(index)]) == 0
    store = IndexStore(index)
    before, builds = store.current_build(), store.builds()
    assert main(["ingest", str(tmp_path / "no-such-dir"), "--index", str(index)]) == 1
    assert store.current_build() == before and store.builds() == builds and (index / "LOCK").exists()


def test_an_empty_folder_given_as_index_gets_nothing_added_by_a_failed_ingest(tmp_path, capsys):
    index = tmp_path / "mine"
    index.mkdir()
    (index / "notes.txt").write_text("mine")
    assert main(["ingest", str(tmp_path / "no-such-dir"), "--index", str(index)]) == 1
    assert sorted(p.name for p in index.iterdir()) == ["notes.txt"]


def test_a_model_the_offline_hub_cannot_give_fails_at_once_and_leaves_nothing(
    small_tree, tmp_path, capsys, monkeypatch
):
    import time

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    index = tmp_path / "idx"
    started = time.monotonic()
    code = main(["ingest", str(small_tree), "--index", str(index), "--model", "intfloat/not-a-shipped-model"])
    assert code == 1 and time.monotonic() - started < 10
    err = capsys.readouterr().err
    assert "HF_HUB_OFFLINE is set" in err and "all-MiniLM-L6-v2" in err
    assert err.count("error:") == 1
    assert not index.exists()


def test_an_unreachable_hub_is_asked_once_not_retried(small_tree, tmp_path, capsys, monkeypatch):
    import socket
    import time

    with socket.socket() as sock:  # a loopback port with nobody listening: connection refused
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    index = tmp_path / "idx"
    started = time.monotonic()
    code = main(["ingest", str(small_tree), "--index", str(index), "--model", "intfloat/not-a-shipped-model"])
    assert code == 1 and time.monotonic() - started < 10
    err = capsys.readouterr().err
    assert "the model hub cannot be reached" in err and "Retrying" not in err
    assert not index.exists()


class _Hub:
    """A model hub on loopback (a real HTTP server): /api/models/<known> answers 200, the rest 404."""

    def __init__(self, known: str = "") -> None:
        import http.server
        import threading

        hub = self
        self.paths: list[str] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the http.server API)
                hub.paths.append(self.path)
                found = bool(known) and self.path == f"/api/models/{known}"
                body = b'{"id": "x"}' if found else b'{"error": "Repository not found"}'
                self.send_response(200 if found else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_a_hub_that_answers_404_fails_before_parsing_and_leaves_nothing(
    small_tree, tmp_path, capsys, monkeypatch
):
    import time

    hub = _Hub()
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    index = tmp_path / "idx"
    started = time.monotonic()
    try:
        args = ["--index", str(index), "--model", "intfloat/not-a-shipped-model"]
        code = main(["ingest", str(small_tree), *args])
    finally:
        hub.close()
    assert code == 1 and time.monotonic() - started < 10
    err = capsys.readouterr().err
    assert "has no model 'intfloat/not-a-shipped-model' (HTTP 404)" in err and "all-MiniLM-L6-v2" in err
    assert err.count("error:") == 1 and "parse:" not in err  # said before any file was parsed
    assert hub.paths == ["/api/models/intfloat/not-a-shipped-model"]  # asked once, no retries
    assert not index.exists()


def test_a_model_the_hub_has_passes_the_check(monkeypatch):
    from indexers.dense.hub import unavailable_reason

    hub = _Hub(known="someone/a-model")
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    try:
        assert unavailable_reason("someone/a-model", "someone/a-model") is None
        # a bare name is tried as given and under sentence-transformers/, both missing here
        assert "HTTP 404" in (unavailable_reason("other", "other") or "")
    finally:
        hub.close()
    assert hub.paths[-2:] == ["/api/models/other", "/api/models/sentence-transformers/other"]


def test_query_text_output_shows_confidence_and_build_answered_or_not(small_index, capsys):
    import docmill
    from indexers.build.store import IndexStore

    build = IndexStore(small_index).current_name()
    assert main(["query", str(small_index), "LRU cache eviction", "--k", "2"]) == 0
    out = capsys.readouterr().out
    answered = docmill.open_index(small_index).search("LRU cache eviction", k=2)
    assert answered.build == build  # the Python result names the build that answered
    assert f"confidence {answered.confidence:.2f} (answers at >= 0.50); build {build}" in out
    assert main(["query", str(small_index), "zzqx vorpal brillig"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"confidence 0\.[0-4]\d \(answers at >= 0\.50\); build " + re.escape(build), out)
    assert "no answer: " in out


def test_an_unknown_kind_filter_is_an_error_not_no_hits(small_index, capsys):
    assert main(["query", str(small_index), "install", "--filter", "kind=image"]) == 1
    captured = capsys.readouterr()
    assert "unknown kind 'image' in filter 'kind'; expected any of: text, table, code" in captured.err
    assert "no hits" not in captured.out
    assert main(["query", str(small_index), "install", "--filter", "kind=table", "--no-abstain"]) == 0
