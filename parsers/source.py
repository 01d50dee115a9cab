"""The one input every parser takes: a file's bytes, read once, with its identity."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """Lines as editors, ``wc -l``, markdown-it and tree-sitter count them: LF, CRLF or lone CR.

    Not ``str.splitlines``, which also breaks at form feed, \\x1c-\\x1e, NEL, U+2028 and U+2029:
    cited line numbers drifted from the file's, and a JSONL record holding a raw U+2028 (valid JSON,
    written by ``json.dumps(..., ensure_ascii=False)``) was cut in two and lost. A final line break
    does not start another line (like splitlines)."""
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "" and len(lines) > 1:
        lines.pop()
    return lines if text else []


@dataclass(frozen=True)
class SourceFile:
    """A file read into memory once; ``rel_path`` (POSIX form) is its id within the source root."""

    path: Path
    rel_path: str
    data: bytes
    sha256: str

    @classmethod
    def read(cls, path: Path, rel_path: str | None = None, max_bytes: int | None = None) -> SourceFile:
        """Read ``path``; with ``max_bytes``, a bigger file raises SkipFile after reading at most
        ``max_bytes + 1`` bytes (a 10 GB file must not be loaded just to be refused)."""
        if max_bytes is None:
            data = Path(path).read_bytes()
        else:
            with open(path, "rb") as handle:
                data = handle.read(max_bytes + 1)
            if len(data) > max_bytes:
                from parsers.model import SkipFile

                size = Path(path).stat().st_size
                raise SkipFile(f"file too large ({max(size, len(data))} bytes > max_file_bytes={max_bytes})")
        return cls(
            path=Path(path),
            rel_path=rel_path if rel_path is not None else Path(path).name,
            data=data,
            sha256=hashlib.sha256(data).hexdigest(),
        )

    def text(self) -> tuple[str, str]:
        """Decoded text and the encoding used: UTF-8 (BOM stripped), else cp1252, else latin-1.

        Never raises: latin-1 decodes any byte string, and the caller records the fallback.
        """
        if b"\x00" in self.data[:8192]:
            from parsers.model import SkipFile

            raise SkipFile("binary file (NUL bytes in the first 8 KiB)")
        for encoding in ("utf-8-sig", "cp1252"):
            try:
                return self.data.decode(encoding), "utf-8" if encoding == "utf-8-sig" else encoding
            except UnicodeDecodeError:
                continue
        return self.data.decode("latin-1"), "latin-1"


def encoding_note(encoding: str) -> dict[str, str]:
    """What a document's metadata says of its file's encoding (``SourceFile.text``'s second
    value): nothing for UTF-8, else ``{"encoding": ...}`` (the fallback that was used)."""
    return {} if encoding == "utf-8" else {"encoding": encoding}
