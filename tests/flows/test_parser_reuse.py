"""A parser whose version changed (parsers.registry.PARSER_VERSIONS) parses its files again on the
next plain ingest, unchanged files included, while other parsers' files and every unchanged chunk's
vector are reused; a build from before parser versions is parsed again whole, once."""

from __future__ import annotations

import json

from flows import incremental
from flows.pipeline import run_ingest
from indexers.build.files import MANIFEST
from indexers.build.manifest import Manifest
from indexers.build.store import IndexStore
from parsers.registry import PARSER_VERSIONS


def _parsers_of(index) -> dict[str, str | None]:
    manifest = Manifest.read(IndexStore(index).current_build())
    return {r.path: r.parser for r in manifest.documents}


def test_a_parser_with_a_new_version_parses_its_unchanged_files_again(
    tree_copy, tmp_path, hash_config, hash_embedder, monkeypatch
):
    index = tmp_path / "idx"
    first = run_ingest([tree_copy], index, hash_config, embedder=hash_embedder)
    markdown = [p for p, parser in _parsers_of(index).items() if parser == "markdown"]
    assert markdown and first.parsed == 5
    monkeypatch.setitem(PARSER_VERSIONS, "markdown", PARSER_VERSIONS["markdown"] + 1)
    hash_embedder.encoded.clear()
    again = run_ingest([tree_copy], index, hash_config, embedder=hash_embedder)
    assert again.published and again.parsed == len(markdown) and again.unchanged == 5
    assert again.embedded == 0 and not hash_embedder.encoded  # same chunk texts: vectors reused
    # the report says why unchanged files were parsed (a scheduled job's log, `--json`, the manifest)
    assert again.reparsed == {"markdown": len(markdown)} and again.to_json()["reparsed"] == again.reparsed
    assert f"parsed again for a new parser version: {len(markdown)} markdown" in again.summary()
    incremental_summary = Manifest.read(IndexStore(index).current_build()).extra["incremental"]
    assert incremental_summary["reparsed"] == {"markdown": len(markdown)}
    stored = Manifest.read(IndexStore(index).current_build()).extra["reuse_key"]["parsers"]
    assert stored["markdown"] == PARSER_VERSIONS["markdown"]
    settled = run_ingest([tree_copy], index, hash_config, embedder=hash_embedder)
    assert settled.parsed == 0 and not settled.published  # the new version is recorded: no-op again
    assert settled.reparsed == {} and "parsed again" not in settled.summary()


def test_a_build_from_before_parser_versions_is_parsed_again_once(
    tree_copy, tmp_path, hash_config, hash_embedder
):
    index = tmp_path / "idx"
    run_ingest([tree_copy], index, hash_config, embedder=hash_embedder)
    manifest_path = IndexStore(index).current_build() / MANIFEST
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    del manifest["extra"]["reuse_key"][incremental.PARSERS_KEY]  # as docmill wrote it before
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    hash_embedder.encoded.clear()
    again = run_ingest([tree_copy], index, hash_config, embedder=hash_embedder)
    assert again.published and again.parsed == 5 and again.embedded == 0
    assert sum(again.reparsed.values()) == 5  # every file, for the versions it was never parsed with
    assert run_ingest([tree_copy], index, hash_config, embedder=hash_embedder).parsed == 0


def test_stale_parsers_reads_only_the_versions():
    current = {"docmill": "0.1.0", "graph": 2, "parsers": {"pdf": 2, "code": 1}}
    assert incremental.stale_parsers({**current, "parsers": {"pdf": 1, "code": 1}}, current) == {"pdf"}
    assert incremental.stale_parsers(current, current) == frozenset()
    assert incremental.stale_parsers({"docmill": "0.1.0", "graph": 2}, current) == {"pdf", "code"}
    assert incremental.stale_parsers({**current, "graph": 1}, current) is None  # anything else: no reuse
    assert incremental.stale_parsers(None, current) is None
