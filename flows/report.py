"""What an ingest run did (IngestReport), as `docmill ingest` prints it and the Prefect flow returns it."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flows import incremental
from flows.ignorefiles import Ignored
from flows.outcomes import is_empty, skipped_for_reason
from indexers.build.manifest import DocumentRecord


@dataclass
class IngestReport:
    """What a run did. ``added``/``changed``/``removed``/``unchanged`` compare the source tree with
    the previous build by content hash; ``parsed`` files were parsed and ``embedded`` chunks went
    through the model this run (the rest came from the previous build). ``published`` is False when
    nothing changed (``build`` is then the build that stays current)."""

    build: str | None
    index: str
    documents: int
    indexed: int
    skipped: int
    chunks: int
    seconds: float
    skipped_files: list[tuple[str, str]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    added: int = 0
    changed: int = 0
    removed: int = 0
    unchanged: int = 0
    parsed: int = 0
    embedded: int = 0
    published: bool = True
    previous_build: str | None = None
    gate: dict[str, Any] | None = None
    # files with nothing to index (status "empty": whitespace, an empty __init__.py; not a failure
    # under --strict), apart from ``skipped`` / ``skipped_files``, which hold the files left out for a reason
    empty: int = 0
    empty_files: list[str] = field(default_factory=list)
    # left out by .gitignore / .docmillignore (not in ``documents``, not an error)
    ignored: Ignored = field(default_factory=Ignored)
    # unchanged files parsed again because their parser's output version moved: parser -> files
    reparsed: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        """One line; empty files (status "empty" in the manifest, not an error, not a failure under
        --strict) are counted as "indexed empty", apart from the files that were skipped for a
        reason (a parse error, no indexable text)."""
        action = "published" if self.published else "nothing changed, kept"
        empty = f"{self.empty} indexed empty, " if self.empty else ""
        return (
            (
                f"{self.indexed} indexed, {empty}{self.skipped} skipped of {self.documents} files "
                f"({self.added} added, "
                f"{self.changed} changed, {self.removed} removed, {self.unchanged} unchanged); "
                f"{self.chunks} chunks ({self.embedded} passages embedded); {self.seconds:.1f} s; "
                f"{action} build {self.build}"
            )
            + (f"; {self.ignored.describe()}" if self.ignored else "")
            + self._reparsed()
        )

    def _reparsed(self) -> str:
        """Why unchanged files were parsed: a parser's new output version (a docmill upgrade)."""
        if not self.reparsed:
            return ""
        parts = ", ".join(f"{n} {name}" for name, n in sorted(self.reparsed.items()))
        return f"; parsed again for a new parser version: {parts} unchanged files"

    def to_json(self) -> dict[str, Any]:
        """The `docmill ingest --json` shape (issue 6); the flow returns the same dict."""
        return {
            "added": self.added,
            "changed": self.changed,
            "removed": self.removed,
            "unchanged": self.unchanged,
            "skipped": self.skipped,
            "empty": self.empty,
            "chunks": self.chunks,
            "seconds": round(self.seconds, 3),
            "build": self.build,
            "reparsed": dict(self.reparsed),
        }


def make_report(
    build: str,
    index: str | Path,
    records: Sequence[DocumentRecord],
    chunks: int,
    seconds: float,
    timings: dict[str, float],
) -> IngestReport:
    empty = [r.path for r in records if is_empty(r)]
    skipped = skipped_for_reason(records)
    return IngestReport(
        build=build,
        index=str(index),
        documents=len(records),
        indexed=len(records) - len(skipped) - len(empty),
        skipped=len(skipped),
        chunks=chunks,
        seconds=seconds,
        skipped_files=skipped,
        timings=timings,
        empty=len(empty),
        empty_files=empty,
    )


def with_plan(
    report: IngestReport, the_plan: incremental.Plan, embedded: int, started: float, published: bool
) -> IngestReport:
    return dataclasses.replace(
        report,
        added=len(the_plan.added),
        changed=len(the_plan.changed),
        removed=len(the_plan.removed),
        unchanged=len(the_plan.unchanged),
        parsed=len(the_plan.to_parse) if published else 0,
        embedded=embedded,
        published=published,
        previous_build=the_plan.previous,
        ignored=the_plan.ignored,
        reparsed=dict(the_plan.reparsed) if published else {},
        seconds=time.perf_counter() - started,
    )


def noop_report(
    the_plan: incremental.Plan,
    previous: incremental.PreviousBuild | None,
    index: str | Path,
    started: float,
    timings: dict[str, float],
) -> IngestReport:
    assert previous is not None
    records = [the_plan.reuse[r.rel_path] for r in the_plan.refs]
    report = make_report(previous.name, index, records, previous.manifest.counts["chunks"], 0.0, timings)
    return with_plan(report, the_plan, 0, started, published=False)
