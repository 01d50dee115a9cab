"""The sections of ``Manifest.extra``: each key named once, each section read back through one
typed reader. The JSON on disk is unchanged: a reader takes the stored dict as it is (old builds
open), and ``to_dict`` gives back the dict it was read from.

| key | written by | section |
|---|---|---|
| ``fusion`` | calibration (indexers/ranking/calibrate.py, abstain.py) | FusionSection |
| ``vectors`` | the vector index spec (indexers/dense/ann.py) | ``vector_spec``, ``requested_vector_index`` |
| ``graph`` | indexers/build/graph_file.py's summary | GraphSection |
| ``reuse_key`` | what chunks depend on besides file bytes (flows/incremental.py) | ``reuse_key`` |
| ``incremental`` | the plan of an incremental run, its stage timings | ``section`` |
| ``segments`` | an incremental build's segments and merges | ``section`` |
| ``quality_gate`` | the quality gate's verdict | ``section`` |
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from indexers.dense.ann import MANIFEST_KEY as VECTORS_KEY
from indexers.dense.ann import VectorIndexSpec
from indexers.ranking.defaults import DEFAULT_WEIGHTS

FUSION_KEY = "fusion"
ABSTAIN_KEY = "abstain"  # inside the fusion section
GRAPH_KEY = "graph"
REUSE_KEY = "reuse_key"
INCREMENTAL_KEY = "incremental"
SEGMENTS_KEY = "segments"
GATE_KEY = "quality_gate"

__all__ = [
    "ABSTAIN_KEY",
    "DEFAULT_RRF_K",
    "DEFAULT_WEIGHTS",
    "FUSION_KEY",
    "GATE_KEY",
    "GRAPH_KEY",
    "INCREMENTAL_KEY",
    "REUSE_KEY",
    "SEGMENTS_KEY",
    "VECTORS_KEY",
    "FusionSection",
    "GraphSection",
    "requested_vector_index",
    "reuse_key",
    "section",
    "vector_spec",
]

DEFAULT_RRF_K = 60.0


def section(extra: Mapping[str, Any], key: str) -> dict[str, Any]:
    """The section ``key`` as a dict ({} when absent or not a dict)."""
    value = extra.get(key)
    return dict(value) if isinstance(value, Mapping) else {}


@dataclass(frozen=True)
class FusionSection:
    """``extra["fusion"]``: the fusion settings calibrated at build time (with their evidence, kept
    in ``raw``) and the abstain model's calibration."""

    rrf_k: float = DEFAULT_RRF_K
    weights: Mapping[str, float] | None = None
    bm25_coverage_power: float | None = None
    abstain: Mapping[str, Any] | None = None
    version: int | None = None
    method: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> FusionSection:
        data = data or {}
        power = data.get("bm25_coverage_power")
        return cls(
            rrf_k=float(data.get("rrf_k", DEFAULT_RRF_K)),
            weights=dict(data["weights"]) if data.get("weights") else None,
            bm25_coverage_power=float(power) if power is not None else None,
            abstain=data.get(ABSTAIN_KEY),
            version=data.get("version"),
            method=data.get("method"),
            raw=dict(data),
        )

    @classmethod
    def read(cls, extra: Mapping[str, Any]) -> FusionSection:
        return cls.from_dict(extra.get(FUSION_KEY))

    def to_dict(self) -> dict[str, Any]:
        return dict(self.raw)

    @property
    def stored(self) -> bool:
        return bool(self.raw)

    @property
    def fusion_weights(self) -> dict[str, float]:
        """The calibrated per-retriever weights (1, 1 if none were stored)."""
        return dict(self.weights) if self.weights else dict(DEFAULT_WEIGHTS)


@dataclass(frozen=True)
class GraphSection:
    """``extra["graph"]``: the summary of the build's ``graph.jsonl`` (indexers/build/graph_file.py)."""

    version: Any
    files: int = 0
    definitions: int = 0
    references: int = 0

    @classmethod
    def read(cls, extra: Mapping[str, Any]) -> GraphSection | None:
        """None when the build stored no graph."""
        info = extra.get(GRAPH_KEY)
        if not isinstance(info, Mapping):
            return None
        counts = {name: int(info.get(name, 0)) for name in ("files", "definitions", "references")}
        return cls(info.get("version"), **counts)

    def to_dict(self) -> dict[str, Any]:
        counts = {"files": self.files, "definitions": self.definitions, "references": self.references}
        return {"version": self.version, **counts}


def vector_spec(extra: Mapping[str, Any]) -> VectorIndexSpec:
    """``extra["vectors"]``: the vector index built for the build's largest segment (flat for a
    build from before it was recorded)."""
    return VectorIndexSpec.from_json(extra.get(VECTORS_KEY))


def requested_vector_index(extra: Mapping[str, Any]) -> str:
    """What the ingest asked for ("auto" or a kind), so a re-ingest can tell a changed setting."""
    return str(section(extra, VECTORS_KEY).get("requested", "auto"))


def reuse_key(extra: Mapping[str, Any]) -> Any:
    """``extra["reuse_key"]``: what the build's chunks depend on besides the file bytes."""
    return extra.get(REUSE_KEY)
