"""Shared fixtures. The embedding model loads once per session (it costs seconds); Prefect runs
against one ephemeral server per session with a temporary PREFECT_HOME."""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import os
import shutil
import socket
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
# The Embedder caches its ONNX export here; keep tests off the user's ~/.cache.
os.environ["DOCMILL_CACHE_DIR"] = tempfile.mkdtemp(prefix="docmill-cache-")
# Prefect reads its home at import: a fresh one per session keeps tests off the user's profile/DB.
os.environ["PREFECT_HOME"] = tempfile.mkdtemp(prefix="docmill-prefect-")
# both go with the session (the ONNX export is ~140 MB: left behind, runs filled /tmp)
for _folder in (os.environ["DOCMILL_CACHE_DIR"], os.environ["PREFECT_HOME"]):
    atexit.register(shutil.rmtree, _folder, True)

REPO = Path(__file__).resolve().parent.parent
FAKES_PATH = Path(__file__).resolve().parent / "flows" / "fakes.py"


def load_fakes():
    """tests/ is not a package (import-mode=importlib): load tests/flows/fakes.py by path, once, as
    the module ``docmill_test_fakes``, so any test can ``import docmill_test_fakes``."""
    if "docmill_test_fakes" not in sys.modules:
        spec = importlib.util.spec_from_file_location("docmill_test_fakes", FAKES_PATH)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["docmill_test_fakes"] = module
        spec.loader.exec_module(module)
    return sys.modules["docmill_test_fakes"]


load_fakes()


@pytest.fixture(scope="session")
def embedder():
    from indexers.dense.embedder import Embedder

    return Embedder()


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


@pytest.fixture
def tree():
    """`tree(root, {"rel/path": "text"})` writes files (dedented) and returns root."""
    return write_tree


SMALL_TREE = {
    "guide/install.md": """
        # Guide

        ## Install

        ### Linux

        Download the tarball and run `./install.sh` as root. The installer places the
        orbital daemon under /opt/orbital and registers a systemd unit.

        ### Windows

        Run the MSI package and accept the driver prompt.

        ## Platforms

        | Platform | Minimum version | Notes |
        |---|---|---|
        | Ubuntu | 22.04 | tested nightly |
        | Windows | 11 | needs admin rights |
        """,
    "guide/zh.md": """
        # 安装指南

        在服务器上运行安装脚本，然后重启守护进程。配置文件位于 /etc/orbital 目录。
        """,
    "src/cache.py": '''
        """A tiny cache."""

        import time


        class LRUCache:
            """Least-recently-used cache with a fixed capacity."""

            def __init__(self, capacity: int) -> None:
                self.capacity = capacity
                self.items = {}

            def evict_oldest(self) -> None:
                """Drop the least recently used entry."""
                oldest = min(self.items, key=lambda k: self.items[k][1])
                del self.items[oldest]
        ''',
    "notes/broken.pdf": "this is not a pdf at all",
    "notes/empty.md": "",
}


@pytest.fixture(scope="session")
def small_tree(tmp_path_factory) -> Path:
    return write_tree(tmp_path_factory.mktemp("tree") / "proj", SMALL_TREE)


@pytest.fixture(scope="session")
def small_index(tmp_path_factory, small_tree, embedder) -> Path:
    from flows.pipeline import run_ingest

    index = tmp_path_factory.mktemp("index") / "idx"
    run_ingest([small_tree], index, embedder=embedder)
    return index


@pytest.fixture(scope="session")
def prefect_api():
    """One real Prefect API (ephemeral server on 127.0.0.1) for the whole session."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        yield


@contextlib.contextmanager
def running(app) -> Iterator[str]:
    """Serve ``app`` with a real uvicorn on 127.0.0.1 (a free port) until the block ends; yields
    the base URL."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
