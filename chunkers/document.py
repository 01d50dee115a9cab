"""ParsedDocument -> Chunks: block kinds to chunkers, context prefixes, stable ids."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby

from chunkers.code import split_code
from chunkers.fragments import merge_fragments
from chunkers.model import Chunk, chunk_id
from chunkers.prose import Piece, chunk_prose
from chunkers.sizing import ChunkOptions
from chunkers.tables import chunk_table
from parsers.model import Block, ParsedDocument

PROSE_KINDS = frozenset({"heading", "paragraph", "list", "text", "quote"})


def _group_key(block: Block) -> str:
    return "prose" if block.kind in PROSE_KINDS else block.kind


def context_path(doc: ParsedDocument, heading_path: tuple[str, ...]) -> tuple[str, ...]:
    """Title + heading path, without repeating a title that is already the first heading."""
    if doc.title and (not heading_path or heading_path[0] != doc.title):
        return (doc.title, *heading_path)
    return heading_path


def _prose_index_text(doc: ParsedDocument, piece: Piece) -> str:
    context = context_path(doc, piece.heading_path)
    return f"{' > '.join(context)}\n{piece.text}" if context else piece.text


def _code_chunks(doc: ParsedDocument, block: Block, options: ChunkOptions) -> Iterator[dict]:
    """Code from a code parser (symbol blocks) or a fenced block in prose (heading path)."""
    header: list[str] = [doc.path]
    if block.heading_path:
        header.append(" > ".join(context_path(doc, block.heading_path)))
    header.extend(block.context)
    for piece in split_code(block, options.max_tokens):
        prefix = list(header)
        if piece.part > 0 and block.signature:
            prefix.append(block.signature)
        metadata: dict = {}
        if piece.parts > 1:
            metadata = {"part": piece.part + 1, "parts": piece.parts}
        if block.signature:
            metadata["signature"] = block.signature
        yield {
            "kind": "code",
            "text": piece.text,
            "index_text": "\n".join([*prefix, piece.text]),
            "heading_path": block.heading_path,
            "pages": (block.page, block.page) if block.page is not None else None,
            "lines": piece.lines,
            "symbol": block.symbol,
            "language": block.language,
            "metadata": metadata,
        }


def _piece_fields(doc: ParsedDocument, piece: Piece, kind: str) -> dict:
    return {
        "kind": kind,
        "text": piece.text,
        "index_text": _prose_index_text(doc, piece),
        "heading_path": piece.heading_path,
        "pages": piece.pages,
        "lines": piece.lines,
    }


def _fields(doc: ParsedDocument, blocks: list[Block], kind: str, options: ChunkOptions) -> Iterator[dict]:
    if kind == "prose":
        for piece in chunk_prose(blocks, options.max_tokens):
            yield _piece_fields(doc, piece, "text")
    elif kind == "table":
        for block in blocks:
            for piece in chunk_table(block, options.max_tokens):
                yield _piece_fields(doc, piece, "table")
    else:  # code
        for block in blocks:
            yield from _code_chunks(doc, block, options)


def chunk_document(doc: ParsedDocument, options: ChunkOptions | None = None) -> list[Chunk]:
    """Chunks in document order, tiny prose fragments joined to a neighbour (chunkers.fragments);
    ids depend only on the document id, position and text."""
    options = options or ChunkOptions()
    found = [
        fields
        for kind, run in groupby(doc.blocks, key=_group_key)
        for fields in _fields(doc, list(run), kind, options)
        if fields["text"].strip()
    ]
    chunks: list[Chunk] = []
    for ordinal, fields in enumerate(merge_fragments(found, options.max_tokens)):
        metadata = {**doc.metadata, **fields.pop("metadata", {})}
        chunks.append(
            Chunk(
                id=chunk_id(doc.doc_id, ordinal, fields["text"]),
                doc_id=doc.doc_id,
                path=doc.path,
                metadata=metadata,
                **fields,
            )
        )
    return chunks
