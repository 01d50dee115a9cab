"""Fixtures for the reliability tests: the generated hostile folder (small and big variants)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest


def _load_hostile() -> ModuleType:
    name = "docmill_hostile"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("hostile.py"))
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


hostile = _load_hostile()


@pytest.fixture(scope="session")
def hostile_module() -> ModuleType:
    return hostile


@pytest.fixture(scope="session")
def hostile_small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list]:
    """(root, written) for the hostile set without the big files."""
    root = tmp_path_factory.mktemp("hostile-small") / "hostile"
    return root, hostile.write_hostile(root, big=False)


@pytest.fixture(scope="session")
def hostile_big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list]:
    root = tmp_path_factory.mktemp("hostile-big") / "hostile"
    return root, hostile.write_hostile(root, big=True)
