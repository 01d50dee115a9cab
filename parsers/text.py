"""Plain text: paragraphs separated by blank lines, with line ranges."""

from __future__ import annotations

from parsers.model import Block, ParsedDocument, SkipFile
from parsers.options import ParseOptions
from parsers.source import SourceFile, encoding_note, split_lines


def paragraphs(text: str) -> list[tuple[str, int, int]]:
    """(paragraph, first line, last line) for each blank-line separated run; lines are 1-based."""
    out: list[tuple[str, int, int]] = []
    current: list[str] = []
    start = 0
    for number, line in enumerate(split_lines(text), start=1):
        if line.strip():
            if not current:
                start = number
            current.append(line.rstrip())
        elif current:
            out.append(("\n".join(current), start, number - 1))
            current = []
    if current:
        out.append(("\n".join(current), start, start + len(current) - 1))
    return out


def parse(source: SourceFile, options: ParseOptions) -> list[ParsedDocument]:
    text, encoding = source.text()
    blocks = tuple(Block(kind="paragraph", text=p, lines=(a, b)) for p, a, b in paragraphs(text))
    if not blocks:
        raise SkipFile("no text (file is blank)")
    return [ParsedDocument.of_file(source, "text", blocks, metadata=encoding_note(encoding))]
