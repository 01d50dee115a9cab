"""Incremental re-index: diff by content hash, chunk reuse, embedding cache, identity with a full build."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import docmill
from flows import embeddings
from flows.config import IngestConfig
from flows.pipeline import run_ingest
from indexers.build.manifest import Manifest
from indexers.build.store import IndexStore

QUERIES = [
    "evict the least recently used entry",
    "install on linux",
    "windows driver prompt",
    "orbital daemon",
]


def _edit(tree: Path) -> None:
    """One of each: change, delete, add, and a rename-by-copy of an unchanged Markdown file."""
    install = tree / "guide/install.md"
    install.write_text(
        install.read_text() + "\n## Upgrade\n\nStop the orbital daemon, then rerun the installer.\n"
    )
    (tree / "src/cache.py").unlink()
    (tree / "guide/new.md").write_text("# New\n\nA new page about backups of the orbital store.\n")
    shutil.move(tree / "guide/zh.md", tree / "guide/zh-cn.md")


def _live_rows(index: Path) -> dict[str, tuple[dict, np.ndarray]]:
    """Chunk id -> (chunk JSON, vector) of every live line of the current build's segments."""
    from indexers.build.segments import segment_folder, segment_infos
    from indexers.lexical.segmented import Deletions

    folder = IndexStore(index).current_build()
    out = {}
    for info in segment_infos(Manifest.read(folder).segments):
        seg = segment_folder(folder, info.name)
        masked = set(Deletions.load(seg).rows.tolist())
        vectors = np.load(seg / "embeddings.npy")
        for row, line in enumerate((seg / "chunks.jsonl").read_text().splitlines()):
            if row not in masked:
                chunk = json.loads(line)
                out[chunk["id"]] = (chunk, vectors[row])
    return out


def _assert_same_index(a: Path, b: Path, embedder, atol: float = 0.0) -> None:
    rows_a, rows_b = _live_rows(a), _live_rows(b)
    assert sorted(rows_a) == sorted(rows_b)  # the same chunks (rows may be in another order)
    for chunk_id, (chunk, vector) in rows_a.items():
        assert chunk == rows_b[chunk_id][0]
        np.testing.assert_allclose(vector, rows_b[chunk_id][1], atol=atol, rtol=0)
    fa, fb = IndexStore(a).current_build(), IndexStore(b).current_build()
    ma, mb = Manifest.read(fa), Manifest.read(fb)
    assert ma.documents == mb.documents and ma.counts == mb.counts
    ia, ib = docmill.open_index(a, embedder=embedder), docmill.open_index(b, embedder=embedder)
    assert (ia.bm25.n_docs, ia.bm25.avgdl) == (ib.bm25.n_docs, ib.bm25.avgdl)  # exact statistics
    for query in QUERIES:
        for mode in ("bm25", "vector", "hybrid"):
            ha = ia.search(query, k=5, mode=mode, abstain=False).hits
            hb = ib.search(query, k=5, mode=mode, abstain=False).hits
            assert [h.chunk.id for h in ha] == [h.chunk.id for h in hb], (query, mode)
            # vectors agree to 1e-5 (atol above); z-score fusion carries that into its scores
            assert [h.score for h in ha] == pytest.approx([h.score for h in hb], abs=1e-3), (query, mode)


def test_incremental_run_equals_full_rebuild(tree_copy, tmp_path, hash_config, hash_embedder):
    index = tmp_path / "idx"
    first = run_ingest([tree_copy], index, hash_config, embedder=hash_embedder)
    assert (first.added, first.changed, first.removed, first.unchanged, first.parsed) == (5, 0, 0, 0, 5)
    _edit(tree_copy)
    hash_embedder.encoded.clear()
    second = run_ingest([tree_copy], index, hash_config, embedder=hash_embedder)
    assert second.to_json() == {
        "added": 2,  # new.md and zh-cn.md (the rename)
        "changed": 1,
        "removed": 2,  # cache.py and zh.md
        "unchanged": 2,  # broken.pdf (skipped) and empty.md (empty) both times, not re-parsed
        "skipped": 1,
        "empty": 1,
        "chunks": second.chunks,
        "seconds": round(second.seconds, 3),
        "build": second.build,
        "reparsed": {},  # no parser's version moved between the two runs
    }
    assert second.parsed == 3 and second.published and second.previous_build == first.build
    # Only new text went through the model: the renamed file's chunk and the unchanged install.md
    # chunks came from the cache, deleted cache.py's chunks are gone.
    assert second.embedded == len(hash_embedder.encoded) == 2
    assert all("orbital store" in t or "Upgrade" in t for t in hash_embedder.encoded)
    assert not any(
        c.path.endswith("cache.py") for c in docmill.open_index(index, embedder=hash_embedder).chunks.all()
    )
    full = run_ingest([tree_copy], tmp_path / "full", hash_config, embedder=hash_embedder, full_rebuild=True)
    assert full.chunks == second.chunks
    _assert_same_index(index, tmp_path / "full", hash_embedder)
    summary = Manifest.read(IndexStore(index).current_build()).extra["incremental"]
    assert summary["changed"] == ["proj/guide/install.md"] and summary["removed"] == [
        "proj/guide/zh.md",
        "proj/src/cache.py",
    ]
    assert summary["parsed"] == ["proj/guide/install.md", "proj/guide/new.md", "proj/guide/zh-cn.md"]


@pytest.mark.slow
def test_incremental_equals_full_rebuild_with_the_real_model(tree_copy, tmp_path, embedder):
    index = tmp_path / "idx"
    run_ingest([tree_copy], index, embedder=embedder)
    _edit(tree_copy)
    report = run_ingest([tree_copy], index, embedder=embedder)
    assert report.embedded == 2
    run_ingest([tree_copy], tmp_path / "full", embedder=embedder, full_rebuild=True)
    # Vectors computed in other batches differ in the last float bits, nothing more.
    _assert_same_index(index, tmp_path / "full", embedder, atol=1e-5)


def test_unchanged_tree_publishes_nothing_and_loads_no_model(tree_copy, tmp_path, hash_config, hash_embedder):
    from docmill_test_fakes import HashEmbedder

    index = tmp_path / "idx"
    first = run_ingest([tree_copy], index, hash_config, embedder=hash_embedder)
    again = run_ingest([tree_copy], index, hash_config, embedder=HashEmbedder(fail=True))
    assert not again.published and again.build == first.build and again.parsed == again.embedded == 0
    assert (again.unchanged, again.added, again.changed, again.removed) == (5, 0, 0, 0)
    assert len(IndexStore(index).builds()) == 1
    (tree_copy / "src/cache.py").unlink()  # a deletion needs no embedding either
    deleted = run_ingest([tree_copy], index, hash_config, embedder=HashEmbedder(fail=True))
    assert deleted.published and deleted.removed == 1 and deleted.embedded == 0


def test_full_rebuild_and_changed_settings_reprocess_everything(
    tree_copy, tmp_path, hash_config, hash_embedder
):
    index = tmp_path / "idx"
    run_ingest([tree_copy], index, hash_config, embedder=hash_embedder)
    hash_embedder.encoded.clear()
    full = run_ingest([tree_copy], index, hash_config, embedder=hash_embedder, full_rebuild=True)
    assert full.published and full.parsed == 5 and full.embedded == full.chunks == len(hash_embedder.encoded)
    smaller = IngestConfig(model=hash_config.model, chunk=type(hash_config.chunk)(max_tokens=20))
    rechunked = run_ingest([tree_copy], index, smaller, embedder=hash_embedder)
    assert rechunked.parsed == 5 and rechunked.chunks > full.chunks  # other chunk options: re-parse


def test_a_parse_setting_that_cannot_change_the_output_reparses_nothing(
    tree_copy, tmp_path, hash_config, hash_embedder
):
    from parsers.options import ParseOptions

    index = tmp_path / "idx"
    run_ingest([tree_copy], index, hash_config, embedder=hash_embedder)
    serial = IngestConfig(model=hash_config.model, parse=ParseOptions(pdf_workers=1))
    again = run_ingest([tree_copy], index, serial, embedder=hash_embedder)
    assert again.parsed == 0 and not again.published  # pdf_workers: how, not what
    no_ocr = IngestConfig(model=hash_config.model, parse=ParseOptions(ocr=False))
    assert run_ingest([tree_copy], index, no_ocr, embedder=hash_embedder).parsed == 5  # what: re-parse


def test_another_model_never_hits_the_cache(tree_copy, tmp_path, hash_embedder):
    from docmill_test_fakes import HashEmbedder

    index = tmp_path / "idx"
    run_ingest([tree_copy], index, IngestConfig(model="model-a"), embedder=HashEmbedder("model-a"))
    other = HashEmbedder("model-b")
    report = run_ingest([tree_copy], index, IngestConfig(model="model-b"), embedder=other)
    assert report.parsed == 0 and report.embedded == report.chunks == len(other.encoded)


def test_damaged_previous_build_is_not_reused(tree_copy, tmp_path, hash_config, hash_embedder):
    index = tmp_path / "idx"
    run_ingest([tree_copy], index, hash_config, embedder=hash_embedder)
    folder = IndexStore(index).current_build()
    segment = Manifest.read(folder).segments[0]["name"]
    with open(folder / "segments" / segment / "chunks.jsonl", "ab") as handle:
        handle.write(b'{"truncated": ')
    report = run_ingest([tree_copy], index, hash_config, embedder=hash_embedder)
    assert report.published and report.parsed == 5 and report.previous_build is None


def test_embedding_work_dedupes_and_assembles_from_cache():
    from chunkers.model import Chunk

    def chunk(i: int, text: str) -> Chunk:
        return Chunk(str(i), "d", "p", "text", text, text)

    old = embeddings.EmbeddingCache(
        [embeddings.embedding_key("m", "a")], np.array([[1.0, 0.0]], dtype=np.float32)
    )
    work = embeddings.embedding_work([chunk(0, "a"), chunk(1, "b"), chunk(2, "b")], "m", old)
    assert work.texts == ["b"] and len(work.keys) == 3
    vectors = embeddings.assemble_vectors(work, old, np.array([[0.0, 1.0]], dtype=np.float32))
    assert vectors.tolist() == [[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]]
    assert embeddings.embedding_key("m", "a") != embeddings.embedding_key("n", "a")
    with pytest.raises(ValueError, match="2 new vectors for 1 texts"):
        embeddings.assemble_vectors(work, old, np.zeros((2, 2), dtype=np.float32))


def test_embedding_keys_are_plain_arrays(tree_copy, tmp_path, hash_config, hash_embedder):
    index = tmp_path / "idx"
    run_ingest([tree_copy], index, hash_config, embedder=hash_embedder)
    build = IndexStore(index).current_build()
    name = Manifest.read(build).segments[0]["name"]
    folder = build / "segments" / name
    keys = np.load(folder / "embedding_keys.npy", allow_pickle=False)
    assert keys.dtype == np.dtype("S64") and len(keys) == len(np.load(folder / "embeddings.npy"))
    first = json.loads((folder / "chunks.jsonl").read_text().splitlines()[0])
    assert keys[0] == embeddings.embedding_key(hash_config.model, first["index_text"])
    assert f"segments/{name}/embedding_keys.npy" in Manifest.read(build).files


def test_orphaned_build_from_a_dead_writer_is_pruned(tree_copy, tmp_path, hash_config, hash_embedder):
    index = tmp_path / "idx"
    run_ingest([tree_copy], index, hash_config, embedder=hash_embedder)
    orphan = IndexStore(index).new_build_dir()  # what a kill -9 mid-build leaves behind
    (orphan / "chunks.jsonl").write_text("")
    (tree_copy / "guide/new.md").write_text("# New\n\nfresh text\n")
    run_ingest(
        [tree_copy], index, IngestConfig(model=hash_config.model, keep_builds=3), embedder=hash_embedder
    )
    assert not orphan.exists() and len(IndexStore(index).builds()) == 2
