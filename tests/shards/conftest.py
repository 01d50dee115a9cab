"""One synthetic tree (Markdown files of Zipf-distributed words; no eval data) indexed twice, as one
index and as 3 shards, shared by the sharding tests."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

SHARDS = 3

WORDS = [
    f"{a}{b}"
    for a in ("ka", "lo", "mi", "nu", "pe", "ro", "sa", "ti", "vu", "ze", "bra", "cle")
    for b in ("dan", "fel", "gor", "hix", "jun", "kem", "lar", "mot", "nip", "quo", "ruv", "sel")
]
TOPICS = ["install", "cache", "network", "storage", "billing", "backup", "logging", "search"]


def write_corpus(root: Path, files: int = 36, seed: int = 7) -> Path:
    """``files`` Markdown files, each a heading and a few paragraphs: real English topic words
    mixed with made-up ones drawn with Zipf weights, so BM25 scores rarely tie."""
    rng = random.Random(seed)
    weights = [1.0 / (rank + 1) for rank in range(len(WORDS))]
    for i in range(files):
        topic = TOPICS[i % len(TOPICS)]
        lines = [f"# {topic.title()} note {i}", ""]
        for _ in range(rng.randint(2, 4)):
            words = rng.choices(WORDS, weights, k=rng.randint(25, 70))
            words += [topic] * rng.randint(1, 3)
            rng.shuffle(words)
            lines += [" ".join(words) + ".", ""]
        path = root / f"part{i % 4}" / f"{topic}-{i}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines), encoding="utf-8")
    return root


def queries(count: int = 24, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        words = rng.sample(WORDS, rng.randint(1, 3)) + ([TOPICS[i % len(TOPICS)]] if i % 2 else [])
        out.append(" ".join(words))
    return out


@pytest.fixture(scope="session")
def shard_queries() -> list[str]:
    return queries()


@pytest.fixture(scope="session")
def built(tmp_path_factory, embedder) -> dict[str, Path]:
    from chunkers.sizing import ChunkOptions
    from flows.config import IngestConfig
    from flows.pipeline import run_ingest
    from flows.shards import run_sharded_ingest

    base = tmp_path_factory.mktemp("sharding")
    src = write_corpus(base / "corpus")
    config = IngestConfig(chunk=ChunkOptions(80))  # a few chunks per file
    run_ingest([src], base / "single", config, embedder=embedder)
    run_sharded_ingest([src], base / "root", SHARDS, config, embedder=embedder)
    return {"src": src, "single": base / "single", "root": base / "root", "config": config}


@pytest.fixture
def built_copy(built, tmp_path) -> dict[str, Path]:
    """A private copy of the tree and both indexes, for tests that change them."""
    out = dict(built)
    for key in ("src", "single", "root"):
        out[key] = tmp_path / built[key].name
        shutil.copytree(built[key], out[key], symlinks=True)
    return out


@pytest.fixture(scope="module")
def client():
    """A real local Dask cluster of three worker processes on 127.0.0.1, one per test module."""
    distributed = pytest.importorskip("distributed")
    import dask

    # the shards' actors are placed one per worker with loose restrictions; on a loaded machine
    # the scheduler's work stealing may move one beside another (CI once did), which the
    # placement tests would read as the coordinator's doing
    with dask.config.set({"distributed.scheduler.work-stealing": False}):
        cluster = distributed.LocalCluster(
            n_workers=3, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()
