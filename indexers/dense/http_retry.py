"""One retrying JSON POST for the endpoint clients (embeddings in indexers.dense.remote, rerank in
docmill.rerank_endpoint): timeouts, failed connections and retryable statuses are retried with
exponential backoff (a 429's Retry-After when it gives one); any other answer is returned."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection
from typing import Any

# The statuses each client retries, defined here only. The embedding endpoint (indexers.dense.remote):
# 408 Request Timeout, 409 (some gateways while a model loads), 425 Too Early, 429 Too Many
# Requests, 5xx from the server or a gateway in front of it.
RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
# The rerank endpoint (docmill.rerank_endpoint, Cohere-style): 429 and 5xx only, the set it has
# always retried (kept as it was; a failed rerank leaves the fused order).
RERANK_RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
MAX_RETRY_AFTER = 60.0


class LazyClient:
    """One httpx client per endpoint, opened on first use (httpx is imported only then), sending
    ``Authorization: Bearer KEY`` when a key is given; safe across threads; ``close`` ends it."""

    def __init__(self, timeout: float, api_key: str | None) -> None:
        self.timeout, self.api_key = timeout, api_key
        self._client: Any = None
        self._lock = threading.Lock()

    def get(self) -> Any:
        with self._lock:
            if self._client is None:
                import httpx

                headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
                self._client = httpx.Client(timeout=self.timeout, headers=headers)
            return self._client

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None


def post_retrying(
    http: Any,
    target: str,
    body: dict[str, Any],
    *,
    retries: int,
    backoff: float,
    timeout: float,
    retry_status: Collection[int] = RETRY_STATUS,
    on_attempt: Callable[[], None] | None = None,
) -> tuple[Any | None, str]:
    """POST ``body`` as JSON to ``target`` with the httpx client ``http``, up to ``retries + 1``
    times. Returns ``(response, "")`` for the first answer that is not retried (the caller checks
    its status), or ``(None, the last problem)`` when every attempt failed."""
    import httpx

    problem, hinted = "", None
    for attempt in range(retries + 1):
        if attempt:
            time.sleep(hinted if hinted is not None else backoff * 2 ** (attempt - 1))
        hinted = None
        if on_attempt is not None:
            on_attempt()
        try:
            response = http.post(target, json=body)
        except httpx.TimeoutException:
            problem = f"no answer within {timeout:g} s"
            continue
        except httpx.TransportError as exc:
            problem = f"cannot connect ({type(exc).__name__}: {exc})"
            continue
        except httpx.HTTPError as exc:  # anything else httpx raises: a failed request
            problem = f"request failed ({type(exc).__name__}: {exc})"
            continue
        if response.status_code in retry_status:
            problem = f"HTTP {response.status_code}{server_message(response)}"
            hinted = retry_after(response) if response.status_code == 429 else None
            continue
        return response, ""
    return None, problem


def server_message(response: Any) -> str:
    """``: <message>`` from an OpenAI-style error body (or the start of the text), if any."""
    try:
        body = response.json()
        message = body.get("error", body) if isinstance(body, dict) else body
        if isinstance(message, dict):
            message = message.get("message", message)
        text = str(message)
    except ValueError:
        text = response.text
    text = " ".join(text.split())[:200]
    return f": {text}" if text else ""


def retry_after(response: Any) -> float | None:
    value = response.headers.get("retry-after")
    try:
        return min(max(float(value), 0.0), MAX_RETRY_AFTER) if value is not None else None
    except ValueError:
        return None
