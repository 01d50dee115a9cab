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

FastAPI and uvicorn are imported here only (and FastAPI by this server's parts: the error shape,
docmill/serve_errors.py; the token and size guard, docmill/serve_guard.py), never by `import docmill`.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from typing import Annotated, Any, Literal, cast

from fastapi import FastAPI, Query
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from docmill import page
from docmill.filters import from_pairs, validate
from docmill.hits import SearchResult
from docmill.live import LiveIndex
from docmill.serve_errors import JSON_EXAMPLE, BadRequest, error_handlers, error_response
from docmill.serve_guard import MAX_BODY_BYTES as MAX_BODY_BYTES
from docmill.serve_guard import TOKEN_ENV as TOKEN_ENV
from docmill.serve_guard import Guard as Guard
from docmill.serve_guard import check_bind as check_bind
from docmill.serve_guard import is_loopback as is_loopback
from indexers.lexical.tokenize import Tokenizer
from indexers.ranking.collapse import DEFAULT_POLICY as DEFAULT_COLLAPSE
from indexers.ranking.options import DEFAULT_FUSION, Mode

log = logging.getLogger(__name__)

BUILD_HEADER = "X-Docmill-Build"
MAX_QUERY_CHARS = 2000
MAX_K = 100
MAX_FETCH_K = 1000
MAX_FILTERS = 32

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
        return error_response(400, str(exc), field=getattr(exc, "field", None))
    body = {"query": query, "build": build, **result.to_json()}
    return JSONResponse(body, headers={BUILD_HEADER: build})


def create_app(
    live: LiveIndex, token: str | None = None, cors_origins: Sequence[str] = (), rerank: Any = None
) -> Any:
    """The ASGI app over ``live`` (an open LiveIndex), wrapped in its Guard. ``rerank``: a reranker
    every search uses (docmill.rerank_endpoint.EndpointReranker; failures keep the fused order)."""
    reranked = {"rerank": rerank} if rerank is not None else {}
    app = FastAPI(title="docmill", summary="Hybrid (BM25 + vector) search over a docmill index")
    error_handlers(app)
    _status_routes(app, live)
    _search_routes(app, live, reranked)
    if cors_origins:
        _allow_cors(app, cors_origins)
    return Guard(app, token)


def _status_routes(app: FastAPI, live: LiveIndex) -> None:
    """/health and /index: whether a build is loaded, and what it holds."""

    @app.get("/health")
    def health() -> Response:
        if live.closed:
            return error_response(503, "index not loaded")
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
            return error_response(400, str(exc), field=getattr(exc, "field", None))
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
            return error_response(400, str(exc), field=getattr(exc, "field", None))
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
