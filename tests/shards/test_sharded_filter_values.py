"""A sharded root checks ``language`` / ``doc_id`` filter values against what its shards hold
together (one index checks its own: docmill.filters.check_held): a value no shard holds is a
FilterError naming the known values, as one index over the same tree says; a value only one shard
holds is searched, not refused."""

from __future__ import annotations

import docmill_test_fakes  # loaded by tests/conftest.py
import pytest

import docmill
from docmill.filters import FilterError
from indexers.build.shards import shard_of

SHARDS = 3
FILES = {
    "app/cache.py": "class LRUCache:\n    def evict(self):\n        return None\n",
    "app/server.go": "package app\n\nfunc Serve() int {\n\treturn 1\n}\n",
    "app/lib.rs": "pub fn parse_flags() -> u32 {\n    7\n}\n",
    "guide/install.md": "# Install\n\nRun the installer on Linux.\n",
    "guide/backup.md": "# Backup\n\nCopy the store folder nightly.\n",
    "guide/cache.md": "# Cache\n\nThe cache evicts the oldest entry.\n",
}


@pytest.fixture(scope="module")
def indexes(tmp_path_factory):
    from flows.config import IngestConfig
    from flows.pipeline import run_ingest
    from flows.shards import run_sharded_ingest

    base = tmp_path_factory.mktemp("held")
    src = base / "proj"
    for rel, text in FILES.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text, encoding="utf-8")
    config = IngestConfig(model=docmill_test_fakes.HASH_MODEL)
    embedder = docmill_test_fakes.HashEmbedder()
    run_ingest([src], base / "single", config, embedder=embedder)
    run_sharded_ingest([src], base / "root", SHARDS, config, embedder=embedder)
    single = docmill.open_index(base / "single", embedder=embedder)
    sharded = docmill.open_index(base / "root", embedder=embedder)
    return single, sharded


def _error(index, **filters) -> str:
    with pytest.raises(FilterError) as caught:
        index.search("cache", mode="bm25", abstain=False, filters=filters)
    return str(caught.value)


def test_the_languages_and_documents_are_spread_over_the_shards(indexes):
    single, _ = indexes
    homes = {shard_of(c.path, SHARDS) for c in single.chunks.all() if c.language}
    assert len(homes) > 1  # no shard holds every language: the check must take the union


def test_a_value_no_shard_holds_is_refused_as_one_index_refuses_it(indexes):
    single, sharded = indexes
    for filters in ({"language": "golang"}, {"language": ["python", "py"]}, {"doc_id": "proj/app/cache.pyx"}):
        message = _error(sharded, **filters)
        assert message == _error(single, **filters), filters
    assert "this build holds: go, python, rust" in _error(sharded, language="golang")
    assert "did you mean: proj/app/cache.py" in _error(sharded, doc_id="proj/app/cache.pyx")
    assert "not among this build's 6 documents" in _error(sharded, doc_id="proj/nothing-like-it")


def test_a_value_one_shard_holds_is_searched(indexes):
    single, sharded = indexes
    for language in ("go", "python", "rust"):
        found = sharded.search("cache", mode="bm25", abstain=False, filters={"language": language})
        assert all(h.chunk.language == language for h in found)
    doc_ids = sorted({c.doc_id for c in single.chunks.all()})
    found = sharded.search("cache", mode="bm25", abstain=False, filters={"doc_id": doc_ids})
    assert {h.chunk.doc_id for h in found} <= set(doc_ids) and found.hits
