"""Tiny prose fragments, and lines that introduce what follows, merged into a neighbour of the
same section (issue 23: 37 % of a Chinese docs tree's chunks were under 80 characters, mostly a line
introducing a fenced code block, e.g. "例如：", or a packing leftover).

The threshold was measured with `docmill eval` on the dev trees zh-docs and mixed-py (fit and held
halves): at 80 characters mixed-py's hybrid MRR fell (fit 0.830 -> 0.808, held 0.921 -> 0.893), at
40 zh-docs' held hybrid hit@5 fell (0.762 -> 0.714); at 20 the default (hybrid) mode gains or
holds on every half (zh-docs fit hit@5 0.737 -> 0.789), mixed-py is unchanged, and only the
vector-only mode's fit MRR on zh-docs fell (0.565 -> 0.530). ``MIN_CHARS = 0`` turns joining off.

A prose chunk under ``MIN_CHARS`` characters joins the chunk next to it when both lie in the same
heading section and on the same pages: a prose chunk, or a fenced code block of the document
(never a code symbol from a code parser, never a table). A fragment ending in a colon joins the
chunk after it first; any other the chunk before it first. The joined chunk keeps the neighbour's
kind, its text is the two texts in document order (nothing dropped) and its lines span both, so a
citation still covers exactly the text shown. It may exceed ``max_tokens`` by at most a fifth, which
stays within the embedding models' windows (the token estimate errs long). Chunks of different
documents are never joined: chunk_document calls this per document.

**Lead-ins** (``merge-v4``): a prose chunk of any length that ends in a colon ("Vue 组件挂载时会发生
如下几件事：", "Use an explicit path to a .netrc file:") introduces the chunk after it, so it joins
that chunk under the same conditions. A quarter of a Chinese docs tree's chunks (651 of 2649) and a
fifth of a docs + code tree's ended that way, each an explanation cut off from the code example or
list it announces; the code chunk alone is found by neither side for a question asked in words.
(The prose packer keeps a lead-in paragraph with what follows too: chunkers/prose.py.)
"""

from __future__ import annotations

from collections.abc import Sequence

from chunkers.prose import introduces
from chunkers.sizing import count_tokens, join_limit

MIN_CHARS = 20  # a prose chunk shorter than this (stripped) is a fragment (80 and 40 cost retrieval figures)
FRAGMENTS_VERSION = "merge-v4"  # part of the chunk reuse key: a change re-chunks every file
_JOINABLE = frozenset({"text", "code"})


def _is_fragment(fields: dict) -> bool:
    return fields["kind"] == "text" and len(fields["text"].strip()) < MIN_CHARS


def _introduces(fields: dict) -> bool:
    return introduces(fields["text"])


def _is_lead_in(fields: dict) -> bool:
    """A prose chunk over the fragment size that introduces the chunk after it."""
    return fields["kind"] == "text" and not _is_fragment(fields) and _introduces(fields)


def _can_join(fragment: dict, other: dict | None, max_tokens: int) -> bool:
    if other is None or other["kind"] not in _JOINABLE or other.get("symbol"):
        return False
    if other["heading_path"] != fragment["heading_path"] or other["pages"] != fragment["pages"]:
        return False
    if other["lines"] is None or fragment["lines"] is None:
        return False
    size = count_tokens(fragment["text"]) + count_tokens(other["text"])
    return size <= join_limit(max_tokens)


def _span(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    return (min(a[0], b[0]), max(a[1], b[1]))


def _join(first: dict, second: dict, keep: dict) -> dict:
    """``first`` and ``second`` (in document order) as one chunk with ``keep``'s kind and prefix."""
    text = f"{first['text']}\n\n{second['text']}"
    index_text, shown = keep["index_text"], keep["text"]
    prefix = index_text[: len(index_text) - len(shown)] if index_text.endswith(shown) else ""
    return {
        **keep,
        "text": text,
        "index_text": prefix + text,
        "lines": _span(first["lines"], second["lines"]),
    }


def merge_fragments(items: Sequence[dict], max_tokens: int) -> list[dict]:
    """One document's chunk fields in order, each lead-in joined to the chunk it introduces and each
    tiny prose fragment to a neighbour."""
    pending = list(items)
    out: list[dict] = []
    for i, fields in enumerate(pending):
        after = pending[i + 1] if i + 1 < len(pending) else None
        if _is_lead_in(fields) and _can_join(fields, after, max_tokens):
            assert after is not None
            pending[i + 1] = _join(fields, after, keep=after)
            continue
        if _is_fragment(fields):
            before = out[-1] if out else None
            sides = ("after", "before") if _introduces(fields) else ("before", "after")
            joined = False
            for side in sides:
                if side == "before" and _can_join(fields, before, max_tokens):
                    assert before is not None
                    out[-1] = _join(before, fields, keep=before)
                    joined = True
                elif side == "after" and _can_join(fields, after, max_tokens):
                    assert after is not None
                    pending[i + 1] = _join(fields, after, keep=after)
                    joined = True
                if joined:
                    break
            if joined:
                continue
        out.append(fields)
    return out
