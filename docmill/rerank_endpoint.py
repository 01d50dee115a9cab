"""Rerank through a Cohere-style ``/rerank`` endpoint (Cohere, Jina, vLLM, Infinity, a local
bge-reranker server ...)::

    POST {url}/rerank  {"model": M, "query": Q, "documents": [D...], "top_n": N}
      -> {"results": [{"index": i, "relevance_score": s}, ...]}

``EndpointReranker`` is usable wherever docmill.rerank.Reranker is: ``index.search(q,
rerank=EndpointReranker(url))``, ``docmill query/serve/eval --rerank-url``. Any failure (refused
connection, timeout, 4xx/5xx after a retry, an answer in another shape) raises
docmill.rerank.RerankFailed, and search then keeps the fused order with the reason in its notes.
The API key comes from ``api_key`` or the environment (``DOCMILL_RERANK_API_KEY``, else
``COHERE_API_KEY``). httpx is imported on first use.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Sequence
from typing import Any

from docmill.hits import Hit
from docmill.rerank import RerankFailed, _check_top_n, apply_scores
from indexers.dense.http_retry import RERANK_RETRY_STATUS, LazyClient, post_retrying

API_KEY_ENVS = ("DOCMILL_RERANK_API_KEY", "COHERE_API_KEY")


def rerank_url(url: str) -> str:
    """The POST target: ``url`` itself if it ends in /rerank, else ``url + "/rerank"``."""
    url = url.rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"rerank URL must start with http:// or https://, got {url!r}")
    return url if url.endswith("/rerank") else url + "/rerank"


class EndpointReranker:
    """Scores (query, ``hit.chunk.index_text``) pairs with a remote reranker; thread-safe.

    ``timeout``: seconds per request; ``retries``: extra attempts on 429/5xx/timeouts/refused
    connections; ``cooldown``: after a failure, seconds during which calls fail at once (a server
    should not wait on a dead reranker for every query); ``max_chars``: each document is cut to
    this many characters (a request stays bounded).
    """

    def __init__(
        self,
        url: str,
        model: str = "",
        timeout: float = 10.0,
        retries: int = 1,
        backoff: float = 0.2,
        api_key: str | None = None,
        cooldown: float = 15.0,
        max_chars: int = 4000,
    ) -> None:
        if timeout <= 0 or retries < 0 or backoff < 0 or cooldown < 0 or max_chars <= 0:
            raise ValueError("timeout and max_chars must be positive; retries, backoff, cooldown >= 0")
        self.url, self.target, self.model_name = url, rerank_url(url), model
        self.timeout, self.retries, self.backoff, self.cooldown = timeout, retries, backoff, cooldown
        self.max_chars = max_chars
        self.api_key = api_key if api_key is not None else _key_from_env()
        self._client = LazyClient(timeout, self.api_key)
        self._down_until, self._down_reason = 0.0, ""
        self.requests = 0

    def rerank(self, query: str, hits: Sequence[Hit], top_n: int | None = None) -> list[Hit]:
        """The ``top_n`` best of ``hits`` by the endpoint's relevance score (ties and any hits the
        endpoint left unscored keep the fused order; unscored ones come last, unchanged)."""
        _check_top_n(top_n)
        if not hits:
            return []
        scores = self.scores(query, hits)
        scored = [i for i, s in enumerate(scores) if s is not None]
        ranked = apply_scores([hits[i] for i in scored], [scores[i] for i in scored])  # type: ignore[misc]
        ranked += [hits[i] for i, s in enumerate(scores) if s is None]
        return ranked if top_n is None else ranked[:top_n]

    def scores(self, query: str, hits: Sequence[Hit]) -> list[float | None]:
        """One relevance score per hit (None where the endpoint returned none), in the order given."""
        if self.cooldown and time.monotonic() < self._down_until:
            raise RerankFailed(self._down_reason)
        body = {
            "model": self.model_name,
            "query": query,
            "documents": [hit.chunk.index_text[: self.max_chars] for hit in hits],
            "top_n": len(hits),
        }
        try:
            return _parse(self._post(body), len(hits), self.target)
        except RerankFailed as exc:
            if self.cooldown:
                self._down_until, self._down_reason = time.monotonic() + self.cooldown, str(exc)
            raise

    def _count_request(self) -> None:
        self.requests += 1

    def _post(self, body: dict[str, Any]) -> Any:
        response, problem = post_retrying(
            self._client.get(),
            self.target,
            body,
            retries=self.retries,
            backoff=self.backoff,
            timeout=self.timeout,
            retry_status=RERANK_RETRY_STATUS,
            on_attempt=self._count_request,
        )
        if response is not None:
            if response.status_code >= 400:
                hint = " (set DOCMILL_RERANK_API_KEY)" if response.status_code in (401, 403) else ""
                raise RerankFailed(f"{self.target} answered HTTP {response.status_code}{hint}")
            try:
                return response.json()
            except ValueError as exc:
                raise RerankFailed(f"{self.target} did not answer JSON: {exc}") from exc
        raise RerankFailed(f"reranker {self.target} failed after {self.retries + 1} attempts: {problem}")

    def close(self) -> None:
        self._client.close()


def _parse(answer: Any, n: int, target: str) -> list[float | None]:
    """Scores by document index from ``{"results": [{"index", "relevance_score"}]}``; anything
    else (an index out of range or twice, a score that is not a finite number) is RerankFailed."""
    scores: list[float | None] = [None] * n
    try:
        results = answer["results"]
        for item in results:
            i, score = item["index"], item["relevance_score"]
            if not isinstance(i, int) or not 0 <= i < n or scores[i] is not None:
                raise ValueError(f"bad document index {i!r}")
            if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
                raise ValueError(f"bad relevance_score {score!r}")
            scores[i] = float(score)
    except (KeyError, TypeError, ValueError) as exc:
        raise RerankFailed(f"{target} did not answer in the rerank format: {exc}") from exc
    return scores


def _key_from_env() -> str | None:
    return next((os.environ[name] for name in API_KEY_ENVS if os.environ.get(name)), None)
