"""Code chunks: one per symbol block from the code parser; a block over the size limit is split at
statement boundaries (lines at the body's own indentation) with its signature carried into the
indexed text of every part."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from chunkers.sizing import count_tokens
from parsers.model import Block


@dataclass(frozen=True)
class CodePiece:
    text: str
    lines: tuple[int, int] | None
    part: int
    parts: int


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def statement_starts(lines: list[str]) -> list[int]:
    """Indexes of lines where a statement of the body begins: non-blank lines indented no deeper
    than the first body line. Line 0 (the signature) always starts a unit."""
    body = [i for i, line in enumerate(lines[1:], start=1) if line.strip()]
    if not body:
        return [0]
    base = _indent(lines[body[0]])
    starts = [0] + [i for i in body if _indent(lines[i]) <= base]
    return sorted(set(starts))


def refine_starts(lines: list[str], starts: list[int], max_tokens: int) -> list[int]:
    """Statement units still over the limit (a long nested block, a body whose indentation was
    misread) are cut further between lines, so no piece exceeds the limit unless one line does."""
    bounds = [*starts, len(lines)]
    refined: list[int] = []
    for a, b in zip(bounds, bounds[1:], strict=False):
        refined.append(a)
        if count_tokens("\n".join(lines[a:b])) <= max_tokens:
            continue
        size = 0
        for i in range(a, b):
            n = count_tokens(lines[i])
            if i > a and size + n > max_tokens:
                refined.append(i)
                size = 0
            size += n
    return sorted(set(refined))


def split_code(block: Block, max_tokens: int) -> Iterator[CodePiece]:
    lines = block.text.split("\n")
    if count_tokens(block.text) <= max_tokens or len(lines) < 2:
        yield CodePiece(block.text, block.lines, 0, 1)
        return
    starts = refine_starts(lines, statement_starts(lines), max_tokens) + [len(lines)]
    units = ["\n".join(lines[a:b]) for a, b in zip(starts, starts[1:], strict=False)]
    offsets = starts[:-1]
    groups: list[tuple[int, int]] = []  # (first unit, last unit) inclusive
    first, size = 0, 0
    for i, unit in enumerate(units):
        n = count_tokens(unit)
        if i > first and size + n > max_tokens:
            groups.append((first, i - 1))
            first, size = i, 0
        size += n
    groups.append((first, len(units) - 1))
    base = block.lines[0] if block.lines else None
    for part, (a, b) in enumerate(groups):
        text = "\n".join(units[a : b + 1]).strip("\n")
        lines_range = None
        if base is not None:
            end_offset = starts[b + 1] - 1
            lines_range = (base + offsets[a], base + end_offset)
        yield CodePiece(text, lines_range, part, len(groups))
