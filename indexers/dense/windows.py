"""Sentence windows: a second, finer view of each chunk for the vector side.

A mean-pooled embedding of a 200-token chunk is the average of everything the chunk says, so a
question about one sentence of it meets a vector diluted by the rest (on e5-small, Chinese chunks
of a docs tree all sit at cosine 0.89-0.91 to a paraphrased question). Each chunk's text is
therefore also cut into windows of whole sentences (``WINDOW_WIDTH`` characters, a CJK character
counting as ``CJK_WIDTH``: about 40-50 model tokens either way) under the chunk's heading line, and
every window is embedded as a passage too. A chunk's vector-side score is the best of its own
cosine and its windows' (MaxP, Dai & Callan, SIGIR 2019): the chunk stays the unit that is indexed,
ranked, collapsed and shown; the windows only sharpen its cosine. A corpus calibrated as code
search (the code-search prior, indexers/ranking/calibrate.py ``is_code_corpus``) gets none
(flows/stages.py) and is searched without any (indexers/ranking/policy.py
``Calibration.reads_windows``).

Only the vector side's candidates are re-scored (``PassageVectors.rescore``), so a search reads the
windows of ~100 rows, not all of them; the build-time calibrations score every row
(``PassageVectors.block``). A chunk that is one window has none of its own (its vector is that
window's). Stored per segment as a CSR layout (indexers/build/files.py)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import numpy.typing as npt

from indexers.build.files import WINDOW_KEYS_FILE, WINDOW_OFFSETS_FILE, WINDOW_VECTORS_FILE
from indexers.build.passage_vectors import KEY_DTYPE
from parsers.scripts import han_count

# Changing how windows are cut changes what a build's window vectors mean: bump it, and the next
# ingest embeds the new windows (their keys are their texts, so unchanged windows are reused).
WINDOWS_VERSION = 1
WINDOW_WIDTH = 200
CJK_WIDTH = 5 / 3  # 120 CJK characters fill a window, as 200 of Latin text do

# A sentence ends at CJK sentence punctuation, at . ; : before a space, or at a line break.
_SENTENCE_END = re.compile(r"(?<=[。！？；!?])|(?<=[.;:])\s+|\n+")


def _width(text: str) -> float:
    cjk = han_count(text)
    return len(text) + (CJK_WIDTH - 1) * cjk


def window_texts(index_text: str, width: int = WINDOW_WIDTH) -> list[str]:
    """The windows of one chunk's indexed text (its first line, the heading path, leads each), or
    [] when the text is one window. Sentences are packed greedily in order; a sentence wider than
    ``width`` is a window of its own."""
    head, sep, body = index_text.partition("\n")
    if not sep:
        head, body = "", index_text
    sentences = [s.strip() for s in _SENTENCE_END.split(body) if s and s.strip()]
    windows: list[str] = []
    current = ""
    for sentence in sentences:
        if current and _width(current) + _width(sentence) > width:
            windows.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}" if current else sentence
    if current:
        windows.append(current)
    if len(windows) <= 1:
        return []
    return [f"{head}\n{w}" if head else w for w in windows]


@dataclass(frozen=True)
class Windows:
    """The window vectors of a run of chunks: ``offsets`` (n + 1, int64) cut ``vectors`` (float32,
    L2-normalised) into each chunk's windows; ``keys`` (S64 embedding keys) are what a later build
    reuses."""

    offsets: npt.NDArray[np.int64]
    vectors: npt.NDArray[np.float32]
    keys: npt.NDArray[np.bytes_]

    def __post_init__(self) -> None:
        if len(self.offsets) == 0 or self.offsets[0] != 0 or self.offsets[-1] != len(self.vectors):
            raise ValueError(f"window offsets end at {self.offsets[-1:]}, for {len(self.vectors)} vectors")
        if len(self.keys) != len(self.vectors):
            raise ValueError(f"{len(self.keys)} window keys for {len(self.vectors)} window vectors")

    @property
    def chunks(self) -> int:
        return len(self.offsets) - 1

    def take(self, lines: npt.NDArray[np.int64]) -> Windows:
        """The windows of ``lines`` (in that order), offsets renumbered: a merge's gather."""
        starts, stops = self.offsets[lines], self.offsets[lines + 1]
        counts = stops - starts
        offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        # output window i of line j is window starts[j] + (i - offsets[j]) of this run
        picks = np.arange(int(offsets[-1]), dtype=np.int64) + np.repeat(starts - offsets[:-1], counts)
        return Windows(offsets, np.ascontiguousarray(self.vectors[picks]), self.keys[picks])

    @staticmethod
    def concat(parts: Sequence[Windows]) -> Windows:
        offsets = [np.zeros(1, dtype=np.int64)]
        base = 0
        for part in parts:
            offsets.append(part.offsets[1:] + base)
            base += len(part.vectors)
        dim = next((p.vectors.shape[1] for p in parts if p.vectors.ndim == 2), 0)
        vectors = [p.vectors.reshape(-1, dim) for p in parts] or [np.zeros((0, dim), np.float32)]
        keys = [p.keys for p in parts] or [np.zeros(0, dtype=KEY_DTYPE)]
        return Windows(
            np.concatenate(offsets), np.concatenate(vectors).astype(np.float32), np.concatenate(keys)
        )


def best_window_cosines(windows: Windows, lines: npt.NDArray[np.int64], query: np.ndarray) -> np.ndarray:
    """Per line of ``lines``, the best cosine of its windows to ``query`` (-inf: it has none)."""
    out = np.full(len(lines), -np.inf, dtype=np.float32)
    starts, stops = windows.offsets[lines], windows.offsets[lines + 1]
    q = np.asarray(query, dtype=np.float32).reshape(-1)
    for i, (a, b) in enumerate(zip(starts.tolist(), stops.tolist(), strict=True)):
        if b > a:
            out[i] = float(np.max(np.asarray(windows.vectors[a:b]) @ q))
    return out


class PassageVectors:
    """A build's passage vectors for the calibrations: one per chunk (``chunks``), and the
    ``windows`` of those chunks when the build has them. ``block`` scores rows as a search does:
    the best of the chunk's cosine and its windows'."""

    def __init__(self, chunks: np.ndarray, windows: Windows | None = None) -> None:
        if windows is not None and windows.chunks != len(chunks):
            raise ValueError(f"windows for {windows.chunks} chunks, {len(chunks)} vectors")
        self.chunks = chunks
        self.windows = windows

    def __len__(self) -> int:
        return len(self.chunks)

    def block(self, start: int, stop: int, queries: np.ndarray) -> np.ndarray:
        """Scores of rows ``start:stop`` against ``queries`` (m, dim): shape (stop - start, m)."""
        sims = np.asarray(self.chunks[start:stop] @ queries.T, dtype=np.float32)
        if self.windows is None:
            return sims
        offsets = self.windows.offsets[start : stop + 1]
        counts = np.diff(offsets)
        has = counts > 0
        if not has.any():
            return sims
        first, last = int(offsets[0]), int(offsets[-1])
        window_sims = np.asarray(self.windows.vectors[first:last] @ queries.T, dtype=np.float32)
        best = np.maximum.reduceat(window_sims, offsets[:-1][has] - first, axis=0)
        sims[has] = np.maximum(sims[has], best)
        return sims

    def held_out_best(self, row: int, texts: Sequence[str], held_out: str, query: np.ndarray) -> float:
        """The best cosine to ``query`` of row ``row``'s windows (their ``texts``) other than those
        holding the ``held_out`` sentence: what the chunk scores once a pseudo-query is cut out of
        it (-inf: no window left, or none stored)."""
        if self.windows is None:
            return -np.inf
        start, stop = int(self.windows.offsets[row]), int(self.windows.offsets[row + 1])
        if stop == start or len(texts) != stop - start:
            return -np.inf
        keep = [i for i, text in enumerate(texts) if i not in _holding(texts, held_out)]
        if not keep:
            return -np.inf
        own = np.asarray(self.windows.vectors[start:stop], dtype=np.float32)[keep]
        return float(np.max(own @ np.asarray(query, dtype=np.float32).reshape(-1)))

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Every row's score against one query vector."""
        return self.block(0, len(self), np.asarray(query, dtype=np.float32).reshape(1, -1))[:, 0]


def save_windows(folder: Path, windows: Windows) -> list[Path]:
    """A segment's window files (indexers/build/files.py); returns their paths."""
    saved = []
    for name, array in (
        (WINDOW_OFFSETS_FILE, np.asarray(windows.offsets, dtype=np.int64)),
        (WINDOW_VECTORS_FILE, np.ascontiguousarray(windows.vectors, dtype=np.float32)),
        (WINDOW_KEYS_FILE, np.asarray(windows.keys, dtype=KEY_DTYPE)),
    ):
        np.save(folder / name, array, allow_pickle=False)
        saved.append(folder / name)
    return saved


def load_windows(folder: Path, lines: int, mmap: bool = True) -> Windows | None:
    """A segment's windows, or None for a segment written without them."""
    if not (folder / WINDOW_OFFSETS_FILE).exists():
        return None
    mode: Literal["r"] | None = "r" if mmap else None
    windows = Windows(
        np.load(folder / WINDOW_OFFSETS_FILE, allow_pickle=False),
        np.load(folder / WINDOW_VECTORS_FILE, mmap_mode=mode, allow_pickle=False),
        np.load(folder / WINDOW_KEYS_FILE, mmap_mode=mode, allow_pickle=False),
    )
    if windows.chunks != lines:
        raise ValueError(
            f"{folder / WINDOW_OFFSETS_FILE} has windows for {windows.chunks} lines, not {lines}"
        )
    return windows


def _holding(texts: Sequence[str], held_out: str) -> set[int]:
    """Which of ``texts`` hold ``held_out`` (whitespace ignored); when none holds it whole (it
    spans two), the one sharing most of its characters' trigrams."""
    compact = re.sub(r"\s+", "", held_out)
    if not compact:
        return set()
    flat = [re.sub(r"\s+", "", t) for t in texts]
    holding = {i for i, t in enumerate(flat) if compact in t}
    if holding:
        return holding
    grams = {compact[i : i + 3] for i in range(max(1, len(compact) - 2))}
    shares = [sum(g in t for g in grams) for t in flat]
    return {int(np.argmax(shares))}


def as_passages(vectors: np.ndarray | PassageVectors) -> PassageVectors:
    """``vectors`` as PassageVectors (a plain array: one vector per chunk, no windows)."""
    return vectors if isinstance(vectors, PassageVectors) else PassageVectors(vectors)
