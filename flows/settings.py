"""What a run decides from its settings and the previous build: which model embeds (model
"auto" kept or chosen), whether the previous build's calibration may be kept, whether a run would
change nothing."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from chunkers.model import Chunk
from flows import endpoint, incremental
from flows.builds import make_tokenizer
from flows.config import IngestConfig
from flows.run import Progress
from indexers.build.manifest import Manifest
from indexers.build.sections import FusionSection, requested_vector_index
from indexers.dense import model_choice
from indexers.dense.embedder import backend_for
from indexers.dense.model_choice import AUTO_MODEL
from indexers.dense.windows import WINDOW_WIDTH, WINDOWS_VERSION
from indexers.ranking.abstain import VERSION as ABSTAIN_VERSION
from indexers.ranking.calibrate import VERSION as CALIBRATION_VERSION

log = logging.getLogger(__name__)

# Recalibrate the fusion weights when at least this share of the files was added, changed or removed.
RECALIBRATE_SHARE = 0.2


def reusable_fusion(
    previous: incremental.PreviousBuild | None,
    the_plan: incremental.Plan,
    config: IngestConfig,
    full_rebuild: bool,
) -> dict[str, Any] | None:
    """The previous build's calibrated fusion, if it was calibrated the same way (fusion and
    abstain calibration versions), on the same model, tokenizer and BM25 parameters, and under
    RECALIBRATE_SHARE of the files changed."""
    if previous is None or full_rebuild:
        return None
    m = previous.manifest
    same_retrievers = (
        same_embedding(m, config)
        and same_windows(m, config)
        and m.tokenizer == make_tokenizer(config).to_dict()
        and m.bm25 == {"k1": config.k1, "b": config.b}
    )
    fusion = FusionSection.read(m.extra)
    if not same_retrievers or not fusion.stored or fusion.version != CALIBRATION_VERSION:
        return None
    if (fusion.abstain or {}).get("version") != ABSTAIN_VERSION:
        return None  # abstaining calibrated an older way: the next ingest calibrates it again
    moved = len(the_plan.added) + len(the_plan.changed) + len(the_plan.removed)
    total = max(len(the_plan.unchanged) + len(the_plan.added) + len(the_plan.changed), 1)
    return fusion.to_dict() if moved / total < RECALIBRATE_SHARE else None


def embedding_info(config: IngestConfig, vectors: np.ndarray) -> dict:
    info = {
        "model": config.model,
        "dim": int(vectors.shape[1]),
        "normalized": True,
        "backend": config.embedding_backend,
    }
    if config.model_choice is not None:
        info["choice"] = dict(config.model_choice)
    return info


def keep_model(
    config: IngestConfig, previous: incremental.PreviousBuild | None, full_rebuild: bool
) -> IngestConfig:
    """Model "auto" on an index with a current build: that build's model (an incremental run never
    switches models; --full-rebuild decides again), on its backend unless another than the default
    was asked for. Any other config is returned as it is."""
    if config.model != AUTO_MODEL or previous is None or full_rebuild:
        return config
    choice = model_choice.kept_choice(previous.manifest.embedding)
    if config.embedding_backend != "torch":
        choice["backend"] = backend_for(choice["model"], config.embedding_backend)
    return dataclasses.replace(
        config, model=choice["model"], embedding_backend=choice["backend"], model_choice=choice
    )


def announce_model(config: IngestConfig, progress: Progress | None) -> None:
    """Tell a progress display which model embeds (stage ``model:NAME (BACKEND)``), once it is
    known: model "auto" is resolved only after chunking."""
    if progress is not None and config.model != AUTO_MODEL:
        progress(f"model:{config.model} ({config.embedding_backend})", 0, 0)


def choose_model(config: IngestConfig, chunks: Sequence[Chunk]) -> IngestConfig:
    """Model "auto" resolved from the corpus's chunks (indexers.dense.model_choice), logged."""
    if config.model != AUTO_MODEL:
        return config
    choice = model_choice.choose_model([c.index_text for c in chunks])
    if choice["backend"] == "torch":  # MiniLM: on the backend asked for (torch, onnx, onnx-int8)
        choice["backend"] = config.embedding_backend
    log.info("embedding model %s (%s): %s", choice["model"], choice["backend"], choice["reason"])
    return dataclasses.replace(
        config, model=choice["model"], embedding_backend=choice["backend"], model_choice=choice
    )


def same_embedding(manifest: Manifest, config: IngestConfig) -> bool:
    model = manifest.embedding.get("model")
    same = model == config.model and manifest.embedding_backend == config.embedding_backend
    return bool(same and endpoint.same_endpoint(manifest.embedding, config))


def windows_info(config: IngestConfig) -> dict[str, int] | None:
    """The manifest's record of how the build's chunks were cut into sentence windows
    (indexers.dense.windows), or None when the config makes none."""
    return {"version": WINDOWS_VERSION, "width": WINDOW_WIDTH} if config.windows else None


def same_windows(manifest: Manifest, config: IngestConfig) -> bool:
    """Whether ``manifest``'s build has the windows ``config`` asks for. When not (a build from
    before windows, or windows cut another way), the next ingest is a whole build: every chunk
    reused, their windows embedded, the calibrations made again with them."""
    return manifest.embedding.get("windows") == windows_info(config)


def check_model(config: IngestConfig) -> None:
    """Raise ModelUnavailable now if the config's model cannot load here (no hub retries). Model
    "auto" chooses between the two models that ship with docmill's dependencies: nothing to check."""
    if config.model == AUTO_MODEL:
        return
    check = getattr(config.embedder(), "check_available", None)
    if check is not None:
        check()


def settings_match(previous: incremental.PreviousBuild, config: IngestConfig, sources: Sequence[str]) -> bool:
    """Would a new build differ from ``previous`` only in its name? (Used to skip no-op runs.) A
    build whose fusion or abstaining was calibrated an older way would not: the run calibrates it
    again (nothing is embedded again), so an upgrade applies to an unchanged tree too."""
    m = previous.manifest
    fusion = FusionSection.read(m.extra)
    return (
        previous.reusable
        and not previous.stale_parsers
        and same_embedding(m, config)
        and m.tokenizer == make_tokenizer(config).to_dict()
        and m.bm25 == {"k1": config.k1, "b": config.b}
        and m.sources == [str(s) for s in sources]
        and fusion.version == CALIBRATION_VERSION
        and (fusion.abstain or {}).get("version") == ABSTAIN_VERSION
        and requested_vector_index(m.extra) == config.vector_index
        and same_windows(m, config)
    )


def is_noop(
    the_plan: incremental.Plan,
    previous: incremental.PreviousBuild | None,
    config: IngestConfig,
    sources: Sequence[str],
) -> bool:
    """Nothing changed since ``previous`` (same files, same settings): a new build would be a copy."""
    return previous is not None and the_plan.is_noop and settings_match(previous, config, sources)
