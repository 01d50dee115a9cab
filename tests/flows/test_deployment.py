"""The deployment end to end: a real `prefect server start`, the repo's prefect.yaml deployed with
`prefect deploy --all`, a process worker, `prefect deployment run`; then one edited file, and only
that file is re-processed. Also: a 2-worker local Dask cluster builds the same index."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from indexers.build.manifest import Manifest
from indexers.build.store import IndexStore

pytestmark = [pytest.mark.integration, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
PREFECT = (
    str(REPO / ".venv/bin/prefect") if (REPO / ".venv/bin/prefect").exists() else shutil.which("prefect")
)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _stop(process: subprocess.Popen) -> None:
    """SIGTERM to the process group (server and worker start children), SIGKILL if it lingers."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@pytest.fixture(scope="module")
def prefect_server():
    """One real Prefect server for this module, with its own PREFECT_HOME; yields the env to use."""
    home = Path(tempfile.mkdtemp(prefix="docmill-prefect-server-"))
    port = _free_port()
    env = {
        **os.environ,
        "PREFECT_HOME": str(home),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_API_URL": f"http://127.0.0.1:{port}/api",
        "PYTHONPATH": str(REPO),
    }
    log = open(home / "server.log", "w")  # noqa: SIM115 - closed below
    server = subprocess.Popen(
        [PREFECT, "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"prefect server did not start: {(home / 'server.log').read_text()[-2000:]}"
                )
            time.sleep(0.5)
        yield env
    finally:
        _stop(server)
        log.close()
        shutil.rmtree(home, ignore_errors=True)


def _prefect(env: dict, *args: str, timeout: float = 300) -> str:
    result = subprocess.run(
        [PREFECT, "--no-prompt", *args], env=env, cwd=REPO, capture_output=True, text=True, timeout=timeout
    )
    assert result.returncode == 0, (
        f"prefect {' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    )
    return result.stdout


def _incremental(index: Path) -> dict:
    return Manifest.read(IndexStore(index).current_build()).extra["incremental"]


def test_deployment_runs_on_a_worker_and_reprocesses_only_the_edited_file(
    prefect_server, tree_copy, tmp_path
):
    env = prefect_server
    _prefect(env, "work-pool", "create", "docmill", "--type", "process")
    out = _prefect(env, "deploy", "--all")  # the repo's own prefect.yaml
    assert "ingest/samples-nightly" in out
    inspect = _prefect(env, "deployment", "inspect", "ingest/samples-nightly")
    assert "'cron': '30 2 * * *'" in inspect and "'limit': 1" in inspect and "index:samples" in inspect
    worker_log = open(tmp_path / "worker.log", "w")  # noqa: SIM115 - closed below
    worker = subprocess.Popen(
        [PREFECT, "worker", "start", "--pool", "docmill"],
        env=env,
        cwd=REPO,
        stdout=worker_log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    index = tmp_path / "idx"
    params = json.dumps({"sources": [str(tree_copy)], "index": str(index)})
    run = (
        "deployment",
        "run",
        "ingest/samples-nightly",
        "--params",
        params,
        "--watch",
        "--watch-timeout",
        "400",
    )
    try:
        out = _prefect(env, *run, timeout=420)
        assert "Completed" in out, out[-2000:]
        first = IndexStore(index).current_build()
        assert _incremental(index)["added"] == [f"proj/{p}" for p in sorted(_tree_files(tree_copy))]
        assert Manifest.read(first).counts["indexed"] == 3
        install = tree_copy / "guide/install.md"
        install.write_text(install.read_text() + "\n## Upgrade\n\nStop the daemon and rerun the installer.\n")
        out = _prefect(env, *run, timeout=420)
        assert "Completed" in out, out[-2000:]
    finally:
        _stop(worker)
        worker_log.close()
    second = IndexStore(index).current_build()
    assert second != first
    summary = _incremental(index)
    assert summary["previous"] == first.name
    assert summary["parsed"] == summary["changed"] == ["proj/guide/install.md"]
    assert summary["added"] == summary["removed"] == [] and summary["unchanged"] == 4
    assert summary["embedded"] == 1  # only the new chunk went through the model


def _drain_prefect_workers() -> None:
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker

    APILogWorker.drain_all(timeout=10)
    EventsWorker.drain_all(timeout=10)


def _tree_files(root: Path) -> list[str]:
    return [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]


def test_two_worker_dask_cluster_builds_the_same_index(prefect_server, small_tree, tmp_path, monkeypatch):
    for name in ("PREFECT_API_URL", "PREFECT_HOME"):
        monkeypatch.setenv(name, prefect_server[name])
    from prefect.settings import PREFECT_API_URL, PREFECT_HOME, temporary_settings

    from flows.ingest import ingest

    with temporary_settings(
        {PREFECT_API_URL: prefect_server["PREFECT_API_URL"], PREFECT_HOME: prefect_server["PREFECT_HOME"]}
    ):
        default = ingest(sources=[str(small_tree)], index=str(tmp_path / "default"))
        dask = ingest(sources=[str(small_tree)], index=str(tmp_path / "dask"), dask_workers=2)
        _drain_prefect_workers()  # while the server still runs: no retries against it at exit
    assert {k: v for k, v in default.items() if k not in ("build", "seconds")} == {
        k: v for k, v in dask.items() if k not in ("build", "seconds")
    }
    a, b = IndexStore(tmp_path / "default").current_build(), IndexStore(tmp_path / "dask").current_build()
    a, b = (f / "segments" / Manifest.read(f).segments[0]["name"] for f in (a, b))  # one segment each
    for name in ["chunks.jsonl", "embedding_keys.npy", *(f"bm25/{p.name}" for p in (a / "bm25").iterdir())]:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    np.testing.assert_allclose(
        np.load(a / "embeddings.npy"), np.load(b / "embeddings.npy"), atol=1e-5, rtol=0
    )
    assert Manifest.read(a.parent.parent).documents == Manifest.read(b.parent.parent).documents
