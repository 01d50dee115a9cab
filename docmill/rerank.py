"""Optional second stage: re-order fused hits with a sentence-transformers cross-encoder here, or
with a Cohere-style ``/rerank`` endpoint (docmill.rerank_endpoint).

Off by default (issue 5): a cross-encoder reads query and chunk together, which is slower than
both retrievers combined, and no cross-encoder ships offline. The model loads on first use, so
importing this module costs nothing.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence
from typing import Any, Protocol

from docmill.hits import Hit
from indexers.dense.embedder import ModelUnavailable, resolve_model


def apply_scores(hits: Sequence[Hit], scores: Sequence[float], top_n: int | None = None) -> list[Hit]:
    """``hits`` ordered by ``scores`` (highest first), each carrying its rerank score in ``score``
    and ``explain``. The sort is stable, so tied hits keep their fused order."""
    if len(scores) != len(hits):
        raise ValueError(f"got {len(scores)} rerank scores for {len(hits)} hits")
    _check_top_n(top_n)
    order = sorted(range(len(hits)), key=lambda i: -scores[i])
    if top_n is not None:
        order = order[:top_n]
    out = []
    for i in order:
        score = float(scores[i])
        explain = f"{hits[i].explain} rerank={score:.3f}".lstrip()
        out.append(dataclasses.replace(hits[i], score=score, explain=explain))
    return out


class RerankFailed(RuntimeError):
    """The reranker could not score these hits (endpoint down, timeout, bad answer): search keeps
    the fused order and says why in the result's notes."""


class RerankerLike(Protocol):
    """What HybridIndex.search needs of a reranker: Reranker or docmill.rerank_endpoint's."""

    def rerank(self, query: str, hits: Sequence[Hit], top_n: int | None = None) -> list[Hit]: ...


def rerank_or_fused(
    reranker: RerankerLike, query: str, hits: Sequence[Hit], k: int, notes: list[str]
) -> list[Hit]:
    """The reranked top ``k``; on RerankFailed the fused top ``k``, with the reason in ``notes``."""
    try:
        return reranker.rerank(query, hits, top_n=k)
    except RerankFailed as exc:
        notes.append(f"rerank skipped, fused order kept: {exc}")
        return list(hits[:k])


def _check_top_n(top_n: int | None) -> None:
    if top_n is not None and top_n < 0:
        raise ValueError(f"top_n must be >= 0 or None, got {top_n}")


class Reranker:
    """Scores (query, ``hit.chunk.index_text``) pairs with ``CrossEncoder(model)``; thread-safe.

    ``model`` is a local folder or a name sentence-transformers can find in its cache; a model it
    cannot load raises :class:`ModelUnavailable` on the first :meth:`rerank`, not here.
    """

    def __init__(self, model: str, batch_size: int = 16, device: str = "cpu") -> None:
        if batch_size <= 0:
            raise ValueError(f"Reranker batch_size must be positive, got {batch_size}")
        self.model_name, self.batch_size, self.device = model, batch_size, device
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def model(self) -> Any:
        """The loaded ``CrossEncoder`` (loaded on first access)."""
        with self._lock:
            if self._model is None:
                from sentence_transformers import CrossEncoder

                try:
                    self._model = CrossEncoder(resolve_model(self.model_name), device=self.device)
                except OSError as exc:  # what transformers raises for a missing or offline model
                    raise ModelUnavailable(
                        f"cross-encoder {self.model_name!r} cannot be loaded here: {exc}"
                    ) from exc
            return self._model

    def scores(self, query: str, hits: Sequence[Hit]) -> list[float]:
        """One cross-encoder score per hit, in the order given."""
        if not hits:
            return []
        pairs = [(query, hit.chunk.index_text) for hit in hits]
        raw = self.model.predict(pairs, batch_size=self.batch_size, show_progress_bar=False)
        return [float(s) for s in raw]

    def rerank(self, query: str, hits: Sequence[Hit], top_n: int | None = None) -> list[Hit]:
        """The ``top_n`` best of ``hits`` (all of them if None) by cross-encoder score; ties keep
        the fused order. Each hit's ``score`` becomes the cross-encoder score and its ``explain``
        gains ``rerank=<score>``; ranks and per-retriever scores are left as fused."""
        _check_top_n(top_n)
        return apply_scores(hits, self.scores(query, hits), top_n)
