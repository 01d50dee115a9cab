"""File suffix -> parser. Parser modules are imported on first use so that the query side never
pays for pdfplumber or tree-sitter."""

from __future__ import annotations

import importlib
from pathlib import Path

from parsers.model import ParsedDocument, SkipFile
from parsers.options import ParseOptions
from parsers.source import SourceFile

# suffix -> parser module under parsers/ (each exposes `parse(source, options) -> list[ParsedDocument]`)
_PARSERS: dict[str, str] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".pdf": "pdf",
    ".jsonl": "records",
    ".py": "code",
    ".pyi": "code",
    ".js": "code",
    ".mjs": "code",
    ".cjs": "code",
    ".jsx": "code",
    ".ts": "code",
    ".tsx": "code",
    ".go": "code",
    ".java": "code",
    ".rs": "code",
    ".c": "code",
    ".h": "code",
    ".cc": "code",
    ".cpp": "code",
    ".cxx": "code",
    ".hpp": "code",
    ".hh": "code",
    ".txt": "text",
    ".rst": "text",
}


def parser_name_for(path: str | Path) -> str | None:
    """The parser that handles ``path``, or None if docmill does not index that kind of file."""
    return _PARSERS.get(Path(path).suffix.lower())


def supported_suffixes() -> tuple[str, ...]:
    return tuple(sorted(_PARSERS))


def parse_source(source: SourceFile, options: ParseOptions | None = None) -> list[ParsedDocument]:
    """Parse one file. Raises SkipFile with a reason a user can act on; never returns a partial lie."""
    options = options or ParseOptions()
    name = parser_name_for(source.path)
    if name is None:
        raise SkipFile(f"unsupported file type {source.path.suffix or '(no suffix)'!r}")
    if len(source.data) == 0:
        raise SkipFile("empty file")
    if len(source.data) > options.max_file_bytes:
        raise SkipFile(f"file too large ({len(source.data)} bytes > max_file_bytes={options.max_file_bytes})")
    module = importlib.import_module(f"parsers.{name}")
    docs: list[ParsedDocument] = module.parse(source, options)
    return docs


def parse_path(path: str | Path, rel_path: str | None = None, options: ParseOptions | None = None) -> list[ParsedDocument]:
    return parse_source(SourceFile.read(Path(path), rel_path), options)
