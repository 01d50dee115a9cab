"""Source code via tree-sitter: one block per function/method, one header block per class-like
definition (its text without the member definitions), and module-level code in contiguous runs.

The walker is generic; each language only says which node types are functions, class-like
containers, wrappers (decorators, ``export``, ``template``), comments that attach to the next
definition, and preprocessor-style nodes whose children belong to the enclosing scope.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

from tree_sitter import Node, Parser

from parsers.code.graph import extract as extract_graph
from parsers.code.languages import SPECS, LangSpec, language_for, load_language
from parsers.code.syntax import (
    MAX_NESTED_DEFINITIONS,
    MODULE_NODE,
    _body,
    _Definition,
    _rows,
    _scope_nodes,
    definition_name,
    signature,
    split_scope,
)
from parsers.model import Block, ParsedDocument, SkipFile
from parsers.options import ParseOptions
from parsers.source import SourceFile, encoding_note


def _line_start(source: bytes, offset: int) -> int:
    """``offset`` moved back to its line start when only indentation precedes it."""
    line_start = source.rfind(b"\n", 0, offset) + 1
    return line_start if not source[line_start:offset].strip() else offset


def _tidy(raw: bytes) -> str:
    """Decoded, dedented text with blank-line runs collapsed and no blank line before a ``}``."""
    lines = [line.rstrip() for line in raw.decode("utf-8", "replace").split("\n")]
    out: list[str] = []
    for line in lines:
        if not line and (not out or not out[-1]):
            continue
        if out and not out[-1] and line.lstrip().startswith("}"):
            out.pop()
        out.append(line)
    return textwrap.dedent("\n".join(out)).strip("\n")


def _cut(source: bytes, start: int, end: int, holes: list[tuple[int, int]]) -> str:
    """Text of ``source[start:end]`` with the ``holes`` (member definitions) removed."""
    pieces, pos = [], _line_start(source, start)
    for hole_start, hole_end in sorted(holes):
        pieces.append(source[pos : _line_start(source, hole_start)])
        pos = hole_end
    pieces.append(source[pos:end])
    return _tidy(b"".join(pieces))


@dataclass(frozen=True)
class _Walk:
    source: bytes
    spec: LangSpec
    language: str

    def block(self, item: _Definition, text: str, symbol: str | None, context: tuple[str, ...]) -> Block:
        return Block(
            kind="code",
            text=text,
            lines=(item.first_row + 1, item.last_row + 1),
            language=self.language,
            symbol=symbol,
            signature=signature(item.node, self.source),
            context=context,
            metadata={"node": item.node.type},
        )

    def definition(
        self, item: _Definition, context: tuple[str, ...], prefix: tuple[str, ...], depth: int = 0
    ) -> Iterator[Block]:
        symbol = ".".join((*prefix, definition_name(item.node)))
        if item.kind == "function" or depth >= MAX_NESTED_DEFINITIONS:
            yield self.block(item, _cut(self.source, item.start, item.end, []), symbol, context)
            return
        body = _body(item.node)
        members = [
            member
            for member in (split_scope(_scope_nodes(body.children, self.spec), self.spec) if body else [])
            if isinstance(member, _Definition)
        ]
        header = _cut(self.source, item.start, item.end, [(m.start, m.end) for m in members])
        yield self.block(item, header, symbol, context)
        inner_context = (*context, signature(item.node, self.source))
        for member in members:
            yield from self.definition(member, inner_context, tuple(symbol.split(".")), depth + 1)

    def module(self, nodes: list[Node]) -> Block | None:
        text = _tidy(self.source[_line_start(self.source, nodes[0].start_byte) : nodes[-1].end_byte])
        if not text.strip():
            return None
        first, last = _rows(nodes[0])[0], max(_rows(n)[1] for n in nodes)
        return Block(
            kind="code",
            text=text,
            lines=(first + 1, last + 1),
            language=self.language,
            metadata={"node": MODULE_NODE},
        )

    def file(self, root: Node) -> Iterator[Block]:
        """Every block of the file in order: module runs between top-level definitions."""
        run: list[Node] = []
        for item in split_scope(_scope_nodes(root.children, self.spec), self.spec):
            if isinstance(item, Node):
                run.append(item)
                continue
            if run and (block := self.module(run)) is not None:
                yield block
            run = []
            yield from self.definition(item, (), ())
        if run and (block := self.module(run)) is not None:
            yield block


def count_syntax_errors(root: Node) -> int:
    """ERROR and MISSING nodes in the tree (0 for a clean parse); only erroneous subtrees are visited."""
    if not root.has_error:
        return 0
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        count += node.is_error or node.is_missing
        stack.extend(c for c in node.children if c.has_error or c.is_missing)
    return count


def parse(source: SourceFile, options: ParseOptions) -> list[ParsedDocument]:
    language = language_for(source.rel_path) or language_for(source.path.name)
    if language is None:
        raise SkipFile(f"no code grammar for suffix {PurePosixPath(source.rel_path).suffix!r}")
    text, encoding = source.text()
    if not text.strip():
        raise SkipFile("no code (file is blank)")
    # Re-encode the decoded text so byte offsets match whatever encoding the file had.
    data = text.replace("\r\n", "\n").encode("utf-8")
    root = Parser(load_language(language)).parse(data).root_node
    if language == "c" and PurePosixPath(source.rel_path).suffix.lower() == ".h" and root.has_error:
        # A .h file is C or C++; keep whichever grammar reads it with fewer errors.
        cpp_root = Parser(load_language("cpp")).parse(data).root_node
        if count_syntax_errors(cpp_root) < count_syntax_errors(root):
            language, root = "cpp", cpp_root
    blocks = tuple(_Walk(data, SPECS[language], language).file(root))
    if not blocks:
        raise SkipFile("no code (only blank lines)")
    metadata = {
        "language": language,
        "syntax_errors": count_syntax_errors(root),
        "lines": text.count("\n") + (0 if text.endswith("\n") else 1),
    }
    metadata.update(encoding_note(encoding))
    return [
        ParsedDocument.of_file(
            source, "code", blocks, metadata=metadata, graph=extract_graph(root, data, language)
        )
    ]
