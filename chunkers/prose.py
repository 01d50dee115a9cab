"""Prose chunks: one heading section at a time, packed up to the size limit at paragraph
boundaries, long paragraphs split at sentence boundaries, long sentences at word boundaries."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import groupby

from chunkers.sizing import count_tokens, join_limit, pack, split_sentences
from parsers.model import Block
from parsers.scripts import han_count


@dataclass(frozen=True)
class Piece:
    """Shown text of one future chunk plus where it came from."""

    text: str
    heading_path: tuple[str, ...]
    pages: tuple[int, int] | None
    lines: tuple[int, int] | None


def _span(values: Iterable[tuple[int, int] | None]) -> tuple[int, int] | None:
    present = [v for v in values if v is not None]
    if not present:
        return None
    return (min(v[0] for v in present), max(v[1] for v in present))


def _units(block: Block, max_tokens: int) -> list[Block]:
    """A block, or its sentence-packed parts when it is over the limit (parts keep its location)."""
    if count_tokens(block.text) <= max_tokens:
        return [block]
    joiner = "" if _mostly_cjk(block.text) else " "
    parts = pack(split_sentences(block.text), max_tokens, joiner=joiner)
    return [
        Block(kind=block.kind, text=p, heading_path=block.heading_path, page=block.page, lines=block.lines)
        for p in parts
    ]


def _mostly_cjk(text: str) -> bool:
    cjk = han_count(text)
    return cjk > len(text) // 3


def chunk_section(blocks: list[Block], max_tokens: int) -> Iterator[Piece]:
    """Blocks of one heading section -> pieces of at most ``max_tokens`` (estimated). A piece
    never spans two pages, so that a PDF hit cites exactly the page its text is on."""
    units = [u for b in blocks if b.kind != "heading" for u in _units(b, max_tokens)]
    current: list[Block] = []
    size = 0
    for unit in units:
        n = count_tokens(unit.text)
        if current and (size + n > max_tokens or unit.page != current[-1].page):
            carried = _lead_in(current, unit, n, max_tokens)
            if len(carried) < len(current):  # a lone lead-in stays with what it introduces
                yield _piece(current[: len(current) - len(carried)])
                current, size = carried, sum(count_tokens(u.text) for u in carried)
        current.append(unit)
        size += n
    if current:
        yield _piece(current)


def _lead_in(current: list[Block], unit: Block, n: int, max_tokens: int) -> list[Block]:
    """The last unit of a full piece when it introduces ``unit`` (ends in a colon: "the following
    happens:", "例如：") and can go with it: it is carried into the next piece rather than left at
    the end of this one, cut off from the list, table or code it announces. Same page only; the
    two may exceed ``max_tokens`` by a fifth, as joined fragments may (fragments.py)."""
    last = current[-1]
    if last.page != unit.page or not introduces(last.text):
        return []
    return [last] if count_tokens(last.text) + n <= join_limit(max_tokens) else []


def introduces(text: str) -> bool:
    """``text`` ends in a colon: it introduces what follows ("例如：", "three things happen:")."""
    return text.rstrip().endswith((":", "："))


def _piece(units: list[Block]) -> Piece:
    pages = _span((u.page, u.page) if u.page is not None else None for u in units)
    return Piece(
        text="\n\n".join(u.text for u in units),
        heading_path=units[0].heading_path,
        pages=pages,
        lines=_span(u.lines for u in units),
    )


def chunk_prose(blocks: list[Block], max_tokens: int) -> Iterator[Piece]:
    """Consecutive prose blocks -> pieces, never mixing two heading sections in one piece."""
    for _, section in groupby(blocks, key=lambda b: b.heading_path):
        yield from chunk_section(list(section), max_tokens)
