"""docmill: search a hybrid (BM25 + FAISS) index built by `docmill ingest`.

    import docmill
    index = docmill.open_index("index/")
    for hit in index.search("how do I install on linux", k=5):
        print(hit.citation, hit.explain)

Importing docmill loads numpy and the standard library only; FAISS loads with the first vector
search, and the first query embedding loads ONNX Runtime + tokenizers where this machine has the
model's checked query path saved (indexers/query_encoder.py), else sentence-transformers. Parsers
(pdfplumber, tree-sitter, RapidOCR), Prefect and FastAPI are never imported by the query path.

    index = docmill.open_index("index/", follow=True)   # moves to each newly published build
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from indexers.build.version import DOCMILL_VERSION as __version__

__all__ = ["HybridIndex", "Hit", "Mode", "SearchResult", "__version__", "open_index"]

if TYPE_CHECKING:
    from docmill.api import open_index
    from docmill.hits import Hit, SearchResult
    from docmill.index import HybridIndex, Mode


def __getattr__(name: str) -> Any:
    # Lazy so that `import docmill` stays free of numpy until a search is opened.
    if name == "open_index":
        from docmill import api

        return api.open_index
    if name in ("HybridIndex", "Mode"):
        from docmill import index

        return getattr(index, name)
    if name in ("Hit", "SearchResult"):
        from docmill import hits

        return getattr(hits, name)
    raise AttributeError(f"module 'docmill' has no attribute {name!r}")
