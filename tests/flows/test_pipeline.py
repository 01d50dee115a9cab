import pytest

from flows.config import IngestConfig
from flows.pipeline import IngestError, discover, run_ingest
from indexers.build.store import IndexStore


def test_discover_ids_skip_hidden_and_outside_symlinks(tmp_path, tree):
    root = tree(
        tmp_path / "docs",
        {"a.md": "# A\n\ntext\n", ".hidden.md": "x", ".git/config": "x", "sub/b.py": "x = 1\n"},
    )
    outside = tree(tmp_path / "elsewhere", {"secret.md": "# S\n\nsecret\n"})
    (root / "link.md").symlink_to(outside / "secret.md")
    (root / "inside.md").symlink_to(root / "a.md")
    assert [r.rel_path for r in discover([root])] == ["docs/a.md", "docs/inside.md", "docs/sub/b.py"]


def test_strict_mode_fails_without_touching_the_previous_build(tmp_path, embedder, tree):
    good = tree(tmp_path / "src", {"a.md": "# Alpha\n\nThe alpha document.\n"})
    index = tmp_path / "idx"
    run_ingest([good], index, embedder=embedder)
    before = IndexStore(index).current_build()
    tree(good, {"bad.pdf": "not a pdf"})
    with pytest.raises(IngestError, match=r"strict mode: 1 file\(s\) skipped.*bad.pdf"):
        run_ingest([good], index, IngestConfig(strict=True), embedder=embedder)
    assert IndexStore(index).current_build() == before
    report = run_ingest([good], index, embedder=embedder)  # non-strict: skip recorded, build published
    assert (report.indexed, report.skipped) == (1, 1)
    assert IndexStore(index).current_build() != before


def test_nothing_indexable_publishes_nothing(tmp_path, embedder, tree):
    src = tree(tmp_path / "src", {"empty.md": "", "data.bin.pdf": "%PDF-1.4 truncated"})
    with pytest.raises(IngestError, match="nothing to index"):
        run_ingest([src], tmp_path / "idx", embedder=embedder)
    assert IndexStore(tmp_path / "idx").current_name() is None


def test_rebuild_of_same_tree_gives_same_chunk_ids(tmp_path, embedder, small_tree):
    import docmill

    a = run_ingest([small_tree], tmp_path / "a", embedder=embedder)
    b = run_ingest([small_tree], tmp_path / "b", embedder=embedder)
    assert a.chunks == b.chunks
    ia, ib = (
        docmill.open_index(tmp_path / "a", embedder=embedder),
        docmill.open_index(tmp_path / "b", embedder=embedder),
    )
    assert [c.id for c in ia.chunks.all()] == [c.id for c in ib.chunks.all()]


def test_model_coverage_is_measured_and_a_chinese_corpus_warns(tmp_path, embedder, tree, caplog):
    import logging

    from indexers.build.manifest import Manifest

    text = "在服务器上运行安装脚本，然后重启守护进程。配置文件位于目录中。" * 3
    src = tree(tmp_path / "zh", {"a.md": f"# 安装\n\n{text}\n", "b.md": f"# 配置\n\n{text}\n"})
    with caplog.at_level(logging.WARNING, logger="flows.pipeline"):
        run_ingest([src], tmp_path / "idx", embedder=embedder)
    fusion = Manifest.read(IndexStore(tmp_path / "idx").current_build()).extra["fusion"]
    assert fusion["unknown_token_share"] > 0.3
    assert "cannot read" in caplog.text
    en = tree(tmp_path / "en", {"a.md": "# Install\n\nRun the installer, then restart the daemon.\n"})
    run_ingest([en], tmp_path / "idx2", embedder=embedder)
    fusion = Manifest.read(IndexStore(tmp_path / "idx2").current_build()).extra["fusion"]
    assert fusion["unknown_token_share"] < 0.05


def test_embedding_backend_is_recorded_used_by_queries_and_keyed_in_the_cache(tmp_path, embedder, small_tree):
    import docmill
    from indexers.build.manifest import ManifestError
    from indexers.dense.embedder import Embedder

    index = tmp_path / "idx"
    first = run_ingest([small_tree], index, embedder=embedder)  # torch
    assert first.embedded == first.chunks
    int8 = IngestConfig(embedding_backend="onnx-int8")
    second = run_ingest([small_tree], index, int8)
    assert second.embedded == second.chunks  # int8 vectors are not the torch ones: all re-embedded
    opened = docmill.open_index(index)
    assert opened.manifest.embedding["backend"] == "onnx-int8"
    assert opened.embedder.backend == "onnx-int8"  # queries embed with the passages' backend
    hit = opened.search("which folder does the installer place the daemon in", k=3).hits[0]
    assert hit.chunk.path == "proj/guide/install.md"
    with pytest.raises(ManifestError, match="onnx-int8"):
        docmill.open_index(index, embedder=embedder)
    # "onnx" computes the torch vectors, so a torch build's embeddings are reused by it
    run_ingest([small_tree], index, embedder=embedder)
    onnx_config = IngestConfig(embedding_backend="onnx")
    onnx = run_ingest([small_tree], index, onnx_config, embedder=Embedder(backend="onnx"))
    assert onnx.embedded == 0 and onnx.published
    with pytest.raises(ValueError, match="embedding_backend"):
        IngestConfig(embedding_backend="cuda")
