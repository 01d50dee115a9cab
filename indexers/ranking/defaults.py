"""Defaults of the ranking shared by the build (calibration, flows.builds) and the search (one
index, a sharded root): the per-retriever RRF weights a build without a calibration is searched
with. Read-only: copy it (``dict(DEFAULT_WEIGHTS)``) to change or store it."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

DEFAULT_WEIGHTS: Mapping[str, float] = MappingProxyType({"bm25": 1.0, "vector": 1.0})
