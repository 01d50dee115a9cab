"""Ranking defaults shared by the build (flows.builds) and the search side."""

from __future__ import annotations

# Fusion weights when a build has no calibration (indexers.ranking.calibrate): both retrievers
# count the same. A shared object: copy it (dict(DEFAULT_WEIGHTS)) before changing or storing it.
DEFAULT_WEIGHTS: dict[str, float] = {"bm25": 1.0, "vector": 1.0}
