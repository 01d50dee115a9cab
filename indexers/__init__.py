"""Chunks -> index files on disk, and back. Nothing here imports sentence-transformers at import
time; the embedder loads it on first use."""
