from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from parsers.code.languages import LANGUAGE_BY_SUFFIX, load_language
from parsers.code.parser import MODULE_NODE, parse
from parsers.model import Block, ParsedDocument, SkipFile
from parsers.options import ParseOptions
from parsers.registry import parse_source
from parsers.source import SourceFile

DATA = Path(__file__).resolve().parents[1] / "data" / "parsers" / "code"


def parse_file(name: str) -> ParsedDocument:
    (doc,) = parse(SourceFile.read(DATA / name, name), ParseOptions())
    return doc


def parse_text(text: str, name: str) -> ParsedDocument:
    data = text.encode()
    (doc,) = parse(SourceFile(Path(name), name, data, hashlib.sha256(data).hexdigest()), ParseOptions())
    return doc


def by_symbol(doc: ParsedDocument) -> dict[str | None, Block]:
    return {b.symbol: b for b in doc.blocks if b.symbol is not None}


# (symbol, signature, lines) of every block, in file order; None symbols are module-level runs.
EXPECTED: dict[str, list[tuple[str | None, str | None, tuple[int, int]]]] = {
    "sample.py": [
        (None, None, (1, 6)),
        ("now", "def now() -> float:", (9, 11)),
        ("Bucket", "class Bucket(Base):", (14, 27)),
        ("Bucket.__init__", "def __init__(self, rate: float) -> None:", (19, 20)),
        ("Bucket.full", "def full(self) -> bool:", (22, 27)),
        ("Config", "class Config:", (30, 32)),
        (None, None, (35, 36)),
    ],
    "sample.js": [
        (None, None, (1, 3)),
        ("splitLine", "function splitLine(line)", (5, 10)),
        ("CsvReader", "class CsvReader extends Reader", (12, 25)),
        ("CsvReader.constructor", "constructor(path)", (15, 18)),
        ("CsvReader.rows", "rows()", (20, 24)),
        ("parseAll", "const parseAll = (text) =>", (27, 27)),
        (None, None, (29, 29)),
    ],
    "sample.ts": [
        ("Entry", "interface Entry<V>", (1, 4)),
        ("TtlCache", "class TtlCache<V>", (6, 13)),
        ("TtlCache.get", "get(key: string): V | undefined", (10, 12)),
        ("makeCache", "function makeCache<V>(): TtlCache<V>", (15, 17)),
    ],
    "sample.tsx": [
        (None, None, (1, 3)),
        ("Greeting", "function Greeting({ name }: Props)", (5, 7)),
    ],
    "sample.go": [
        (None, None, (1, 3)),
        ("Cache", "type Cache struct", (5, 9)),
        ("New", "func New(capacity int) *Cache", (11, 14)),
        ("Cache.Len", "func (c *Cache) Len() int", (16, 19)),
    ],
    "Sample.java": [
        (None, None, (1, 3)),
        ("WordCounter", "public class WordCounter", (5, 21)),
        ("WordCounter.WordCounter", "public WordCounter()", (9, 10)),
        ("WordCounter.add", "@Deprecated public void add(String word)", (12, 16)),
        ("WordCounter.Sink", "interface Sink", (18, 20)),  # its body-less method stays in the header
    ],
    "sample.rs": [
        (None, None, (1, 1)),
        ("Window", "pub struct Window", (3, 8)),
        ("Window", "impl Window", (10, 19)),
        ("Window.new", "pub fn new(size: usize) -> Self", (11, 14)),
        ("Window.mean", "pub fn mean(&self) -> f64", (16, 18)),
        ("main", "fn main()", (21, 24)),
    ],
    "sample.c": [
        (None, None, (1, 3)),
        ("Buffer", "typedef struct", (5, 9)),
        ("buffer_push", "int buffer_push(Buffer *buf, char c)", (11, 16)),
        ("name", "static const char *name(void)", (18, 18)),
    ],
    "sample.cpp": [
        (None, None, (1, 1)),
        ("text", "namespace text", (3, 22)),
        ("text.LineCounter", "class LineCounter", (5, 18)),
        ("text.LineCounter.LineCounter", "explicit LineCounter(std::string s) : s_(std::move(s))", (8, 8)),
        ("text.LineCounter.count", "int count() const", (10, 14)),
        (None, None, (22, 22)),  # the `// namespace text` comment after the closing brace
        ("text.Helper.twice", "int text::Helper::twice(int x)", (24, 26)),
    ],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_symbols_signatures_and_lines(name: str) -> None:
    doc = parse_file(name)
    assert [(b.symbol, b.signature, b.lines) for b in doc.blocks] == EXPECTED[name]
    language = LANGUAGE_BY_SUFFIX[Path(name).suffix]
    assert all(b.kind == "code" and b.language == language for b in doc.blocks)
    assert doc.metadata["language"] == language
    assert doc.metadata["syntax_errors"] == 0
    assert doc.metadata["lines"] == len((DATA / name).read_text().splitlines())
    assert [b.lines[0] for b in doc.blocks if b.lines] == sorted(b.lines[0] for b in doc.blocks if b.lines)


def test_python_class_header_excludes_method_bodies() -> None:
    header = by_symbol(parse_file("sample.py"))["Bucket"]
    assert header.text == 'class Bucket(Base):\n    """A token bucket."""\n\n    capacity: int = 10'
    assert header.metadata == {"node": "class_definition"}
    assert header.context == ()


def test_python_decorator_comment_and_nested_function_stay_with_their_definition() -> None:
    doc = parse_file("sample.py")
    symbols = by_symbol(doc)
    full = symbols["Bucket.full"]
    assert full.text.startswith("@property\ndef full(self) -> bool:\n    def helper():")
    assert full.context == ("class Bucket(Base):",)
    assert "helper" not in {s.rsplit(".", 1)[-1] for s in symbols if s}
    assert symbols["now"].text.startswith("# Shared clock so tests can patch it.\ndef now()")
    assert symbols["Config"].text == "@dataclass\nclass Config:\n    rate: float = DEFAULT_RATE"


def test_python_module_runs_cover_top_level_code() -> None:
    doc = parse_file("sample.py")
    modules = [b for b in doc.blocks if b.symbol is None]
    assert [b.metadata["node"] for b in modules] == [MODULE_NODE, MODULE_NODE]
    assert modules[0].text.startswith('"""Token bucket helpers."""\n\nimport time')
    assert modules[0].text.endswith("DEFAULT_RATE = 5.0")
    assert modules[1].text == 'if __name__ == "__main__":\n    print(now())'


def test_js_class_header_jsdoc_and_member_comments() -> None:
    symbols = by_symbol(parse_file("sample.js"))
    assert symbols["CsvReader"].text == 'export class CsvReader extends Reader {\n  delimiter = ",";\n}'
    assert symbols["splitLine"].text.startswith(
        "/**\n * Split a CSV line on commas.\n */\nfunction splitLine"
    )
    rows = symbols["CsvReader.rows"]
    assert rows.text.startswith("// Read every row.\nrows() {\n  const inner = () => 1;")
    assert rows.context == ("class CsvReader extends Reader",)
    assert "CsvReader.inner" not in symbols and "inner" not in symbols
    assert symbols["parseAll"].metadata == {"node": "lexical_declaration"}


def test_js_functions_assigned_to_properties_are_definitions() -> None:
    source = (
        "var res = Object.create(null);\n\n"
        "/**\n * Send a response body.\n */\n"
        "res.send = function send(body) {\n  return this.end(body);\n};\n\n"
        "Router.prototype.route = (path) => new Route(path);\n\n"
        "res.status = 200;\n"
        "console.log(res);\n"
    )
    doc = parse_text(source, "app.js")
    symbols = by_symbol(doc)
    assert symbols["res.send"].text.startswith("/**\n * Send a response body.\n */\nres.send = function send")
    assert symbols["res.send"].lines == (3, 8)
    assert symbols["Router.route"].lines == (10, 10)
    modules = [b for b in doc.blocks if b.symbol is None]
    assert "res.status = 200;" in modules[-1].text and "console.log(res);" in modules[-1].text


def test_a_jsdoc_comment_attaches_across_one_blank_line_a_plain_comment_does_not() -> None:
    source = (
        "/**\n * Set status `code`.\n */\n\nres.status = function status(code) {\n  return this;\n};\n\n"
        "// helpers below\n\nfunction helper() {\n  return 1;\n}\n"
    )
    symbols = by_symbol(parse_text(source, "response.js"))
    assert symbols["res.status"].text.startswith("/**\n * Set status `code`.\n */\n\nres.status")
    assert symbols["helper"].text.startswith("function helper()")


def test_doc_comments_attach_in_other_languages() -> None:
    assert by_symbol(parse_file("sample.go"))["Cache.Len"].text.startswith("// Len reports")
    rust = [b for b in parse_file("sample.rs").blocks if b.symbol == "Window"]
    assert [b.metadata["node"] for b in rust] == ["struct_item", "impl_item"]  # same name, two blocks
    assert rust[0].text.startswith("/// A fixed window of samples.\n#[derive(Debug)]\npub struct Window {")
    assert by_symbol(parse_file("Sample.java"))["WordCounter.add"].text.startswith(
        "/** Adds one occurrence. */\n@Deprecated\npublic void add"
    )
    assert by_symbol(parse_file("sample.ts"))["TtlCache"].text.startswith(
        "/** A cache with a time to live. */"
    )


def test_brace_language_headers_drop_members() -> None:
    java = by_symbol(parse_file("Sample.java"))
    assert java["WordCounter"].text == (
        "/** Counts words. */\npublic class WordCounter {\n"
        "    private final HashMap<String, Integer> counts = new HashMap<>();\n}"
    )
    assert java["WordCounter.Sink"].text == "interface Sink {\n    void accept(String word);\n}"
    cpp = by_symbol(parse_file("sample.cpp"))
    assert "count()" not in cpp["text.LineCounter"].text
    assert "std::string s_;" in cpp["text.LineCounter"].text
    assert cpp["text.LineCounter.count"].context == ("namespace text", "class LineCounter")
    assert [b.text for b in parse_file("sample.rs").blocks if b.metadata["node"] == "impl_item"] == [
        "impl Window {\n}"
    ]


def test_syntax_errors_are_counted_and_blocks_still_produced() -> None:
    doc = parse_file("syntax_error.py")
    assert doc.metadata["syntax_errors"] > 0
    symbols = by_symbol(doc)
    assert symbols["ok"].lines == (3, 4)
    assert symbols["K.m"].lines == (10, 11)


def test_non_utf8_file_is_decoded_and_encoding_recorded() -> None:
    doc = parse_file("latin1.py")
    assert doc.metadata["encoding"] != "utf-8"
    assert doc.blocks[0].text == "# Caf\u00e9 cr\u00e8me: prix en \u00a3"
    assert by_symbol(doc)["prix"].text == 'def prix():\n    return "d\u00e9j\u00e0"'


def test_blank_and_binary_files_are_skipped() -> None:
    with pytest.raises(SkipFile, match="blank"):
        parse_file("blank.py")
    data = b"\x00\x01def f(): pass\n"
    with pytest.raises(SkipFile, match="binary"):
        parse(SourceFile(Path("x.py"), "x.py", data, "0"), ParseOptions())


def test_registry_dispatches_and_grammar_is_cached() -> None:
    data = b"fn main() {}\n"
    (doc,) = parse_source(SourceFile(Path("m.rs"), "m.rs", data, "0"))
    assert doc.parser == "code" and doc.blocks[0].symbol == "main"
    assert load_language("rust") is load_language("rust")


def test_c_include_guard_contents_are_walked() -> None:
    doc = parse_text(
        "#ifndef A_H\n#define A_H\nstruct Point { int x; };\nint area(int w) { return w; }\n#endif\n", "a.h"
    )
    assert [(b.symbol, b.lines) for b in doc.blocks] == [
        (None, (1, 2)),
        ("Point", (3, 3)),
        ("area", (4, 4)),
        (None, (5, 5)),
    ]
    assert doc.blocks[1].text == "struct Point { int x; };"


def test_typescript_interface_methods_and_abstract_signatures_stay_in_header() -> None:
    doc = parse_text("abstract class A {\n  abstract m(): void;\n  n() { return 1; }\n}\n", "a.ts")
    symbols = by_symbol(doc)
    assert set(symbols) == {"A", "A.n"}
    assert symbols["A"].text == "abstract class A {\n  abstract m(): void;\n}"


def test_a_cpp_header_with_h_suffix_is_read_as_cpp(tmp_path):
    from parsers.options import ParseOptions
    from parsers.source import SourceFile

    path = tmp_path / "env.h"
    path.write_text(
        "namespace store {\nclass Env {\n public:\n  virtual ~Env();\n  int Open(const char* name);\n};\n}\n"
    )
    [doc] = parse(SourceFile.read(path, "env.h"), ParseOptions())
    assert doc.metadata["language"] == "cpp" and doc.metadata["syntax_errors"] == 0
    assert any(b.symbol and b.symbol.endswith("Env") for b in doc.blocks)
    c_header = tmp_path / "buf.h"
    c_header.write_text("struct buf { int len; };\nint buf_len(struct buf *b);\n")
    [c_doc] = parse(SourceFile.read(c_header, "buf.h"), ParseOptions())
    assert c_doc.metadata["language"] == "c"
