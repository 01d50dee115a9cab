"""A definition's signature line cut to a length at a token boundary (after a whole parameter
where it can), never inside a word: ``def run_app(app, *, host=None, …``, not ``ws_max_size: in``.
Pure text, no tree-sitter: the code graph (parsers.code.graph) and the repo map use it."""

from __future__ import annotations

import re

ELLIPSIS = "…"
_WORD_EDGE = re.compile(r"\W")


def clip_signature(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its longest prefix that ends after a
    comma (a whole parameter), or else at a word edge, followed by `` …`` (within ``limit``)."""
    if len(text) <= limit:
        return text
    head = text[: max(limit - 2, 1)]
    comma = head.rfind(",")
    if comma >= limit // 3:
        return head[: comma + 1] + " " + ELLIPSIS
    if not _WORD_EDGE.match(text[len(head)]):  # the limit falls inside a word: end before it
        edges = [m.start() for m in _WORD_EDGE.finditer(head)]
        cut = edges[-1] if edges else -1
    else:
        cut = len(head) - 1
    if cut < limit // 3:
        return head.rstrip() + ELLIPSIS
    return head[: cut + 1].rstrip() + " " + ELLIPSIS
