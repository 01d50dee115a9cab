"""No pickle (or other code-running deserialiser) in the packages: an index folder may come from
somewhere else, and loading it must not run code (STYLE.md, Artifacts).

Scans the AST, not the text, so docstrings that *mention* pickle are fine. Flags: importing pickle,
cPickle, _pickle, dill, cloudpickle, joblib, shelve or marshal; ``np.load``/``numpy.load`` with
``allow_pickle=True`` (or any non-literal value); any ``allow_pickle=True``; ``torch.load`` without
``weights_only=True``; ``pd.read_pickle``; ``yaml.load``/``yaml.unsafe_load`` (arbitrary objects).

(parsers/guard.py talks to its own worker process over a multiprocessing Connection, which pickles
messages between two processes of this program; nothing read from disk is unpickled.)
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("docmill", "indexers", "flows", "parsers", "chunkers")
BANNED_MODULES = frozenset(
    {"pickle", "cPickle", "_pickle", "dill", "cloudpickle", "joblib", "shelve", "marshal"}
)


def _name(node: ast.AST) -> str:
    """Dotted name of a call target (``np.load``), '' when it is not a plain dotted name."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _name(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _is_true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def findings(source: str, filename: str = "<source>") -> list[str]:
    """Pickle-like uses in one module's source, as "line: what" strings."""
    out = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            out += [
                f"{node.lineno}: import {a.name}"
                for a in node.names
                if a.name.split(".")[0] in BANNED_MODULES
            ]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in BANNED_MODULES:
            out.append(f"{node.lineno}: from {node.module} import ...")
        elif isinstance(node, ast.Call):
            name = _name(node.func)
            allow = _keyword(node, "allow_pickle")
            if allow is not None and not (isinstance(allow, ast.Constant) and allow.value is False):
                out.append(f"{node.lineno}: {name or 'call'}(allow_pickle={ast.unparse(allow)})")
            torch_load = name == "torch.load" or name.endswith(".torch.load")
            if torch_load and not _is_true(_keyword(node, "weights_only")):
                out.append(f"{node.lineno}: {name} without weights_only=True")
            if name.split(".")[-1] == "read_pickle":
                out.append(f"{node.lineno}: {name}")
            if name in (
                "yaml.load",
                "yaml.unsafe_load",
                "yaml.full_load",
                "yaml.load_all",
                "yaml.unsafe_load_all",
            ):
                out.append(f"{node.lineno}: {name} (use yaml.safe_load)")
    return out


def test_the_scanner_catches_what_it_should() -> None:
    bad = """
import pickle
from joblib import load
import numpy as np, torch, yaml
np.load("a.npy", allow_pickle=True)
numpy.load("a.npy", allow_pickle=flag)
torch.load("m.pt")
torch.load("m.pt", weights_only=False)
pd.read_pickle("x")
yaml.load(text, Loader=yaml.Loader)
"""
    lines = [f.split(":")[0] for f in findings(bad)]
    assert lines == ["2", "3", "5", "6", "7", "8", "9", "10"]
    good = """
import numpy as np, torch, yaml
np.load("a.npy", allow_pickle=False)
np.load("a.npy", mmap_mode="r")
torch.load("m.pt", weights_only=True)
yaml.safe_load(text)
'''pickle is mentioned here, and pickle.load too'''
"""
    assert findings(good) == []


@pytest.mark.parametrize("package", PACKAGES)
def test_no_pickle_in_package(package: str) -> None:
    problems = [
        f"{path.relative_to(REPO)}:{finding}"
        for path in sorted((REPO / package).rglob("*.py"))
        for finding in findings(path.read_text(encoding="utf-8"), str(path))
    ]
    assert not problems, "pickle-like deserialisation found:\n" + "\n".join(problems)
