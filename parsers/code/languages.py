"""Per-language tables for the code parser: suffix -> grammar, and which tree-sitter node types
are functions, class-like containers, wrappers, attached comments and transparent scopes.

Adding a language is a row here plus a fixture in tests/data/parsers/code/; the walker in
parsers/code.py is generic.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from pathlib import PurePosixPath

from tree_sitter import Language

LANGUAGE_BY_SUFFIX: dict[str, str] = {
    **dict.fromkeys((".py", ".pyi"), "python"),
    **dict.fromkeys((".js", ".mjs", ".cjs", ".jsx"), "javascript"),
    ".ts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".java": "java",
    ".rs": "rust",
    **dict.fromkeys((".c", ".h"), "c"),
    **dict.fromkeys((".cc", ".cpp", ".cxx", ".hpp", ".hh"), "cpp"),
}

# language -> (grammar module, function returning the language pointer)
_GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "java": ("tree_sitter_java", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
}


@dataclass(frozen=True)
class LangSpec:
    """Node types that drive the generic walker for one grammar."""

    functions: frozenset[str]
    classes: frozenset[str]
    wrappers: frozenset[str] = frozenset()  # wrap one definition: decorators, export, template
    attached: frozenset[str] = frozenset({"comment"})  # belong to the definition right after them
    transparent: frozenset[str] = frozenset()  # their children belong to the enclosing scope


_PREPROC = frozenset({"preproc_ifdef", "preproc_if", "preproc_else", "preproc_elif", "preproc_elifdef"})
C_TYPES = frozenset({"struct_specifier", "union_specifier", "enum_specifier"})
_JS_FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration", "method_definition"})
_TS = LangSpec(
    functions=_JS_FUNCTIONS,
    classes=frozenset(
        {"class_declaration", "class", "abstract_class_declaration", "interface_declaration"}
        | {"enum_declaration", "internal_module", "module"}
    ),
    wrappers=frozenset({"export_statement", "ambient_declaration", "expression_statement"}),
)
SPECS: dict[str, LangSpec] = {
    "python": LangSpec(
        functions=frozenset({"function_definition"}),
        classes=frozenset({"class_definition"}),
        wrappers=frozenset({"decorated_definition"}),
    ),
    "javascript": LangSpec(
        functions=_JS_FUNCTIONS,
        classes=frozenset({"class_declaration", "class"}),
        wrappers=frozenset({"export_statement", "expression_statement"}),
    ),
    "typescript": _TS,
    "tsx": _TS,
    "go": LangSpec(
        functions=frozenset({"function_declaration", "method_declaration"}),
        classes=frozenset({"type_declaration"}),
    ),
    "java": LangSpec(
        functions=frozenset(
            {"method_declaration", "constructor_declaration", "compact_constructor_declaration"}
        ),
        classes=frozenset(
            {"class_declaration", "interface_declaration", "enum_declaration", "record_declaration"}
            | {"annotation_type_declaration"}
        ),
        attached=frozenset({"block_comment", "line_comment"}),
        transparent=frozenset({"enum_body_declarations"}),
    ),
    "rust": LangSpec(
        functions=frozenset({"function_item"}),
        classes=frozenset({"struct_item", "enum_item", "union_item", "trait_item", "impl_item", "mod_item"}),
        attached=frozenset({"line_comment", "block_comment", "attribute_item"}),
    ),
    "c": LangSpec(
        functions=frozenset({"function_definition"}),
        classes=C_TYPES | {"declaration", "type_definition"},
        transparent=_PREPROC,
    ),
    "cpp": LangSpec(
        functions=frozenset({"function_definition"}),
        classes=C_TYPES | {"class_specifier", "namespace_definition", "declaration", "type_definition"},
        wrappers=frozenset({"template_declaration"}),
        transparent=_PREPROC | {"linkage_specification", "declaration_list"},
    ),
}


@functools.cache
def load_language(name: str) -> Language:
    """The tree-sitter grammar for ``name``, imported on first use and kept for the process."""
    module_name, function = _GRAMMARS[name]
    return Language(getattr(importlib.import_module(module_name), function)())


def language_for(path: str) -> str | None:
    return LANGUAGE_BY_SUFFIX.get(PurePosixPath(path).suffix.lower())
