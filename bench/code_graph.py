"""Measure the code graph on a real tree.

    PYTHONPATH=. .venv/bin/python bench/code_graph.py ast TREE
        calls found by parsers.code.graph vs Python's own ``ast`` (every ast.Call whose func is a
        Name or an Attribute, as distinct (callee name, line) pairs; an ``from m import f as g`` alias is
        mapped back to ``f`` on both sides): recall and precision over the tree's .py files.
    PYTHONPATH=. .venv/bin/python bench/code_graph.py map TREE [--tokens 1024]
        parse time with and without graph extraction, graph.jsonl size, and the time to load the
        graph and build a repo map from it (what `docmill repo-map` does after opening the build).

The line of an attribute call is the line of its name (``.strip()`` on the last line of a chain),
which for ast is ``func.end_lineno``; for a plain name it is ``func.lineno``.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from tree_sitter import Parser

from docmill.graph import CodeGraph
from docmill.repomap import repo_map
from indexers.build.files import GRAPH_FILE
from indexers.build.graph_file import FileGraph, read_rows, write_graph
from parsers.code.graph import extract
from parsers.code.languages import LANGUAGE_BY_SUFFIX, load_language
from parsers.code.parser import parse
from parsers.model import SkipFile
from parsers.options import ParseOptions
from parsers.source import SourceFile


def ast_calls(text: str) -> Counter[tuple[str, int]]:
    tree = ast.parse(text)
    aliases = {
        a.asname: a.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for a in node.names
        if a.asname
    }
    found: Counter[tuple[str, int]] = Counter()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name):
            found[(aliases.get(func.id, func.id), func.lineno)] += 1
        elif isinstance(func, ast.Attribute):
            found[(func.attr, func.end_lineno or func.lineno)] += 1
    return found


def our_calls(path: Path, rel: str) -> Counter[tuple[str, int]]:
    (doc,) = parse(SourceFile.read(path, rel), ParseOptions())
    assert doc.graph is not None
    return Counter((r.name, r.line) for r in doc.graph.references if r.kind == "call")


def cmd_ast(tree: Path) -> None:
    expected = got = matched = files = 0
    misses: Counter[str] = Counter()
    for path in sorted(tree.rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            truth = ast_calls(text)
            ours = our_calls(path, str(path.relative_to(tree)))
        except (SyntaxError, SkipFile):  # not Python 3, or blank
            continue
        files += 1
        # distinct (name, line) pairs: two calls of len() on one line are one reference to it
        expected += len(truth)
        got += len(ours)
        matched += len(truth.keys() & ours.keys())
        misses.update(name for name, _ in truth.keys() - ours.keys())
    print(f"{tree}: {files} files, ast calls {expected}, ours {got}, matched {matched}")
    print(f"recall {matched / max(expected, 1):.4f}  precision {matched / max(got, 1):.4f}")
    print("most missed names:", misses.most_common(8))


def cmd_map(tree: Path, tokens: int) -> None:
    files = [p for p in sorted(tree.rglob("*")) if p.is_file() and p.suffix.lower() in LANGUAGE_BY_SUFFIX]
    extraction = with_graph = 0.0
    graphs: list[FileGraph] = []
    for path in files:
        data = path.read_bytes()
        rel = str(path.relative_to(tree.parent))
        source = SourceFile(path, rel, data, hashlib.sha256(data).hexdigest())
        try:
            t = time.perf_counter()
            (doc,) = parse(source, ParseOptions())
            with_graph += time.perf_counter() - t
        except SkipFile as exc:  # a blank file is not part of the measure
            print(f"skip {rel}: {exc}", file=sys.stderr)
            continue
        assert doc.graph is not None
        language = str(doc.metadata["language"])
        graphs.append(FileGraph(rel, language, doc.graph))
        root = Parser(load_language(language)).parse(data.replace(b"\r\n", b"\n")).root_node
        t = time.perf_counter()
        extract(root, data.replace(b"\r\n", b"\n"), language)
        extraction += time.perf_counter() - t  # the same extraction again, timed alone
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        summary = write_graph(folder, graphs)
        size = (folder / GRAPH_FILE).stat().st_size
        t = time.perf_counter()
        with open(folder / GRAPH_FILE, "rb") as handle:
            graph = CodeGraph(list(read_rows(handle)))
        loaded = time.perf_counter() - t
        t = time.perf_counter()
        result = repo_map(graph, tokens=tokens)
        mapped = time.perf_counter() - t
    counts = ", ".join(f"{summary[k]} {k}" for k in ("files", "definitions", "references"))
    print(f"{tree}: {counts}")
    print(f"code parse {with_graph:.2f} s, of which graph extraction {extraction:.2f} s")
    print(f"graph.jsonl {size / 1e6:.2f} MB; load {loaded:.2f} s; repo map ({tokens} tokens) {mapped:.2f} s")
    symbols = sum(len(f.symbols) for f in result.files)
    print(f"map: {len(result.files)} files, {symbols} symbols, {result.tokens} tokens")
    print(result.text()[:600])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["ast", "map"])
    ap.add_argument("tree", type=Path)
    ap.add_argument("--tokens", type=int, default=1024)
    args = ap.parse_args(argv)
    if args.what == "ast":
        cmd_ast(args.tree)
    else:
        cmd_map(args.tree, args.tokens)
    return 0


if __name__ == "__main__":
    sys.exit(main())
