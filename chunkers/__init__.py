"""ParsedDocument -> Chunks that carry their context."""

from chunkers.model import Chunk

__all__ = ["Chunk"]
