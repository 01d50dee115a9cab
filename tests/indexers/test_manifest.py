import json

import pytest

import docmill
from indexers.build.manifest import Manifest, ManifestError
from indexers.build.store import IndexStore


def _copy_index(src, dst):
    import shutil

    shutil.copytree(src, dst)
    return IndexStore(dst).current_build()


def test_truncated_file_is_refused_on_open(small_index, tmp_path, embedder):
    build = _copy_index(small_index, tmp_path / "idx")
    segment = build / "segments" / Manifest.read(build).segments[0]["name"]
    data = (segment / "bm25" / "tf.npy").read_bytes()
    (segment / "bm25" / "tf.npy").write_bytes(data[:-8])
    with pytest.raises(ManifestError, match=r"bm25/tf.npy: \d+ bytes, manifest says \d+"):
        docmill.open_index(tmp_path / "idx", embedder=embedder)


def test_same_size_tampering_is_caught_by_checksum_verification(small_index, tmp_path, embedder):
    build = _copy_index(small_index, tmp_path / "idx")
    segment = build / "segments" / Manifest.read(build).segments[0]["name"]
    raw = bytearray((segment / "chunks.jsonl").read_bytes())
    raw[10] = ord("X") if raw[10] != ord("X") else ord("Y")
    (segment / "chunks.jsonl").write_bytes(bytes(raw))
    docmill.open_index(tmp_path / "idx", embedder=embedder)  # sizes match: opens
    with pytest.raises(ManifestError, match="chunks.jsonl: checksum mismatch"):
        docmill.open_index(tmp_path / "idx", embedder=embedder, verify_checksums=True)


def test_other_schema_version_is_refused(small_index, tmp_path):
    build = _copy_index(small_index, tmp_path / "idx")
    data = json.loads((build / "manifest.json").read_text())
    data["schema_version"] = 99
    (build / "manifest.json").write_text(json.dumps(data))
    with pytest.raises(ManifestError, match="schema version 99 is not supported"):
        Manifest.read(build)


def test_index_from_an_unavailable_model_is_refused(small_index, tmp_path):
    from indexers.dense.embedder import ModelUnavailable

    build = _copy_index(small_index, tmp_path / "idx")
    data = json.loads((build / "manifest.json").read_text())
    data["embedding"]["model"] = "org/model-that-is-not-here"
    (build / "manifest.json").write_text(json.dumps(data))
    with pytest.raises(ModelUnavailable, match="not available here"):
        docmill.open_index(tmp_path / "idx")
