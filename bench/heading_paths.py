"""PDF heading paths against the document's own structure (issue 15, part 4).

    PYTHONPATH=. .venv/bin/python bench/heading_paths.py --outlined A.pdf B.pdf ...
    PYTHONPATH=. .venv/bin/python bench/heading_paths.py --reference X.pdf X.md
    PYTHONPATH=. .venv/bin/python bench/heading_paths.py --coverage A.pdf B.pdf ...

``--outlined``: share of chunks whose heading path equals the outline's path to their innermost
heading (outline entries never printed in the text left out; a chunk before the first heading
matches with an empty path). ``--reference``: for a PDF without an outline and a reference
Markdown with its headings (docling's ground truth), share of chunks (found in the reference by
their first 40 letters) whose innermost heading is the reference heading above them and whose
numbered headings are the reference's numbered ancestors of it ("1" > "1.1"). ``--coverage``:
share of chunks with a non-empty heading path, per file and pooled, and the headings found (how
much of a document a heading path reaches, not whether it is right).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pypdfium2 as pdfium

from chunkers.document import chunk_document
from parsers.model import ParsedDocument
from parsers.options import ParseOptions
from parsers.pdf import parser as pdf
from parsers.source import SourceFile

_NUM = re.compile(r"^(?:chapter\s+)?(\d{1,2}(?:\.\d{1,3})*)\.?\s", re.I)


def key(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def number(heading: str) -> tuple[str, ...] | None:
    m = _NUM.match(heading + " ")
    return tuple(m.group(1).split(".")) if m else None


def parse(path: Path) -> ParsedDocument:
    (doc,) = pdf.parse(SourceFile.read(path, path.name), ParseOptions(ocr=False))
    return doc


def outline_paths(path: Path) -> dict[str, tuple[str, ...]]:
    doc = pdfium.PdfDocument(path.read_bytes())
    paths: dict[str, tuple[str, ...]] = {}
    stack: list[tuple[int, str]] = []
    for bookmark in doc.get_toc():
        while stack and stack[-1][0] >= bookmark.level:
            stack.pop()
        stack.append((bookmark.level, " ".join((bookmark.get_title() or "").split())))
        paths.setdefault(key(stack[-1][1]), tuple(key(t) for _, t in stack))
    doc.close()
    return paths


def outlined(files: list[Path]) -> None:
    total = good_total = 0
    for path in files:
        paths = outline_paths(path)
        doc = parse(path)
        printed = {key(b.text) for b in doc.blocks if b.kind == "heading"}
        paths = {k: tuple(a for a in v if a in printed or a == k) for k, v in paths.items()}
        chunks = chunk_document(doc)
        good, started = 0, False
        for chunk in chunks:
            hp = tuple(key(h) for h in chunk.heading_path)
            started = started or bool(hp)
            good += (not hp and not started) or (bool(hp) and paths.get(hp[-1]) == hp)
        print(f"{path.name}: {good}/{len(chunks)}")
        total, good_total = total + len(chunks), good_total + good
    print(f"pooled: {good_total}/{total} = {good_total / max(total, 1):.3f}")


def reference(pdf_path: Path, md_path: Path) -> None:
    heads: list[tuple[int, str]] = []
    stream = ""
    for line in md_path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            heads.append((len(stream), line.lstrip("#").strip().replace("\\_", "_")))
        stream += key(line)
    numbers = {number(h) for _, h in heads} - {None}
    chunks = chunk_document(parse(pdf_path))
    located = good = 0
    for chunk in chunks:
        start = key(chunk.text)[:40]
        pos = stream.find(start) if len(start) >= 15 else -1
        above = [h for p, h in heads if p <= pos]
        if pos < 0 or not above or not chunk.heading_path:
            located += pos >= 0
            continue
        located += 1
        ref, inner = key(above[-1]), key(chunk.heading_path[-1])
        ref_number = number(above[-1])
        want = (
            [ref_number[:i] for i in range(1, len(ref_number)) if ref_number[:i] in numbers] + [ref_number]
            if ref_number
            else None
        )
        have = [n for n in map(number, chunk.heading_path) if n]
        good += (ref in inner or inner in ref) and (want is None or have == want)
    print(
        f"{pdf_path.name}: {len(chunks)} chunks, {located} found in the reference; heading path matches "
        f"{good}/{located} = {good / max(located, 1):.3f}"
    )


def coverage(files: list[Path]) -> None:
    total = with_path = 0
    for path in files:
        doc = parse(path)
        chunks = chunk_document(doc)
        n = sum(1 for c in chunks if c.heading_path)
        heads = sum(1 for b in doc.blocks if b.kind == "heading")
        print(f"{path.name}: {n}/{len(chunks)} chunks with a heading path, {heads} headings")
        total, with_path = total + len(chunks), with_path + n
    print(f"pooled: {with_path}/{total} = {with_path / max(total, 1):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--outlined", nargs="+", type=Path, help="PDFs with an outline")
    group.add_argument("--reference", nargs=2, type=Path, metavar=("PDF", "MARKDOWN"))
    group.add_argument("--coverage", nargs="+", type=Path, help="any PDFs")
    args = parser.parse_args()
    if args.outlined:
        outlined(args.outlined)
    elif args.coverage:
        coverage(args.coverage)
    else:
        reference(*args.reference)


if __name__ == "__main__":
    main()
