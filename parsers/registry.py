"""File suffix -> parser. Parser modules are imported on first use so that the query side never
pays for pdfplumber or tree-sitter."""

from __future__ import annotations

import importlib
from pathlib import Path

from parsers.model import ParsedDocument, SkipFile
from parsers.options import ParseOptions
from parsers.source import SourceFile

# parser name (recorded in the manifest) -> its module
_MODULES: dict[str, str] = {
    "markdown": "parsers.markdown",
    "pdf": "parsers.pdf.parser",
    "records": "parsers.jsonl",
    "code": "parsers.code.parser",
    "text": "parsers.text",
}

# parser name -> the version of its output. Bump a parser's version whenever the same bytes may now
# parse differently (text, blocks, tables, headings, metadata): an index re-parses the files of a
# parser whose version changed on its next ingest, unchanged files included, and reuses everything
# else (embeddings by content, so only changed chunk texts are embedded again). Without it a parser
# improvement reached a scheduled re-index job only for files that changed. tests/parsers/
# test_parser_versions.py pins what each version parses from the samples.
PARSER_VERSIONS: dict[str, int] = {
    "markdown": 1,
    # 2: a metadata title with no word in it is no title; a title in large type names a PDF.
    # 3: session 10's table classes (tight centred labels, side-by-side tables in line, spaced
    # titles, ruled word sub-columns, shaded record bands, a table beside justified prose)
    # 4: session 11's (link underlines imply no column line, booktabs rows between group rules,
    # side-by-side booktabs tables, group labels over a stub-including ruled column, a subscript
    # flush against small capitals joined)
    # 5: session 12's (row labels centred beside the group of rows they name, in ruled columns
    # over unruled rows and in unruled tables, sit in the group's first row, wrapped ones whole;
    # section label rows of unruled tables stay rows; a header row over empty ruled rows is a
    # table; the first line of an unruled table's first-row cell centred on two lines joins that
    # row; column rules stopping at full-width section rows inside a frame mark row boundaries)
    # 6: session 12's second round (charts boxed inside a partial grid's frame, beside the table,
    # are left out when its bands are read again for columns; a long title line in larger type on
    # a coloured band inset in the first ruled row is the table's title)
    # 7: session 13's (rows past the outermost row rule where column rules run on, figure columns
    # stacked in one ruled cell read again, captions cut at a gutter where size or baseline
    # changes, lines between gutter-cut lines cut too, header rows over a header rule kept by an
    # unruled frame, year labels no figures when a table's tail is trimmed)
    # 8: session 14's (a note or total line under an unruled table in a layout of its own is no
    # row, a block opening on its header takes no lines from farther up than a line gap, a lone
    # private-use glyph is a list marker, a caption below a table ends at its short last line,
    # column rules drawn long past a closed grid with nothing between close no empty row, a word
    # set flush against a word of a line joins that line)
    # 9: session 14's too (a running title over one side of the spreads is furniture:
    # parsers/pdf/text_layout.find_furniture)
    # 10: session 15's (a group rule covers a column by the middle of its body text, header words
    # off the group rules keep their line's column; a one-label line over a group rule is a header
    # line; a line of column numbers "(1) (2) (3)" over figures is a header line)
    # 11: session 16's (two tight header labels a word space apart, the next column unlabelled,
    # are two cells; a title with a note flush right is no header row; a line of keys over a line
    # of values is a table; two open-frame grids close together are cut at the empty band between
    # them; ZapfDingbats glyphs without a Unicode map are read by the font's standard encoding;
    # the line closing column rules is as wide as the table's rules over it; a continued table's
    # title row over its repeated header is dropped;
    # a partial grid read again for columns keeps its caption as the title of the table it stands
    # by, and the lines of four words or more its frame held besides, a note under the figures, as
    # prose)
    # 12: session 17's helper (a table in one text column keeps its rows in one lane when only
    # some are near prose in the other column; note lines under a table, opening with a smaller
    # marker, end it and join no row; a display formula beside its equation number is no table;
    # group labels in the white between their sub-columns of a text table span them)
    # 13: session 18's helper (twin three-line sub-tables side by side are two tables titled by
    # their sub-captions, two rows each enough; one-word column labels at even gaps are no title)
    # 14: session 18's second helper (a thin space between a figure and its currency or percent
    # sign kept; wrapped CJK lines of a cell joined without a space; a line of units in
    # parentheses joins its labels under open leading; a column of "label : value" lines beside
    # text blocks is a form's head, no table)
    # 15: session 19's helper (three-line tables stacked under one another with a heading or code
    # lines between them are cut apart at their rules; a first-column label wrapped over two
    # header lines beside sub-labels is one cell)
    # 16: session 19's second helper (a table's notes under its bottom rule, opening with a
    # notes label, are no rows; a three-line table of options set to values is no code listing)
    "pdf": 16,
    "records": 1,
    "code": 1,
    "text": 1,
}

# suffix -> parser name (each exposes `parse(source, options) -> list[ParsedDocument]`)
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


# Parsers that read the whole file as text; each line ends up in a block, so size and line limits
# apply before parsing. JSONL is not here: corpora are legitimately large and records.py applies
# max_line_bytes per record instead.
TEXT_LIKE = frozenset({"markdown", "text", "code"})


def longest_line_over(data: bytes, limit: int) -> tuple[int, int] | None:
    """(1-based line number, length in bytes) of the longest line if it is longer than ``limit``,
    else None. Lines end at LF, CR or CRLF (old Mac files use CR alone).

    Vectorised: a regex for "a run of more than ``limit`` non-newline bytes" restarts at every
    byte and was quadratic in the line length (40 s on a 4 MB Markdown list)."""
    if len(data) <= limit:
        return None
    import numpy as np  # a core dependency; imported here so the registry stays cheap to import

    array = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero((array == 0x0A) | (array == 0x0D))
    starts = np.concatenate(([0], ends + 1))
    lengths = np.concatenate((ends, [len(data)])) - starts
    longest = int(np.argmax(lengths))
    if int(lengths[longest]) <= limit:
        return None
    start = int(starts[longest])
    newlines = data.count(b"\n", 0, start)
    line = (newlines if newlines else data.count(b"\r", 0, start)) + 1
    return line, int(lengths[longest])


def count_lines(data: bytes) -> int:
    """Lines as an editor counts them (a final line without a newline counts)."""
    newlines = data.count(b"\n") or data.count(b"\r")
    return newlines + (0 if data.endswith((b"\n", b"\r")) else 1)


def check_text_limits(data: bytes, parser: str, options: ParseOptions) -> None:
    """Raise SkipFile when a text-like file is too big, has an over-long line (minified or generated
    output: one line would become one enormous chunk), or is code with too many lines."""
    if len(data) > options.max_text_bytes:
        raise SkipFile(f"text file too large ({len(data)} bytes > max_text_bytes={options.max_text_bytes})")
    long_line = longest_line_over(data, options.max_line_bytes)
    if long_line is not None:
        number, length = long_line
        raise SkipFile(
            f"line {number} is {length} bytes long (> max_line_bytes={options.max_line_bytes}): "
            "minified or generated file?"
        )
    if parser == "code":
        lines = count_lines(data)
        if lines > options.max_code_lines:
            raise SkipFile(
                f"code file has {lines} lines (> max_code_lines={options.max_code_lines}): generated file?"
            )


def parser_name_for(path: str | Path) -> str | None:
    """The parser that handles ``path``, or None if docmill does not index that kind of file."""
    return _PARSERS.get(Path(path).suffix.lower())


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
    if name in TEXT_LIKE:
        check_text_limits(source.data, name, options)
    module = importlib.import_module(_MODULES[name])
    docs: list[ParsedDocument] = module.parse(source, options)
    return docs


def parse_path(
    path: str | Path, rel_path: str | None = None, options: ParseOptions | None = None
) -> list[ParsedDocument]:
    return parse_source(SourceFile.read(Path(path), rel_path), options)
