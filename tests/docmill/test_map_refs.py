"""`docmill map` / `docmill refs` a reader can trust (real tree-sitter, a hash embedder): the
package's public entry points first, signatures cut at a token boundary, methods under their class,
each reference linked to the definition it resolves to (or marked ambiguous), a standard-library
object's call not counted, and a clear error on an index without code."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import docmill_test_fakes  # loaded by tests/conftest.py
import pytest

from docmill.cli import main
from flows.config import IngestConfig
from flows.pipeline import run_ingest
from parsers.code.clip import clip_signature

RUN_APP = (
    "def run_app(app: Application, *, host: str | None = None, port: int | None = None, "
    "path: str | None = None, ws_max_size: int = 4 * 1024 * 1024, shutdown_timeout: float = 60.0, "
    "keepalive_timeout: float = 75.0) -> None:"
)
TREE = {
    "pkg/__init__.py": """
        from .web import Application, run_app

        __all__ = ("Application", "run_app")
        """,
    "pkg/web.py": f'''
        import asyncio

        from .helpers import clamp, log_event, parse_port

        __all__ = ("Application", "run_app")


        class Application:
            """The application: routes and their handlers."""

            def __init__(self):
                self.routes = {{}}

            def add_route(self, path, handler):
                log_event("route", path)
                self.routes[clamp(path)] = handler

            def run(self):
                log_event("run", self)


        async def _serve(app, port):
            log_event("serve", parse_port(port))


        {RUN_APP}
            """Run an application until it is stopped: the main entry point."""
            with asyncio.Runner() as runner:
                runner.run(_serve(app, port))
        ''',
    "pkg/helpers.py": """
        def log_event(kind, detail):
            return f"{kind}: {detail}"


        def parse_port(value):
            log_event("port", value)
            return int(value or 8080)


        def clamp(value, low=0, high=65535):
            return max(low, min(high, value))


        def split_host(value):
            return value.rsplit(":", 1)
        """,
    "pkg/worker.py": """
        from .helpers import clamp, log_event, parse_port, split_host


        class Worker:
            \"\"\"A worker process.\"\"\"

            def run(self, app):
                log_event("worker", app)
                app.run()
                return parse_port(clamp(8080)), split_host("a:1")

            def stop(self):
                log_event("stop", self)
        """,
    "pkg/client.py": """
        from .helpers import clamp, log_event, parse_port, split_host
        from .web import Application


        def connect(url):
            log_event("connect", url)
            host = split_host(url)
            return parse_port(clamp(host[1]))


        def local_app():
            app = Application()
            app.run()
            return app
        """,
    "pkg/router.py": """
        from .helpers import clamp, log_event, parse_port, split_host


        def resolve(path):
            log_event("resolve", path)
            return clamp(parse_port(split_host(path)[1]))


        class Path:
            def join(self, other):
                return self


        def describe(parts, p):
            p.join("x")
            return ", ".join(parts) + ("/" "").join(parts)
        """,
}


def _ingest(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / "web" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "web" / rel).write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    fakes = docmill_test_fakes
    run_ingest(
        [root / "web"], root / "idx", IngestConfig(model=fakes.HASH_MODEL), embedder=fakes.HashEmbedder()
    )
    return root / "idx"


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    return _ingest(tmp_path_factory.mktemp("web"), TREE)


def _map(index: Path, capsys, tokens: int) -> dict:
    assert main(["map", str(index), "--tokens", str(tokens), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_small_map_shows_the_packages_exported_entry_points_first(index, capsys):
    # helpers.py's functions are used from four files each; run_app from none: PageRank alone puts
    # the helpers first and leaves run_app out of a small map
    out = _map(index, capsys, 60)
    first = out["files"][0]
    assert first["path"] == "web/pkg/web.py"
    assert [s["name"] for s in first["symbols"]] == ["Application", "run_app"]
    assert out["tokens"] <= 60


def test_a_long_signature_is_cut_after_a_whole_parameter(index, capsys):
    out = _map(index, capsys, 200)
    run_app = next(s for f in out["files"] for s in f["symbols"] if s["name"] == "run_app")
    assert (
        run_app["signature"]
        == "def run_app(app: Application, *, host: str | None = None, port: int | None = None, …"
    )
    assert main(["refs", str(index), "run_app"]) == 0
    listed = capsys.readouterr().out
    stored = listed.split("run_app: ", 1)[1].splitlines()[0]
    assert len(stored) <= 160 and stored.endswith(", …") and RUN_APP.startswith(stored[:-2])


def test_clip_signature_never_cuts_inside_a_word():
    assert clip_signature(RUN_APP, len(RUN_APP)) == RUN_APP
    for limit in range(20, len(RUN_APP)):
        clipped = clip_signature(RUN_APP, limit)
        assert len(clipped) <= limit and clipped.endswith("…"), (limit, clipped)
        kept = clipped.removesuffix("…").rstrip()
        assert RUN_APP.startswith(kept) and not RUN_APP[len(kept)].isalnum(), (limit, clipped)


def test_every_method_in_the_map_is_listed_under_its_class(index, capsys):
    for tokens in (60, 100, 150, 200, 400):
        for f in _map(index, capsys, tokens)["files"]:
            symbols = [s["symbol"] for s in f["symbols"]]
            for i, symbol in enumerate(symbols):
                if "." in symbol:
                    owner = symbol.rsplit(".", 1)[0]
                    assert owner in symbols[:i], (tokens, f["path"], symbols)
    assert main(["map", str(index), "--tokens", "400"]) == 0
    text = capsys.readouterr().out
    assert "│ class Worker:\n" in text and "│     def run(self, app):" in text
    assert text.index("class Worker:") < text.index("def run(self, app):")


def test_refs_link_each_reference_to_its_definition_or_say_it_is_ambiguous(index, capsys):
    assert main(["refs", str(index), "run", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [d["symbol_path"] for d in out["definitions"]] == [
        "web/pkg/web.py::Application.run",
        "web/pkg/worker.py::Worker.run",
    ]
    by_line = {(r["path"], r["line"]): r for r in out["references"]}
    # app = Application(); app.run(): Application.run only
    assert by_line[("web/pkg/client.py", 13)]["resolves_to"] == ["web/pkg/web.py::Application.run"]
    assert not by_line[("web/pkg/client.py", 13)]["ambiguous"]
    # app.run() on a parameter: either run
    assert by_line[("web/pkg/worker.py", 9)]["ambiguous"]
    # asyncio.Runner().run(...) is the standard library's, not a reference to the project's run
    assert ("web/pkg/web.py", 29) not in by_line
    assert len(out["references"]) == 2
    assert main(["refs", str(index), "run"]) == 0
    text = capsys.readouterr().out
    assert "[1] web/pkg/web.py:18-19  Application.run: def run(self):" in text
    assert "web/pkg/client.py:13  call   in local_app  -> [1]" in text
    assert "web/pkg/worker.py:9  call   in Worker.run  ambiguous: [1] [2]" in text


def test_map_and_refs_on_an_index_without_code_say_so_and_fail(tmp_path, capsys):
    index = _ingest(tmp_path, {"docs/guide.md": "# Guide\n\nRun the server with run_app.\n"})
    for argv in (["map", str(index)], ["repo-map", str(index)], ["refs", str(index), "run_app"]):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert "holds no source code" in err and "markdown" in err and f"docmill {argv[0]}" in err, err


def test_a_call_on_a_literal_is_not_a_reference_and_an_unknown_receiver_is_marked_by_name(index, capsys):
    assert main(["refs", str(index), "join", "--json"]) == 0
    refs = json.loads(capsys.readouterr().out)["references"]
    # ", ".join(parts) and ("/" "").join(parts) are str.join; p.join("x") may be Path.join
    assert [(r["line"], r["by_name"]) for r in refs] == [(15, True)]
    assert main(["refs", str(index), "join"]) == 0
    assert "-> [1] (by name: receiver type unknown)" in capsys.readouterr().out
