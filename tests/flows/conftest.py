"""Fixtures for the flow tests: a fast deterministic embedder and a tree copy per test."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

FAKES_PATH = Path(__file__).with_name("fakes.py")


def load_fakes():
    """tests/ is not a package (import-mode=importlib): load fakes.py by path, once."""
    if "docmill_test_fakes" not in sys.modules:
        spec = importlib.util.spec_from_file_location("docmill_test_fakes", FAKES_PATH)
        module = importlib.util.module_from_spec(spec)
        sys.modules["docmill_test_fakes"] = module
        spec.loader.exec_module(module)
    return sys.modules["docmill_test_fakes"]


load_fakes()  # so tests can `from docmill_test_fakes import HashEmbedder`


@pytest.fixture
def hash_embedder():
    return load_fakes().HashEmbedder()


@pytest.fixture
def hash_config():
    from flows.config import IngestConfig

    return IngestConfig(model=load_fakes().HASH_MODEL)


@pytest.fixture
def tree_copy(small_tree, tmp_path) -> Path:
    """A private, editable copy of the small tree (same root name, so ids match)."""
    return Path(shutil.copytree(small_tree, tmp_path / "src" / small_tree.name))
