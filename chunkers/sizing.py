"""Token counting and boundary-respecting splits.

Counting uses a cheap estimate of the embedding model's word-piece count rather than the model's
tokenizer: chunking must not load the model, and the estimate errs on the long side (a word of
more than 8 characters counts as several pieces, every CJK character and punctuation mark as one),
so a chunk that fits the estimate fits the model's window.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from parsers.scripts import CJK_LETTERS, han_count

_PIECE = re.compile(rf"[{CJK_LETTERS}]|\w+|[^\w\s]")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？;；])[\"')\]」』]*\s+|(?<=[。！？；])")


def count_tokens(text: str) -> int:
    total = 0
    for match in _PIECE.finditer(text):
        n = len(match.group())
        total += 1 + (n - 1) // 8 if n > 1 else 1
    return total


@dataclass(frozen=True)
class ChunkOptions:
    """``max_tokens`` bounds the shown text; the context prefix comes on top of it, so the default
    (200) leaves room for a heading path within MiniLM's 256-piece window."""

    max_tokens: int = 200

    def __post_init__(self) -> None:
        if self.max_tokens < 16:
            raise ValueError(f"ChunkOptions.max_tokens must be >= 16, got {self.max_tokens}")


def join_limit(max_tokens: int) -> int:
    """How big two pieces joined as one may be (a lead-in and what it introduces, a fragment and
    its neighbour: chunkers/fragments.py, prose.py): ``max_tokens`` and a fifth, which stays
    within the embedding models' windows (the token estimate errs long)."""
    return max_tokens + max_tokens // 5


def split_sentences(text: str) -> list[str]:
    """Sentences with their trailing punctuation; whitespace between them dropped."""
    parts = [p.strip() for p in _SENTENCE_END.split(text)]
    return [p for p in parts if p]


def split_words(text: str, max_tokens: int) -> Iterator[str]:
    """Pieces of at most ``max_tokens`` cut only at whitespace (never mid-word); a single word longer
    than the limit stands alone. CJK text without spaces is cut between characters."""
    current: list[str] = []
    size = 0
    for word in re.findall(r"\S+", text):
        n = count_tokens(word)
        if n > max_tokens and not current and _is_cjk_run(word):
            yield from _split_cjk(word, max_tokens)
            continue
        if current and size + n > max_tokens:
            yield " ".join(current)
            current, size = [], 0
        current.append(word)
        size += n
    if current:
        yield " ".join(current)


def _is_cjk_run(word: str) -> bool:
    return han_count(word) > len(word) // 2


def _split_cjk(word: str, max_tokens: int) -> Iterator[str]:
    start = 0
    while start < len(word):
        end = start + max_tokens
        while end < len(word) and count_tokens(word[start:end]) > max_tokens:
            end -= 1
        yield word[start:end]
        start = end


def pack(units: list[str], max_tokens: int, joiner: str = " ") -> list[str]:
    """Greedily pack units (sentences, rows, lines) into pieces of at most ``max_tokens``;
    an oversize unit is split at word boundaries."""
    pieces: list[str] = []
    current: list[str] = []
    size = 0
    for unit in units:
        n = count_tokens(unit)
        if n > max_tokens:
            if current:
                pieces.append(joiner.join(current))
                current, size = [], 0
            pieces.extend(split_words(unit, max_tokens))
            continue
        if current and size + n > max_tokens:
            pieces.append(joiner.join(current))
            current, size = [], 0
        current.append(unit)
        size += n
    if current:
        pieces.append(joiner.join(current))
    return pieces
