from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from parsers.markdown import parse, split_front_matter
from parsers.model import ParsedDocument, SkipFile
from parsers.options import ParseOptions
from parsers.source import SourceFile

DATA = Path(__file__).resolve().parents[1] / "data" / "parsers" / "markdown"


def parse_text(text: str, name: str = "doc.md", encoding: str = "utf-8") -> ParsedDocument:
    data = text.encode(encoding)
    source = SourceFile(Path(name), name, data, hashlib.sha256(data).hexdigest())
    (doc,) = parse(source, ParseOptions())
    return doc


@pytest.fixture(scope="module")
def guide() -> ParsedDocument:
    (doc,) = parse(SourceFile.read(DATA / "guide.md", "guide.md"), ParseOptions())
    return doc


def test_guide_blocks_kinds_lines_and_heading_paths(guide: ParsedDocument) -> None:
    linux = ("Guide", "Install", "Linux")
    got = [(b.kind, b.lines, b.heading_path) for b in guide.blocks]
    assert got == [
        ("heading", (6, 6), ("Guide",)),
        ("paragraph", (8, 8), ("Guide",)),
        ("heading", (10, 11), ("Guide", "Install")),  # setext: text line + underline
        ("heading", (13, 13), linux),
        ("list", (15, 17), linux),
        ("list", (19, 20), linux),
        ("table", (22, 25), linux),
        ("code", (27, 29), linux),
        ("quote", (31, 32), linux),
        ("paragraph", (34, 34), linux),  # HTML block
        ("heading", (36, 36), ("Guide", "Usage")),  # H2 closes the H3 and the setext H2
        ("code", (38, 38), ("Guide", "Usage")),  # indented code
    ]


def test_front_matter_becomes_metadata_and_title(guide: ParsedDocument) -> None:
    assert guide.title == "Lumen Guide"
    assert guide.metadata == {"title": "Lumen Guide", "tags": ["install", "setup"], "updated": "2024-05-01"}
    assert guide.doc_id == guide.path == "guide.md"
    assert guide.parser == "markdown"


def test_inline_markup_rendered_to_plain_text(guide: ParsedDocument) -> None:
    assert guide.blocks[1].text == "Intro with a link and inline code."
    assert guide.blocks[9].text == "HTML block"


def test_list_keeps_markers_and_nesting(guide: ParsedDocument) -> None:
    assert guide.blocks[4].text == "- Download the archive\n  - check the checksum\n- Unpack it"
    assert guide.blocks[5].text == "1. first\n2. second"


def test_table_cells_escaped_pipe_and_short_row(guide: ParsedDocument) -> None:
    block = guide.blocks[6]
    assert block.table is not None
    assert block.table.rows == (("Platform", "Notes"), ("Linux", "uses a | b pipes"), ("macOS", ""))
    assert block.table.header_rows == 1
    assert block.table.title == "Linux"
    assert block.text == block.table.markdown()
    assert "uses a \\| b pipes" in block.text


def test_code_fence_language_and_text(guide: ParsedDocument) -> None:
    fence, indented = guide.blocks[7], guide.blocks[11]
    assert (fence.language, fence.text) == ("bash", "lumen --version")
    assert (indented.language, indented.text) == (None, "indented code")


def test_quote_text_without_markers(guide: ParsedDocument) -> None:
    assert guide.blocks[8].text == "Quoted tip\non two lines."


def test_title_falls_back_to_first_h1_and_lines_without_front_matter() -> None:
    doc = parse_text("Intro\n\n## Sub\n\n# Main Title\n\ntext\n")
    assert doc.title == "Main Title"
    assert doc.metadata == {}
    assert [(b.kind, b.lines, b.heading_path) for b in doc.blocks] == [
        ("paragraph", (1, 1), ()),
        ("heading", (3, 3), ("Sub",)),
        ("heading", (5, 5), ("Main Title",)),  # an H1 closes the H2 before it
        ("paragraph", (7, 7), ("Main Title",)),
    ]


def test_setext_h1_and_deep_path() -> None:
    doc = parse_text("Guide\n=====\n\n## Install\n\n### Linux\n\nrun it\n\n### macOS\n\nbrew it\n")
    paths = {b.text: b.heading_path for b in doc.blocks if b.kind == "paragraph"}
    assert paths == {"run it": ("Guide", "Install", "Linux"), "brew it": ("Guide", "Install", "macOS")}
    assert doc.title == "Guide"


def test_malformed_front_matter_is_kept_as_text() -> None:
    doc = parse_text("---\ntitle: [unclosed\n---\n# Real\n\nbody\n")
    assert "front_matter_error" in doc.metadata
    assert doc.blocks[0].kind == "paragraph"
    assert doc.blocks[0].text == "title: [unclosed"
    assert doc.blocks[0].lines == (2, 2)
    assert doc.title == "Real"
    assert doc.blocks[1].lines == (4, 4)


def test_front_matter_that_is_not_a_mapping_is_an_error() -> None:
    doc = parse_text("---\n- a\n- b\n---\ntext\n")
    assert doc.metadata["front_matter_error"] == "front matter is a list, not a mapping"


def test_front_matter_cannot_override_parser_keys() -> None:
    doc = parse_text("---\nencoding: bogus\n---\nCaf\u00e9\n", encoding="cp1252")
    assert doc.metadata == {"encoding": "cp1252"}
    assert doc.blocks[0].text == "Caf\u00e9"


def test_split_front_matter_counts_lines() -> None:
    assert split_front_matter("---\na: 1\nb: 2\n---\nbody\n") == ("a: 1\nb: 2\n", "body\n", 4)
    assert split_front_matter("no front matter\n---\n") == (None, "no front matter\n---\n", 0)


def test_blank_or_front_matter_only_is_skipped() -> None:
    with pytest.raises(SkipFile):
        parse_text("   \n\n")
    with pytest.raises(SkipFile):
        parse_text("---\ntitle: x\n---\n")


def test_html_comment_dropped_and_ordered_start_kept() -> None:
    doc = parse_text("<!-- hidden -->\n\n3. three\n4. four\n   - nested\n")
    assert [b.text for b in doc.blocks] == ["3. three\n4. four\n   - nested"]


def test_html_block_entities_are_decoded():
    from parsers.markdown import strip_html

    assert strip_html('<div title="x">&amp; &lt;b&gt; &quot;q&quot; &#39;s</div>') == '& <b> "q" \'s'


def test_html_table_in_markdown_becomes_a_table_block() -> None:
    doc = parse_text(
        "# Plans\n\n## Pricing\n\n"
        "<p>Prices in EUR.</p>\n"
        "<table>\n<caption>Monthly &amp; annual</caption>\n"
        "<thead><tr><th>Plan</th><th>Monthly</th><th>Annual</th></tr></thead>\n"
        "<tr><td>Free</td><td>0</td><td>0</td></tr>\n"
        '<tr><td rowspan="2">Pro</td><td colspan="2">ask<br>sales</td></tr>\n'
        "<tr><td>12</td><td>120 | yearly</td></tr>\n"
        "<tr><td>Team</td><td><table><tr><td>inner</td></tr></table></td><td>x</td></tr>\n"
        "</table>\n<p>VAT extra.</p>\n"
    )
    kinds = [(b.kind, b.lines) for b in doc.blocks if b.kind != "heading"]
    assert kinds == [("paragraph", (5, 14)), ("table", (5, 14)), ("paragraph", (5, 14))]
    before, table_block, after = (b for b in doc.blocks if b.kind != "heading")
    assert (before.text, after.text) == ("Prices in EUR.", "VAT extra.")
    table = table_block.table
    assert table is not None and table.title == "Monthly & annual" and table.header_rows == 1
    assert table.rows == (
        ("Plan", "Monthly", "Annual"),
        ("Free", "0", "0"),
        ("Pro", "ask sales", ""),  # colspan: text in its first column, the spanned one empty
        ("", "12", "120 | yearly"),  # rowspan: the spanned cell is empty, later cells keep columns
        ("Team", "inner", "x"),  # a nested table is text of its cell
    )
    assert "| 120 \\| yearly |" in table_block.text
    assert table_block.heading_path == ("Plans", "Pricing")


def test_html_without_a_table_stays_text() -> None:
    doc = parse_text('<div align="center">\n<b>Lumen</b> docs\n</div>\n')
    assert [(b.kind, b.text) for b in doc.blocks] == [("paragraph", "Lumen docs")]


NOISY_PAGE = """<style>
.hero { color: red; }

.start-server { margin: 0 }
</style>

# Run the server

```rust
{{#include ../listings/ch01/main.rs}}
```

{{#include ../listings/ch01/output.txt}}

```rust
{{#rustdoc_include ../listings/ch01/lib.rs:here}}
fn main() {}
```

Start the server from Python code with `run()`.

<script>var start = "the server";</script>

```handlebars
{{#each items}}{{name}}{{/each}}
```
"""


def test_style_script_and_mdbook_directives_are_not_indexed_as_text() -> None:
    doc = parse_text(NOISY_PAGE)
    texts = [(b.kind, b.text) for b in doc.blocks]
    assert texts == [
        ("heading", "Run the server"),
        ("code", "fn main() {}"),  # the directive line goes, the code stays
        ("paragraph", "Start the server from Python code with run()."),
        ("code", "{{#each items}}{{name}}{{/each}}"),  # other template syntax is content
    ]
    assert doc.blocks[1].lines == (15, 18)  # the citation keeps the whole fence


def test_strip_html_drops_style_and_script_content():
    from parsers.markdown import strip_html

    html = '<STYLE type="text/css">p { x: 1 }</STYLE><p>kept</p><script>alert(1)</script>tail'
    assert strip_html(html) == "kepttail"


def test_a_page_of_front_matter_and_markup_only_is_an_empty_file_and_cut_text_is_not() -> None:
    with pytest.raises(SkipFile, match=r"^empty file \(front matter and markup only\)$"):
        parse_text("---\ntitle: API\n---\n\n<script setup>\nimport A from './A.vue'\n</script>\n\n<A />\n")
    with pytest.raises(SkipFile, match=r"^empty file \(front matter and markup only\)$"):
        parse_text("---\ntitle: x\n---\n")


ATTRIBUTED_PAGE = """# Suspense {#suspense}

:::warning Experimental
Suspense is an experimental feature.
:::

## Loading state {: #loading .tip}

Shown while waiting.

```md
:::tip kept in code
## Title {#kept}
```

::: details
Open me.
:::
"""


def test_heading_attributes_and_container_markers_are_not_indexed_as_text() -> None:
    """Generators' markup (Pandoc/kramdown/VitePress heading ids, markdown-it-container fences)
    is not text; a container's title is, and code keeps its lines as written."""
    doc = parse_text(ATTRIBUTED_PAGE)
    texts = [(b.kind, b.text, b.heading_path) for b in doc.blocks]
    assert texts[0] == ("heading", "Suspense", ("Suspense",))
    assert ("paragraph", "Experimental\nSuspense is an experimental feature.", ("Suspense",)) in texts
    assert ("heading", "Loading state", ("Suspense", "Loading state")) in texts
    code = next(b for b in doc.blocks if b.kind == "code")
    assert code.text == ":::tip kept in code\n## Title {#kept}"
    assert ("paragraph", "Open me.", ("Suspense", "Loading state")) in texts
    assert not any(":::" in b.text or "{#" in b.text for b in doc.blocks if b.kind != "code")


def test_an_anchor_the_heading_does_not_spell_stays_as_its_alias() -> None:
    """A translated page keeps its English anchors: the anchor's words are the section's name in
    the source language, so they stay (in brackets, without the markup); an anchor that only
    repeats the heading adds nothing."""
    doc = parse_text(
        "# 无障碍访问 {#accessibility}\n\n## 跳过链接 {#skip-link}\n\n加一个跳到正文的链接。\n\n"
        "## Install {#install}\n\nRun it.\n"
    )
    headings = [b.text for b in doc.blocks if b.kind == "heading"]
    assert headings == ["无障碍访问 (accessibility)", "跳过链接 (skip link)", "Install"]
    body = next(b for b in doc.blocks if b.kind == "paragraph")
    assert body.heading_path == ("无障碍访问 (accessibility)", "跳过链接 (skip link)")
