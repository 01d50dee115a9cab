"""File -> ParsedDocument. Heavy parser libraries (pdfplumber, tree-sitter, RapidOCR) are imported
inside the parser that needs them, so importing this package stays cheap."""

from parsers.model import Block, ParsedDocument, SkipFile, Table
from parsers.source import SourceFile

__all__ = ["Block", "ParsedDocument", "SkipFile", "SourceFile", "Table"]
