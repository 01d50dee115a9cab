"""A segment's passage vectors, written and read here only: ``embeddings.npy``, float32 (n, dim),
one L2-normalised row per chunk line, and ``embedding_keys.npy``, S64, each line's embedding key
(SHA-256 hex of model id and indexed text, flows.embeddings.embedding_key), what a later run
reuses. Plain ``.npy`` files, never pickled.

Writers: a new segment and a merge (indexers.build.segments). Readers: the IVF-PQ exact re-score
(indexers.build.open), the embedding cache and a small run's masked lines (flows.embeddings,
indexers.build.write, flows.incremental's schema-1 builds, whose two files sit at the build's
root) and ``HybridIndex.embeddings``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from indexers.build.files import EMBEDDING_KEYS_FILE, EMBEDDINGS_FILE

# an embedding key (64 hex digits), in every file that stores keys: passages, windows, the journal
KEY_DTYPE = "S64"


def save_passage_vectors(folder: Path, vectors: np.ndarray, keys: Sequence[bytes] | np.ndarray) -> np.ndarray:
    """Write ``vectors`` (as contiguous float32) and their embedding ``keys`` into ``folder``;
    returns the float32 array written, for the FAISS index built over the same rows."""
    if len(vectors) != len(keys):
        raise ValueError(f"{len(vectors)} passage vectors, {len(keys)} embedding keys")
    stored = np.ascontiguousarray(vectors, dtype=np.float32)
    np.save(folder / EMBEDDINGS_FILE, stored, allow_pickle=False)
    np.save(folder / EMBEDDING_KEYS_FILE, np.asarray(keys, dtype=KEY_DTYPE), allow_pickle=False)
    return stored


def load_vectors(folder: Path) -> np.ndarray:
    """The vectors in ``folder``, memory-mapped read-only: a caller reads only the rows it takes."""
    return np.load(folder / EMBEDDINGS_FILE, mmap_mode="r", allow_pickle=False)


def load_keys(folder: Path) -> np.ndarray:
    """The embedding keys in ``folder`` (S64, one per vector row), read whole."""
    return np.load(folder / EMBEDDING_KEYS_FILE, allow_pickle=False)


def sizes_match(folder: Path, files: Mapping[str, Any]) -> bool:
    """Whether ``files`` (a manifest's ``files``, names relative to ``folder``) lists both files
    with the sizes they have in ``folder`` (OSError: one it lists is missing): a schema-1 build's
    check before its vectors are reused (flows.incremental.legacy_cache)."""
    for name in (EMBEDDING_KEYS_FILE, EMBEDDINGS_FILE):
        if name not in files or (folder / name).stat().st_size != files[name]["bytes"]:
            return False
    return True
