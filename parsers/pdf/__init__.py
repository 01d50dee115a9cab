"""PDF: pages -> text blocks, headings, tables, OCR."""
