"""The BM25 side: tokenizer, term counts, the segmented BM25 engine."""
