"""Source code via tree-sitter: definitions, syntax helpers, the per-file code graph."""
