import numpy as np
import pytest

from indexers.build.files import EMBEDDING_KEYS_FILE, EMBEDDINGS_FILE
from indexers.build.passage_vectors import load_keys, load_vectors, save_passage_vectors, sizes_match


def test_saved_vectors_and_keys_read_back_as_written(tmp_path):
    vectors = np.arange(6, dtype=np.float64).reshape(3, 2)[::-1]  # not contiguous, not float32
    keys = [b"a" * 64, b"b" * 64, b"c" * 64]
    stored = save_passage_vectors(tmp_path, vectors, keys)
    assert stored.dtype == np.float32 and stored.flags.c_contiguous
    loaded = load_vectors(tmp_path)
    assert isinstance(loaded, np.memmap) and not loaded.flags.writeable
    np.testing.assert_array_equal(loaded, vectors.astype(np.float32))
    read_keys = load_keys(tmp_path)
    assert read_keys.dtype == np.dtype("S64") and read_keys.tolist() == keys


def test_vectors_and_keys_of_different_lengths_are_refused(tmp_path):
    with pytest.raises(ValueError, match="2 passage vectors, 1 embedding keys"):
        save_passage_vectors(tmp_path, np.zeros((2, 4), dtype=np.float32), [b"k" * 64])
    assert not (tmp_path / EMBEDDINGS_FILE).exists()


def test_sizes_match_only_when_both_files_are_listed_with_their_sizes(tmp_path):
    save_passage_vectors(tmp_path, np.ones((2, 3), dtype=np.float32), [b"x" * 64, b"y" * 64])
    files = {
        name: {"bytes": (tmp_path / name).stat().st_size} for name in (EMBEDDINGS_FILE, EMBEDDING_KEYS_FILE)
    }
    assert sizes_match(tmp_path, files)
    assert not sizes_match(tmp_path, {EMBEDDINGS_FILE: files[EMBEDDINGS_FILE]})
    assert not sizes_match(
        tmp_path, {**files, EMBEDDINGS_FILE: {"bytes": files[EMBEDDINGS_FILE]["bytes"] - 4}}
    )
    (tmp_path / EMBEDDING_KEYS_FILE).unlink()
    with pytest.raises(OSError):
        sizes_match(tmp_path, files)
