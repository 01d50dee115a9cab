"""indexers/build/rowmap.py: a build's rows in source order. ``RowMap.from_spans`` (what opening a
build runs: one lexsort over arrays) numbers every line as the plain-Python reference below
(``_by_path``: the spans as tuples, sorted; what opening a build ran before from_spans) does, on
random segment layouts with masked files, reordered paths and files split across segments;
``read_span_arrays`` reads docs.json and refuses malformed files."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from indexers.build.rowmap import Mapping, RowMap, read_span_arrays


def _by_path(sizes: list[int], masked: list[np.ndarray], spans: list[list[tuple[str, int, int]]]) -> RowMap:
    """Rows in path order from each segment's live (path, first line, lines) spans."""
    live = sorted((path, i, start, count) for i, own in enumerate(spans) for path, start, count in own)
    per_segment: list[list[tuple[int, int, int]]] = [[] for _ in sizes]  # start, count, row
    row = 0
    for _, i, start, count in live:
        per_segment[i].append((start, count, row))
        row += count
    assert row == sum(size - len(rows) for size, rows in zip(sizes, masked, strict=True))
    to_row = [
        _segment_rows(size, len(rows), own)
        for size, rows, own in zip(sizes, masked, per_segment, strict=True)
    ]
    return RowMap(sizes, to_row, row)


def _segment_rows(size: int, n_masked: int, spans: list[tuple[int, int, int]]) -> Mapping:
    """An offset when the segment's lines are consecutive rows in line order, else local -> row."""
    spans.sort()
    if not n_masked and spans and spans[0][0] == 0 and sum(s[1] for s in spans) == size:
        first_row = spans[0][2]
        if all(start - row == -first_row for start, _, row in spans):
            return first_row
    mapping = np.full(size, -1, dtype=np.int64)
    for start, count, first in spans:
        mapping[start : start + count] = np.arange(first, first + count)
    return mapping


def _layout(rng: random.Random) -> tuple[list[int], list[np.ndarray], list[list[tuple[str, int, int]]]]:
    """Segments of files (path, first line, lines); some files masked (all their lines) in their
    segment and re-written in a later one, as incremental builds leave them."""
    sizes, masked, spans = [], [], []
    written: dict[str, int] = {}
    for _ in range(rng.randint(1, 4)):
        own, line = [], 0
        for _ in range(rng.randint(0, 12)):
            path = f"d{rng.randint(0, 3)}/f{rng.randint(0, 30):02d}.md"
            if any(p == path for p, _, _ in own):
                continue
            count = rng.randint(1, 5)
            own.append((path, line, count))
            line += count
        sizes.append(line)
        masked.append(np.zeros(0, dtype=np.int64))
        spans.append(own)
        for path, _, _ in own:  # a path written again masks its earlier lines
            if path in written:
                seg = written[path]
                old = next((s, c) for p, s, c in spans[seg] if p == path)
                masked[seg] = np.union1d(masked[seg], np.arange(old[0], old[0] + old[1]))
                spans[seg] = [t for t in spans[seg] if t[0] != path]
            written[path] = len(spans) - 1
    return sizes, masked, spans


def test_from_spans_numbers_rows_as_the_reference() -> None:
    rng = random.Random(2)
    for _ in range(300):
        sizes, masked, spans = _layout(rng)
        expected = _by_path(sizes, masked, spans)
        paths = [p for own in spans for p, _, _ in own]
        arrays = np.array([(i, s, c) for i, own in enumerate(spans) for _, s, c in own], dtype=np.int64)
        got = RowMap.from_spans(sizes, masked, paths, arrays.reshape(-1, 3))
        assert got.n_rows == expected.n_rows and got.sizes == expected.sizes
        for a, b in zip(got.to_row, expected.to_row, strict=True):
            assert type(a) is type(b) and np.array_equal(a, b)
    with pytest.raises(ValueError, match="live lines"):
        RowMap.from_spans([3], [np.zeros(0, dtype=np.int64)], ["a"], np.array([[0, 0, 2]]))


def test_read_span_arrays(tmp_path: Path) -> None:
    path = tmp_path / "docs.json"
    path.write_text(json.dumps([["b.md", 0, 3], ["a.md", 3, 2]]), encoding="utf-8")
    paths, spans = read_span_arrays(path)
    assert paths == ["b.md", "a.md"] and spans.tolist() == [[0, 3], [3, 2]] and spans.dtype == np.int64
    path.write_text("[]", encoding="utf-8")
    assert read_span_arrays(path)[1].shape == (0, 2)
    for bad in ('[["a.md", 0]]', '{"a": 1}', "[[1, 0, 2]]", '[["a.md", "x", 2]]', "not json"):
        path.write_text(bad, encoding="utf-8")
        with pytest.raises((ValueError, TypeError)):
            read_span_arrays(path)
