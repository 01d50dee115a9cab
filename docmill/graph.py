"""Who defines and who uses a symbol: the code graph of a build (indexers.build.graph_file), read with the
standard library only.

Resolution is by name, narrowed by what the file says: a reference whose import (or imported
receiver, ``np.array()``) names a module reaches only definitions in a file or class that module
can name (its last segment is one of the definition's path segments or enclosing classes). A
reference with no such hint (``obj.chat()``) reaches every ``chat``: no types are inferred.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any

from docmill.hits import Hit
from indexers.build.files import GRAPH_FILE
from indexers.build.graph_file import (
    FileGraph,
    GraphUnavailable,
    check_version,
    graph_readable,
    open_graph_file,
    read_rows,
)
from indexers.build.manifest import Manifest
from indexers.build.sections import GraphSection
from parsers.model import Definition, Reference

# file-name stems that stand for their folder (a package's __init__.py, Rust's mod.rs, index.js)
_PACKAGE_STEMS = frozenset({"__init__", "mod", "index", "lib", "main"})


def symbol_path(path: str, symbol: str | None) -> str | None:
    """``pkg/client.py::Client.chat`` as in Chunk.symbol_path; None at module level."""
    return f"{path}::{symbol}" if symbol else None


@dataclass(frozen=True)
class SymbolDefinition:
    path: str
    definition: Definition

    def to_json(self) -> dict[str, Any]:
        d = self.definition
        return {"path": self.path, "lines": list(d.lines), "symbol_path": symbol_path(self.path, d.symbol)}


@dataclass(frozen=True)
class SymbolReference:
    path: str
    reference: Reference

    def to_json(self) -> dict[str, Any]:
        r = self.reference
        return {
            "path": self.path,
            "line": r.line,
            "symbol_path": symbol_path(self.path, r.symbol),
            "kind": r.kind,
        }


@dataclass(frozen=True)
class References:
    """The definitions of ``symbol`` and the references that can reach them, by file and line;
    ``targets[i]``: the positions in ``definitions`` reference ``i`` can reach (one: resolved;
    more: ambiguous, nothing in the file says which)."""

    symbol: str
    definitions: tuple[SymbolDefinition, ...]
    references: tuple[SymbolReference, ...]
    targets: tuple[tuple[int, ...], ...] = ()

    def _targets(self, i: int) -> tuple[int, ...]:
        return self.targets[i] if i < len(self.targets) else ()

    def to_json(self) -> dict[str, Any]:
        refs = []
        for i, r in enumerate(self.references):
            reached = [self.definitions[t] for t in self._targets(i)]
            refs.append(
                {
                    **r.to_json(),
                    "resolves_to": [symbol_path(d.path, d.definition.symbol) for d in reached],
                    "ambiguous": len(reached) > 1,
                    "by_name": by_name(r.reference),
                }
            )
        return {
            "symbol": self.symbol,
            "definitions": [d.to_json() for d in self.definitions],
            "references": refs,
        }

    def text(self) -> str:
        """The `docmill refs` listing: definitions numbered, each reference with the one it
        resolves to (``-> [2]``) or the ones it may mean (``ambiguous: [1] [2]``)."""
        lines = [f"{len(self.definitions)} definition(s) of {self.symbol}:"]
        for n, d in enumerate(self.definitions, start=1):
            where = f"{d.path}:{d.definition.lines[0]}-{d.definition.lines[1]}"
            lines.append(f"  [{n}] {where}  {d.definition.symbol}: {d.definition.signature}")
        lines.append(f"{len(self.references)} reference(s):")
        for i, r in enumerate(self.references):
            where = r.reference.symbol or "<module>"
            reached = self._targets(i)
            if not self.definitions:
                link = "(not defined in this index)"
            elif len(reached) == 1:
                link = f"-> [{reached[0] + 1}]" + (
                    " (by name: receiver type unknown)" if by_name(r.reference) else ""
                )
            else:
                link = "ambiguous: " + " ".join(f"[{t + 1}]" for t in reached)
            lines.append(f"  {r.path}:{r.reference.line}  {r.reference.kind:<6} in {where}  {link}")
        if any(len(self._targets(i)) > 1 for i in range(len(self.references))):
            lines.append(
                "ambiguous: only the name is known (no import or receiver type says which definition)"
            )
        return "\n".join(lines)


def by_name(reference: Reference) -> bool:
    """A call through an object of unknown type (``obj.close()``): it reaches a definition by its
    name alone, so a single match is a guess, not a resolution."""
    return reference.member and not reference.qualifier


@functools.lru_cache(maxsize=65536)
def owner_segments(path: str, symbol: str) -> frozenset[str]:
    """The names a module qualifier may use for a definition: its path's folders and file stem,
    and its enclosing classes (``a/client.py`` + ``Client.chat`` -> a, client, Client)."""
    pure = PurePosixPath(path)
    parts = [*pure.parent.parts, pure.stem if pure.stem not in _PACKAGE_STEMS else ""]
    return frozenset(p for p in (*parts, *symbol.split(".")[:-1]) if p)


def reaches(reference: Reference, path: str, definition: Definition, ref_path: str) -> bool:
    """Can ``reference`` (made in ``ref_path``) mean ``definition`` (in ``path``)? Not when its
    qualifier names a module or class the definition is not in; not when it is a member
    (``obj.chat()``) and the definition is not (a module-level ``chat``), nor when it is a bare
    call (``chat()``) of a method in another file (``Client.chat``); not when a type use
    (``x: string``) meets a function. Otherwise yes, by name."""
    if not reference.member and not reference.qualifier and "." in definition.symbol and path != ref_path:
        return reference.kind == "import"
    if reference.member and "." not in definition.symbol:
        return False
    if reference.kind == "type" and definition.kind != "class":
        return False
    if not reference.qualifier:
        return True
    return reference.qualifier.rsplit(".", 1)[-1] in owner_segments(path, definition.symbol)


class CodeGraph:
    """A build's definitions and references, indexed by name."""

    def __init__(self, files: list[FileGraph]) -> None:
        self.files = files
        self.definitions: dict[str, list[SymbolDefinition]] = defaultdict(list)  # by short name
        self.references_to: dict[str, list[SymbolReference]] = defaultdict(list)  # by name
        self.calls_in: dict[tuple[str, str], list[str]] = defaultdict(list)  # (path, symbol) -> names
        for item in files:
            for d in item.graph.definitions:
                self.definitions[d.name].append(SymbolDefinition(item.path, d))
            for r in item.graph.references:
                self.references_to[r.name].append(SymbolReference(item.path, r))
                if r.kind == "call" and r.symbol:
                    self.calls_in[(item.path, r.symbol)].append(r.name)

    def find_definitions(self, name: str) -> list[SymbolDefinition]:
        """``chat``, ``Client.chat`` (a symbol or its dotted tail) or ``path::Client.chat``."""
        if "::" in name:
            path, symbol = name.split("::", 1)
            short = symbol.rsplit(".", 1)[-1]
            return [
                d for d in self.definitions.get(short, []) if d.path == path and d.definition.symbol == symbol
            ]
        short = name.rsplit(".", 1)[-1]
        found = self.definitions.get(short, [])
        if "." in name:
            found = [
                d for d in found if d.definition.symbol == name or d.definition.symbol.endswith("." + name)
            ]
        return list(found)

    def resolve(self, ref: SymbolReference) -> list[SymbolDefinition]:
        """The definitions ``ref`` can reach (empty: none in this build, e.g. a library call)."""
        return [
            d
            for d in self.definitions.get(ref.reference.name, [])
            if reaches(ref.reference, d.path, d.definition, ref.path)
        ]

    def references(self, name: str) -> References:
        """NAME's definitions and every reference that can reach one of them, sorted by file and
        line, each with the definitions it reaches. A name with no definition in the build
        (``print``) lists every use of the name."""
        defs = sorted(self.find_definitions(name), key=lambda d: (d.path, d.definition.lines[0]))
        short = name.split("::")[-1].rsplit(".", 1)[-1]
        candidates = sorted(
            self.references_to.get(short, []), key=lambda r: (r.path, r.reference.line, r.reference.kind)
        )
        if not defs and ("." in name or "::" in name):
            candidates = []  # a qualified name that is not defined here has no references here
        refs: list[SymbolReference] = []
        targets: list[tuple[int, ...]] = []
        for r in candidates:
            reached = tuple(
                i for i, d in enumerate(defs) if reaches(r.reference, d.path, d.definition, r.path)
            )
            if defs and not reached:
                continue
            refs.append(r)
            targets.append(reached)
        return References(name, tuple(defs), tuple(refs), tuple(targets))

    def context(self, path: str, symbol: str, limit: int = 5) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(used by, calls) of the definition ``path::symbol``: up to ``limit`` enclosing symbols
        of the calls that can reach it, and up to ``limit`` names it calls, in file order."""
        refs = self.references(f"{path}::{symbol}").references
        used_by: list[str] = []
        for r in refs:
            if r.reference.kind != "call":
                continue
            where = symbol_path(r.path, r.reference.symbol) or r.path
            if where != f"{path}::{symbol}" and where not in used_by:
                used_by.append(where)
        calls = list(dict.fromkeys(self.calls_in.get((path, symbol), [])))
        return tuple(used_by[:limit]), tuple(calls[:limit])


class GraphFile:
    """A build's graph.jsonl, opened with the build (so a reader keeps it after a later publish
    prunes the folder) and parsed on first use."""

    def __init__(self, build: Path, manifest: Manifest, handle: IO[bytes] | None | bool = True) -> None:
        """``handle``: graph.jsonl already opened with the build (indexers.build.open), None for a
        build without one; by default it is opened here."""
        self.build, self.manifest = build, manifest
        if handle is True:
            handle = open_graph_file(build, manifest.files)
        self._handle: IO[bytes] | None = handle or None
        self._readable = graph_readable(manifest.extra)  # read once: every search asks
        # Only code documents have chunks with a symbol, the graph's context of a hit: without them
        # a search need not look at its hits' chunks (parsed on first use) to add none.
        self.has_code = any(d.parser == "code" and d.status == "indexed" for d in manifest.documents)
        self._graph: CodeGraph | None = None
        self._lock = threading.Lock()

    @property
    def readable(self) -> bool:
        """The build has a graph of the version this docmill reads."""
        return self._handle is not None and self._readable

    def with_context(self, hits: list[Hit]) -> list[Hit]:
        """Code hits with their "used by" / "calls" lists; unchanged without a readable graph or
        without code documents in the build."""
        if not self.has_code or not self.readable:
            return hits
        if not any(h.chunk.kind == "code" and h.chunk.symbol for h in hits):
            return hits
        graph = self.load()
        out = []
        for hit in hits:
            c = hit.chunk
            if c.kind == "code" and c.symbol:
                used_by, calls = graph.context(c.path, c.symbol)
                hit = dataclasses.replace(hit, used_by=used_by, calls=calls)
            out.append(hit)
        return out

    def load(self) -> CodeGraph:
        """The parsed graph; GraphUnavailable (saying to re-ingest) for a build without one."""
        index = str(self.build.parent.parent)
        check_version(self.manifest.extra, index)
        if self._handle is None:
            raise GraphUnavailable(
                f"index {index} does not list {GRAPH_FILE}; re-ingest it with `docmill ingest`"
            )
        with self._lock:
            if self._graph is None:
                self._graph = CodeGraph(list(read_rows(self._handle)))
            return self._graph

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()


def open_graph(path: str | Path) -> CodeGraph:
    """The code graph of an index folder's current build, without loading its retrievers (what
    `docmill refs` and `docmill repo-map` need). Raises GraphUnavailable for a build without one."""
    from indexers.build.store import IndexStore

    build = IndexStore(Path(path)).current_build()
    manifest = Manifest.read(build)
    manifest.verify_files(build)
    graph_file = GraphFile(build, manifest)
    try:
        return graph_file.load()
    finally:
        graph_file.close()


class NoCode(ValueError):
    """The index holds no source code, so it has no code graph to map or link."""


def open_code_graph(path: str | Path, command: str = "refs") -> CodeGraph:
    """``open_graph`` for `docmill refs` / `repo-map`: NoCode, saying what to do, when the index's
    current build holds no code file with a definition (a build of Markdown or PDFs only)."""
    from indexers.build.store import IndexStore

    build = IndexStore(Path(path)).current_build()
    manifest = Manifest.read(build)
    section = GraphSection.read(manifest.extra)
    parsers = sorted({d.parser for d in manifest.documents if d.parser and d.status != "skipped"})
    if "code" not in parsers or (section is not None and not section.definitions):
        raise NoCode(
            f"index {path} holds no source code (documents read as: {', '.join(parsers) or 'none'}), "
            f"so `docmill {command}` has nothing to show; ingest a tree with code files "
            "(.py, .js, .ts, .go, .rs, .java, .c, .cpp) to map and link code"
        )
    return open_graph(path)
