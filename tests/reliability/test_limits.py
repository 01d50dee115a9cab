"""Every ParseOptions limit (docs/LIMITS.md): checked on construction, and a file over it is skipped
with a reason that names the option. Regression tests for the robustness bugs found by the hostile
set are named after the bug."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from parsers import jsonl as records
from parsers import markdown
from parsers.model import SkipFile
from parsers.options import MARKDOWN_NESTING_CEILING, ParseOptions
from parsers.pdf import ocr
from parsers.pdf import parser as pdf
from parsers.registry import count_lines, longest_line_over, parse_source
from parsers.source import SourceFile


def source(name: str, data: bytes) -> SourceFile:
    return SourceFile(Path(name), name, data, "0" * 64)


def skip_reason(name: str, data: bytes, options: ParseOptions) -> str:
    with pytest.raises(SkipFile) as caught:
        parse_source(source(name, data), options)
    return str(caught.value)


# ---- options --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "field",
    [
        "max_text_bytes",
        "max_line_bytes",
        "max_code_lines",
        "max_image_pixels",
        "max_page_pixels",
        "seconds_per_file",
    ],
)
def test_limits_must_be_positive(field: str) -> None:
    with pytest.raises(ValueError, match=field):
        ParseOptions(**{field: 0})


def test_markdown_nesting_has_a_ceiling() -> None:
    ParseOptions(markdown_max_nesting=MARKDOWN_NESTING_CEILING)
    with pytest.raises(ValueError, match="markdown_max_nesting must be <= 100"):
        ParseOptions(markdown_max_nesting=MARKDOWN_NESTING_CEILING + 1)


def test_limits_round_trip_through_a_dict() -> None:
    options = ParseOptions.from_dict({"max_line_bytes": 4096, "seconds_per_file": 5})
    assert options.max_line_bytes == 4096 and options.seconds_per_file == 5
    with pytest.raises(ValueError, match="unknown parse option"):
        ParseOptions.from_dict({"max_lines": 3})


# ---- text-like files ---------------------------------------------------------------------------


def test_longest_line_over_counts_lf_cr_and_crlf() -> None:
    assert longest_line_over(b"ab\ncdef\r\nxy", 3) == (2, 4)
    assert longest_line_over(b"ab\rcdefg\rxy", 4) == (2, 5)
    assert longest_line_over(b"abc", 3) is None
    assert longest_line_over(b"abcd", 3) == (1, 4)
    assert longest_line_over(b"", 3) is None


def test_count_lines() -> None:
    assert [count_lines(d) for d in (b"a", b"a\n", b"a\nb", b"a\r\nb\r\n", b"a\rb\r")] == [1, 1, 2, 2, 2]


def test_issue8_longest_line_check_is_linear_not_quadratic() -> None:
    """A regex for "more than N non-newline bytes" restarted at every byte: 40 s on a 4 MB list."""
    data = b"".join(b"  " * i + b"- item\n" for i in range(2000))
    started = time.perf_counter()
    assert longest_line_over(data, 1 << 20) is None
    assert time.perf_counter() - started < 5


@pytest.mark.parametrize("name", ["a.md", "a.txt", "a.py", "a.rst"])
def test_text_file_over_max_text_bytes_is_skipped(name: str) -> None:
    reason = skip_reason(name, b"word\n" * 1000, ParseOptions(max_text_bytes=4000))
    assert "max_text_bytes=4000" in reason


@pytest.mark.parametrize("name", ["a.md", "a.txt", "a.js"])
def test_line_over_max_line_bytes_is_skipped_with_its_number(name: str) -> None:
    data = b"short\n" * 3 + b"x" * 500 + b"\nshort\n"
    reason = skip_reason(name, data, ParseOptions(max_line_bytes=100))
    assert reason.startswith("line 4 is 500 bytes long") and "max_line_bytes=100" in reason


def test_cr_only_file_is_not_one_long_line() -> None:
    docs = parse_source(
        source("old.md", b"# Title\r\rpara one\r\rpara two\r" * 50), ParseOptions(max_line_bytes=64)
    )
    assert docs[0].blocks


def test_code_over_max_code_lines_is_skipped() -> None:
    data = b"x = 1\n" * 101
    reason = skip_reason("gen.py", data, ParseOptions(max_code_lines=100))
    assert "101 lines" in reason and "max_code_lines=100" in reason
    assert parse_source(source("gen.py", data), ParseOptions(max_code_lines=101))


def test_file_over_max_file_bytes_is_skipped() -> None:
    assert "max_file_bytes=10" in skip_reason(
        "a.pdf", b"%PDF-1.7" + b"0" * 10, ParseOptions(max_file_bytes=10)
    )


def test_jsonl_line_over_max_line_bytes_costs_one_record() -> None:
    data = b'{"_id": "a", "text": "kept"}\n{"_id": "b", "text": "' + b"x" * 300 + b'"}\n'
    docs = records.parse(source("c.jsonl", data), ParseOptions(max_line_bytes=100))
    assert [d.doc_id for d in docs] == ["a"] and docs[0].metadata["bad_lines"] == [2]


def test_issue8_deeply_nested_json_line_costs_one_record_not_the_file() -> None:
    """json.loads raised RecursionError on 100k nested arrays, and the whole file was lost."""
    data = b'{"_id": "a", "text": "kept"}\n' + b"[" * 100_000 + b"]" * 100_000 + b"\n"
    docs = records.parse(source("c.jsonl", data), ParseOptions())
    assert [d.doc_id for d in docs] == ["a"] and docs[0].metadata["bad_lines"] == [2]


# ---- Markdown -----------------------------------------------------------------------------------


def test_issue8_deep_inline_nesting_is_not_a_recursion_error() -> None:
    """markdown-it's SyntaxTreeNode recursed once per nested emphasis: 5k levels overflowed."""
    for text in (
        "*" * 5000 + "a" + "*" * 5000,
        "_" * 20000 + "a" + "_" * 20000,
        "[" * 10000 + "a" + "](b)" * 10000,
    ):
        blocks = list(markdown.iter_blocks(text))
        assert len(blocks) == 1 and "a" in blocks[0].text


@pytest.mark.parametrize("nesting", [1, 20, 40, MARKDOWN_NESTING_CEILING])
def test_deep_block_nesting_never_overflows_at_any_allowed_limit(nesting: int) -> None:
    for text in ("- " * 10_000 + "x\n", "> " * 10_000 + "x\n", "> - 1. " * 3000 + "x\n"):
        list(markdown.iter_blocks(text, 0, nesting))


def test_markdown_max_nesting_bounds_the_kept_depth() -> None:
    text = "".join("  " * i + f"- level{i}\n" for i in range(40))  # a list level costs two
    shallow = list(markdown.iter_blocks(text, 0, 10))[0].text
    deep = list(markdown.iter_blocks(text, 0, 100))[0].text
    assert "level39" in deep and "level39" not in shallow and "level0" in shallow


def test_issue8_yaml_alias_bomb_in_front_matter_is_refused_quickly() -> None:
    """A 'billion laughs' header (aliases of aliases) expanded to 10^9 values and hung the parser."""
    yaml = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    for level, name in enumerate("bcdefghij"):
        yaml += f"{name}: &{name} [{', '.join(['*' + 'abcdefghij'[level]] * 10)}]\n"
    started = time.perf_counter()
    doc = markdown.parse(source("bomb.md", f"---\n{yaml}---\n# Body\n\ntext\n".encode()), ParseOptions())[0]
    assert time.perf_counter() - started < 10
    assert "front matter too large" in doc.metadata["front_matter_error"]
    assert doc.blocks[-1].text == "text"


def test_issue8_deeply_nested_yaml_front_matter_is_an_error_not_a_crash() -> None:
    """PyYAML's composer recursed once per level and raised RecursionError out of the parser."""
    data = ("---\nx: " + "[" * 5000 + "]" * 5000 + "\n---\n# Body\n\ntext\n").encode()
    doc = markdown.parse(source("deep.md", data), ParseOptions())[0]
    assert doc.metadata["front_matter_error"] == "front matter nested too deeply"


def test_small_front_matter_aliases_still_load() -> None:
    front, error = markdown.load_front_matter("base: &b {k: v}\nother: *b\ntags: [a, b]\n")
    assert error is None and front == {"base": {"k": "v"}, "other": {"k": "v"}, "tags": ["a", "b"]}


# ---- PDF pixels ---------------------------------------------------------------------------------


def test_render_scale_is_capped_by_max_pixels() -> None:
    assert ocr.render_scale(612, 792, 144, None) == 2.0
    assert ocr.render_scale(612, 792, 144, 10_000_000) == 2.0  # 1224 x 1584 fits
    scale = ocr.render_scale(14_400, 14_400, 200, 25_000_000)
    assert (14_400 * scale) ** 2 == pytest.approx(25_000_000)
    assert ocr.render_scale(0, 0, 72, 1) > 0  # degenerate page sizes do not divide by zero


def test_image_over_max_image_pixels_is_never_rendered(hostile_module) -> None:
    data = hostile_module.lying_image_pdf()
    started = time.perf_counter()
    with pytest.raises(SkipFile, match=r"1000000x1000000 pixels > max_image_pixels=100000000"):
        pdf.parse(source("bomb.pdf", data), ParseOptions(ocr=True))
    assert time.perf_counter() - started < 30


@pytest.mark.slow
def test_huge_page_is_rendered_at_a_lower_resolution(hostile_module) -> None:
    segments, info = ocr.ocr_page(hostile_module.huge_page_pdf(), 0, 200, max_pixels=4_000_000)
    assert info["render_dpi"] == pytest.approx(72 * (4_000_000 / 14_400**2) ** 0.5, abs=0.1)


def test_pdf_seconds_per_file_keeps_the_pages_read(hostile_module) -> None:
    doc = pdf.parse(source("a.pdf", hostile_module.valid_pdf(3)), ParseOptions(ocr=False, pdf_max_pages=2))[0]
    assert {b.page for b in doc.blocks} == {1, 2} and "pdf_max_pages" in doc.metadata["truncated"]


# ---- line numbering -----------------------------------------------------------------------------


def test_issue8_jsonl_record_with_raw_line_separator_is_kept() -> None:
    """str.splitlines() broke lines at U+2028, which json.dumps(ensure_ascii=False) writes raw inside
    strings: the record was cut in two and lost. Found by tests/fuzz."""
    data = '{"_id": "a", "text": "one\u2028two"}\n{"_id": "b", "text": "three"}\n'.encode()
    docs = records.parse(source("c.jsonl", data), ParseOptions())
    assert [d.doc_id for d in docs] == ["a", "b"] and [d.blocks[0].lines for d in docs] == [(1, 1), (2, 2)]


def test_issue8_form_feed_and_separators_do_not_shift_text_line_numbers() -> None:
    """'\\x1e0' was cited as line 2 of a one-line file (found by tests/fuzz)."""
    docs = parse_source(source("a.txt", b"page one\x0cstill line one\x1e\nline two\n"), ParseOptions())
    assert [b.lines for b in docs[0].blocks] == [(1, 2)]
    docs = parse_source(source("b.md", "# T\n\npara\u2028same line\n\nnext\n".encode()), ParseOptions())
    assert [b.lines for b in docs[0].blocks] == [(1, 1), (3, 3), (5, 5)]


# ---- code ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("ns.cpp", "namespace a {" * 5000 + "int f(){return 1;}" + "}" * 5000),
        ("mods.rs", "mod a {" * 5000 + "fn f(){}" + "}" * 5000),
        ("classes.java", "class A {" * 3000 + "void f(){}" + "}" * 3000),
        ("spaces.ts", "namespace A {" * 3000 + "function f(){}" + "}" * 3000),
    ],
)
def test_issue8_deeply_nested_definitions_are_not_a_recursion_error(name: str, text: str) -> None:
    """The walker recursed once per nested class-like definition: 5,000 C++ namespaces overflowed.
    Below code.MAX_NESTED_DEFINITIONS levels a container is one block with its members inside."""
    from parsers.code.parser import MAX_NESTED_DEFINITIONS

    doc = parse_source(source(name, text.encode()), ParseOptions())[0]
    depths = [(b.symbol or "").count(".") for b in doc.blocks]
    assert max(depths) == MAX_NESTED_DEFINITIONS
    assert "f" in doc.blocks[-1].text


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("ifdef.c", "#ifdef A\n" * 3000 + "int x;\n" + "#endif\n" * 3000),
        ("externc.cpp", 'extern "C" {' * 3000 + "int f(){return 1;}" + "}" * 3000),
    ],
)
def test_issue8_deeply_nested_transparent_scopes_are_not_a_recursion_error(name: str, text: str) -> None:
    """``#ifdef`` / ``extern "C"`` scopes were opened recursively."""
    doc = parse_source(source(name, text.encode()), ParseOptions())[0]
    assert doc.blocks


def test_reading_stops_at_max_file_bytes(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 5000)
    with pytest.raises(SkipFile, match=r"file too large \(5000 bytes > max_file_bytes=100\)"):
        SourceFile.read(path, "big.txt", max_bytes=100)
    assert SourceFile.read(path, "big.txt", max_bytes=5000).data == b"x" * 5000
    assert SourceFile.read(path, "big.txt").sha256 == SourceFile.read(path, "big.txt", max_bytes=10**6).sha256
