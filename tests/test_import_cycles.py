"""No file cycles: a module never imports (at the top, lazily inside a function or for type checking)
a module that imports it back, directly or through others. Pinned for the files issue 13 untangled
and the code parser (its shared syntax helpers live in parsers/code_syntax.py); docmill/{__init__,
index,live}.py still form a cycle."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("docmill", "indexers", "flows", "parsers", "chunkers")
UNTANGLED = ("flows.", "parsers.pdf", "parsers.pdf_pool", "parsers.code")


def import_graph() -> dict[str, set[str]]:
    files = {
        (f"{pkg}.{path.stem}" if path.stem != "__init__" else pkg): path
        for pkg in PACKAGES
        for path in (ROOT / pkg).glob("*.py")
    }
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            else:
                continue
            graph[name] |= {t for t in targets if t in files and t != name}
    return graph


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


def test_flows_and_the_pdf_and_code_parsers_have_no_import_cycles():
    graph = import_graph()
    cyclic = sorted(name for name in graph if name.startswith(UNTANGLED) and reaches(graph, name, name))
    assert cyclic == []
