"""Fuzz: the Markdown and code parsers on arbitrary text raise nothing but SkipFile, keep every
block's line range inside the file, and (Markdown) keep heading paths consistent.

Examples per test: DOCMILL_FUZZ_EXAMPLES (default 50)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from parsers.model import ParsedDocument, SkipFile
from parsers.options import ParseOptions
from parsers.registry import parse_source
from parsers.source import SourceFile

FUZZ = settings(max_examples=int(os.environ.get("DOCMILL_FUZZ_EXAMPLES", "50")), deadline=None, database=None)
OPTIONS = ParseOptions(ocr=False)

MARKDOWN_PIECES = [
    "# ",
    "## ",
    "### ",
    "#",
    "- ",
    "* ",
    "1. ",
    "> ",
    "```",
    "~~~",
    "    ",
    "\t",
    "\n",
    "\n\n",
    "\r\n",
    "\r",
    "|",
    "|---|",
    "---",
    "***",
    "_",
    "*",
    "`",
    "[",
    "]",
    "(",
    ")",
    "![",
    "<div>",
    "</div>",
    "<!--",
    "-->",
    "\\",
    "&amp;",
    "word",
    "Title",
    "中文",
    "é",
    ":",
    "...",
    "- [ ] ",
    "=",
    "+",
]
CODE_PIECES = [
    "def ",
    "class ",
    "function ",
    "fn ",
    "func ",
    "struct ",
    "impl ",
    "namespace ",
    "template<T> ",
    "return ",
    "import ",
    "export ",
    "const f = () => ",
    "@decorator\n",
    "#ifdef X\n",
    "#endif\n",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ":",
    ";",
    ",",
    "\n",
    "\n\n",
    "    ",
    "\t",
    "\r\n",
    "\r",
    "//",
    "/*",
    "*/",
    "#",
    '"',
    "'",
    "`",
    "name",
    "Name",
    "x",
    "1",
    "=",
    "->",
    "<",
    ">",
    "é",
    "中",
]


def pieces(vocabulary: list[str]) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(vocabulary), max_size=80).map("".join)


def parse(name: str, text: str) -> list[ParsedDocument]:
    source = SourceFile(Path(name), name, text.encode("utf-8", "surrogatepass"), "0" * 64)
    try:
        return parse_source(source, OPTIONS)
    except SkipFile:
        return []


def line_count(text: str) -> int:
    """Lines as markdown-it and tree-sitter see them: LF, CRLF and lone CR all end a line."""
    return len(re.split(r"\r\n|\r|\n", text))


def check_lines(doc: ParsedDocument, text: str) -> None:
    total = line_count(text)
    for block in doc.blocks:
        assert block.text.strip(), block
        if block.lines is not None:
            first, last = block.lines
            assert 1 <= first <= last <= total, (block.lines, total, block)


JSONL_PIECES = ['{"_id": ', '"text": ', '"a"', '"\u2028"', "1", ",", "}", "{", "[", "]", "\n", "null"]
TEXT_NO_SURROGATES = st.text(alphabet=st.characters(blacklist_categories=("Cs",)))


@FUZZ
@given(text=st.one_of(TEXT_NO_SURROGATES, pieces(MARKDOWN_PIECES)))
def test_markdown_parser_is_total_and_consistent(text: str) -> None:
    for doc in parse("fuzz.md", text):
        check_lines(doc, text)
        current: tuple[str, ...] = ()
        for block in doc.blocks:
            if block.kind == "heading":
                assert block.heading_path and block.heading_path[-1] == block.text
                assert block.heading_path[:-1] == current[: len(block.heading_path) - 1]
                current = block.heading_path
            else:
                assert block.heading_path == current[: len(block.heading_path)], (block.heading_path, current)


@FUZZ
@given(
    text=st.one_of(TEXT_NO_SURROGATES, pieces(CODE_PIECES)),
    suffix=st.sampled_from([".py", ".js", ".ts", ".tsx", ".go", ".java", ".rs", ".c", ".cpp", ".h"]),
)
def test_code_parser_is_total_and_keeps_lines_inside_the_file(text: str, suffix: str) -> None:
    for doc in parse(f"fuzz{suffix}", text):
        check_lines(doc, text)
        for block in doc.blocks:
            assert block.kind == "code" and block.language == doc.metadata["language"]
            assert block.symbol is None or block.symbol.strip()


@FUZZ
@given(
    text=st.one_of(
        TEXT_NO_SURROGATES,
        pieces(['{"_id": ', '"text": ', '"a"', "1", ",", "}", "{", "[", "]", "\n", "null"]),
    )
)
def test_records_and_text_parsers_are_total(text: str) -> None:
    for name in ("fuzz.jsonl", "fuzz.txt"):
        for doc in parse(name, text):
            check_lines(doc, text)
