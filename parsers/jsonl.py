"""JSONL corpora (BEIR-style ``{"_id", "title", "text", ...}`` per line): one document per record.

A bad line costs only that record: its line number is kept in the first document's metadata
(``bad_lines``), and the file is skipped only when no line holds a valid record.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from typing import Any

from parsers.model import Block, ParsedDocument, SkipFile
from parsers.options import ParseOptions
from parsers.source import SourceFile, encoding_note, split_lines

logger = logging.getLogger(__name__)

_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n")
_SCALARS = (str, int, float, bool, type(None))
_RECORD_KEYS = ("_id", "title", "text", "metadata")


class BadRecord(ValueError):
    """A JSONL line that is not a usable record; the message says why."""


def record_fields(record: Any) -> tuple[str, str | None, str, dict[str, Any]]:
    """(doc_id, title, text, metadata) of one decoded record, or BadRecord.

    Metadata is the record's ``metadata`` object plus its other scalar fields; nested values
    outside ``metadata`` are dropped because filters only compare scalars.
    """
    if not isinstance(record, dict):
        raise BadRecord(f"not a JSON object ({type(record).__name__})")
    doc_id, text, title = record.get("_id"), record.get("text"), record.get("title")
    if doc_id is None or isinstance(doc_id, dict | list) or str(doc_id) == "":
        raise BadRecord("missing or empty _id")
    if not isinstance(text, str):
        raise BadRecord("missing text" if text is None else f"text is a {type(text).__name__}, not a string")
    if not text.strip():
        raise BadRecord("empty text")
    extra = record.get("metadata")
    metadata: dict[str, Any] = dict(extra) if isinstance(extra, dict) else {}
    metadata.update((k, v) for k, v in record.items() if k not in _RECORD_KEYS and isinstance(v, _SCALARS))
    title_text = str(title).strip() if title is not None else ""
    return str(doc_id), title_text or None, text, metadata


def load_line(line: str, max_bytes: int) -> Any:
    """One decoded JSONL line. Over-long or too deeply nested lines are BadRecord: they cost that
    record, not the file (json.loads raises RecursionError on ~100k nested arrays)."""
    if len(line) > max_bytes:  # characters <= bytes, so this never rejects a line within the limit
        raise BadRecord(f"line longer than max_line_bytes={max_bytes} ({len(line)} characters)")
    try:
        return json.loads(line)
    except RecursionError:
        raise BadRecord("JSON nested too deeply") from None


def text_blocks(text: str, line: int) -> tuple[Block, ...]:
    """Paragraph blocks of a record's text; ``lines`` points at the record's line in the file."""
    paragraphs = (p.strip() for p in _PARAGRAPH_BREAK.split(text.replace("\r\n", "\n")))
    return tuple(Block(kind="paragraph", text=p, lines=(line, line)) for p in paragraphs if p)


def parse(source: SourceFile, options: ParseOptions) -> list[ParsedDocument]:
    content, encoding = source.text()
    docs: list[ParsedDocument] = []
    bad: list[tuple[int, str]] = []
    first_line: dict[str, int] = {}
    for number, line in enumerate(split_lines(content), start=1):
        if not line.strip():
            continue
        try:
            doc_id, title, text, metadata = record_fields(load_line(line, options.max_line_bytes))
            if doc_id in first_line:
                raise BadRecord(f"duplicate _id {doc_id!r} (first on line {first_line[doc_id]})")
        except (json.JSONDecodeError, BadRecord) as exc:
            bad.append((number, str(exc)))
            continue
        first_line[doc_id] = number
        metadata.update(encoding_note(encoding))
        docs.append(
            ParsedDocument(
                doc_id=doc_id,
                path=source.rel_path,
                parser="records",
                sha256=source.sha256,
                blocks=text_blocks(text, number),
                title=title,
                metadata=metadata,
            )
        )
    if not docs:
        if not bad:
            raise SkipFile("no records (file has only blank lines)")
        raise SkipFile(f"no valid records: line {bad[0][0]}: {bad[0][1]}")
    if bad:
        logger.warning(
            "%s: skipped %d bad JSONL line(s); first: line %d: %s", source.rel_path, len(bad), *bad[0]
        )
        bad_lines = [number for number, _ in bad]
        docs[0] = dataclasses.replace(docs[0], metadata={**docs[0].metadata, "bad_lines": bad_lines})
    return docs
