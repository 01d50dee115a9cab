"""Whether a model that is not a local folder can be loaded without waiting on the model hub.

sentence-transformers resolves a hub id through huggingface_hub, which retries an unreachable hub
for over a minute (each retry a warning) before it fails. ``unavailable_reason`` answers at once: the
model is in the local Hugging Face cache, or the hub answers a TCP connect within a few seconds and
then one request for the model's page (``/api/models/<id>``, no retries) with 200; otherwise
ModelUnavailable says what to do (a model that ships offline, or a folder path). Under
HF_HUB_OFFLINE the hub is not asked at all.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from urllib.parse import urlparse

CONNECT_TIMEOUT = 3.0
REQUEST_TIMEOUT = 5.0
OFFLINE_HINT = "use a model that ships offline (all-MiniLM-L6-v2, the default) or the path of a model folder"


def _offline() -> bool:
    return any(
        os.environ.get(var, "").strip().lower() in ("1", "true", "yes", "on")
        for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
    )


def _cached(repo_id: str) -> bool:
    try:
        from huggingface_hub import snapshot_download

        snapshot_download(repo_id, local_files_only=True)
    except Exception:  # not cached, an invalid id, or huggingface_hub missing: not loadable offline
        return False
    return True


def _endpoint() -> str:
    return (os.environ.get("HF_ENDPOINT") or "https://huggingface.co").rstrip("/")


def hub_reachable(timeout: float = CONNECT_TIMEOUT) -> bool:
    """One TCP connect to the hub (HF_ENDPOINT, default huggingface.co:443), no retries."""
    url = urlparse(_endpoint())
    port = url.port or (80 if url.scheme == "http" else 443)
    try:
        with socket.create_connection((url.hostname or "huggingface.co", port), timeout=timeout):
            return True
    except OSError:
        return False


def unavailable_reason(name: str, resolved: str) -> str | None:
    """Why ``name`` (resolved to ``resolved``: a folder or a hub id) cannot load without an
    unreachable or switched-off hub, or None when it can (a folder, cached, or the hub answers)."""
    if Path(resolved).is_dir():
        return None
    candidates = [resolved] if "/" in resolved else [resolved, f"sentence-transformers/{resolved}"]
    if any(_cached(c) for c in candidates):
        return None
    where = f"embedding model {name!r} is not a folder and not in the local model cache, and"
    if _offline():
        return f"{where} HF_HUB_OFFLINE is set: {OFFLINE_HINT}"
    if not hub_reachable():
        return f"{where} the model hub cannot be reached: {OFFLINE_HINT}"
    answers = [_hub_answer(c) for c in candidates]
    if any(status == 200 for status, _ in answers):
        return None
    status, detail = answers[0]
    said = f"HTTP {status}" if status else detail
    if status in (401, 403, 404):
        return f"{where} the model hub at {_endpoint()} has no model {resolved!r} ({said}): {OFFLINE_HINT}"
    return f"{where} the model hub at {_endpoint()} did not give it ({said}): {OFFLINE_HINT}"


def _hub_answer(repo_id: str, timeout: float = REQUEST_TIMEOUT) -> tuple[int, str]:
    """The hub's HTTP status for ``repo_id``'s model page (one request, no retries; HF_TOKEN sent
    when set, so a gated or private model the user may read answers 200), or (0, why) on a
    network error."""
    import httpx

    token = os.environ.get("HF_TOKEN") or os.environ.get("HUGGING_FACE_HUB_TOKEN")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        response = httpx.get(
            f"{_endpoint()}/api/models/{repo_id}", headers=headers, timeout=timeout, follow_redirects=True
        )
    except httpx.HTTPError as exc:
        return 0, f"{type(exc).__name__}: {exc}"
    return response.status_code, ""
