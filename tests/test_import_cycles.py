"""The import graph of the whole tree (every module, imports at the top, lazily inside a function or
for type checking): no module imports one that imports it back, and no arrow points up the layers
docmill -> flows -> indexers -> chunkers -> parsers (docs/ARCHITECTURE.md)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("parsers", "chunkers", "indexers", "flows", "docmill")  # bottom to top


def module_files() -> dict[str, Path]:
    files = {}
    for pkg in LAYERS:
        for path in (ROOT / pkg).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            files[name] = path
    return files


def import_graph() -> dict[str, set[str]]:
    files = module_files()
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            else:
                continue
            # `from pkg import module` names the module; `from module import name` the module itself
            graph[name] |= {t for t in targets if t in files and t != name and not _is_parent(t, name)}
    return graph


def _is_parent(package: str, module: str) -> bool:
    return module.startswith(package + ".")


def reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = set(), list(graph[start])
    while todo:
        name = todo.pop()
        if name == goal:
            return True
        if name not in seen:
            seen.add(name)
            todo.extend(graph[name])
    return False


def test_the_graph_covers_the_subpackages():
    graph = import_graph()
    assert {
        "parsers.pdf.parser",
        "indexers.build.write",
        "indexers.ranking.fusion",
        "docmill.eval.runner",
    } <= set(graph)
    assert "indexers.build.manifest" in graph["indexers.build.write"]


def test_no_module_imports_one_that_imports_it_back():
    graph = import_graph()
    cyclic = sorted(name for name in graph if reaches(graph, name, name))
    assert cyclic == []


def test_no_arrow_points_up_the_layers():
    graph = import_graph()
    rank = {pkg: i for i, pkg in enumerate(LAYERS)}
    upward = sorted(
        f"{name} -> {target}"
        for name, targets in graph.items()
        for target in targets
        if rank[target.split(".")[0]] > rank[name.split(".")[0]]
    )
    assert upward == []
