"""Sentence windows (indexers.dense.windows): how a chunk is cut, the CSR layout a segment stores,
and the score a row gets (the best of its cosine and its windows'), against brute force."""

from __future__ import annotations

import numpy as np
import pytest

from indexers.dense.windows import (
    PassageVectors,
    Windows,
    best_window_cosines,
    load_windows,
    save_windows,
    window_texts,
)


def _unit(rows: int, dim: int, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).normal(size=(rows, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_windows_are_whole_sentences_under_the_heading_line():
    sentence = "The lighthouse keeper walks the stairs every evening before the lamp is lit. "
    text = "Guide > Lighthouse\n" + sentence * 6
    windows = window_texts(text, width=200)
    assert len(windows) == 3  # two 78-character sentences fill a 200-wide window
    for window in windows:
        head, _, body = window.partition("\n")
        assert head == "Guide > Lighthouse"
        assert body.endswith("lit.") and body.count("lighthouse keeper") == 2
    assert window_texts("Guide\nOne short sentence. And another.") == []  # one window: none of its own


def test_chinese_sentences_count_wider_than_latin_letters():
    sentence = "组件挂载时会依次创建实例并渲染模板。"  # 18 characters
    text = "指南 > 生命周期\n" + sentence * 12  # 216 characters
    windows = window_texts(text, width=200)
    # 120 CJK characters fill a window (x 5/3 = 200), so 216 take two windows, not one
    assert len(windows) == 2 and all(w.startswith("指南 > 生命周期\n") for w in windows)
    assert "".join(w.split("\n", 1)[1].replace(" ", "") for w in windows) == sentence * 12


def test_block_scores_are_the_best_of_chunk_and_windows():
    chunks = _unit(7, 16, 1)
    counts = [0, 3, 1, 0, 2, 4, 0]
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    windows = Windows(offsets, _unit(int(offsets[-1]), 16, 2), np.asarray([b"k"] * int(offsets[-1]), "S64"))
    queries = _unit(5, 16, 3)
    passages = PassageVectors(chunks, windows)
    expected = chunks @ queries.T
    for row, count in enumerate(counts):
        if count:
            mine = windows.vectors[offsets[row] : offsets[row + 1]] @ queries.T
            expected[row] = np.maximum(expected[row], mine.max(axis=0))
    assert passages.block(0, 7, queries) == pytest.approx(expected, abs=1e-6)
    assert passages.block(2, 6, queries) == pytest.approx(expected[2:6], abs=1e-6)
    assert PassageVectors(chunks).block(0, 7, queries) == pytest.approx(chunks @ queries.T, abs=1e-6)
    lines = np.asarray([5, 0, 1], dtype=np.int64)
    best = best_window_cosines(windows, lines, queries[0])
    assert best[1] == -np.inf and best[0] == pytest.approx(
        float((windows.vectors[offsets[5] : offsets[6]] @ queries[0]).max())
    )


def test_take_and_concat_keep_each_line_with_its_own_windows(tmp_path):
    counts = [2, 0, 3]
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    keys = np.asarray([f"w{i}".encode() for i in range(5)], "S64")
    windows = Windows(offsets, _unit(5, 4, 4), keys)
    taken = windows.take(np.asarray([2, 0], dtype=np.int64))
    assert taken.offsets.tolist() == [0, 3, 5] and taken.keys.tolist() == [b"w2", b"w3", b"w4", b"w0", b"w1"]
    both = Windows.concat([taken, windows])
    assert both.chunks == 5 and both.offsets.tolist() == [0, 3, 5, 7, 7, 10]
    assert np.array_equal(both.vectors[5:], windows.vectors)
    save_windows(tmp_path, both)
    loaded = load_windows(tmp_path, 5)
    assert loaded is not None and np.array_equal(loaded.vectors, both.vectors)
    with pytest.raises(ValueError, match="windows for 5 lines, not 4"):
        load_windows(tmp_path, 4)
    assert load_windows(tmp_path / "absent", 3) is None
    with pytest.raises(ValueError, match="offsets end"):
        Windows(np.asarray([0, 2], dtype=np.int64), _unit(3, 4, 5), keys[:3])
