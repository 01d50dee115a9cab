"""One build folder opened for queries: its manifest read, its files checked (sizes; SHA-256 on
request) and its model checked (``check_model``) before a HybridIndex is made over the opened
files (indexers.build.open). Callers: ``open_index`` (docmill.api), LiveIndex (docmill.live) and
a shard's searcher (docmill.shard_host)."""

from __future__ import annotations

from pathlib import Path

from docmill.index import HybridIndex
from indexers.build.manifest import Manifest, ManifestError
from indexers.build.open import open_build as open_files
from indexers.dense.embedder import Embedder, ModelUnavailable, model_available
from indexers.dense.remote import is_remote


def open_build(
    root: Path, build: Path, embedder: Embedder | None = None, verify_checksums: bool = False
) -> HybridIndex:
    """Open one build folder of ``root`` after checking its manifest, files and model (see
    open_index); the files are opened by indexers.build.open."""
    manifest = Manifest.read(build)
    manifest.verify_files(build, checksums=verify_checksums)
    check_model(root, manifest, embedder)
    return HybridIndex(root, build, manifest, embedder, files=open_files(build, manifest))


def check_model(root: Path, manifest: Manifest, embedder: Embedder | None) -> None:
    """Refuse a build whose model is not available here, or not the ``embedder`` given."""
    model = manifest.embedding.get("model")
    local = not is_remote(manifest.embedding_backend)  # an endpoint is asked at the first query
    if embedder is None and local and (not model or not model_available(model)):
        raise ModelUnavailable(f"index {root} was embedded with model {model!r}, which is not available here")
    backend = manifest.embedding_backend
    given = (embedder.model_name, getattr(embedder, "backend", "torch")) if embedder is not None else None
    if given is not None and given != (model, backend):
        message = "index {} was embedded with {!r} ({}), not {!r} ({})"
        raise ManifestError(message.format(root, model, backend, *given))
