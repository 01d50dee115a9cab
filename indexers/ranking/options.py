"""What one search asks for: the mode names (one definition for the library, the CLI, the server
and the evaluation) and ``SearchOptions``, the record of a search's keyword arguments
(``HybridIndex.search(q, k=..., mode=..., ...)`` and ``ShardedIndex.search`` build one from them)."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from indexers.ranking.collapse import DEFAULT_POLICY as DEFAULT_COLLAPSE
from indexers.ranking.collapse import check_policy

# Code in test files: fused scores are multiplied by this in hybrid search (bench/code_questions.py,
# docs/EVALUATION.md: tests of a function otherwise crowd out the function itself).
TEST_CODE_WEIGHT = 0.8
# How hybrid search fuses the two sides (indexers/ranking/fusion.py): "zscore" (standard scores,
# convex combination) or "rrf" (ranks only); "auto" (the default) lets the build's calibration
# choose (policy.Calibration.fusion_for; docs/EVALUATION.md "Fusion").
FUSIONS = ("auto", "zscore", "rrf")
DEFAULT_FUSION = "auto"


class Mode(enum.StrEnum):
    BM25 = "bm25"
    VECTOR = "vector"
    HYBRID = "hybrid"

    @classmethod
    def from_str(cls, value: str | Mode) -> Mode:
        try:
            return cls(value)
        except ValueError:
            raise ValueError(
                f"unknown mode {value!r}; expected one of: {', '.join(m.value for m in cls)}"
            ) from None

    @classmethod
    def names(cls) -> list[str]:
        """The mode names in their usual order of mention: hybrid (the default), bm25, vector."""
        return [cls.HYBRID.value, cls.BM25.value, cls.VECTOR.value]


@dataclass(frozen=True)
class SearchOptions:
    """A search's options (HybridIndex.search documents each). ``timeout`` is read by a sharded
    root only (seconds each round waits for its shards; None: the index's default)."""

    k: int = 10
    mode: Mode = Mode.HYBRID
    fetch_k: int = 100
    rrf_k: float | None = None
    weights: Mapping[str, float] | None = None
    filters: Mapping[str, Any] | None = None
    abstain: bool = True
    rerank: Any = None  # a docmill.rerank.RerankerLike
    rerank_k: int = 30
    test_code_weight: float = TEST_CODE_WEIGHT
    probe: int | None = None
    collapse: str = DEFAULT_COLLAPSE
    timeout: float | None = None
    fusion: str = DEFAULT_FUSION

    def __post_init__(self) -> None:
        object.__setattr__(self, "mode", Mode.from_str(self.mode))
        check_policy(self.collapse)
        if self.fusion not in FUSIONS:
            raise ValueError(f"unknown fusion {self.fusion!r}; expected one of: {', '.join(FUSIONS)}")
        if self.probe is not None and self.probe <= 0:
            raise ValueError(f"probe must be positive, got {self.probe}")
        if self.k <= 0 or self.fetch_k <= 0:
            raise ValueError(f"k and fetch_k must be positive, got k={self.k}, fetch_k={self.fetch_k}")

    @classmethod
    def from_kwargs(cls, **options: Any) -> SearchOptions:
        """The options of ``search(q, **options)``; an unknown name is a TypeError naming it."""
        unknown = sorted(set(options) - _OPTION_NAMES)
        if unknown:
            raise TypeError(f"search() got unexpected keyword arguments: {', '.join(unknown)}")
        return cls(**options)

    @property
    def candidates(self) -> int:
        """How many candidates each side fetches: ``fetch_k``, at least ``k``."""
        return max(self.fetch_k, self.k)

    @property
    def depth(self) -> int:
        """How many places are ranked: ``k``, or the reranker's ``rerank_k`` when deeper."""
        return max(self.k, self.rerank_k) if self.rerank is not None else self.k


_OPTION_NAMES = frozenset(f.name for f in fields(SearchOptions))  # what from_kwargs accepts
