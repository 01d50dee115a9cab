"""`docmill serve INDEX`: an HTTP face over `docmill.open_index(INDEX, follow=True)`.

    GET  /search?q=&k=&mode=&collapse=&fusion=&filter=K=V  the JSON of `docmill query --json` plus `build`
    POST /search  {"query": ..., "k": ..., "filters": {...}, "weights": {...}, ...}
    GET  /health   200 once the index is loaded (never needs the token)
    GET  /index    build, created, counts, model, fusion settings
    GET  /         the search page (docmill.page); /?q=... is a search as a link
    GET  /docs     OpenAPI docs

Every answer comes from one build, named in the JSON and the ``X-Docmill-Build`` header. Bad
input is a 4xx whose ``error`` says what to change. Safe by default: loopback only unless a token
is set (or the caller insists), a token guards everything but /health, request size, query
length and k are bounded, and there is no CORS unless origins are given.

FastAPI and uvicorn are imported here only, never by `import docmill`.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import os
from collections.abc import Awaitable, Callable, Mapping, MutableMapping, Sequence
from typing import Annotated, Any, Literal, cast

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from docmill import page
from docmill.filters import from_pairs, validate
from docmill.hits import SearchResult
from docmill.live import LiveIndex
from indexers.lexical.tokenize import Tokenizer
from indexers.ranking.collapse import DEFAULT_POLICY as DEFAULT_COLLAPSE
from indexers.ranking.options import DEFAULT_FUSION, Mode

log = logging.getLogger(__name__)

TOKEN_ENV = "DOCMILL_TOKEN"
BUILD_HEADER = "X-Docmill-Build"
MAX_QUERY_CHARS = 2000
MAX_K = 100
MAX_FETCH_K = 1000
MAX_BODY_BYTES = 64 * 1024
MAX_FILTERS = 32

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

ModeName = Literal["hybrid", "bm25", "vector"]  # indexers.ranking.options.Mode (a test checks)
CollapseName = Literal["none", "section", "page", "document"]  # indexers/ranking/collapse.POLICIES
FusionName = Literal["auto", "zscore", "rrf"]  # indexers/ranking/options.FUSIONS
DEFAULT_FUSION_NAME = cast(FusionName, DEFAULT_FUSION)
Query_ = Annotated[str, Field(max_length=MAX_QUERY_CHARS)]  # empty or blank: 400 from _run_search
K = Annotated[int, Field(ge=1, le=MAX_K)]
FetchK = Annotated[int, Field(ge=1, le=MAX_FETCH_K)]
RrfK = Annotated[float, Field(gt=0, le=10_000, allow_inf_nan=False)]
Weight = Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)]
Strings = str | Annotated[list[str], Field(max_length=MAX_FILTERS)]


class Filters(BaseModel):
    """The filters of HybridIndex.search (docmill/filters.py)."""

    model_config = ConfigDict(extra="forbid")
    path: Strings | None = None
    kind: Strings | None = None  # checked by docmill.filters.validate: an unknown kind is a 400
    language: Strings | None = None
    doc_id: Strings | None = None
    pages: tuple[int, int] | None = None
    metadata: dict[str, str | int | float | bool] | None = None


class SearchBody(BaseModel):
    """POST /search: the fields of HybridIndex.search."""

    model_config = ConfigDict(extra="forbid")
    query: Query_
    k: K = 10
    mode: ModeName = Mode.HYBRID.value
    fetch_k: FetchK = 100
    rrf_k: RrfK | None = None
    weights: dict[Literal["bm25", "vector"], Weight] | None = None
    filters: Filters | None = None
    abstain: bool = True
    collapse: CollapseName = DEFAULT_COLLAPSE
    fusion: FusionName = DEFAULT_FUSION_NAME


class BadRequest(ValueError):
    """Input a person can fix; answered with 400 and ``error`` (and ``field``, when one is named)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def _error(
    status: int, message: str, headers: dict[str, str] | None = None, field: str | None = None
) -> JSONResponse:
    """The one error shape: {"error": message} plus "field" when one request field is at fault."""
    body = {"error": message, **({"field": field} if field else {})}
    return JSONResponse(body, status_code=status, headers=headers)


JSON_EXAMPLE = '{"query": "how do I install it?", "k": 5}'


def _invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
    """422 with what to change; a body that is not JSON is a 400 (or 415 for another Content-Type)
    saying what to send."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if request.method == "POST" and content_type and not content_type.endswith(("/json", "+json")):
        return _error(
            415,
            f"POST {request.url.path} takes a JSON body, got Content-Type {content_type!r}: send the header "
            f"'Content-Type: application/json' and a body such as {JSON_EXAMPLE}",
        )
    for err in exc.errors():
        problem = _body_problem(err)
        if problem:
            return _error(400, f"{problem}: send a JSON object such as {JSON_EXAMPLE}")
    return _error(422, _validation_message(exc))


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
            await _error(401, message, {"WWW-Authenticate": "Bearer"})(scope, receive, send)
            return
        too_big = _error(413, f"request body over {self.max_body} bytes")
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


EMPTY_QUERY = {
    "q": "the query is empty: pass q=your question",
    "query": 'the query is empty: send a non-blank "query" field, e.g. ' + JSON_EXAMPLE,
}


def _run_search(
    live: LiveIndex, query: str, options: dict[str, Any], field: str = "q"
) -> tuple[SearchResult, str]:
    """One search on one build; the result and that build's name. ``field``: the name the
    request gave the query (GET's ``q``, a POST body's ``query``), for the empty-query error."""
    if not query.strip():
        raise BadRequest(EMPTY_QUERY[field], field=field)
    with live.acquire() as index:
        try:
            result = index.search(query, **options)
        except ValueError as exc:  # unknown mode, bad filter value, k out of range ...
            raise BadRequest(str(exc), getattr(exc, "field", None)) from exc
        return result, index.build.name


def _answer(live: LiveIndex, query: str, options: dict[str, Any], field: str = "q") -> Response:
    try:
        result, build = _run_search(live, query, options, field)
    except BadRequest as exc:
        return _error(400, str(exc), field=getattr(exc, "field", None))
    body = {"query": query, "build": build, **result.to_json()}
    return JSONResponse(body, headers={BUILD_HEADER: build})


def create_app(
    live: LiveIndex, token: str | None = None, cors_origins: Sequence[str] = (), rerank: Any = None
) -> Any:
    """The ASGI app over ``live`` (an open LiveIndex), wrapped in its Guard. ``rerank``: a reranker
    every search uses (docmill.rerank_endpoint.EndpointReranker; failures keep the fused order)."""
    reranked = {"rerank": rerank} if rerank is not None else {}
    app = FastAPI(title="docmill", summary="Hybrid (BM25 + vector) search over a docmill index")
    _error_handlers(app)
    _status_routes(app, live)
    _search_routes(app, live, reranked)
    if cors_origins:
        _allow_cors(app, cors_origins)
    return Guard(app, token)


def _error_handlers(app: FastAPI) -> None:
    """Every error, the framework's included, as {"error": ...} with its status."""

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _invalid_request(request, exc)

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
        return _error(exc.status_code, text or str(exc.detail), headers)


def _status_routes(app: FastAPI, live: LiveIndex) -> None:
    """/health and /index: whether a build is loaded, and what it holds."""

    @app.get("/health")
    def health() -> Response:
        if live.closed:
            return _error(503, "index not loaded")
        return JSONResponse({"status": "ok", "build": live.build_name})

    @app.get("/index")
    def index_info() -> Response:
        return JSONResponse(dict(live.describe()))


def _search_routes(app: FastAPI, live: LiveIndex, reranked: dict[str, Any]) -> None:
    """GET and POST /search (JSON) and the search page at /."""

    @app.get("/search")
    def search_get(
        q: Annotated[str, Query(max_length=MAX_QUERY_CHARS, description="the question")],
        k: Annotated[int, Query(ge=1, le=MAX_K)] = 10,
        mode: Annotated[ModeName, Query()] = Mode.HYBRID.value,
        fetch_k: Annotated[int, Query(ge=1, le=MAX_FETCH_K)] = 100,
        rrf_k: Annotated[float | None, Query(gt=0, le=10_000, allow_inf_nan=False)] = None,
        abstain: bool = True,
        collapse: Annotated[CollapseName, Query()] = DEFAULT_COLLAPSE,
        fusion: Annotated[FusionName, Query()] = DEFAULT_FUSION_NAME,
        filter: Annotated[list[str], Query(max_length=MAX_FILTERS, description="KEY=VALUE")] = [],  # noqa: B006
    ) -> Response:
        try:
            filters = from_pairs(filter) or None
        except ValueError as exc:
            return _error(400, str(exc), field=getattr(exc, "field", None))
        options: dict[str, Any] = {
            "k": k,
            "mode": mode,
            "fetch_k": fetch_k,
            "rrf_k": rrf_k,
            "abstain": abstain,
        }
        options["collapse"] = collapse
        options["fusion"] = fusion
        return _answer(live, q, {**options, "filters": filters, **reranked})

    @app.post("/search")
    def search_post(body: SearchBody) -> Response:
        filters = body.filters.model_dump(exclude_none=True) if body.filters else None
        try:
            validate(filters or {})
        except ValueError as exc:
            return _error(400, str(exc), field=getattr(exc, "field", None))
        options = body.model_dump(exclude={"query", "filters"})
        return _answer(live, body.query, {**options, "filters": filters or None, **reranked}, "query")

    @app.get("/", response_class=HTMLResponse)
    def search_page(
        q: str = "",
        mode: str = Mode.HYBRID.value,
        kind: str = "",
        path: str = "",
        k: str = "10",
        abstain: str = "true",
    ) -> Response:
        return _page(live, q, mode, kind, path, reranked, k=k, abstain=abstain)


def _allow_cors(app: FastAPI, cors_origins: Sequence[str]) -> None:
    from fastapi.middleware.cors import CORSMiddleware

    app.add_middleware(
        CORSMiddleware,
        allow_origins=list(cors_origins),
        allow_methods=["GET", "POST"],
        allow_headers=["Authorization", "Content-Type"],
        expose_headers=[BUILD_HEADER],
    )


def _page(  # noqa: PLR0913
    live: LiveIndex, q: str, mode: str, kind: str, path: str, reranked: dict[str, Any], k: str, abstain: str
) -> Response:
    """The search page; a bad field is shown on the page with a 400. ``k`` and ``abstain`` arrive
    as text so that a bad one is explained on the page too."""
    k_value = int(k) if k.isdigit() and 1 <= int(k) <= MAX_K else None
    abstain_value = {"true": True, "1": True, "false": False, "0": False}.get(abstain.lower())

    def render(build: str, **extra: Any) -> str:
        model = getattr(live.embedder, "model_name", "")
        manifest = getattr(live, "manifest", None)  # a sharded root has none: its shards' tokenizer
        tokenizer = (
            Tokenizer.from_dict(manifest.tokenizer)
            if manifest is not None
            else getattr(live, "tokenizer", None)
        )
        return page.page(
            query=q,
            mode=mode,
            kind=kind,
            path=path,
            build=build,
            model=model,
            tokenizer=tokenizer,
            k=k_value or page.DEFAULT_K,
            abstain=abstain_value is not False,
            **extra,
        )

    if not q.strip():
        return HTMLResponse(render(live.build_name))
    problem = None
    if mode not in page.MODES:
        problem = f"unknown mode {mode!r}; expected one of: {', '.join(page.MODES)}"
    elif kind not in page.KINDS:
        problem = f"unknown kind {kind!r}; expected one of: {', '.join(page.KINDS[1:])}"
    elif len(q) > MAX_QUERY_CHARS:
        problem = f"the query is longer than {MAX_QUERY_CHARS} characters"
    elif k_value is None:
        problem = f"k must be a whole number from 1 to {MAX_K}, got {k!r}"
    elif abstain_value is None:
        problem = f"abstain must be true or false, got {abstain!r}"
    if problem:
        return HTMLResponse(render(live.build_name, error=problem), status_code=400)
    filters = {key: value for key, value in (("kind", kind), ("path", path)) if value}
    try:
        result, build = _run_search(
            live,
            q,
            {"k": k_value, "mode": mode, "filters": filters or None, "abstain": abstain_value, **reranked},
        )
    except BadRequest as exc:
        return HTMLResponse(render(live.build_name, error=str(exc)), status_code=400)
    return HTMLResponse(render(build, result=result), headers={BUILD_HEADER: build})


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


def serve(
    index: str,
    host: str = "127.0.0.1",
    port: int = 8000,
    token: str | None = None,
    allow_remote: bool = False,
    cors_origins: Sequence[str] = (),
    check_interval: float = 2.0,
    rerank: Any = None,
) -> int:
    """Open the index (raises with a one-line message if it cannot), load the model, then serve
    until interrupted."""
    import uvicorn

    from docmill.api import open_index

    token = token or os.environ.get(TOKEN_ENV) or None
    check_bind(host, token, allow_remote)
    live = open_index(index, follow=True, check_interval=check_interval)
    live.search("docmill loads its query path before it answers", k=1)  # model in memory first
    config = uvicorn.Config(
        create_app(live, token, cors_origins, rerank),
        host=host,
        port=port,
        log_level="info",
        server_header=False,
        timeout_keep_alive=5,
        limit_concurrency=256,
        h11_max_incomplete_event_size=16 * 1024,  # bounds the request line and headers
    )
    server = uvicorn.Server(config)
    try:
        server.run()
    finally:
        live.close()
    return 0 if server.started else 1
