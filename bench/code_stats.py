"""Chunk statistics for real source trees and a structure check for Markdown files (issue 4).

    python bench/code_stats.py --tree NAME=PATH[@SUFFIX] ... [--markdown DIR] [--json]

Each ``--tree`` is parsed and chunked exactly as an ingest would (``parsers.registry.parse_path``
then ``chunkers.document.chunk_document``); only files the code parser handles are counted.
``@SUFFIX`` parses every file as if it had that suffix (e.g. ``@.hpp`` for C++ headers named
``.h``, which docmill otherwise reads with the C grammar). ``--markdown DIR`` parses every ``.md``
file there and prints, per file, which constructs the source has and what our blocks kept of
them (a heuristic inventory to read next to the blocks, not a score).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from chunkers.document import chunk_document
from chunkers.sizing import ChunkOptions, count_tokens
from parsers.model import ParsedDocument, SkipFile
from parsers.registry import parse_path, parser_name_for

MAX_TOKENS = ChunkOptions().max_tokens


@dataclass
class TreeStats:
    tree: str
    languages: Counter = field(default_factory=Counter)
    files: int = 0
    skipped: Counter = field(default_factory=Counter)  # reason (numbers removed) -> files
    chunks: int = 0
    code_chunks: int = 0
    with_symbol: int = 0
    split_parts: int = 0  # chunks that are one part of a definition split for size
    over_limit: int = 0  # code chunks whose shown text exceeds ChunkOptions().max_tokens
    largest_tokens: int = 0
    largest_where: str = ""
    files_with_errors: int = 0
    syntax_errors: int = 0
    seconds: float = 0.0

    def row(self) -> dict:
        out = asdict(self)
        out["languages"] = dict(self.languages)
        out["skipped"] = dict(self.skipped)
        out["chunks_per_file"] = round(self.chunks / self.files, 1) if self.files else 0.0
        out["symbol_share"] = round(self.with_symbol / self.code_chunks, 3) if self.code_chunks else 0.0
        out["seconds"] = round(self.seconds, 2)
        return out


def code_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and parser_name_for(p) == "code")


def measure_tree(name: str, root: Path, as_suffix: str | None = None) -> TreeStats:
    """Parse and chunk every code file under ``root``; timing covers parse + chunk only."""
    stats = TreeStats(name)
    for path in code_files(root):
        rel = path.relative_to(root).as_posix()
        if as_suffix:
            rel = str(Path(rel).with_suffix(as_suffix))
        start = time.perf_counter()
        try:
            docs = parse_path(path, rel)
        except SkipFile as exc:
            stats.seconds += time.perf_counter() - start
            stats.skipped[re.sub(r"\d+", "N", str(exc))] += 1
            continue
        chunks = [c for doc in docs for c in chunk_document(doc)]
        stats.seconds += time.perf_counter() - start
        stats.files += 1
        for doc in docs:
            stats.languages[doc.metadata.get("language", "?")] += 1
            errors = int(doc.metadata.get("syntax_errors", 0))
            stats.syntax_errors += errors
            stats.files_with_errors += errors > 0
        for chunk in chunks:
            stats.chunks += 1
            if chunk.kind != "code":
                continue
            stats.code_chunks += 1
            stats.with_symbol += chunk.symbol is not None
            stats.split_parts += "part" in chunk.metadata
            tokens = count_tokens(chunk.text)
            stats.over_limit += tokens > MAX_TOKENS
            if tokens > stats.largest_tokens:
                stats.largest_tokens = tokens
                stats.largest_where = f"{rel}:{chunk.lines[0] if chunk.lines else '?'} {chunk.symbol or ''}"
    return stats


# ---- Markdown: what the source has vs what our blocks kept -----------------------------------

# Source-side constructs, found with deliberately simple patterns (read the blocks to confirm).
_CONSTRUCTS = {
    "pipe_table_rows": re.compile(r"^\s*\|.*\|\s*$", re.M),
    "fenced_code": re.compile(r"^\s*(```|~~~)", re.M),
    "nested_list_items": re.compile(r"^(?: {2,}|\t+)(?:[-*+]|\d+[.)])\s", re.M),
    "html_tags": re.compile(r"<(?!!--)/?[A-Za-z][^>]*>"),
    "html_comments": re.compile(r"<!--"),
    "entities": re.compile(r"&(?:#\d+|#x[0-9a-fA-F]+|[A-Za-z]+);"),
    "backslash_escapes": re.compile(r"\\[\\`*_{}\[\]()#+\-.!|<>]"),
    "emphasis": re.compile(r"(?<![\w*])(\*{1,3}|_{1,3})(?=\S)(.+?)(?<=\S)\1"),
    "links": re.compile(r"(?<!!)\[[^\]]+\]\([^)]+\)"),
    "images": re.compile(r"!\[[^\]]*\]\([^)]+\)"),
    "footnotes": re.compile(r"\[\^[^\]]+\]"),
    "math": re.compile(r"\$\$|\\\(|\\\["),
}


def source_constructs(text: str) -> dict[str, int]:
    counts = {name: len(pattern.findall(text)) for name, pattern in _CONSTRUCTS.items()}
    return {name: n for name, n in counts.items() if n}


def block_summary(doc: ParsedDocument) -> dict:
    kinds = Counter(b.kind for b in doc.blocks)
    joined = "\n".join(b.text for b in doc.blocks)
    return {
        "blocks": dict(kinds),
        "table_blocks": [len(b.table.rows) for b in doc.blocks if b.table is not None],
        "code_blocks": [b.language for b in doc.blocks if b.kind == "code"],
        "max_heading_depth": max((len(b.heading_path) for b in doc.blocks), default=0),
        # markup that survives into text we index: entity text, leftover tags, markers
        "leftover_entities": len(_CONSTRUCTS["entities"].findall(joined)),
        "leftover_tags": len(_CONSTRUCTS["html_tags"].findall(joined)),
    }


def measure_markdown(folder: Path) -> list[dict]:
    rows: list[dict[str, Any]] = []
    for path in sorted(folder.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        start = time.perf_counter()
        try:
            docs = parse_path(path, path.name)
        except SkipFile as exc:
            rows.append({"file": path.name, "skipped": str(exc)})
            continue
        chunks = [c for doc in docs for c in chunk_document(doc)]
        seconds = time.perf_counter() - start
        doc = docs[0]
        summary = block_summary(doc)
        rows.append(
            {
                "file": path.name,
                "title": doc.title,
                "source": source_constructs(text),
                **summary,
                "chunks": len(chunks),
                "seconds": round(seconds, 4),
            }
        )
    return rows


# ---- output -------------------------------------------------------------------------------------


def print_tree_table(rows: list[dict]) -> None:
    head = (
        "| tree | language(s) | files | skipped | chunks/file | code chunks with symbol | split parts "
        "| code chunks > max_tokens | largest chunk (est. tokens) | files with syntax errors "
        "| parse+chunk s |"
    )
    print(head)
    print("|" + "---|" * head.count(" | ") + "---|")
    for r in rows:
        langs = ", ".join(f"{k} {v}" for k, v in sorted(r["languages"].items()))
        skipped = sum(r["skipped"].values())
        print(
            f"| {r['tree']} | {langs} | {r['files']} | {skipped} | {r['chunks_per_file']} "
            f"| {r['symbol_share']:.0%} ({r['with_symbol']}/{r['code_chunks']}) | {r['split_parts']} "
            f"| {r['over_limit']} | {r['largest_tokens']} (`{r['largest_where'].strip()}`) "
            f"| {r['files_with_errors']} ({r['syntax_errors']} errors) | {r['seconds']:.1f} |"
        )
    for r in rows:
        for reason, n in r["skipped"].items():
            print(f"- {r['tree']}: skipped {n}: {reason}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", default=[], help="NAME=PATH[@SUFFIX]")
    ap.add_argument("--markdown", type=Path, help="folder of .md files to inventory")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    tree_rows = []
    for spec in args.tree:
        name, _, rest = spec.partition("=")
        path, _, suffix = rest.partition("@")
        if not name or not path:
            ap.error(f"--tree wants NAME=PATH[@SUFFIX], got {spec!r}")
        root = Path(path).expanduser()
        if not root.is_dir():
            print(f"skipping tree {name!r}: {root} is not a folder", file=sys.stderr)
            continue
        tree_rows.append(measure_tree(name, root, suffix or None).row())
    md_rows = measure_markdown(args.markdown) if args.markdown else []
    if args.json:
        print(json.dumps({"trees": tree_rows, "markdown": md_rows}, indent=1, ensure_ascii=False))
        return 0
    if tree_rows:
        print_tree_table(tree_rows)
    for row in md_rows:
        print(json.dumps(row, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
