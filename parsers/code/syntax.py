"""The syntax helpers the code parser (parsers/code.py) and the code graph (parsers/code_graph.py)
share: which tree-sitter nodes are definitions, their names, bodies, signatures and rows, and a
scope's nodes grouped with the comments above them. Pure functions over nodes; no file I/O."""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from parsers.code.languages import C_TYPES, LangSpec

# Block.metadata["node"] of module-level runs; no grammar names a node with angle brackets.
MODULE_NODE = "<module>"
# Class-like definitions nested deeper than this (namespaces, modules, classes) become one block
# with their members inside: the walker recurses per level, and 5,000 nested C++ namespaces raised
# RecursionError. Real code nests a handful of levels.
MAX_NESTED_DEFINITIONS = 50
_ARROW_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})
_NAME_LEAVES = frozenset(
    {"identifier", "field_identifier", "qualified_identifier", "destructor_name", "operator_name"}
    | {"type_identifier", "property_identifier"}
)


# ---- small pure helpers over nodes ------------------------------------------------------------


def _rows(node: Node) -> tuple[int, int]:
    """0-based first and last row; a node ending at column 0 ends on the previous row."""
    start, end = node.start_point.row, node.end_point.row
    if node.end_point.column == 0 and end > start:
        end -= 1
    return start, end


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def _unwrap(node: Node, spec: LangSpec) -> Node:
    """The definition inside decorator / export / template / ambient wrappers."""
    while node.type in spec.wrappers:
        inner = node.child_by_field_name("definition") or node.child_by_field_name("declaration")
        inner = inner or node.child_by_field_name("value")
        if inner is None and node.named_children:
            inner = node.named_children[-1]
        if inner is None:
            return node
        node = inner
    return node


def _arrow_value(node: Node) -> Node | None:
    """The function in ``const f = () => ...`` or ``res.send = function (body) {...}`` (JS/TS),
    else None."""
    if node.type == "assignment_expression":
        value = node.child_by_field_name("right")
        return value if value is not None and value.type in _ARROW_VALUES else None
    if node.type not in ("lexical_declaration", "variable_declaration"):
        return None
    declarators = [c for c in node.named_children if c.type == "variable_declarator"]
    if len(declarators) != 1:
        return None
    value = declarators[0].child_by_field_name("value")
    return value if value is not None and value.type in _ARROW_VALUES else None


def _c_type_body(node: Node) -> Node | None:
    """For C/C++ declarations: the struct/union/enum specifier that has a body, else None."""
    class_types = C_TYPES | {"class_specifier"}
    specifier = node if node.type in class_types else node.child_by_field_name("type")
    if specifier is None or specifier.type not in class_types:
        return None
    return specifier if specifier.child_by_field_name("body") is not None else None


def classify(node: Node, spec: LangSpec) -> tuple[str, Node] | None:
    """("function" | "class", unwrapped definition) for a definition node, else None."""
    inner = _unwrap(node, spec)
    if inner.type in spec.functions or _arrow_value(inner) is not None:
        # a body-less declaration (abstract/interface method) stays in its class header
        return ("function", inner) if _body(inner) is not None else None
    if inner.type not in spec.classes:
        return None
    if inner.type in ("declaration", "type_definition", "class_specifier") or inner.type in C_TYPES:
        return ("class", inner) if _c_type_body(inner) is not None else None
    if inner.type == "type_declaration":  # Go: only struct and interface types
        kinds = {_text(s.child_by_field_name("type")).split("{")[0].strip() for s in inner.named_children}
        return ("class", inner) if kinds & {"struct", "interface"} else None
    if inner.type in ("mod_item", "module", "internal_module") and inner.child_by_field_name("body") is None:
        return None
    return "class", inner


def _declarator_name(node: Node) -> str | None:
    while node is not None and node.type not in _NAME_LEAVES:
        child = node.child_by_field_name("declarator") or node.child_by_field_name("name")
        if child is None:
            return None
        node = child
    return _text(node).replace("::", ".") if node is not None else None


def definition_name(node: Node) -> str:
    """The name a definition is known by inside its file (``Type.Method`` for Go methods)."""
    kind = node.type
    name: str | None
    if kind == "method_declaration" and node.child_by_field_name("receiver") is not None:
        receiver = node.child_by_field_name("receiver")
        params = [c for c in receiver.named_children if c.type == "parameter_declaration"] if receiver else []
        rtype = _text(params[0].child_by_field_name("type")) if params else ""
        name = f"{rtype.lstrip('*').split('[')[0]}.{_text(node.child_by_field_name('name'))}".lstrip(".")
    elif kind == "impl_item":
        name = _text(node.child_by_field_name("type")).split("<")[0]
    elif kind == "type_declaration":
        spec = next((c for c in node.named_children if c.type == "type_spec"), None)
        name = _text(spec.child_by_field_name("name")) if spec else None
    elif kind == "assignment_expression":  # obj.name = function ...; Foo.prototype.bar = ...
        name = _text(node.child_by_field_name("left")).replace(".prototype.", ".")
    elif kind in ("lexical_declaration", "variable_declaration"):
        declarator = next(c for c in node.named_children if c.type == "variable_declarator")
        name = _text(declarator.child_by_field_name("name"))
    elif kind == "type_definition":
        name = _declarator_name(node)
    elif kind == "declaration":
        name = _text((_c_type_body(node) or node).child_by_field_name("name")) or _declarator_name(node)
    elif kind == "function_definition" and node.child_by_field_name("declarator") is not None:
        name = _declarator_name(node.child_by_field_name("declarator"))  # type: ignore[arg-type]
    else:
        name = _text(node.child_by_field_name("name")).strip("\"'")
    return name or "<anonymous>"


def _body(node: Node) -> Node | None:
    """Where a definition's members (or a function's statements) live."""
    arrow = _arrow_value(node)
    if arrow is not None:
        return arrow.child_by_field_name("body")
    body = node.child_by_field_name("body")
    if body is None and node.type in ("declaration", "type_definition"):
        specifier = _c_type_body(node)
        body = specifier.child_by_field_name("body") if specifier else None
    return body


def _first_brace(node: Node, depth: int = 4) -> Node | None:
    for child in node.children:
        if child.type == "{":
            return child
        if depth > 0 and child.child_count:
            found = _first_brace(child, depth - 1)
            if found is not None:
                return found
    return None


def signature(node: Node, source: bytes) -> str:
    """A definition's text up to its body, whitespace collapsed (``def f(self, x: int) -> str:``)."""
    body = _body(node) or _first_brace(node)
    if body is not None:
        head = source[node.start_byte : body.start_byte]
    else:
        head = source[node.start_byte : node.end_byte].split(b"\n", 1)[0]
    text = " ".join(head.decode("utf-8", "replace").split())
    return text.replace("( ", "(").replace(" )", ")").rstrip(" {").rstrip() or _text(node).split("\n", 1)[0]


# ---- the walker -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Definition:
    """A definition in a scope, spanning its attached comments and wrappers (decorators, export)."""

    kind: str  # "function" | "class"
    node: Node  # the unwrapped definition
    start: int  # first byte of its block
    end: int
    first_row: int  # 0-based
    last_row: int


def _last_row(item: Node | _Definition) -> int:
    return item.last_row if isinstance(item, _Definition) else _rows(item)[1]


def _scope_nodes(nodes: list[Node], spec: LangSpec) -> list[Node]:
    """A scope's children with transparent nodes (``#ifdef``, ``extern "C"``) opened in place.

    Iterative: 3,000 nested ``#ifdef`` blocks made the recursive version raise RecursionError."""
    out: list[Node] = []
    stack = [iter(nodes)]
    while stack:
        node = next(stack[-1], None)
        if node is None:
            stack.pop()
        elif node.type in spec.transparent:
            stack.append(iter(node.children))
        elif node.is_named or node.type not in (";", "{", "}"):
            out.append(node)
    return out


def split_scope(nodes: list[Node], spec: LangSpec) -> list[Node | _Definition]:
    """A scope's nodes in order, definitions grouped with the comments directly above them."""
    items: list[Node | _Definition] = []
    for node in nodes:
        found = classify(node, spec)
        if found is None:
            items.append(node)
            continue
        start, (first_row, last_row) = node.start_byte, _rows(node)
        while items and isinstance(items[-1], Node) and items[-1].type in spec.attached:
            comment = items[-1]
            comment_first, comment_last = _rows(comment)
            # a blank line separates it from the definition, unless it is a doc comment
            # (`/** ... */`, as JSDoc is often written) and only one blank line lies between
            gap = 2 if _text(comment).startswith("/**") else 1
            if comment_last < first_row - gap:
                break
            if len(items) > 1 and _last_row(items[-2]) == comment_first:
                break  # a trailing comment on a line of earlier code belongs to that code
            items.pop()
            start, first_row = comment.start_byte, comment_first
        end = node.end_byte
        if node.next_sibling is not None and node.next_sibling.type == ";":  # `class A {...};`
            end = node.next_sibling.end_byte
        items.append(_Definition(found[0], found[1], start, end, first_row, last_row))
    return items
