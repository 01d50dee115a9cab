"""Tiny prose fragments joined to a neighbour of the same section (chunkers.fragments), through the
real Markdown and code parsers and chunk_document."""

from __future__ import annotations

from pathlib import Path

from chunkers.document import chunk_document
from parsers.registry import parse_path

LONG = " ".join(["The orbital daemon reads its settings from the configuration file at start."] * 6)

DOC = f"""# Setup

## Flags

Define them:

```js
define({{ __FLAG__: true }})
```

{LONG}

## Tables

A short note.

| flag | default |
|---|---|
| a | 1 |

## Alone

Only this line.
"""


def _chunks(tmp_path: Path, text: str, name: str = "doc.md"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    (doc,) = parse_path(path, name)
    return chunk_document(doc), text.splitlines()


def test_an_intro_line_joins_the_code_block_it_introduces_and_cites_its_lines(tmp_path):
    chunks, lines = _chunks(tmp_path, DOC)
    flags = [c for c in chunks if c.heading_path[-1:] == ("Flags",)]
    first = flags[0]
    assert first.kind == "code"
    assert first.text.startswith("Define them:\n\n")
    assert "define({ __FLAG__: true })" in first.text
    start, end = first.lines
    cited = "\n".join(lines[start - 1 : end])
    assert cited.startswith("Define them:") and cited.rstrip().endswith("```")
    assert first.index_text.endswith(first.text)  # the context prefix kept, the joined text indexed
    assert not any(c.text == "Define them:" for c in chunks)


def test_tables_and_lone_sections_are_left_alone(tmp_path):
    chunks, _ = _chunks(tmp_path, DOC)
    tables = [c for c in chunks if c.heading_path[-1:] == ("Tables",)]
    assert [c.kind for c in tables] == ["text", "table"]
    assert tables[0].text == "A short note."
    alone = [c for c in chunks if c.heading_path[-1:] == ("Alone",)]
    assert [c.text for c in alone] == ["Only this line."]  # nothing else in its section


def test_no_text_is_lost_and_nothing_crosses_a_section(tmp_path):
    chunks, _ = _chunks(tmp_path, DOC)
    words = " ".join(c.text for c in chunks).split()
    for needle in ("Define", "__FLAG__:", "settings", "note.", "Only"):
        assert needle in words
    for c in chunks:  # each chunk's lines lie inside one section's lines
        assert c.lines is not None and c.lines[0] <= c.lines[1]
    sections = {c.heading_path for c in chunks}
    assert len(sections) == 3


def test_code_symbols_never_take_a_fragment(tmp_path):
    source = '"""Tiny module docstring."""\n\n\ndef f():\n    return 1\n'
    chunks, _ = _chunks(tmp_path, source, "mod.py")
    assert all(c.symbol is None or "Tiny module docstring" not in c.text for c in chunks)


def test_chinese_fragments_join_within_their_section(tmp_path):
    text = "# 指南\n\n## 配置\n\n例如：\n\n```js\nnew DefinePlugin({})\n```\n"
    chunks, _ = _chunks(tmp_path, text)
    assert len(chunks) == 1 and chunks[0].lines == (5, 9)
    assert chunks[0].text.startswith("例如：\n\n")
