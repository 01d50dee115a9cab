"""The HTTP face's one error shape, ``{"error": message}`` plus ``field`` when one request field is at
fault, for every error: input a person can fix (BadRequest, a 400), a request FastAPI refuses
(400 / 415 / 422 saying what to send) and the framework's own 404 / 405. FastAPI is imported by
the server's modules only (docmill/serve.py)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

JSON_EXAMPLE = '{"query": "how do I install it?", "k": 5}'


class BadRequest(ValueError):
    """Input a person can fix; answered with 400 and ``error`` (and ``field``, when one is named)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def error_response(
    status: int, message: str, headers: dict[str, str] | None = None, field: str | None = None
) -> JSONResponse:
    """The one error shape: {"error": message} plus "field" when one request field is at fault."""
    body = {"error": message, **({"field": field} if field else {})}
    return JSONResponse(body, status_code=status, headers=headers)


def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
    """422 with what to change; a body that is not JSON is a 400 (or 415 for another Content-Type)
    saying what to send."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if request.method == "POST" and content_type and not content_type.endswith(("/json", "+json")):
        return error_response(
            415,
            f"POST {request.url.path} takes a JSON body, got Content-Type {content_type!r}: send the header "
            f"'Content-Type: application/json' and a body such as {JSON_EXAMPLE}",
        )
    for err in exc.errors():
        problem = _body_problem(err)
        if problem:
            return error_response(400, f"{problem}: send a JSON object such as {JSON_EXAMPLE}")
    return error_response(422, _validation_message(exc))


def _body_problem(err: Mapping[str, Any]) -> str | None:
    """What is wrong with a POST body that is not a JSON object at all (FastAPI reports a body sent
    without Content-Type that does not parse as "a valid dictionary"), or None."""
    loc = tuple(err.get("loc", ()))
    if err.get("type") == "json_invalid":
        at = f" at character {loc[-1]}" if loc and isinstance(loc[-1], int) else ""
        return f"the body is not valid JSON ({(err.get('ctx') or {}).get('error') or 'invalid'}{at})"
    if loc != ("body",):
        return None
    if err.get("type") == "missing":
        return "the body is empty"
    raw = err.get("input")
    if isinstance(raw, bytes | str):
        try:
            json.loads(raw)
        except json.JSONDecodeError as exc:
            return f"the body is not valid JSON ({exc.msg} at character {exc.pos})"
        except UnicodeDecodeError as exc:
            return f"the body is not UTF-8 JSON ({exc.reason} at byte {exc.start})"
    return "the body is not a JSON object"


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = tuple(err.get("loc", ()))
        loc = loc[1:] if loc and loc[0] in ("query", "body", "path", "header") else loc  # where it came in
        where = ".".join(str(p) for p in loc)
        got = err.get("input")
        shown = f" (got {json.dumps(got)[:80]})" if isinstance(got, str | int | float) else ""
        parts.append(f"{where or 'request'}: {err.get('msg', 'invalid')}{shown}")
    return "; ".join(parts)


def error_handlers(app: FastAPI) -> None:
    """Every error, the framework's included, as {"error": ...} with its status."""

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return invalid_request(request, exc)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        """404, 405 ... in the shape of every other error: {"error": ...}."""
        path = request.url.path
        routes = [r for r in app.routes if getattr(r, "path", None) == path]
        allowed = ", ".join(sorted({m for r in routes for m in getattr(r, "methods", None) or ()}))
        message = {
            404: f"no such path {path}: see /docs for the API",
            405: f"{request.method} is not allowed on {path} (allowed: {allowed})",
        }
        generic = exc.detail in (None, "Not Found", "Method Not Allowed")
        text = message.get(exc.status_code) if generic else None
        headers = {**(exc.headers or {}), **({"Allow": allowed} if exc.status_code == 405 else {})}
        return error_response(exc.status_code, text or str(exc.detail), headers)
