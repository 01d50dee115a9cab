"""Embeddings a build may reuse and the texts that need the model: ``embedding_key`` (model id +
indexed text), ``EmbeddingCache`` (an earlier build's vectors by key), ``embedding_work`` /
``assemble_vectors`` (which texts to embed, then one row per chunk), and the encoders the embed
stage (flows.stages.embed) uses in process: ``encode_in_slices`` and ``encode_texts``."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from chunkers.model import Chunk
from indexers.build.manifest import Manifest
from indexers.build.passage_vectors import KEY_DTYPE, load_keys, load_vectors
from indexers.build.segment_info import segment_folder, segment_infos
from indexers.dense.windows import Windows, load_windows, window_texts

if TYPE_CHECKING:
    from flows.config import IngestConfig


def embedding_key(model: str, index_text: str) -> bytes:
    """Cache key of one embedding: SHA-256 (hex, ASCII) of the model id and the embedded text. A
    renamed file whose chunks embed the same text hits the cache; another model never does."""
    return hashlib.sha256(f"{model}\x00{index_text}".encode()).hexdigest().encode("ascii")


class EmbeddingCache:
    """Embeddings of an earlier build, looked up by ``embedding_key``: each segment's
    ``embeddings.npy`` (float32 rows aligned with its chunks.jsonl) and ``embedding_keys.npy``
    (fixed 64-byte ASCII hex keys), plain arrays, no pickle."""

    def __init__(self, keys: Sequence[bytes], vectors: np.ndarray) -> None:
        if len(keys) != len(vectors):
            raise ValueError(f"{len(keys)} embedding keys for {len(vectors)} vectors")
        self.vectors = vectors
        self._rows = {bytes(key): row for row, key in enumerate(keys)}

    @classmethod
    def empty(cls) -> EmbeddingCache:
        return cls([], np.zeros((0, 0), dtype=np.float32))

    @classmethod
    def load(cls, folder: Path, manifest: Manifest) -> EmbeddingCache:
        """Every line's vector in every segment of the build in ``folder`` (masked lines too)."""
        keys: list[bytes] = []
        vectors = []
        for info in segment_infos(manifest.segments):
            segment = segment_folder(folder, info.name)
            keys += load_keys(segment).tolist()
            vectors.append(load_vectors(segment))
            windows = load_windows(segment, info.rows)
            if windows is not None and len(windows.keys):  # a window's vector is reused by its text too
                keys += np.asarray(windows.keys).tolist()
                vectors.append(windows.vectors)
        return cls(keys, np.concatenate(vectors)) if vectors else cls.empty()

    def __len__(self) -> int:
        return len(self._rows)

    def __contains__(self, key: bytes) -> bool:
        return key in self._rows

    def get(self, key: bytes) -> np.ndarray:
        return np.asarray(self.vectors[self._rows[key]], dtype=np.float32)

    @property
    def dim(self) -> int | None:
        return int(self.vectors.shape[1]) if len(self) else None


@dataclass
class EmbeddingWork:
    """Which texts need the model: ``texts`` (deduplicated by key) are not in the cache. ``keys``
    are the chunks'; ``window_keys`` their sentence windows' (indexers.dense.windows), cut into each
    chunk's by ``window_offsets`` (None: the run makes no windows)."""

    keys: list[bytes]
    missing_keys: list[bytes]
    texts: list[str]
    window_keys: list[bytes] = field(default_factory=list)
    window_offsets: list[int] | None = None


def embedding_work(
    chunks: Sequence[Chunk], model: str, cache: EmbeddingCache, windows: bool = True
) -> EmbeddingWork:
    """The chunks' keys and (with ``windows``) their windows', and the texts of those not cached."""
    keys = [embedding_key(model, c.index_text) for c in chunks]
    missing: dict[bytes, str] = {}

    def want(key: bytes, text: str) -> None:
        if key not in cache and key not in missing:
            missing[key] = text

    for key, chunk in zip(keys, chunks, strict=True):
        want(key, chunk.index_text)
    if not windows:
        return EmbeddingWork(keys, list(missing), list(missing.values()))
    window_keys: list[bytes] = []
    offsets = [0]
    for chunk in chunks:
        for text in window_texts(chunk.index_text):
            window_keys.append(embedding_key(model, text))
            want(window_keys[-1], text)
        offsets.append(len(window_keys))
    return EmbeddingWork(keys, list(missing), list(missing.values()), window_keys, offsets)


def assemble_vectors(
    work: EmbeddingWork, cache: EmbeddingCache, new_vectors: np.ndarray, dim: int | None = None
) -> np.ndarray:
    """One float32 row per chunk, from the fresh vectors or the cache (``dim``: the width when
    there may be neither, e.g. a run that only deletes)."""
    if len(new_vectors) != len(work.missing_keys):
        raise ValueError(f"{len(new_vectors)} new vectors for {len(work.missing_keys)} texts")
    dim = int(new_vectors.shape[1]) if len(new_vectors) else cache.dim or dim
    if dim is None:
        raise ValueError("no vectors: nothing embedded and nothing cached")
    return _gather(work.keys, work, cache, new_vectors, dim)


def assemble_windows(
    work: EmbeddingWork, cache: EmbeddingCache, new_vectors: np.ndarray, dim: int
) -> Windows | None:
    """The chunks' window vectors (from the fresh vectors or the cache), or None when the run made
    no windows."""
    if work.window_offsets is None:
        return None
    vectors = _gather(work.window_keys, work, cache, new_vectors, dim)
    keys = np.asarray(work.window_keys, dtype=KEY_DTYPE) if work.window_keys else np.zeros(0, dtype=KEY_DTYPE)
    return Windows(np.asarray(work.window_offsets, dtype=np.int64), vectors, keys)


def _gather(
    keys: Sequence[bytes], work: EmbeddingWork, cache: EmbeddingCache, new_vectors: np.ndarray, dim: int
) -> np.ndarray:
    fresh = {key: row for row, key in enumerate(work.missing_keys)}
    out = np.empty((len(keys), dim), dtype=np.float32)
    for row, key in enumerate(keys):
        out[row] = new_vectors[fresh[key]] if key in fresh else cache.get(key)
    return out


# Up to this many texts, a run without a loaded model embeds them one by one on the torch-free
# ONNX path (indexers/query_encoder.py) instead of importing torch and sentence-transformers
# (~6 s of imports and model load, against ~10 ms a text).
FEW_TEXTS = 256


# Passages go to the model in slices of this many texts, so a long embedding reports progress.
EMBED_SLICE = 128


def encode_in_slices(model: Any, texts: Sequence[str], progress: Any = None) -> np.ndarray:
    """``model.encode`` over slices of EMBED_SLICE texts (always, so the vectors do not depend on
    whether anyone watches), calling ``progress("embed", done, total)`` before and after each."""
    texts = list(texts)
    if progress:
        progress("embed", 0, len(texts))
    parts = []
    for start in range(0, len(texts), EMBED_SLICE):
        parts.append(np.asarray(model.encode(texts[start : start + EMBED_SLICE]), dtype=np.float32))
        if progress:
            progress("embed", min(start + EMBED_SLICE, len(texts)), len(texts))
    return np.concatenate(parts) if parts else np.zeros((0, 0), dtype=np.float32)


def encode_texts(
    texts: Sequence[str], config: IngestConfig, embedder: Any = None, progress: Any = None
) -> tuple[np.ndarray, str]:
    """Vectors of ``texts`` for the config's model: with ``embedder`` when given; else, for a few
    texts and the torch/onnx backends, through the model's saved torch-free encoder (the ONNX
    export that was checked against sentence-transformers; bench/bench_incremental.py measures the
    difference to torch's vectors); else through a new Embedder, which then saves that encoder for
    the next run. Also says which: "none", "torch-free" or "model"."""
    if not texts:
        return np.zeros((0, 0), dtype=np.float32), "none"
    few = embedder is None and len(texts) <= FEW_TEXTS and config.embedding_backend in ("torch", "onnx")
    if few:
        encoder = _torch_free_encoder(config.model)
        if encoder is not None:
            return np.stack([encoder.encode(text) for text in texts]).astype(np.float32), "torch-free"
    model = embedder or config.embedder()
    vectors = encode_in_slices(model, texts, progress)
    if few:
        model.query_path  # noqa: B018 - checks and saves the torch-free encoder for next time
    return vectors, "model"


def _torch_free_encoder(model: str) -> Any:
    from indexers.dense.embedder import ModelUnavailable, resolve_model
    from indexers.dense.query_encoder import QueryEncoder

    try:
        return QueryEncoder.find(resolve_model(model), "onnx")
    except ModelUnavailable:
        return None
