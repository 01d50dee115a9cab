"""Which class a Python variable holds, where its function says so by construction alone
(``r = Runner()``, ``with asyncio.Runner() as r``): a call through it (``r.run()``) then names the
class (``asyncio.Runner``), so docmill.graph resolves it to that class's methods only, and a
standard-library object's call does not count as a use of the project's function of that name."""

from __future__ import annotations

import functools
from collections.abc import Callable

from tree_sitter import Node, Query, QueryCursor

from parsers.code.languages import load_language

# (name node, receiver node) -> (name, qualifier, member): parsers.code.graph's import-aware resolver
Resolver = Callable[[Node, Node | None], tuple[str, str | None, bool]]

# Python variables bound to a new object of a named class (``r = Runner()``, ``with Runner() as
# r``): a call through them (``r.run()``) names its class, so it reaches only that class's methods.
_PY_BINDINGS = """
(assignment left: (identifier) @var right: (call function: (identifier) @ctor))
(assignment left: (identifier) @var
  right: (call function: (attribute object: (_) @recv attribute: (identifier) @ctor)))
(as_pattern (call function: (identifier) @ctor) alias: (as_pattern_target (identifier) @var))
(as_pattern (call function: (attribute object: (_) @recv attribute: (identifier) @ctor))
  alias: (as_pattern_target (identifier) @var))
(assignment left: (identifier) @bound)
(as_pattern alias: (as_pattern_target (identifier) @bound))
(for_statement left: (identifier) @bound)
(parameters (identifier) @bound)
(typed_parameter (identifier) @bound)
(default_parameter name: (identifier) @bound)
(typed_default_parameter name: (identifier) @bound)
"""
_FUNCTION_NODES = frozenset({"function_definition", "lambda"})


@functools.cache
def _binding_query() -> Query:
    return Query(load_language("python"), _PY_BINDINGS)


def _scope(node: Node) -> int:
    """The start byte of the function ``node`` is in (-1: module level)."""
    parent = node.parent
    while parent is not None:
        if parent.type in _FUNCTION_NODES:
            return parent.start_byte
        parent = parent.parent
    return -1


def class_bindings(root: Node, resolve: Resolver) -> dict[tuple[int, str], str]:
    """(scope, variable) -> the class qualifier (``asyncio.Runner``) of each Python variable whose
    every binding in its function is a call of one capitalised (class-like) name; a variable also
    bound another way (a parameter, a loop, another class) is left out."""
    typed: dict[tuple[int, str], list[str | None]] = {}
    bindings: dict[tuple[int, str], int] = {}
    for _, captures in QueryCursor(_binding_query()).matches(root):
        for node in captures.get("bound", []):
            key = (_scope(node), _text(node))
            bindings[key] = bindings.get(key, 0) + 1
        ctor, var = captures.get("ctor", [None])[0], captures.get("var", [None])[0]
        if ctor is None or var is None:
            continue
        receiver = captures.get("recv", [None])[0]
        name, qualifier, member = resolve(ctor, receiver)
        # not a factory function, nor a class reached through an object of unknown type
        kind = (f"{qualifier}.{name}" if qualifier else name) if name[:1].isupper() and not member else None
        typed.setdefault((_scope(var), _text(var)), []).append(kind)
    return {
        key: kinds[0]
        for key, kinds in typed.items()
        if kinds[0] is not None and len(set(kinds)) == 1 and bindings.get(key, 0) == len(kinds)
    }


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def typed_receiver(receiver: Node | None, classes: dict[tuple[int, str], str]) -> str | None:
    """The class a receiver variable holds (``class_bindings``), or None."""
    if receiver is None or receiver.type != "identifier" or not classes:
        return None
    return classes.get((_scope(receiver), _text(receiver)))
