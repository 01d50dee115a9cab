"""Who may ask the server, and how much: the bearer token and the request-body bound, checked by a
pure ASGI middleware (Guard) before the app reads anything, and the rule that an index is served
unauthenticated beyond this machine only when asked to (check_bind)."""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from docmill.serve_errors import error_response

TOKEN_ENV = "DOCMILL_TOKEN"
MAX_BODY_BYTES = 64 * 1024

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class Guard:
    """Pure ASGI middleware: the bearer token (all but /health) and the request body bound, checked
    before the app reads anything. The body is read here (bounded) and handed on whole."""

    def __init__(self, app: ASGIApp, token: str | None, max_body: int = MAX_BODY_BYTES) -> None:
        self.app, self.token, self.max_body = app, token, max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if self.token and scope["path"] != "/health" and not self._authorized(headers):
            message = "missing or wrong token: send the header 'Authorization: Bearer <token>'"
            await error_response(401, message, {"WWW-Authenticate": "Bearer"})(scope, receive, send)
            return
        too_big = error_response(413, f"request body over {self.max_body} bytes")
        declared = headers.get("content-length", "0")
        if not declared.isdigit() or int(declared) > self.max_body:
            await too_big(scope, receive, send)
            return
        chunks, size = [], 0
        while True:
            event = await receive()
            if event["type"] != "http.request":
                return  # client went away
            size += len(event.get("body", b""))
            if size > self.max_body:
                await too_big(scope, receive, send)
                return
            chunks.append(event.get("body", b""))
            if not event.get("more_body"):
                break
        if scope.get("method") == "POST" and "content-type" not in headers:  # curl --data-binary, no -H
            scope = {**scope, "headers": [*scope.get("headers", []), (b"content-type", b"application/json")]}
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": b"".join(chunks), "more_body": False}

        await self.app(scope, replay, send)

    def _authorized(self, headers: dict[str, str]) -> bool:
        scheme, _, given = headers.get("authorization", "").partition(" ")
        assert self.token is not None
        return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), self.token.encode())


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


def check_bind(host: str, token: str | None, allow_remote: bool) -> None:
    """Refuse to serve an index unauthenticated beyond this machine unless asked to."""
    if not is_loopback(host) and not token and not allow_remote:
        raise ValueError(
            f"refusing to listen on {host} without a token: anyone who can reach it could read the "
            f"index. Pass --token T (or set {TOKEN_ENV}), or --allow-remote to serve it unauthenticated"
        )
