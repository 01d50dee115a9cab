"""Test doubles shared by the flow tests and the subprocesses they start (loaded by file path)."""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Sequence

import numpy as np

HASH_MODEL = "test-hash-embedder"


class HashEmbedder:
    """A deterministic bag-of-words embedder: exact, instant, no model to load. It counts calls so a
    test can assert that a run embedded nothing."""

    def __init__(self, model: str = HASH_MODEL, dim: int = 64, fail: bool = False) -> None:
        self.model_name, self.dim, self.fail = model, dim, fail
        self.batch_size = 32
        self.encoded: list[str] = []
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if self.fail:
            raise AssertionError(f"the model was asked to embed {len(texts)} text(s)")
        with self._lock:
            self.encoded.extend(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)

    def tokenizer(self) -> WordTokenizer:
        return WordTokenizer()

    def query_tokenizer(self) -> WordTokenizer:
        return self.tokenizer()


class WordTokenizer:
    """Word-level stand-in for a model tokenizer: every word is known (no [UNK] pieces)."""

    unk_token_id = 0

    def __call__(self, text: str, **_: object) -> dict[str, list[int]]:
        return {"input_ids": [1] * len(re.findall(r"\w+", text))}


def clustered_vectors(n: int, dim: int, clusters: int = 40, seed: int = 0) -> np.ndarray:
    """Unit vectors from a Gaussian mixture with low-rank clusters, the shape of text embeddings
    (topics, each spread along a few directions), not uniform noise: what approximate vector
    indexes are tested on."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, dim))
    bases = rng.standard_normal((clusters, 6, dim)) * 0.5
    which = rng.integers(0, clusters, n)
    x = centres[which] + np.einsum("nk,nkd->nd", rng.standard_normal((n, 6)), bases[which])
    x += 0.15 * rng.standard_normal((n, dim))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return x.astype(np.float32)
