"""What the ingest stages hand each other, in a module of its own so the runner (flows.pipeline),
the incremental diff (flows.incremental) and the quality gate (flows.gate) all import it and none
imports another back: each file reads top-down."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from chunkers.document import chunk_document
from chunkers.model import Chunk
from flows.config import IngestConfig
from indexers.build.manifest import EMPTY, INDEXED, SKIPPED, DocumentRecord
from parsers.model import EMPTY_REASON, ParsedDocument


def is_empty_reason(reason: str | None) -> bool:
    """Whether a skip reason says the file had nothing to index (parsers.model.EMPTY_REASON): not
    a failure under --strict, and summarised once instead of listed file by file."""
    return reason == EMPTY_REASON or (reason or "").startswith(f"{EMPTY_REASON} (")


def is_empty(record: DocumentRecord) -> bool:
    """Whether ``record`` is a file with nothing to index: status "empty", or, in a manifest written
    before that status existed, "skipped" with an empty-file reason."""
    return record.status == EMPTY or (record.status == SKIPPED and is_empty_reason(record.reason))


def skipped_for_reason(records: Sequence[DocumentRecord]) -> list[tuple[str, str]]:
    """(path, reason) of the files left out for a reason: neither indexed nor empty (what --strict
    refuses and the summary counts as skipped)."""
    return [(r.path, r.reason or "") for r in records if r.status != INDEXED and not is_empty(r)]


def skip_status(reason: str) -> str:
    """The status of a file that yields no chunks for ``reason``: "empty" or "skipped"."""
    return EMPTY if is_empty_reason(reason) else SKIPPED


class IngestError(RuntimeError):
    """The ingest finished without publishing (nothing indexable, or strict mode saw skips)."""


@dataclass(frozen=True)
class SourceRef:
    """A file to ingest: its location and its stable id (root folder name + relative POSIX path)."""

    path: Path
    rel_path: str


@dataclass
class ParseOutcome:
    record: DocumentRecord
    documents: list[ParsedDocument] = field(default_factory=list)


def chunk_outcome(outcome: ParseOutcome, config: IngestConfig) -> list[Chunk]:
    """The chunks of a parsed file, recording their count (and a file with none as skipped)."""
    chunks = [c for doc in outcome.documents for c in chunk_document(doc, config.chunk)]
    outcome.record.chunks = len(chunks)
    if outcome.record.status == INDEXED and not chunks:
        outcome.record.status, outcome.record.reason = SKIPPED, "no indexable text"
    return chunks
