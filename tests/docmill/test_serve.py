"""docmill serve: a real uvicorn on 127.0.0.1 over a live index (real builds, model and FAISS)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from docmill.serve import BUILD_HEADER, MAX_BODY_BYTES, check_bind, create_app, is_loopback
from indexers.build.store import IndexStore

QUERY = "generation marker quokka"


def _get(url: str, **params) -> httpx.Response:
    return httpx.get(f"{url}/search", params={"q": QUERY, **params}, timeout=30)


def test_search_answers_like_query_json_plus_the_build(server, live, marker):
    response = _get(server, k=3)
    assert response.status_code == 200
    body = response.json()
    assert body["build"] == response.headers[BUILD_HEADER] == live.build_name
    expected = live.search(QUERY, k=3).to_json()
    assert body["hits"] == expected["hits"] and body["abstained"] is False
    assert marker(body["hits"]) == "marker1"


def test_post_search_takes_the_fields_of_search(server):
    body = {"query": "minimum version ubuntu", "k": 2, "mode": "bm25", "filters": {"kind": "table"}}
    response = httpx.post(f"{server}/search", json=body, timeout=30)
    assert response.status_code == 200, response.text
    hits = response.json()["hits"]
    assert hits and all(h["kind"] == "table" for h in hits)
    weighted = {"query": QUERY, "weights": {"bm25": 1.0, "vector": 0.0}, "rrf_k": 10, "abstain": False}
    response = httpx.post(f"{server}/search", json=weighted, timeout=30)
    assert response.status_code == 200
    assert all(h["ranks"]["vector"] is None for h in response.json()["hits"])


def test_collapse_is_a_get_param_and_a_post_field(server, live):
    for collapse in ("none", "document"):
        expected = live.search(QUERY, k=5, collapse=collapse, abstain=False).to_json()["hits"]
        got = _get(server, k=5, collapse=collapse, abstain="false").json()["hits"]
        posted = httpx.post(
            f"{server}/search",
            json={"query": QUERY, "k": 5, "collapse": collapse, "abstain": False},
            timeout=30,
        ).json()["hits"]
        assert got == posted == expected
    paths = [h["path"] for h in got]
    assert len(paths) == len(set(paths))  # document: one hit per file


def test_health_and_index_describe_the_loaded_build(server, live):
    health = httpx.get(f"{server}/health")
    assert health.status_code == 200 and health.json()["build"] == live.build_name
    info = httpx.get(f"{server}/index").json()
    assert info["build"] == live.build_name
    assert info["model"]["name"] == "all-MiniLM-L6-v2"
    assert info["counts"]["chunks_by_kind"]["table"] >= 1
    assert info["counts"]["documents_by_status"]["skipped"] >= 1
    assert "rrf_k" in info["fusion"] and "weights" in info["fusion"]
    assert httpx.get(f"{server}/openapi.json").json()["paths"]["/search"]


def test_health_is_503_once_the_index_is_closed(run_server, live):
    with run_server(create_app(live)) as url:
        live.close()
        assert httpx.get(f"{url}/health").status_code == 503


def test_server_follows_a_publish_without_restart(server, live, publish_generation, marker):
    first = _get(server).headers[BUILD_HEADER]
    second = publish_generation(2)
    response = _get(server)
    assert response.headers[BUILD_HEADER] == second != first
    assert marker(response.json()["hits"]) == "marker2"
    assert httpx.get(f"{server}/index").json()["build"] == second


def _other_model(index: Path) -> str:
    store = IndexStore(index)
    target = store.new_build_dir()
    shutil.copytree(store.current_build(), target, dirs_exist_ok=True)
    manifest = json.loads((target / "manifest.json").read_text())
    manifest["embedding"]["model"] = "some-other-model"
    (target / "manifest.json").write_text(json.dumps(manifest))
    store.publish(target)
    return target.name


def test_a_refused_build_keeps_the_old_one_serving(server, live, live_index, marker):
    serving = live.build_name
    refused = _other_model(live_index)
    response = _get(server)
    assert response.status_code == 200
    assert response.headers[BUILD_HEADER] == serving
    assert marker(response.json()["hits"]) == "marker1"
    info = httpx.get(f"{server}/index").json()
    assert info["build"] == serving and "some-other-model" in info["refused_builds"][refused]


def test_searches_in_flight_during_publishes_each_answer_from_one_build(server, publish_generation):
    builds = {httpx.get(f"{server}/health").json()["build"]: "marker1"}
    answers: list[tuple[str, str, str | None]] = []
    failures: list[str] = []
    stop = threading.Event()

    def client() -> None:
        with httpx.Client(timeout=30) as session:
            while not stop.is_set():
                response = session.get(f"{server}/search", params={"q": QUERY, "k": 20})
                if response.status_code != 200:
                    failures.append(response.text)
                    return
                body = response.json()
                note = next((h for h in body["hits"] if h["path"].endswith("generation.md")), None)
                marker = next(w for w in note["text"].split() if w.startswith("marker")) if note else None
                answers.append((body["build"], response.headers[BUILD_HEADER], marker))

    threads = [threading.Thread(target=client) for _ in range(4)]
    for thread in threads:
        thread.start()
    _wait_for(lambda: answers or failures)
    for n in (2, 3, 4, 5):  # keep_builds=3: builds are pruned while clients search them
        builds[publish_generation(n)] = f"marker{n}"
    last = list(builds)[-1]
    _wait_for(lambda: failures or any(a[0] == last for a in answers[-8:]))
    stop.set()
    for thread in threads:
        thread.join()
    assert not failures, failures[:3]
    assert {a[0] for a in answers} >= {next(iter(builds)), list(builds)[-1]}
    assert all(json_build == header and builds[json_build] == m for json_build, header, m in answers)


def _wait_for(condition, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


BAD_GETS = [
    ({"q": None}, 422, "q: Field required"),
    ({"q": ""}, 400, "query is empty: pass q=your question"),  # empty and blank: one answer
    ({"q": "   "}, 400, "query is empty: pass q=your question"),
    ({"q": "x" * 2001}, 422, "at most 2000 characters"),
    ({"k": "abc"}, 422, "k: Input should be a valid integer"),
    ({"k": "0"}, 422, "k: Input should be greater than or equal to 1"),
    ({"k": "101"}, 422, "k: Input should be less than or equal to 100"),
    ({"mode": "hybird"}, 422, "mode: Input should be 'hybrid', 'bm25' or 'vector'"),
    ({"rrf_k": "nan"}, 422, "rrf_k"),
    ({"filter": "kindtable"}, 400, "a filter takes KEY=VALUE"),
    ({"filter": "pages=a-b"}, 400, "FIRST-LAST page numbers"),
    ({"filter": "pages=5-2"}, 400, "filter 'pages' takes (first, last)"),
    ({"filter": "colour=red"}, 400, "unknown filter(s) colour"),
    ({"filter": "kind=image"}, 400, "unknown kind 'image' in filter 'kind'; expected any of: text, table"),
    ({"collapse": "chapter"}, 422, "collapse: Input should be 'none', 'section', 'page' or 'document'"),
]


@pytest.mark.parametrize(("params", "status", "message"), BAD_GETS)
def test_bad_get_input_is_a_4xx_that_says_what_to_fix(server, params, status, message):
    query = {"q": QUERY, **params}
    response = httpx.get(f"{server}/search", params={k: v for k, v in query.items() if v is not None})
    assert response.status_code == status, response.text
    assert message in response.json()["error"]


BAD_POSTS = [
    (b"{not json", 400, "the body is not valid JSON (Expecting property name enclosed in double quotes at"),
    (b"[1, 2]", 400, "the body is not a JSON object: send a JSON object such as {"),
    (b"", 400, "the body is empty"),
    (json.dumps({"query": " "}).encode(), 400, 'query is empty: send a non-blank "query" field'),
    (json.dumps({"query": ""}).encode(), 400, 'query is empty: send a non-blank "query" field'),
    (json.dumps({"q": QUERY}).encode(), 422, "query: Field required"),
    (json.dumps({"query": QUERY, "colour": 1}).encode(), 422, "colour: Extra inputs are not permitted"),
    (json.dumps({"query": QUERY, "filters": {"pages": [5, 2]}}).encode(), 400, "pages"),
    (json.dumps({"query": QUERY, "filters": {"kind": "tabel"}}).encode(), 400, "unknown kind 'tabel'"),
    (json.dumps({"query": QUERY, "filters": {"kind": ["text", "pdf"]}}).encode(), 400, "unknown kind 'pdf'"),
    (json.dumps({"query": QUERY, "weights": {"bm25": -1}}).encode(), 422, "greater than or equal to 0"),
    (json.dumps({"query": QUERY, "k": 10**6}).encode(), 422, "less than or equal to 100"),
    (json.dumps({"query": QUERY, "collapse": "all"}).encode(), 422, "collapse: Input should be 'none'"),
    (json.dumps({"query": QUERY, "pad": "x" * MAX_BODY_BYTES}).encode(), 413, "request body over"),
]


@pytest.mark.parametrize(("body", "status", "message"), BAD_POSTS)
def test_bad_post_input_is_a_4xx_that_says_what_to_fix(server, body, status, message):
    headers = {"Content-Type": "application/json"}
    response = httpx.post(f"{server}/search", content=body, headers=headers, timeout=30)
    assert response.status_code == status, response.text
    assert message in response.json()["error"]


def test_a_chunked_body_over_the_limit_is_refused_too(server):
    def chunks():
        for _ in range(MAX_BODY_BYTES // 1024 + 2):
            yield b" " * 1024

    response = httpx.post(f"{server}/search", content=chunks(), headers={"Content-Type": "application/json"})
    assert response.status_code == 413


def test_token_guards_everything_but_health(run_server, live):
    with run_server(create_app(live, token="s3cret")) as url:
        assert httpx.get(f"{url}/health").status_code == 200
        for path in ("/search?q=install", "/index", "/", "/docs", "/openapi.json"):
            refused = httpx.get(url + path)
            assert refused.status_code == 401, path
            assert refused.headers["WWW-Authenticate"] == "Bearer"
            assert "Authorization: Bearer" in refused.json()["error"]
        wrong = httpx.get(f"{url}/index", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        right = httpx.get(f"{url}/search?q=install", headers={"Authorization": "Bearer s3cret"})
        assert right.status_code == 200 and right.json()["hits"]


def test_no_cors_unless_configured(server, run_server, live):
    origin = {"Origin": "https://app.example"}
    assert "access-control-allow-origin" not in httpx.get(f"{server}/health", headers=origin).headers
    with run_server(create_app(live, cors_origins=["https://app.example"])) as url:
        allowed = httpx.get(f"{url}/health", headers=origin).headers
        assert allowed["access-control-allow-origin"] == "https://app.example"


def test_binding_beyond_loopback_needs_a_token_or_an_explicit_flag():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.org")
    check_bind("127.0.0.1", None, False)
    check_bind("0.0.0.0", "token", False)
    check_bind("0.0.0.0", None, True)
    with pytest.raises(ValueError, match="--token"):
        check_bind("0.0.0.0", None, False)


def _docmill(*args: str, **kwargs) -> subprocess.Popen:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    env.pop("DOCMILL_TOKEN", None)
    code = "import sys; from docmill.cli import main; sys.exit(main())"
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        **kwargs,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["serve", "{missing}"], "holds no docmill index"),
        (["serve", "{index}", "--host", "0.0.0.0"], "refusing to listen on 0.0.0.0 without a token"),
    ],
)
def test_serve_refuses_with_one_line_and_nonzero_exit(tmp_path, live_index, args, message):
    args = [a.format(missing=tmp_path / "nothing", index=live_index) for a in args]
    process = _docmill(*args)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 1
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_docmill_serve_command_end_to_end_with_a_token(live_index):
    port = _free_port()
    process = _docmill(
        "serve", str(live_index), "--port", str(port), "--token", "tok", "--check-interval", "0"
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert process.poll() is None, process.communicate()[1]
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "server did not become healthy"
            time.sleep(0.2)
        assert httpx.get(f"{url}/search", params={"q": QUERY}).status_code == 401
        response = httpx.get(f"{url}/search", params={"q": QUERY}, headers={"Authorization": "Bearer tok"})
        assert response.status_code == 200
        assert response.json()["build"] == IndexStore(live_index).current_name()
    finally:
        process.terminate()
        process.communicate(timeout=30)


def test_every_error_has_one_shape_and_says_what_to_send(server):
    """404 and 405 (FastAPI's own) answer {"error": ...} like the rest; a body without a JSON
    Content-Type is refused with what to send, or read as JSON when no Content-Type is given."""
    missing = httpx.get(f"{server}/nope")
    assert missing.status_code == 404 and missing.json() == {
        "error": "no such path /nope: see /docs for the API"
    }
    wrong = httpx.delete(f"{server}/search")
    assert wrong.status_code == 405
    assert wrong.json() == {"error": "DELETE is not allowed on /search (allowed: GET, POST)"}
    assert wrong.headers["Allow"] == "GET, POST"
    form = httpx.post(f"{server}/search", data={"query": QUERY})  # curl -d without -H
    assert form.status_code == 415
    assert "send the header 'Content-Type: application/json'" in form.json()["error"]
    raw = httpx.post(f"{server}/search", content=b'{"query": "x"')  # no Content-Type at all
    assert raw.status_code == 400 and raw.json()["error"].startswith("the body is not valid JSON")
    plain = httpx.post(f"{server}/search", content=json.dumps({"query": QUERY, "k": 1}).encode(), timeout=30)
    assert plain.status_code == 200 and len(plain.json()["hits"]) == 1
    for response in (missing, wrong, form, raw):
        assert set(response.json()) == {"error"}


def test_an_empty_query_error_names_the_field_the_request_used(server):
    """GET's parameter is ``q``, a POST body's field is ``query``: each is told its own name."""
    got = httpx.get(f"{server}/search", params={"q": "  "}, timeout=30)
    assert got.status_code == 400
    assert got.json() == {"error": "the query is empty: pass q=your question", "field": "q"}
    posted = httpx.post(f"{server}/search", json={"query": "  ", "k": 2}, timeout=30)
    assert posted.status_code == 400
    body = posted.json()
    assert body["field"] == "query" and "q=" not in body["error"]
    assert body["error"].startswith('the query is empty: send a non-blank "query" field, e.g. {"query": ')
