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


def test_a_long_lead_in_joins_the_code_block_it_introduces(tmp_path):
    lead = "If you run the daemon behind a proxy, point it at the proxy in its configuration file:"
    text = f"# Guide\n\n## Proxy\n\n{lead}\n\n```toml\n[proxy]\nurl = 'http://10.0.0.1:3128'\n```\n"
    chunks, lines = _chunks(tmp_path, text)
    assert len(lead) > 20 and len(chunks) == 1  # over the fragment size, yet one chunk with its code
    (chunk,) = chunks
    assert chunk.kind == "code" and chunk.text.startswith(lead + "\n\n") and "[proxy]" in chunk.text
    assert chunk.lines == (5, 10) and lines[9] == "```"


def test_a_lead_in_too_big_to_join_stays_whole_and_nothing_is_lost(tmp_path):
    lead = " ".join(["The orbital daemon reads each of its settings at start and again on reload."] * 9)
    lead += " It accepts these settings in its configuration file:"
    body = "\n".join(f"setting_{i} = {i}  # what setting {i} does to the orbital daemon" for i in range(8))
    text = f"# Guide\n\n## Settings\n\n{lead}\n\n```toml\n{body}\n```\n"
    chunks, _ = _chunks(tmp_path, text)
    assert [c.kind for c in chunks] == ["text", "code"]  # together over max_tokens + a fifth
    assert chunks[0].text == lead and "setting_7 = 7" in chunks[1].text


def test_a_lead_in_joins_the_first_part_of_a_long_code_block(tmp_path):
    lead = "The orbital daemon accepts these settings in its configuration file:"
    body = "\n".join(f"setting_{i} = {i}  # what setting {i} does to the orbital daemon" for i in range(60))
    text = f"# Guide\n\n## Settings\n\n{lead}\n\n```toml\n{body}\n```\n"
    chunks, _ = _chunks(tmp_path, text)
    assert len(chunks) > 2 and chunks[0].text.startswith(lead + "\n\nsetting_0 = 0")
    assert all(c.kind == "code" for c in chunks)
    assert "setting_59 = 59" in chunks[-1].text


def test_the_prose_packer_keeps_a_lead_in_paragraph_with_the_list_it_introduces(tmp_path):
    # 12 x 14 = 168 estimated tokens: with the lead-in 180 fit in 200, with the list too 240 do not
    filler = " ".join(["The renderer walks the tree and records what changed since the last pass."] * 12)
    lead = "When a component mounts, three things happen in order:"
    steps = "\n".join(
        f"{n}. **{name}**: the {name.lower()} step of the pipeline runs for every component."
        for n, name in enumerate(["Compile", "Mount", "Patch"], start=1)
    )
    text = f"# Rendering\n\n## Pipeline\n\n{filler}\n\n{lead}\n\n{steps}\n"
    chunks, _ = _chunks(tmp_path, text)
    holding = [c for c in chunks if lead in c.text]
    assert len(holding) == 1 and "Compile" in holding[0].text  # not left at the end of the filler's chunk
    assert not chunks[0].text.rstrip().endswith(":")
    assert sum(c.text.count(lead) for c in chunks) == 1  # said once


def test_a_chinese_lead_in_joins_its_code(tmp_path):
    lead = "如果你正在使用 Vite，那么需要在配置文件中这样定义这些标志："
    text = f"# 指南\n\n## 标志\n\n{lead}\n\n```js\ndefine({{ __VUE_OPTIONS_API__: true }})\n```\n"
    chunks, _ = _chunks(tmp_path, text)
    assert len(chunks) == 1 and chunks[0].text.startswith(lead) and "__VUE_OPTIONS_API__" in chunks[0].text
