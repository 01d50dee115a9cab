"""Definitions and references of a source file, from the tree-sitter tree the code parser built.

Definitions come from the same walk as the code blocks (so a definition's ``symbol`` is the symbol
of its block). References come from one tags-style query per language: calls (``f()``, ``o.m()``,
``new T()``, Rust macros), type references (annotations, base classes, ``T{}``), the names a Python
module lists in ``__all__`` (kind ``export``), and imports, which
also give the file's aliases so that a call through an alias names what it calls
(``from m import chat as talk; talk()`` refers to ``chat``, qualified by ``m``).

Resolution stops at names: a reference says which name it uses and, where an import or an imported
receiver says so, which module it comes from. Which definition it reaches is decided at query time
(docmill.graph) from those two; no types are inferred (``obj.chat()`` refers to any ``chat``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from tree_sitter import Node, Query, QueryCursor

from parsers.code.bindings import class_bindings, typed_receiver
from parsers.code.clip import clip_signature
from parsers.code.languages import SPECS, LangSpec, load_language
from parsers.code.syntax import (
    MAX_NESTED_DEFINITIONS,
    _body,
    _rows,
    _scope_nodes,
    definition_name,
    signature,
    split_scope,
)
from parsers.code.syntax import _Definition as _ScopeDefinition
from parsers.model import CodeGraph, Definition, Reference

MAX_SIGNATURE_CHARS = 160

_JS_CALLS = """
(call_expression function: (identifier) @call)
(call_expression function: (member_expression object: (_) @recv property: (property_identifier) @call))
(new_expression constructor: (identifier) @call)
(new_expression constructor: (member_expression object: (_) @recv property: (property_identifier) @call))
(import_statement) @import
"""
_C_CALLS = """
(call_expression function: (identifier) @call)
(call_expression function: (field_expression argument: (_) @recv field: (field_identifier) @call))
(type_identifier) @type
(preproc_include) @import
"""
# Each pattern captures the referring name as @call or @type (with its receiver as @recv when
# there is one), or a whole import statement as @import.
QUERIES: dict[str, str] = {
    "python": """
(call function: (identifier) @call)
(call function: (attribute object: (_) @recv attribute: (identifier) @call))
(type (identifier) @type)
(type (attribute object: (_) @recv attribute: (identifier) @type))
(class_definition superclasses: (argument_list (identifier) @type))
(class_definition superclasses: (argument_list (attribute object: (_) @recv attribute: (identifier) @type)))
(import_statement) @import
(import_from_statement) @import
(module (expression_statement
  (assignment left: (identifier) @all right: [(list (string) @export) (tuple (string) @export)])))
""",
    "javascript": _JS_CALLS + "(class_heritage (identifier) @type)\n",
    "typescript": _JS_CALLS + "(type_identifier) @type\n(extends_clause value: (identifier) @type)\n",
    "tsx": _JS_CALLS + "(type_identifier) @type\n(extends_clause value: (identifier) @type)\n",
    "go": """
(call_expression function: (identifier) @call)
(call_expression function: (selector_expression operand: (_) @recv field: (field_identifier) @call))
(qualified_type package: (package_identifier) @recv name: (type_identifier) @type)
(type_identifier) @type
(import_spec) @import
""",
    "java": """
(method_invocation object: (_) @recv name: (identifier) @call)
(method_invocation name: (identifier) @call)
(object_creation_expression type: (type_identifier) @call)
(object_creation_expression type: (generic_type (type_identifier) @call))
(type_identifier) @type
(import_declaration) @import
""",
    "rust": """
(call_expression function: (identifier) @call)
(call_expression function: (field_expression value: (_) @recv field: (field_identifier) @call))
(call_expression function: (scoped_identifier path: (_) @recv name: (identifier) @call))
(call_expression function: (generic_function function: (identifier) @call))
(macro_invocation macro: (identifier) @call)
(type_identifier) @type
(use_declaration) @import
""",
    "c": _C_CALLS,
    "cpp": _C_CALLS
    + """
(call_expression function: (qualified_identifier scope: (_) @recv name: (identifier) @call))
(call_expression function: (template_function name: (identifier) @call))
(new_expression type: (type_identifier) @call)
""",
}
# A type_identifier in these places names the thing being defined, not a use of it.
_DEFINING_PARENTS = frozenset(
    {"class_declaration", "abstract_class_declaration", "interface_declaration", "type_alias_declaration"}
    | {"enum_declaration", "type_parameter", "type_spec", "struct_item", "enum_item", "union_item"}
    | {"trait_item", "type_item", "constrained_type_parameter", "class_specifier", "struct_specifier"}
    | {"union_specifier", "enum_specifier", "type_definition", "type_parameter_declaration"}
)
_PRIORITY = {"call": 0, "type": 1}
# a name written after a scope path (Rust, C++): ``Foo::new()``, ``ns::f()``
_SCOPED = frozenset({"scoped_identifier", "qualified_identifier"})
_QUALIFIER_JUNK = re.compile(r"^(?:\.+/|/)+|\.(?:[cm]?[jt]sx?|py|h|hpp|hh)$")
_SKIP_SEGMENTS = frozenset({"crate", "self", "super", ""})
# a receiver written as a literal (``", ".join(x)``, ``[].append``, ``"a".trim()``) is a built-in
# type's object: its calls never reach the project's definitions
_LITERALS = frozenset(
    {"string", "concatenated_string", "list", "dictionary", "set", "tuple", "integer", "float"}
    | {"list_comprehension", "dictionary_comprehension", "set_comprehension", "template_string"}
    | {"array", "object", "number", "regex", "interpreted_string_literal", "raw_string_literal"}
    | {"string_literal", "raw_string_literal", "char_literal"}
)
BUILTIN_QUALIFIER = "builtins"


@functools.cache
def _query(language: str) -> Query:
    return Query(load_language(language), QUERIES[language])


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


@functools.lru_cache(maxsize=4096)
def normalize_module(module: str) -> str:
    """A module as dotted segments: ``./lib/client.js`` -> ``lib.client``, ``crate::a::b`` ->
    ``a.b``, ``github.com/spf13/cobra`` -> ``github.com.spf13.cobra``."""
    text = _QUALIFIER_JUNK.sub("", module.strip("\"'<> ")).replace("::", ".").replace("/", ".")
    return ".".join(s for s in text.split(".") if s not in _SKIP_SEGMENTS)


# ---- definitions ----------------------------------------------------------------------------


def definitions(root: Node, source: bytes, spec: LangSpec) -> list[Definition]:
    """Every definition the code parser makes a block for, with the same symbol, in file order."""
    found: list[Definition] = []
    stack: list[tuple[list[Node], tuple[str, ...], int]] = [(root.children, (), 0)]
    while stack:
        nodes, prefix, depth = stack.pop()
        for item in split_scope(_scope_nodes(nodes, spec), spec):
            if not isinstance(item, _ScopeDefinition):
                continue
            symbol = ".".join((*prefix, definition_name(item.node)))
            first, last = _rows(item.node)
            sig = clip_signature(signature(item.node, source), MAX_SIGNATURE_CHARS)
            found.append(Definition(symbol, (first + 1, last + 1), item.kind, sig))
            body = _body(item.node) if item.kind == "class" else None
            if body is not None and depth + 1 < MAX_NESTED_DEFINITIONS:
                stack.append((body.children, tuple(symbol.split(".")), depth + 1))
    return sorted(found, key=lambda d: (d.lines[0], -d.lines[1], d.symbol))


def enclosing_symbols(defs: list[Definition], lines: list[int]) -> list[str | None]:
    """For each line, the innermost definition containing it (None at module level)."""
    order = sorted(range(len(lines)), key=lambda i: lines[i])
    out: list[str | None] = [None] * len(lines)
    open_defs: list[Definition] = []
    next_def = 0
    for i in order:
        line = lines[i]
        while next_def < len(defs) and defs[next_def].lines[0] <= line:
            open_defs.append(defs[next_def])
            next_def += 1
        innermost = [d for d in open_defs if d.lines[1] >= line]
        open_defs = innermost
        out[i] = min(innermost, key=lambda d: d.lines[1] - d.lines[0]).symbol if innermost else None
    return out


# ---- imports --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Import:
    """``local`` (the name the file uses) stands for ``name`` from ``module``; ``name`` is None
    when ``local`` is the module itself (``import numpy as np``)."""

    local: str
    module: str
    name: str | None
    line: int


def _python_imports(node: Node) -> Iterator[tuple[str, str, str | None]]:
    if node.type == "import_statement":
        for child in node.named_children:
            if child.type == "aliased_import":
                yield (
                    _text(child.child_by_field_name("alias")),
                    _text(child.child_by_field_name("name")),
                    None,
                )
            elif child.type == "dotted_name":
                yield _text(child), _text(child), None
        return
    module = _text(node.child_by_field_name("module_name"))
    for child in node.children_by_field_name("name"):
        if child.type == "aliased_import":
            original = _text(child.child_by_field_name("name"))
            yield _text(child.child_by_field_name("alias")), module, original
        else:
            yield _text(child), module, _text(child)


def _js_imports(node: Node) -> Iterator[tuple[str, str, str | None]]:
    module = _text(node.child_by_field_name("source"))
    clause = next((c for c in node.named_children if c.type == "import_clause"), None)
    for child in clause.named_children if clause is not None else []:
        if child.type == "identifier":  # default import
            yield _text(child), module, None
        elif child.type == "namespace_import":
            yield _text(child.named_children[0]) if child.named_children else "", module, None
        elif child.type == "named_imports":
            for spec in (c for c in child.named_children if c.type == "import_specifier"):
                original = _text(spec.child_by_field_name("name"))
                alias = spec.child_by_field_name("alias")
                yield _text(alias) if alias is not None else original, module, original


def _go_imports(node: Node) -> Iterator[tuple[str, str, str | None]]:
    path = _text(node.child_by_field_name("path")).strip('"`')
    alias = node.child_by_field_name("name")
    yield _text(alias) if alias is not None else path.rsplit("/", 1)[-1], path, None


def _java_imports(node: Node) -> Iterator[tuple[str, str, str | None]]:
    scoped = next((c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None)
    if scoped is None or any(c.type == "asterisk" for c in node.named_children):
        return
    module, _, name = _text(scoped).rpartition(".")
    yield name, module, name


def _rust_use(root: Node) -> Iterator[tuple[str, str, str | None]]:
    """The names a ``use`` tree binds; a loop, not recursion (use lists nest without limit)."""
    stack: list[tuple[Node, str]] = [(root, "")]
    while stack:
        node, prefix = stack.pop()
        kind = node.type
        if kind in ("identifier", "scoped_identifier", "self", "crate", "super"):
            path = f"{prefix}::{_text(node)}" if prefix else _text(node)
            module, _, name = path.rpartition("::")
            yield name, module, name
        elif kind == "use_as_clause":
            path = f"{prefix}::{_text(node.child_by_field_name('path'))}".strip(":")
            module, _, name = path.rpartition("::")
            yield _text(node.child_by_field_name("alias")), module, name
        elif kind == "scoped_use_list":
            inner = _text(node.child_by_field_name("path"))
            list_node = node.child_by_field_name("list")
            if list_node is not None:
                stack.append((list_node, f"{prefix}::{inner}".strip(":")))
        elif kind == "use_list":
            stack.extend((child, prefix) for child in reversed(node.named_children))


def _imports(node: Node, language: str) -> Iterator[tuple[str, str, str | None]]:
    """(local name, module, original name or None) for each name an import statement binds."""
    if language == "python":
        yield from _python_imports(node)
    elif language in ("javascript", "typescript", "tsx"):
        yield from _js_imports(node)
    elif language == "go":
        yield from _go_imports(node)
    elif language == "java":
        yield from _java_imports(node)
    elif language == "rust":
        argument = node.child_by_field_name("argument")
        yield from _rust_use(argument) if argument is not None else iter(())
    else:  # #include "client.h": no names bound; the header is the reference
        header = _text(node.child_by_field_name("path")).strip('"<>')
        yield "", header, None


# ---- references -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Use:
    name: str
    line: int
    kind: str
    qualifier: str | None
    member: bool = False


def _is_definition_name(node: Node) -> bool:
    parent = node.parent
    if parent is None or parent.type not in _DEFINING_PARENTS:
        return False
    if parent.type == "type_definition":  # typedef struct {...} Name;
        return parent.child_by_field_name("declarator") == node
    if parent.type in ("class_specifier", "struct_specifier", "union_specifier", "enum_specifier"):
        return parent.child_by_field_name("body") is not None  # `struct Foo x;` uses Foo
    return parent.child_by_field_name("name") == node or parent.type.endswith("parameter")


def _resolve(node: Node, receiver: Node | None, aliases: dict[str, Import]) -> tuple[str, str | None, bool]:
    """The referred name, its qualifier and whether it is a member, through the file's imports."""
    name = _text(node)
    if receiver is None:
        imported = aliases.get(name)
        if imported is not None and imported.name:
            return imported.name, normalize_module(imported.module) or None, False
        return name, None, False
    while receiver.type == "parenthesized_expression" and receiver.named_child_count == 1:
        receiver = receiver.named_children[0]
    if receiver.type in _LITERALS:
        return name, BUILTIN_QUALIFIER, True
    written = _text(receiver)
    if node.parent is not None and node.parent.type in _SCOPED:  # Foo::new(), ns::f(): the scope qualifies
        head = written.split("::", 1)[0]
        via = aliases.get(head)
        prefix = (f"{via.module}.{via.name}" if via.name else via.module) if via is not None else head
        return name, normalize_module(prefix + written[len(head) :]) or None, False
    head, _, rest = written.partition(".")
    via = aliases.get(written) or aliases.get(head)
    if via is None:
        return name, None, True
    module = f"{via.module}.{via.name}" if via.name else via.module
    if via.local != written:  # os.path.join: alias ``os``, then ``.path``
        module = f"{module}.{rest}"
    return name, normalize_module(module) or None, False


def references(root: Node, language: str) -> list[_Use]:
    """Calls, type references and imports in the file, with their lines (1-based)."""
    picked: dict[int, tuple[int, _Use]] = {}  # name node start byte -> (priority, use)
    uses: list[_Use] = []
    aliases: dict[str, Import] = {}
    matches = QueryCursor(_query(language)).matches(root)
    for _, captures in matches:
        if captures.get("export") and _text(captures["all"][0]) == "__all__":  # the names a module exports
            uses.extend(
                _Use(_text(n).strip("\"'"), n.start_point.row + 1, "export", None) for n in captures["export"]
            )
        for node in captures.get("import", []):
            line = node.start_point.row + 1
            for local, module, name in _imports(node, language):
                if local:
                    aliases[local] = Import(local, module, name, line)
                target = name or normalize_module(module).rsplit(".", 1)[-1] or module
                qualifier = normalize_module(module) if name else None
                uses.append(_Use(target, line, "import", qualifier or None))
    classes = (
        class_bindings(root, lambda ctor, recv: _resolve(ctor, recv, aliases)) if language == "python" else {}
    )
    for _, captures in matches:
        receiver = captures.get("recv", [None])[0]
        typed = typed_receiver(receiver, classes)
        for kind in ("call", "type"):
            for node in captures.get(kind, []):
                if kind == "type" and _is_definition_name(node):
                    continue
                name, qualifier, member = _resolve(node, receiver, aliases)
                if typed is not None:  # r = Runner(); r.run(): a method of Runner
                    qualifier, member = normalize_module(typed) or typed, False
                use = _Use(name, node.start_point.row + 1, kind, qualifier, member)
                rank = _PRIORITY[kind] * 2 + (receiver is None)
                held = picked.get(node.start_byte)
                if held is None or rank < held[0]:
                    picked[node.start_byte] = (rank, use)
    uses.extend(use for _, use in picked.values())
    return uses


def extract(root: Node, source: bytes, language: str) -> CodeGraph:
    """The file's definitions and references (each with its enclosing symbol), sorted by line."""
    defs = definitions(root, source, SPECS[language])
    uses = sorted(set(references(root, language)), key=lambda u: (u.line, u.kind, u.name))
    enclosing = enclosing_symbols(defs, [u.line for u in uses])
    refs = tuple(
        Reference(u.name, u.line, symbol, u.kind, u.qualifier, u.member)
        for u, symbol in zip(uses, enclosing, strict=True)
        if u.name
    )
    return CodeGraph(tuple(defs), refs)
