"""A repository map (as aider builds one): the files of a code tree with their most important
definitions, ranked by PageRank over the file reference graph and cut to a token budget.

A file that uses a name defined in another file gives it an edge, weighted by how often it uses
the name (square root, so one chatty file does not dominate) and split between the files that
define it; names defined in many files (``get``, ``run``), private names and calls through a receiver of
unknown type (``obj.append()``) weigh less. After
PageRank over files, each file passes its rank along its edges to the definitions its references
reach: a definition ranks by how much important code uses it. ``focus`` (a path or a symbol)
personalises the walk, so what the focused files use ranks first.

Without a focus the map starts with the package's public face (``tier``): definitions a module
exports (Python ``__all__``, or a package ``__init__`` importing them) or that code in several
other files uses, then other public definitions, then private ones (``_name``) and test code; by
rank within each. A method is shown under its class (the class line is included with it), and a
signature is cut at a token boundary.
"""

from __future__ import annotations

import fnmatch
import math
from collections import defaultdict
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

import numpy as np

from chunkers.sizing import count_tokens
from docmill.graph import CodeGraph, SymbolDefinition, reaches
from parsers.code.clip import clip_signature
from parsers.model import Reference

DAMPING = 0.85
COMMON_NAME_FILES = 5  # a name defined in more files than this is probably generic
MEMBER_WEIGHT = 0.2
DEFAULT_TOKENS = 1024
MAP_SIGNATURE_CHARS = 100  # a map line's signature, cut at a token boundary
WIDELY_USED_FILES = 3  # used from this many other files: part of the package's face
_PACKAGE_FILES = frozenset({"__init__.py", "index.js", "index.ts", "mod.rs", "lib.rs"})
_TEST_PARTS = frozenset({"test", "tests", "testing", "spec", "__tests__"})


def pagerank(
    n: int, edges: dict[tuple[int, int], float], personal: np.ndarray | None = None, iterations: int = 100
) -> np.ndarray:
    """PageRank of ``n`` nodes over weighted ``edges`` ((src, dst) -> weight); dangling nodes and
    the teleport follow ``personal`` (uniform by default). Sums to 1."""
    if n == 0:
        return np.zeros(0)
    teleport = np.full(n, 1.0 / n) if personal is None else personal / personal.sum()
    src = np.fromiter((s for s, _ in edges), dtype=np.int64, count=len(edges))
    dst = np.fromiter((d for _, d in edges), dtype=np.int64, count=len(edges))
    weight = np.fromiter(edges.values(), dtype=np.float64, count=len(edges))
    out = np.bincount(src, weights=weight, minlength=n)
    share = weight / np.where(out[src] > 0, out[src], 1.0)
    dangling = out == 0
    rank = teleport.copy()
    for _ in range(iterations):
        flow = np.bincount(dst, weights=rank[src] * share, minlength=n)
        new = DAMPING * (flow + rank[dangling].sum() * teleport) + (1 - DAMPING) * teleport
        if np.abs(new - rank).sum() < 1e-10:
            return new
        rank = new
    return rank


def name_weight(name: str, defining_files: int, focus_names: frozenset[str], member: bool) -> float:
    weight = 10.0 if name in focus_names else 1.0
    if member:  # obj.append(): the receiver's type is unknown, so this is weak evidence
        weight *= MEMBER_WEIGHT
    if name.startswith("_"):
        weight *= 0.1
    if defining_files > COMMON_NAME_FILES:
        weight *= 0.1
    return weight


@dataclass(frozen=True)
class MapSymbol:
    name: str
    line: int
    signature: str
    depth: int  # nesting (Class.method is 1), for indentation
    symbol: str = ""  # dotted (Class.method)

    @classmethod
    def of(cls, d: SymbolDefinition) -> MapSymbol:
        sig = clip_signature(d.definition.signature, MAP_SIGNATURE_CHARS)
        symbol = d.definition.symbol
        return cls(d.definition.name, d.definition.lines[0], sig, symbol.count("."), symbol)


@dataclass(frozen=True)
class MapFile:
    path: str
    symbols: tuple[MapSymbol, ...]


@dataclass(frozen=True)
class RepoMap:
    tokens: int
    files: tuple[MapFile, ...]

    def text(self) -> str:
        """What an assistant is given: each file, then its symbols' signature lines by line."""
        return render(self.files)

    def to_json(self) -> dict[str, Any]:
        return {
            "tokens": self.tokens,
            "files": [
                {
                    "path": f.path,
                    "symbols": [
                        {"name": s.name, "symbol": s.symbol, "line": s.line, "signature": s.signature}
                        for s in f.symbols
                    ],
                }
                for f in self.files
            ],
        }


def _header(path: str) -> str:
    return f"{path}:"


def _line(symbol: MapSymbol) -> str:
    return f"{symbol.line:>6}│ {'    ' * symbol.depth}{symbol.signature}"


def render(files: tuple[MapFile, ...]) -> str:
    out: list[str] = []
    for f in files:
        out.append(_header(f.path))
        out.extend(_line(s) for s in f.symbols)
    return "\n".join(out) + ("\n" if out else "")


class Ranker:
    """The reference graph of a CodeGraph, ranked; built per call (a focus changes the ranks)."""

    def __init__(self, graph: CodeGraph) -> None:
        self.graph = graph
        self.paths = sorted({item.path for item in graph.files})
        self.row = {path: i for i, path in enumerate(self.paths)}

    def focus_vector(self, focus: str | None) -> tuple[np.ndarray | None, frozenset[str]]:
        """The personalisation for ``focus`` (a path, a glob, or a symbol) and the focused names."""
        if not focus:
            return None, frozenset()
        personal = np.zeros(len(self.paths))
        names: set[str] = set()
        for path, i in self.row.items():
            if path == focus or path.endswith("/" + focus) or fnmatch.fnmatch(path, focus):
                personal[i] = 1.0
        for d in self.graph.find_definitions(focus) if not personal.any() else []:
            personal[self.row[d.path]] = 1.0
            names.add(d.definition.name)
        if not personal.any():
            raise ValueError(f"--focus {focus!r} matches no file or symbol in this index's code")
        return personal, frozenset(names)

    def edges(self, focus_names: frozenset[str]) -> list[tuple[int, int, SymbolDefinition, float]]:
        """(src file, dst file, definition reached, weight) for every cross-file reference."""
        uses: dict[tuple[str, str, str | None, bool], int] = defaultdict(int)
        for item in self.graph.files:
            for r in item.graph.references:
                uses[(item.path, r.name, r.qualifier, r.member)] += 1
        found: list[tuple[int, int, SymbolDefinition, float]] = []
        for (path, name, qualifier, member), count in uses.items():
            probe = Reference(name, 0, None, "call", qualifier, member)
            targets = [
                d
                for d in self.graph.definitions.get(name, [])
                if d.path != path and reaches(probe, d.path, d.definition, path)
            ]
            files = {d.path for d in targets}
            if not targets:
                continue
            weight = math.sqrt(count) * name_weight(name, len(files), focus_names, member) / len(targets)
            found.extend((self.row[path], self.row[d.path], d, weight) for d in targets)
        return found

    def exported(self) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
        """(path, symbol) of the definitions a module exports (``__all__``; a package file's
        import), and of those non-member references from ``WIDELY_USED_FILES`` other files reach."""
        out: set[tuple[str, str]] = set()
        users: dict[tuple[str, str], set[str]] = defaultdict(set)
        for item in self.graph.files:
            in_package_file = PurePosixPath(item.path).name in _PACKAGE_FILES
            for r in item.graph.references:
                if r.member or r.kind not in ("export", "import", "call", "type"):
                    continue
                for d in self.graph.definitions.get(r.name, []):
                    own = d.path == item.path  # a module's own __all__ exports; its own calls do not count
                    if not (own and r.kind == "export") and (
                        own or not reaches(r, d.path, d.definition, item.path)
                    ):
                        continue
                    key = (d.path, d.definition.symbol)
                    if r.kind == "export" or (r.kind == "import" and in_package_file):
                        out.add(key)
                    users[key].add(item.path)
        return out, {key for key, files in users.items() if len(files) >= WIDELY_USED_FILES}

    def ranked_definitions(self, focus: str | None = None) -> list[tuple[float, SymbolDefinition]]:
        """Every definition with its rank, best first: without a focus by ``tier`` first, then
        rank (ties: path, line)."""
        personal, focus_names = self.focus_vector(focus)
        edges = self.edges(focus_names)
        file_edges: dict[tuple[int, int], float] = defaultdict(float)
        for src, dst, _, weight in edges:
            file_edges[(src, dst)] += weight
        rank = pagerank(len(self.paths), file_edges, personal)
        out_weight = np.zeros(len(self.paths))
        for src, _, _, weight in edges:
            out_weight[src] += weight
        score: dict[int, float] = defaultdict(float)  # by id() of the graph's own definitions
        for src, _, d, weight in edges:
            score[id(d)] += rank[src] * weight / out_weight[src]
        ranked = [
            # unreferenced definitions follow, in the order of their file's rank
            (score.get(id(d), 0.0) + 1e-6 * rank[self.row[d.path]], d)
            for defs in self.graph.definitions.values()
            for d in defs
        ]
        exported, widely_used = self.exported() if not focus else (set(), set())

        def order(item: tuple[float, SymbolDefinition]) -> tuple[Any, ...]:
            score, d = item
            tier_of = tier(d, exported, widely_used) if not focus else 0
            return (tier_of, -score, d.path, d.definition.lines[0], d.definition.symbol)

        ranked.sort(key=order)
        return ranked


def tier(d: SymbolDefinition, exported: set[tuple[str, str]], widely_used: set[tuple[str, str]]) -> int:
    """0: exported; 1: used from several files; 2: public; 3: private (``_name``) or test code."""
    parts = d.definition.symbol.split(".")
    path = PurePosixPath(d.path)
    in_tests = any(p in _TEST_PARTS for p in path.parts[:-1]) or path.name.startswith(("test_", "tests."))
    if in_tests or any(p.startswith("_") and not (p.startswith("__") and p.endswith("__")) for p in parts):
        return 3
    key = (d.path, d.definition.symbol)
    if key in exported and len(parts) == 1:
        return 0
    return 1 if key in widely_used else 2


def repo_map(graph: CodeGraph, tokens: int = DEFAULT_TOKENS, focus: str | None = None) -> RepoMap:
    """The highest-ranked definitions that fit in ``tokens`` (chunkers.sizing.count_tokens of the
    text), grouped by file; files in the order of their best definition. A method comes with its
    class's line (counted in the budget)."""
    if tokens <= 0:
        raise ValueError(f"tokens must be positive, got {tokens}")
    chosen: dict[str, dict[str, MapSymbol]] = {}
    used = 0
    for _, d in Ranker(graph).ranked_definitions(focus):
        wanted = [MapSymbol.of(c) for c in _enclosing(graph, d)] + [MapSymbol.of(d)]
        have = chosen.get(d.path, {})
        new = [m for m in wanted if m.symbol not in have]
        if not new:
            continue
        cost = sum(count_tokens(_line(m)) for m in new) + (
            0 if d.path in chosen else count_tokens(_header(d.path))
        )
        if used + cost > tokens:
            if used:
                break
            continue  # not even the first fits: try a smaller one
        chosen.setdefault(d.path, {}).update((m.symbol, m) for m in new)
        used += cost
    files = tuple(
        MapFile(path, tuple(sorted(symbols.values(), key=lambda s: (s.line, s.depth))))
        for path, symbols in chosen.items()
    )
    return RepoMap(count_tokens(render(files)), files)


def _enclosing(graph: CodeGraph, d: SymbolDefinition) -> list[SymbolDefinition]:
    """The classes a method is defined in, outermost first (none for a module-level one)."""
    parts = d.definition.symbol.split(".")
    out = []
    for i in range(1, len(parts)):
        found = graph.find_definitions(f"{d.path}::{'.'.join(parts[:i])}")
        out.extend(found[:1])
    return out
