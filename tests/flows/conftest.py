"""Fixtures for the flow tests: a fast deterministic embedder and a tree copy per test."""

from __future__ import annotations

import shutil
from pathlib import Path

import docmill_test_fakes  # loaded by tests/conftest.py
import pytest


@pytest.fixture
def hash_embedder():
    return docmill_test_fakes.HashEmbedder()


@pytest.fixture
def hash_config():
    from flows.config import IngestConfig

    return IngestConfig(model=docmill_test_fakes.HASH_MODEL)


@pytest.fixture
def tree_copy(small_tree, tmp_path) -> Path:
    """A private, editable copy of the small tree (same root name, so ids match)."""
    return Path(shutil.copytree(small_tree, tmp_path / "src" / small_tree.name))
