import json

import pytest

from docmill.cli import main


@pytest.fixture(scope="module")
def cli_index(tmp_path_factory, small_tree):
    index = tmp_path_factory.mktemp("cli") / "idx"
    assert main(["ingest", str(small_tree), "--index", str(index)]) == 0
    return index


def test_ingest_prints_a_summary_and_json(cli_index, small_tree, capsys, tmp_path):
    assert main(["ingest", str(small_tree), "--index", str(tmp_path / "i2"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["indexed"] == 3 and report["skipped"] == 1 and report["empty"] == 1 and report["chunks"] > 3
    assert {s["path"] for s in report["skipped_files"]} == {"proj/notes/broken.pdf"}
    assert report["empty_files"] == ["proj/notes/empty.md"]


def test_strict_ingest_exits_non_zero(small_tree, tmp_path, capsys):
    assert main(["ingest", str(small_tree), "--index", str(tmp_path / "i3"), "--strict"]) == 1
    assert "strict mode: 1 file(s) skipped" in capsys.readouterr().err  # empty.md is not a failure


def test_query_json_shape(cli_index, capsys):
    assert main(["query", str(cli_index), "LRU cache eviction", "--k", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["abstained"] is False and len(out["hits"]) == 2
    hit = out["hits"][0]
    assert set(hit) >= {
        "chunk_id",
        "score",
        "path",
        "kind",
        "heading_path",
        "page",
        "lines",
        "text",
        "explain",
        "ranks",
    }
    assert set(hit["ranks"]) == {"bm25", "vector"}
    assert hit["path"] == "proj/src/cache.py"
    assert isinstance(hit["siblings"], list)


def test_query_collapse_option(cli_index, capsys):
    assert (
        main(["query", str(cli_index), "LRU cache eviction", "--k", "5", "--json", "--collapse", "none"]) == 0
    )
    flat = json.loads(capsys.readouterr().out)["hits"]
    assert all(h["siblings"] == [] for h in flat)
    assert main(["query", str(cli_index), "LRU cache eviction", "--k", "5", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    places = [(h["path"], h["symbol"] or "", tuple(h["heading_path"])) for h in hits]
    assert len(places) == len(set(places))
    # what collapsed into a hit is still there, as its siblings
    ids = {h["chunk_id"] for h in hits} | {s["chunk_id"] for h in hits for s in h["siblings"]}
    assert {h["chunk_id"] for h in flat[: len(hits)]} <= ids


def test_query_and_inspect_also_take_the_index_as_an_option_like_ingest(cli_index, capsys):
    assert main(["query", "--json", "LRU cache eviction", "--index", str(cli_index), "--k", "1"]) == 0
    by_option = json.loads(capsys.readouterr().out)
    assert main(["query", str(cli_index), "LRU cache eviction", "--k", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == by_option
    assert by_option["hits"][0]["symbol_path"].startswith("proj/src/cache.py::LRUCache")
    assert main(["inspect", f"--index={cli_index}"]) == 0
    assert "build" in capsys.readouterr().out


def test_query_abstains_in_json(cli_index, capsys):
    assert main(["query", str(cli_index), "zzqx vorpal brillig", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hits"] == [] and out["abstained"] is True and out["reason"]


def test_query_with_filter_and_text_output(cli_index, capsys):
    assert (
        main(
            [
                "query",
                str(cli_index),
                "windows admin rights",
                "--mode",
                "bm25",
                "--filter",
                "kind=table",
                "--no-abstain",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("confidence ")
    assert out.splitlines()[1].startswith("[1] proj/guide/install.md > Guide > Platforms")
    assert "bm25#1(" in out


def test_parse_and_chunk_json(small_tree, capsys):
    assert main(["parse", str(small_tree / "guide/install.md"), "--json"]) == 0
    parsed = json.loads(capsys.readouterr().out)
    kinds = [b["kind"] for b in parsed["blocks"]]
    assert "table" in kinds
    table = next(b for b in parsed["blocks"] if b["kind"] == "table")
    assert table["table"]["rows"][0] == ["Platform", "Minimum version", "Notes"]
    assert main(["chunk", str(small_tree / "src/cache.py"), "--json"]) == 0
    chunks = json.loads(capsys.readouterr().out)
    assert any(c["symbol"] == "LRUCache.evict_oldest" for c in chunks)


def test_inspect_verifies_and_errors_are_clear(cli_index, tmp_path, capsys):
    assert main(["inspect", str(cli_index), "--verify"]) == 0
    out = capsys.readouterr().out
    assert "files verified (sizes and checksums)" in out and "skipped: not a PDF" in out
    assert main(["query", str(tmp_path / "nowhere"), "x"]) == 1
    assert "holds no docmill index" in capsys.readouterr().err
    assert main(["query", str(cli_index), "x", "--mode", "fuzzy"]) == 1
    assert "unknown mode 'fuzzy'" in capsys.readouterr().err


def test_ingest_json_reports_the_incremental_diff(small_tree, tmp_path, capsys):
    index = str(tmp_path / "inc")
    assert main(["ingest", str(small_tree), "--index", index, "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert set(first) >= {"added", "changed", "removed", "unchanged", "skipped", "chunks", "seconds", "build"}
    assert first["added"] == 5 and first["unchanged"] == 0 and first["published"] is True
    assert main(["ingest", str(small_tree), "--index", index, "--json"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert (second["added"], second["changed"], second["unchanged"]) == (0, 0, 5)
    assert second["published"] is False and second["build"] == first["build"]
