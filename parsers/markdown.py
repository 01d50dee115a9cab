"""Markdown (CommonMark + pipe tables): one block per top-level structure, with heading paths.

Inline markup is rendered to plain text (link text kept, URLs dropped), so the chunkers and BM25
see words, not syntax; tables keep their cells so they can be split by rows later.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import html as html_lib
import re
from collections.abc import Iterator
from typing import Any

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token
from markdown_it.tree import SyntaxTreeNode

from parsers.html_tables import read_html_tables
from parsers.model import EMPTY_REASON, Block, ParsedDocument, SkipFile, Table
from parsers.options import ParseOptions
from parsers.source import SourceFile, encoding_note, split_lines

# Front matter values kept after expanding YAML aliases: a "billion laughs" header (aliases of
# aliases) is a few hundred bytes of YAML and 10^9 values once expanded.
MAX_FRONT_MATTER_VALUES = 10_000


@functools.cache
def _markdown(max_nesting: int) -> MarkdownIt:
    """The CommonMark + tables parser; content nested deeper than ``max_nesting`` block levels
    (a list item is two: list + item) is dropped by markdown-it."""
    return MarkdownIt("commonmark", {"maxNesting": max_nesting}).enable("table")


# `---` on the first line, then YAML, then a `---` or `...` line.
_FRONT_MATTER = re.compile(
    r"\A---[ \t]*\r?\n(.*?)^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.DOTALL | re.MULTILINE
)
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
# Elements whose content is not text (a page's CSS, its scripts): dropped with their content.
_HTML_NOT_TEXT = re.compile(r"<(style|script|template)\b[^>]*>.*?(?:</\1\s*>|\Z)", re.DOTALL | re.IGNORECASE)
# A line that is only an mdBook directive, such as {{#include ../src/main.rs:anchor}}: where the
# text comes from, not text (the block keeps its lines for the citation). Other template syntax
# ({{#each}} in a Handlebars example) is left alone.
_DIRECTIVE_LINE = re.compile(
    r"^[ \t]*\{\{[ \t]*#(?:include|rustdoc_include|playground|playpen|title)\b[^{}\n]*\}\}[ \t]*$",
    re.MULTILINE,
)
# A heading's attribute block, such as "Install {#install}" or "Setup {: #setup .tip}" (Pandoc,
# kramdown, VitePress, Hugo, MkDocs attr_list): its anchor, not its text.
_HEADING_ATTRS = re.compile(r"[ \t]*\{:?[ \t]*[#.][\w:.-]+(?:[ \t]+[^{}\n]*)?\}[ \t]*$")
# The explicit anchor inside such a block ("#skip-link"), and the separators between its words.
_ANCHOR_ID = re.compile(r"#([\w:.-]+)")
_ANCHOR_WORD_BREAK = re.compile(r"[-_.:]+")
# A custom-container fence line (markdown-it-container: VitePress, Docusaurus admonitions), such as
# ":::warning Experimental" or ":::": the marker and its type are markup; its title is text.
_CONTAINER_LINE = re.compile(r"^[ \t]*:{3,}[ \t]*(?:[A-Za-z][\w-]*)?[ \t]*(.*?)[ \t]*$", re.MULTILINE)
_HTML_TAG = re.compile(r"<[^>]*>")
# Keys the parser itself writes; front matter cannot override them.
_RESERVED_KEYS = ("encoding", "front_matter_error")


def split_front_matter(text: str) -> tuple[str | None, str, int]:
    """(raw YAML or None, Markdown body, number of lines the front matter took)."""
    match = _FRONT_MATTER.match(text)
    if match is None:
        return None, text, 0
    consumed = match.group(0)
    return match.group(1), text[match.end() :], consumed.count("\n") + (0 if consumed.endswith("\n") else 1)


def load_front_matter(raw: str) -> tuple[dict[str, Any], str | None]:
    """(mapping, error message or None); values made JSON-safe (dates become ISO strings)."""
    try:
        loaded = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        return {}, " ".join(str(exc).split())
    except RecursionError:  # PyYAML's composer recurses once per nesting level
        return {}, "front matter nested too deeply"
    if loaded is None:
        return {}, None
    if not isinstance(loaded, dict):
        return {}, f"front matter is a {type(loaded).__name__}, not a mapping"
    budget = [MAX_FRONT_MATTER_VALUES]
    try:
        return {str(k): _json_safe(v, budget) for k, v in loaded.items()}, None
    except _FrontMatterTooLarge:
        too_large = f"more than {MAX_FRONT_MATTER_VALUES} values once YAML aliases are expanded"
        return {}, f"front matter too large ({too_large})"
    except RecursionError:
        return {}, "front matter nested too deeply"


class _FrontMatterTooLarge(Exception):
    pass


def _json_safe(value: Any, budget: list[int]) -> Any:
    """``value`` as JSON-safe data; ``budget[0]`` counts down the values still allowed."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _FrontMatterTooLarge
    if isinstance(value, dict):
        return {str(k): _json_safe(v, budget) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [_json_safe(v, budget) for v in value]
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def strip_html(html: str) -> str:
    """Text of an HTML fragment: comments and tags removed, whitespace runs collapsed per line."""
    text = html_lib.unescape(_HTML_TAG.sub("", _HTML_NOT_TEXT.sub("", _HTML_COMMENT.sub("", html))))
    lines = (" ".join(line.split()) for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def inline_text(tokens: list[Token] | None) -> str:
    """Plain text of inline tokens: link text without URL, code spans without backticks, image alt."""
    parts: list[str] = []
    for tok in tokens or ():
        if tok.type in ("text", "text_special", "code_inline"):
            parts.append(tok.content)
        elif tok.type in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif tok.type == "image":
            parts.append(inline_text(tok.children))
        # link/emphasis open-close markers and inline HTML tags carry no text
    return "".join(parts).strip()


def _inline(node: SyntaxTreeNode) -> str:
    """Plain text of a heading / paragraph / table cell node (its single inline child)."""
    return "".join(inline_text(child.token.children if child.token else None) for child in node.children)


def table_rows(node: SyntaxTreeNode) -> tuple[tuple[str, ...], ...]:
    """Header + body rows of a table node; markdown-it pads short rows with empty cells."""
    rows: list[tuple[str, ...]] = []
    for section in node.children:  # thead, tbody
        for tr in section.children:
            rows.append(tuple(_inline(cell) for cell in tr.children))
    return tuple(rows)


def render_lines(node: SyntaxTreeNode) -> list[str]:
    """A block node as plain-text lines; lists keep their markers and nesting indentation."""
    kind = node.type
    if kind in ("paragraph", "heading"):
        return _inline(node).split("\n")
    if kind in ("fence", "code_block"):
        return node.content.rstrip("\n").split("\n")
    if kind in ("bullet_list", "ordered_list"):
        return _list_lines(node)
    if kind == "blockquote":
        return _children_lines(node)
    if kind == "table":
        return Table(rows=table_rows(node)).markdown().split("\n")
    if kind == "html_block":
        return strip_html(node.content).split("\n")
    return []  # hr


def _children_lines(node: SyntaxTreeNode) -> list[str]:
    """Lines of a container's children (list item, quote); blank separator lines are dropped."""
    return [line for child in node.children for line in render_lines(child) if line.strip()]


def _list_lines(node: SyntaxTreeNode) -> list[str]:
    ordered = node.type == "ordered_list"
    number = int(node.attrs.get("start", 1)) if ordered else 0
    lines: list[str] = []
    for item in node.children:
        if ordered:
            marker = f"{item.info or number}{item.markup or '.'} "
            number += 1
        else:
            marker = f"{item.markup or '-'} "
        body = _children_lines(item) or [""]
        lines.append((marker + body[0]).rstrip())
        lines.extend(" " * len(marker) + line for line in body[1:])
    return lines


_KINDS = {
    "paragraph": "paragraph",
    "html_block": "paragraph",
    "bullet_list": "list",
    "ordered_list": "list",
    "table": "table",
    "fence": "code",
    "code_block": "code",
    "blockquote": "quote",
}


def _line_range(node: SyntaxTreeNode, body_lines: list[str], offset: int) -> tuple[int, int] | None:
    """1-based inclusive file lines of a node, trailing blank lines dropped, front matter counted."""
    if node.map is None:
        return None
    start, end = node.map
    while end > start + 1 and (end > len(body_lines) or not body_lines[end - 1].strip()):
        end -= 1
    return start + 1 + offset, end + offset


def heading_text(raw: str) -> str:
    """A heading without its attribute block; an explicit anchor whose words the heading does not
    hold stays as an alias in brackets: a translated page keeps its English anchors
    ("跳过链接 {#skip-link}" -> "跳过链接 (skip link)"), the section's name in the source language,
    which a reader may search for. An anchor that only repeats the heading ("Install {#install}")
    adds nothing."""
    found = _HEADING_ATTRS.search(raw)
    if found is None:
        return raw
    text = raw[: found.start()].rstrip()
    anchor = _ANCHOR_ID.search(found.group(0))
    words = [w for w in _ANCHOR_WORD_BREAK.split(anchor.group(1)) if w] if anchor else []
    if not text or not words or not any(w.isalpha() and w.isascii() for w in words):
        return text
    folded = text.casefold()
    if all(w.casefold() in folded for w in words):
        return text
    return f"{text} ({' '.join(words)})"


def block_tree(body: str, max_nesting: int = ParseOptions().markdown_max_nesting) -> SyntaxTreeNode:
    """The block-level syntax tree of ``body``; inline tokens keep their flat ``children``.

    SyntaxTreeNode nests inline open/close pairs recursively, and markdown-it's ``maxNesting``
    bounds only block nesting, so 5,000 nested emphasis markers raised RecursionError
    (tests/parsers/test_markdown_limits.py::test_deep_inline_nesting_is_not_a_recursion_error).
    We only ever read inline content flat (``inline_text``), so the tree is built without it.
    """
    tokens = _markdown(max_nesting).parse(body)
    inline = [tok for tok in tokens if tok.type == "inline"]
    saved = [tok.children for tok in inline]
    for tok in inline:
        tok.children = []
    try:
        return SyntaxTreeNode(tokens)
    finally:
        for tok, children in zip(inline, saved, strict=True):
            tok.children = children


def _html_table_blocks(
    fragment: str, path: tuple[str, ...], lines: tuple[int, int] | None
) -> Iterator[Block]:
    """An HTML block with ``<table>`` elements: its tables as table blocks (like pipe tables),
    the text around them as paragraphs, all with the HTML block's line range."""
    tables, texts = read_html_tables(fragment)
    for i, text in enumerate(texts):
        cleaned = strip_html(text)
        if cleaned:
            yield Block(kind="paragraph", text=cleaned, heading_path=path, lines=lines)
        if i < len(tables):
            table = tables[i]
            if table.title is None and path:
                table = dataclasses.replace(table, title=path[-1])
            yield Block(
                kind="table",
                text=table.markdown(),
                heading_path=path,
                lines=lines,
                table=table,
                metadata={"format": "html"},
            )


def iter_blocks(
    body: str, offset: int = 0, max_nesting: int = ParseOptions().markdown_max_nesting
) -> Iterator[Block]:
    """Blocks of a Markdown body in document order; ``offset`` = lines consumed before ``body``."""
    root = block_tree(body, max_nesting)
    body_lines = split_lines(body)
    headings: list[tuple[int, str]] = []  # (level, text) of the open sections, outermost first
    for node in root.children:
        lines = _line_range(node, body_lines, offset)
        if node.type == "heading":
            level = int(node.tag[1:])
            while headings and headings[-1][0] >= level:
                headings.pop()
            text = heading_text(" ".join(_inline(node).split()))
            if not text:
                continue
            headings.append((level, text))
            path = tuple(t for _, t in headings)
            yield Block(kind="heading", text=text, heading_path=path, lines=lines, metadata={"level": level})
            continue
        kind = _KINDS.get(node.type)
        if kind is None:
            continue
        path = tuple(t for _, t in headings)
        if kind == "table":
            table = Table(rows=table_rows(node), header_rows=1, title=path[-1] if path else None)
            yield Block(kind="table", text=table.markdown(), heading_path=path, lines=lines, table=table)
            continue
        if node.type == "html_block" and "<table" in node.content.lower():
            yield from _html_table_blocks(node.content, path, lines)
            continue
        text = _DIRECTIVE_LINE.sub("", "\n".join(render_lines(node)))
        if node.type not in ("fence", "code_block"):
            text = _CONTAINER_LINE.sub(r"\1", text)
        text = text.strip("\n")
        if not text.strip():  # nothing, or only template directives / a <style> block
            continue
        info_words = node.info.split() if node.type == "fence" else []
        language = info_words[0] if info_words else None
        yield Block(kind=kind, text=text, heading_path=path, lines=lines, language=language)


def _text_outside_markup(body: str) -> bool:
    """Whether ``body`` holds anything but HTML comments, tags, <style>/<script> elements and
    mdBook directive lines (a page that is only a component, such as ``<ApiIndex />``)."""
    stripped = _HTML_TAG.sub("", _HTML_NOT_TEXT.sub("", _HTML_COMMENT.sub("", body)))
    return bool(_DIRECTIVE_LINE.sub("", stripped).strip())


def parse(source: SourceFile, options: ParseOptions) -> list[ParsedDocument]:
    text, encoding = source.text()
    raw_front, body, offset = split_front_matter(text)
    metadata: dict[str, Any] = {}
    blocks: list[Block] = []
    if raw_front is not None:
        front, error = load_front_matter(raw_front)
        metadata.update({k: v for k, v in front.items() if k not in _RESERVED_KEYS})
        if error is not None:
            # Keep what the author wrote: the unparsable header becomes a paragraph of the document.
            metadata["front_matter_error"] = error
            if raw_front.strip():
                lines = (2, max(2, offset - 1))
                blocks.append(Block(kind="paragraph", text=raw_front.strip("\n"), lines=lines))
    blocks.extend(iter_blocks(body, offset, options.markdown_max_nesting))
    if not blocks:
        if not _text_outside_markup(body):
            raise SkipFile(f"{EMPTY_REASON} (front matter and markup only)")
        raise SkipFile("no Markdown content")
    metadata.update(encoding_note(encoding))
    title = metadata.get("title")
    if not isinstance(title, str) or not title.strip():
        title = next((b.text for b in blocks if b.kind == "heading" and b.metadata.get("level") == 1), None)
    return [ParsedDocument.of_file(source, "markdown", tuple(blocks), title=title, metadata=metadata)]
