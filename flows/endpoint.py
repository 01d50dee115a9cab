"""Ingest through an embedding endpoint (indexers.dense.remote): checks before a run parses
anything, and a journal that makes the embed stage resumable.

Vectors an endpoint returns are written to ``INDEX/embedding-journal/<id>/`` every
``JOURNAL_EVERY`` texts, keyed like a build's ``embedding_keys.npy`` (flows.embeddings.embedding_key).
A run that fails half way (endpoint down, 401, Ctrl-C) publishes nothing, but the next run takes
those vectors from the journal and asks the endpoint only for the rest; a published build clears
it. A journal made by another model (its probe vector differs) is discarded.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from flows.config import IngestConfig
from flows.embeddings import EmbeddingWork
from flows.incremental import PreviousBuild
from indexers.build.files import EMBEDDING_JOURNAL
from indexers.build.passage_vectors import KEY_DTYPE
from indexers.dense.remote import RemoteEmbedder, is_remote, manifest_fields

log = logging.getLogger(__name__)

JOURNAL_EVERY = 256  # texts embedded between two journal writes
_FINGERPRINT = "fingerprint.npy"


class EmbeddingJournal:
    """Vectors fetched for one embedding id during runs that have not published yet."""

    def __init__(self, root: Path, embedding_id: str, fingerprint: np.ndarray) -> None:
        name = hashlib.sha256(embedding_id.encode()).hexdigest()[:16]
        self.folder = Path(root) / EMBEDDING_JOURNAL / name
        self.fingerprint = np.asarray(fingerprint, dtype=np.float32)

    def load(self) -> dict[bytes, np.ndarray]:
        """Every journaled vector by key; {} (and the journal removed) if another model made it."""
        marker = self.folder / _FINGERPRINT
        if not marker.is_file():
            return {}
        stored = np.load(marker, allow_pickle=False)
        if stored.shape != self.fingerprint.shape or float(stored @ self.fingerprint) < 0.99:
            log.warning("discarding %s: made by a model that answers differently now", self.folder)
            shutil.rmtree(self.folder, ignore_errors=True)
            return {}
        found: dict[bytes, np.ndarray] = {}
        for part in sorted(self.folder.glob("*.npz")):
            try:
                with np.load(part, allow_pickle=False) as data:
                    found.update(zip((bytes(k) for k in data["keys"]), data["vectors"], strict=True))
            except (OSError, ValueError, KeyError) as exc:  # a torn write: ask again for those
                log.warning("ignoring unreadable journal part %s: %s", part, exc)
        return found

    def append(self, keys: Sequence[bytes], vectors: np.ndarray) -> None:
        """One part file, written to a temporary name and renamed (a crash leaves no torn part)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        marker = self.folder / _FINGERPRINT
        if not marker.is_file():
            np.save(marker, self.fingerprint, allow_pickle=False)
        part = self.folder / f"{len(list(self.folder.glob('*.npz'))):06d}.npz"
        tmp = part.with_suffix(".tmp")
        with open(tmp, "wb") as handle:
            np.savez(handle, keys=np.asarray(list(keys), dtype=KEY_DTYPE), vectors=vectors.astype(np.float32))
        os.replace(tmp, part)


def clear_journal(root: str | Path) -> None:
    """After a publish: every journaled vector is in the published build (or no longer needed)."""
    shutil.rmtree(Path(root) / EMBEDDING_JOURNAL, ignore_errors=True)


def same_endpoint(embedding: Mapping[str, Any], config: IngestConfig) -> bool:
    """Whether a build's vectors came from the endpoint, model and input type ``config`` names (a
    local backend's build has no URL and matches a local config)."""
    return embedding.get("url") == config.embedding_url and bool(embedding.get("input_type", False)) == bool(
        config.embedding_input_type
    )


def checked_embedder(
    previous: PreviousBuild | None, config: IngestConfig, embedder: Any, full_rebuild: bool
) -> Any:
    """For an endpoint config: the embedder to use, checked before anything is parsed. It must
    answer (unreachable, 401 ... raise now), and when the current build came from the same
    endpoint and model, its vectors must still have the build's width and probe vector (else
    EndpointDimensionError / EndpointModelChanged: reused vectors could not be mixed with new ones).
    Other configs: ``embedder`` as given."""
    if not is_remote(config.embedding_backend):
        return embedder
    remote: RemoteEmbedder = embedder or config.embedder()
    recorded = previous.manifest.embedding if previous is not None else {}
    if (
        previous is not None
        and not full_rebuild
        and recorded.get("model") == config.model
        and same_endpoint(recorded, config)
    ):
        remote.expect(recorded.get("dim"), recorded.get("fingerprint"))
        remote.verify()
    else:
        remote.fingerprint()
    return remote


def encode_work(
    work: EmbeddingWork,
    config: IngestConfig,
    embedder: Any,  # the run's RemoteEmbedder, or None: one from the config
    root: str | Path,
    progress: Callable[[str, int, int], None] | None = None,
) -> np.ndarray:
    """Vectors for ``work.missing_keys`` (rows in that order): from the journal of an unfinished
    run where it has them, the rest from the endpoint, journaled as they arrive."""
    if not work.missing_keys:
        return np.zeros((0, 0), dtype=np.float32)
    embedder = embedder or config.embedder()
    journal = EmbeddingJournal(Path(root), config.embedding_id, embedder.fingerprint())
    have = journal.load()
    todo = [i for i, key in enumerate(work.missing_keys) if key not in have]
    if len(todo) < len(work.missing_keys):
        log.info("resuming: %d vectors from an unfinished run's journal", len(work.missing_keys) - len(todo))
    for start in range(0, len(todo), JOURNAL_EVERY):
        rows = todo[start : start + JOURNAL_EVERY]
        keys = [work.missing_keys[i] for i in rows]
        vectors = embedder.encode_passages([work.texts[i] for i in rows])
        journal.append(keys, vectors)
        have.update(zip(keys, vectors, strict=True))
        if progress:
            progress("embed", min(start + JOURNAL_EVERY, len(todo)), len(todo))
    return np.stack([have[key] for key in work.missing_keys]).astype(np.float32)


def embedding_fields(config: IngestConfig, embedder: Any) -> dict[str, Any]:
    """What the manifest's ``embedding`` section adds for an endpoint (URL, input type, probe
    vector; never the key); {} for a local backend."""
    if not is_remote(config.embedding_backend):
        return {}
    return manifest_fields(embedder)
