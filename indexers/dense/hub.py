"""Whether a model that is not a local folder can be loaded without waiting on the model hub.

sentence-transformers resolves a hub id through huggingface_hub, which retries an unreachable hub
for over a minute (each retry a warning) before it fails. ``unavailable_reason`` answers at once: the
model is in the local Hugging Face cache, or the hub answers a TCP connect within a few seconds;
otherwise ModelUnavailable says what to do (a model that ships offline, or a folder path). Under
HF_HUB_OFFLINE the hub is not asked at all.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from urllib.parse import urlparse

CONNECT_TIMEOUT = 3.0
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


def hub_reachable(timeout: float = CONNECT_TIMEOUT) -> bool:
    """One TCP connect to the hub (HF_ENDPOINT, default huggingface.co:443), no retries."""
    url = urlparse(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
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
    return None
