"""The build manifest: what was built, from what, with which settings, and the checksum of every
file. It is checked on load, not just written: a reader refuses a build whose schema, files or
sizes do not match."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from indexers.build import json_bytes
from indexers.build.files import MANIFEST

# 2: builds are segments (indexers/segments.py); a version-1 build is rebuilt in full.
SCHEMA_VERSION = 2


class ManifestError(RuntimeError):
    """The index folder is not a build this version of docmill can read, or it was altered."""


def file_sha256(path: Path, chunk_size: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk_size):
            digest.update(block)
    return digest.hexdigest()


INDEXED, EMPTY, SKIPPED = "indexed", "empty", "skipped"  # DocumentRecord.status


@dataclass
class DocumentRecord:
    """One source file: ``status`` is "indexed", "empty" (the file holds nothing to index: an empty
    ``__init__.py``, whitespace, front matter only; ``reason`` says which; not an error) or
    "skipped" (then ``reason`` says why). Builds before "empty" existed record those files as
    "skipped" with reason "empty file" (flows.outcomes.is_empty reads both)."""

    path: str
    sha256: str
    bytes: int
    parser: str | None
    status: str
    reason: str | None = None
    chunks: int = 0
    records: int = 0
    metadata: dict[str, Any] = field(default_factory=dict)


_RECORD_FIELDS = frozenset(f.name for f in fields(DocumentRecord))
_RECORD_REQUIRED = frozenset(
    f.name for f in fields(DocumentRecord) if f.default is MISSING and f.default_factory is MISSING
)


def _records(documents: list[dict[str, Any]]) -> list[DocumentRecord]:
    """``[DocumentRecord(**d) for d in documents]``, a record's fields set at once where it has
    every required field and no other (a manifest lists every file of the tree: tens of thousands
    of records at every open); any other row goes through ``__init__`` and its TypeError."""
    out = []
    new = object.__new__
    for row in documents:
        keys = row.keys() if isinstance(row, dict) else None
        if keys is None or not (_RECORD_REQUIRED <= keys <= _RECORD_FIELDS):
            out.append(DocumentRecord(**row))
            continue
        record = new(DocumentRecord)
        record.__dict__ = {"reason": None, "chunks": 0, "records": 0, "metadata": {}, **row}
        out.append(record)
    return out


@dataclass
class Manifest:
    docmill_version: str
    created_at: str
    build: str
    sources: list[str]
    embedding: dict[str, Any]
    tokenizer: dict[str, Any]
    bm25: dict[str, Any]
    chunker: dict[str, Any]
    counts: dict[str, int]
    documents: list[DocumentRecord]
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    # indexers.build.segments.SegmentInfo.to_json() of each segment, in row order.
    segments: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    schema_version: int = SCHEMA_VERSION

    @property
    def embedding_backend(self) -> str:
        """How the vectors were computed (indexers.dense.embedder.BACKENDS); builds made before the
        backend was recorded used torch."""
        return str(self.embedding.get("backend", "torch"))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Manifest:
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            raise ManifestError(
                f"index schema version {version!r} is not supported by this docmill "
                f"(expects {SCHEMA_VERSION}); rebuild the index with `docmill ingest`"
            )
        values = dict(data)
        values["documents"] = _records(values.get("documents", []))
        try:
            return cls(**values)
        except TypeError as exc:
            raise ManifestError(f"manifest has unexpected fields: {exc}") from exc

    def write(self, folder: Path) -> Path:
        path = folder / MANIFEST
        tmp = path.with_suffix(".tmp")
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(self.to_json(), handle, ensure_ascii=False, indent=1)
            handle.flush()
        tmp.replace(path)
        return path

    @classmethod
    def read(cls, folder: Path) -> Manifest:
        path = folder / MANIFEST
        if not path.is_file():
            raise ManifestError(f"no {MANIFEST} in {folder}: not a docmill build")
        raw = path.read_bytes()
        try:
            data = json_bytes.loads(raw)  # several MB for a large tree's documents: read at every open
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ManifestError(f"{path} is not valid JSON: {exc}") from exc
        return cls.from_json(data)

    def record_files(
        self, folder: Path, names: list[str], carried: Mapping[str, Mapping[str, Any]] | None = None
    ) -> None:
        """Size and checksum of each build file (paths relative to the build folder). A name in
        ``carried`` (a file hard-linked or copied from an earlier build) keeps the entry recorded
        there, after a size check, instead of being hashed again."""
        carried = carried or {}
        self.files = {}
        for name in names:
            size = (folder / name).stat().st_size
            known = carried.get(name)
            if known is not None and known.get("bytes") != size:
                raise ManifestError(
                    f"{folder / name}: {size} bytes, the build it came from says {known['bytes']}"
                )
            sha = str(known["sha256"]) if known is not None else file_sha256(folder / name)
            self.files[name] = {"bytes": size, "sha256": sha}

    def verify_files(self, folder: Path, checksums: bool = False) -> None:
        """Raise ManifestError if a listed file is missing, has another size, or (``checksums``)
        another SHA-256. Sizes are cheap and always checked; checksums read every byte."""
        problems = []
        for name, expected in sorted(self.files.items()):
            path = folder / name
            if not path.is_file():
                problems.append(f"{name}: missing")
                continue
            size = path.stat().st_size
            if size != expected["bytes"]:
                problems.append(f"{name}: {size} bytes, manifest says {expected['bytes']}")
            elif checksums and file_sha256(path) != expected["sha256"]:
                problems.append(f"{name}: checksum mismatch")
        if problems:
            raise ManifestError(f"index build {folder} does not match its manifest: " + "; ".join(problems))
